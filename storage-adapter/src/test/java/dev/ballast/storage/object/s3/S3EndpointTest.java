package dev.ballast.storage.object.s3;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.head;
import static com.github.tomakehurst.wiremock.client.WireMock.put;
import static com.github.tomakehurst.wiremock.client.WireMock.putRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import dev.ballast.http.ResilientHttpClient;
import dev.ballast.testkit.LeakCheck;
import java.net.URI;
import java.net.http.HttpClient;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.SdkHttpFullRequest;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;

/**
 * How the S3 clients built from an {@link S3Endpoint} talk: signed as the server checks it, with the
 * payload's SHA-256 rather than aws-chunked framing, the SDK's retries off, writes that create a
 * version marked so the HTTP layer never repeats them, and a resilient client by default.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ExtendWith(LeakCheck.class)
class S3EndpointTest {

    private static final String ACCESS_KEY = "AKIDEXAMPLE";
    private static final String SECRET_KEY = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
    private static final String REGION = "eu-central-1";
    private static final String EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

    private static WireMockServer wireMock;
    private static HttpClient jdk;

    @BeforeAll
    static void startServer() {
        wireMock = new WireMockServer(options().dynamicPort().bindAddress("127.0.0.1"));
        wireMock.start();
        jdk = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    }

    @AfterAll
    static void stopServer() {
        wireMock.stop();
    }

    @BeforeEach
    void reset() {
        wireMock.resetAll();
        wireMock.stubFor(any(anyUrl()).willReturn(aResponse().withStatus(200).withHeader("ETag", "\"e\"")));
    }

    private static S3Endpoint.Builder endpoint() {
        return S3Endpoint.newBuilder()
                .endpoint(URI.create("http://localhost:" + wireMock.port()))
                .region(REGION)
                .credentials(ACCESS_KEY, SECRET_KEY)
                .httpClient(jdk);
    }

    @Test
    void theServerFindsTheSignatureOfWhatItReceivedValid() {
        wireMock.stubFor(put(urlPathEqualTo("/bucket/dir/key.bin"))
                .willReturn(
                        aResponse().withStatus(200).withHeader("ETag", "\"e\"").withHeader("x-amz-version-id", "v1")));
        wireMock.stubFor(head(urlPathEqualTo("/bucket/dir/key.bin"))
                .willReturn(
                        aResponse().withStatus(200).withHeader("ETag", "\"e\"").withHeader("Content-Length", "3")));

        try (S3Client s3 = endpoint().build().newClient()) {
            PutObjectResponse put = s3.putObject(
                    b -> b.bucket("bucket").key("dir/key.bin"), RequestBody.fromBytes("abc".getBytes(UTF_8)));
            HeadObjectResponse head = s3.headObject(b -> b.bucket("bucket").key("dir/key.bin"));
            assertThat(put.versionId()).isEqualTo("v1");
            assertThat(head.contentLength()).isEqualTo(3L);
        }

        List<LoggedRequest> received = wireMock.findAll(anyRequestedFor(anyUrl()));
        assertThat(received).hasSize(2);
        for (LoggedRequest request : received) {
            SigV4.Authorization authorization = SigV4.parse(request.getHeader("Authorization"));
            assertThat(authorization.signedHeaders()).contains("host", "x-amz-date", "x-amz-content-sha256");
            assertThat(request.getHeader("Host")).isEqualTo("localhost:" + wireMock.port());
            assertThat(SigV4.expectedSignature(request, authorization, SECRET_KEY))
                    .as("signature of %s %s as received", request.getMethod(), request.getUrl())
                    .isEqualTo(authorization.signature());
        }
        LoggedRequest putRequest = received.stream()
                .filter(r -> r.getMethod().getName().equals("PUT"))
                .findFirst()
                .orElseThrow();
        assertThat(SigV4.parse(putRequest.getHeader("Authorization")).signedHeaders())
                .contains("content-length");
    }

    /**
     * Ceph RGW 16 refused a zero-byte PUT sent as aws-chunked ({@code STREAMING-AWS4-HMAC-SHA256-PAYLOAD}
     * framing around no data) with {@code 400 XAmzContentSHA256Mismatch}: every body goes as itself with
     * its SHA-256 signed, the empty one included.
     */
    @Test
    void bodiesGoAsThemselvesWithTheirSha256SignedNeverAwsChunked() throws Exception {
        try (S3Client s3 = endpoint().build().newClient()) {
            s3.putObject(b -> b.bucket("bucket").key("empty"), RequestBody.empty());
            s3.putObject(b -> b.bucket("bucket").key("five"), RequestBody.fromBytes("abcde".getBytes(UTF_8)));
        }

        LoggedRequest empty = wireMock.findAll(putRequestedFor(urlPathEqualTo("/bucket/empty")))
                .get(0);
        LoggedRequest five = wireMock.findAll(putRequestedFor(urlPathEqualTo("/bucket/five")))
                .get(0);
        assertThat(empty.getHeader("x-amz-content-sha256")).isEqualTo(EMPTY_SHA256);
        assertThat(empty.getHeader("Content-Length")).isEqualTo("0");
        assertThat(empty.getBody()).isEmpty();
        assertThat(five.getHeader("x-amz-content-sha256"))
                .isEqualTo(HexFormat.of()
                        .formatHex(MessageDigest.getInstance("SHA-256").digest("abcde".getBytes(UTF_8))));
        assertThat(five.getBody()).isEqualTo("abcde".getBytes(UTF_8));
        for (LoggedRequest r : List.of(empty, five)) {
            assertThat(r.containsHeader("Content-Encoding"))
                    .as("aws-chunked content coding")
                    .isFalse();
            assertThat(r.containsHeader("x-amz-decoded-content-length")).isFalse();
            assertThat(r.containsHeader("x-amz-trailer")).isFalse();
        }
    }

    @Test
    void sessionCredentialsSendASignedSecurityToken() {
        wireMock.stubFor(head(urlPathEqualTo("/bucket/key"))
                .willReturn(
                        aResponse().withStatus(200).withHeader("ETag", "\"e\"").withHeader("Content-Length", "0")));

        try (S3Client s3 = endpoint()
                .credentials(ACCESS_KEY, SECRET_KEY, "session-token")
                .build()
                .newClient()) {
            s3.headObject(b -> b.bucket("bucket").key("key"));
        }

        LoggedRequest received = wireMock.findAll(anyRequestedFor(anyUrl())).get(0);
        SigV4.Authorization authorization = SigV4.parse(received.getHeader("Authorization"));
        assertThat(received.getHeader("X-Amz-Security-Token")).isEqualTo("session-token");
        assertThat(authorization.signedHeaders()).contains("x-amz-security-token");
        assertThat(SigV4.expectedSignature(received, authorization, SECRET_KEY)).isEqualTo(authorization.signature());
    }

    @Test
    void theSdksRetriesAreOffSoA503ReachesTheServerOnce() {
        wireMock.stubFor(
                put(urlPathEqualTo("/bucket/key"))
                        .willReturn(
                                aResponse()
                                        .withStatus(503)
                                        .withBody(
                                                "<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>")));

        try (S3Client s3 = endpoint().build().newClient()) {
            assertThatThrownBy(() -> s3.putObject(b -> b.bucket("bucket").key("key"), RequestBody.fromString("x")))
                    .hasMessageContaining("503");
        }

        assertThat(wireMock.findAll(anyRequestedFor(anyUrl()))).hasSize(1);
    }

    @Test
    void withoutACallersHttpClientTheOneRetryingLayerIsAResilientHttpClient() {
        wireMock.stubFor(put(urlPathEqualTo("/bucket/part"))
                .inScenario("s")
                .whenScenarioStateIs("Started")
                .willReturn(aResponse().withStatus(503))
                .willSetStateTo("ok"));
        wireMock.stubFor(put(urlPathEqualTo("/bucket/part"))
                .inScenario("s")
                .whenScenarioStateIs("ok")
                .willReturn(aResponse().withStatus(200).withHeader("ETag", "\"e\"")));
        S3Endpoint endpoint = S3Endpoint.newBuilder()
                .endpoint(URI.create("http://localhost:" + wireMock.port()))
                .credentials("key", "secret")
                .build();

        try (S3Client s3 = endpoint.newClient()) {
            s3.uploadPart(
                    b -> b.bucket("bucket").key("part").uploadId("u").partNumber(1), RequestBody.fromString("content"));
        }

        assertThat(endpoint.httpClient()).get().isInstanceOf(ResilientHttpClient.class);
        wireMock.verify(2, putRequestedFor(urlPathEqualTo("/bucket/part")));
    }

    @Test
    void writesThatCreateAVersionAreNonIdempotentWhileUploadPartAndReadsAreNot() {
        assertThat(VersionedBucketWrites.nonIdempotent(
                        request(SdkHttpMethod.PUT, "/b/k").build()))
                .as("PutObject")
                .isTrue();
        assertThat(VersionedBucketWrites.nonIdempotent(request(SdkHttpMethod.POST, "/b/k")
                        .putRawQueryParameter("uploadId", "u1")
                        .build()))
                .as("CompleteMultipartUpload")
                .isTrue();
        assertThat(VersionedBucketWrites.nonIdempotent(request(SdkHttpMethod.PUT, "/b/k")
                        .putRawQueryParameter("partNumber", "3")
                        .putRawQueryParameter("uploadId", "u1")
                        .build()))
                .as("UploadPart")
                .isFalse();
        assertThat(VersionedBucketWrites.nonIdempotent(
                        request(SdkHttpMethod.GET, "/b/k").build()))
                .isFalse();
        assertThat(VersionedBucketWrites.nonIdempotent(
                        request(SdkHttpMethod.HEAD, "/b/k").build()))
                .isFalse();
        assertThat(VersionedBucketWrites.nonIdempotent(
                        request(SdkHttpMethod.DELETE, "/b/k").build()))
                .isFalse();
    }

    @Test
    void invalidSettingsAreRefusedNamingTheSettingAndWhatIsAccepted() {
        assertThatThrownBy(() -> S3Endpoint.newBuilder().region(" ").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("region");
        assertThatThrownBy(() -> S3Endpoint.newBuilder()
                        .endpoint(URI.create("http://localhost:9000/?x=1"))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("endpoint must be");
        assertThatThrownBy(() -> S3Endpoint.newBuilder()
                        .endpoint(URI.create("ftp://localhost:9000"))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ftp://localhost:9000");
        assertThatThrownBy(
                        () -> S3Endpoint.newBuilder().credentials("", "secret").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("accessKey");
        assertThatThrownBy(() -> S3Endpoint.newBuilder().credentials(null, "secret"))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("accessKey");
        assertThatThrownBy(() -> S3ObjectStore.open(endpoint().build(), " ", S3StoreConfig.ofDefaults()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bucket");
    }

    @Test
    void pathStyleIsTheDefaultWithAnEndpointUri() {
        S3Endpoint e = S3Endpoint.newBuilder()
                .endpoint(URI.create("http://127.0.0.1:9000"))
                .build();

        assertThat(e.pathStyle()).isTrue();
        assertThat(e.region()).isEqualTo("us-east-1");
        assertThat(e.checksumMode()).isEqualTo(S3Endpoint.ChecksumMode.AUTO);
        assertThat(S3Endpoint.newBuilder().build().pathStyle()).isFalse();
    }

    private static SdkHttpFullRequest.Builder request(SdkHttpMethod method, String path) {
        return SdkHttpFullRequest.builder().method(method).uri(URI.create("http://localhost:9000" + path));
    }

    /**
     * A server-side check of AWS Signature Version 4 ("Authenticating Requests (AWS Signature
     * Version 4)", S3 API reference): rebuilds the canonical request from what the server received
     * and computes the signature the client should have sent.
     */
    static final class SigV4 {
        private SigV4() {}

        record Authorization(
                String accessKey,
                String date,
                String region,
                String service,
                List<String> signedHeaders,
                String signature) {}

        static Authorization parse(String header) {
            assertThat(header).startsWith("AWS4-HMAC-SHA256 ");
            Map<String, String> parts = new TreeMap<>();
            for (String part : header.substring("AWS4-HMAC-SHA256 ".length()).split(",")) {
                String[] kv = part.trim().split("=", 2);
                parts.put(kv[0], kv[1]);
            }
            String[] scope = parts.get("Credential").split("/");
            return new Authorization(
                    scope[0],
                    scope[1],
                    scope[2],
                    scope[3],
                    List.of(parts.get("SignedHeaders").split(";")),
                    parts.get("Signature"));
        }

        static String expectedSignature(LoggedRequest request, Authorization auth, String secretKey) {
            String url = request.getUrl();
            int q = url.indexOf('?');
            String path = q < 0 ? url : url.substring(0, q);
            String query = q < 0 ? "" : canonicalQuery(url.substring(q + 1));
            StringBuilder canonicalHeaders = new StringBuilder();
            for (String name : auth.signedHeaders()) {
                List<String> values =
                        new ArrayList<>(request.getHeaders().getHeader(name).values());
                assertThat(values).as("signed header %s received", name).isNotEmpty();
                canonicalHeaders
                        .append(name)
                        .append(':')
                        .append(values.stream()
                                .map(v -> v.trim().replaceAll(" +", " "))
                                .collect(Collectors.joining(",")))
                        .append('\n');
            }
            String canonicalRequest = String.join(
                    "\n",
                    request.getMethod().getName(),
                    path,
                    query,
                    canonicalHeaders.toString(),
                    String.join(";", auth.signedHeaders()),
                    request.getHeader("x-amz-content-sha256"));
            String scope = String.join("/", auth.date(), auth.region(), auth.service(), "aws4_request");
            String stringToSign = String.join(
                    "\n",
                    "AWS4-HMAC-SHA256",
                    request.getHeader("x-amz-date"),
                    scope,
                    hex(sha256(canonicalRequest.getBytes(UTF_8))));
            byte[] key = hmac(("AWS4" + secretKey).getBytes(UTF_8), auth.date());
            key = hmac(key, auth.region());
            key = hmac(key, auth.service());
            key = hmac(key, "aws4_request");
            return hex(hmac(key, stringToSign));
        }

        private static String canonicalQuery(String rawQuery) {
            if (rawQuery.isEmpty()) {
                return "";
            }
            List<String> pairs = new ArrayList<>();
            for (String pair : rawQuery.split("&")) {
                pairs.add(pair.contains("=") ? pair : pair + "=");
            }
            pairs.sort(null);
            return String.join("&", pairs);
        }

        private static byte[] sha256(byte[] data) {
            try {
                return MessageDigest.getInstance("SHA-256").digest(data);
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException(e);
            }
        }

        private static byte[] hmac(byte[] key, String data) {
            try {
                Mac mac = Mac.getInstance("HmacSHA256");
                mac.init(new SecretKeySpec(key, "HmacSHA256"));
                return mac.doFinal(data.getBytes(UTF_8));
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException(e);
            }
        }

        private static String hex(byte[] bytes) {
            return HexFormat.of().formatHex(bytes);
        }
    }
}
