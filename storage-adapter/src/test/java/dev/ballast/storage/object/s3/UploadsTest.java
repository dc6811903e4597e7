package dev.ballast.storage.object.s3;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.containing;
import static com.github.tomakehurst.wiremock.client.WireMock.delete;
import static com.github.tomakehurst.wiremock.client.WireMock.deleteRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.head;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.put;
import static com.github.tomakehurst.wiremock.client.WireMock.putRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import dev.ballast.http.ForwardingHttpClient;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.internal.Payload;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.testkit.LeakCheck;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * What an upload sends and how it judges the answers: every body with the MD5 and SHA-256 of the
 * payload's one read (signed as the server checks it), parts in flight together, and a completion
 * with an attempt timeout of its own whose answer is checked against the parts sent.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ExtendWith(LeakCheck.class)
class UploadsTest {
    private static final String ACCESS_KEY = "AKIDEXAMPLE";
    private static final String SECRET_KEY = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
    private static final int MIB = 1024 * 1024;

    private static WireMockServer wireMock;

    @TempDir
    java.nio.file.Path dir;

    private final List<HttpRequest> sent = new CopyOnWriteArrayList<>();
    private final java.util.concurrent.atomic.AtomicInteger partsInFlight =
            new java.util.concurrent.atomic.AtomicInteger();
    private final java.util.concurrent.atomic.AtomicInteger maxPartsInFlight =
            new java.util.concurrent.atomic.AtomicInteger();
    private final java.util.concurrent.CountDownLatch partsStarted = new java.util.concurrent.CountDownLatch(2);
    private final ExecutorService parts = Executors.newCachedThreadPool();
    private S3Endpoint endpoint;
    private S3Client s3;

    @BeforeAll
    static void startServer() {
        wireMock = new WireMockServer(options().dynamicPort().bindAddress("127.0.0.1"));
        wireMock.start();
    }

    @AfterAll
    static void stopServer() {
        wireMock.stop();
    }

    @BeforeEach
    void client() {
        wireMock.resetAll();
        HttpClient jdk =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        HttpClient recording = new ForwardingHttpClient() {
            @Override
            protected HttpClient delegate() {
                return jdk;
            }

            @Override
            public <T> CompletableFuture<HttpResponse<T>> sendAsync(
                    HttpRequest request, HttpResponse.BodyHandler<T> handler) {
                sent.add(request);
                boolean part = request.uri().getRawQuery() != null
                        && request.uri().getRawQuery().contains("partNumber=");
                if (!part) {
                    return super.sendAsync(request, handler);
                }
                int now = partsInFlight.incrementAndGet();
                maxPartsInFlight.accumulateAndGet(now, Math::max);
                partsStarted.countDown();
                try {
                    // Each part waits (boundedly) until two are in flight, so parts sent one after the other
                    // would show as a maximum of one.
                    partsStarted.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return super.sendAsync(request, handler).whenComplete((r, e) -> partsInFlight.decrementAndGet());
            }
        };
        endpoint = S3Endpoint.newBuilder()
                .endpoint(URI.create("http://localhost:" + wireMock.port()))
                .credentials(ACCESS_KEY, SECRET_KEY)
                .httpClient(recording)
                .build();
        s3 = endpoint.newClient();
    }

    @AfterEach
    void close() {
        s3.close();
        parts.shutdownNow();
    }

    private Uploads uploads(S3StoreConfig config) {
        return uploads(config, true);
    }

    /** With {@code contentMd5} false, as on an endpoint that validates the signed payload hash. */
    private Uploads uploads(S3StoreConfig config, boolean contentMd5) {
        return new Uploads(
                s3,
                "bucket",
                config,
                false,
                endpoint.plainHttp(),
                contentMd5,
                endpoint.describe(),
                parts,
                endpoint.attemptTimeouts());
    }

    private final List<Duration> pauses = new CopyOnWriteArrayList<>();

    private S3StoreConfig multipartConfig() {
        return S3StoreConfig.builder()
                .partSize(5 * MIB)
                .multipartThreshold(5 * MIB)
                .partConcurrency(2)
                .sleeper(pauses::add)
                .build();
    }

    private static byte[] bytes(int n) {
        byte[] b = new byte[n];
        new SplittableRandom(n).nextBytes(b);
        return b;
    }

    private static byte[] digest(String algorithm, byte[] data, int from, int to) throws Exception {
        MessageDigest d = MessageDigest.getInstance(algorithm);
        d.update(data, from, to - from);
        return d.digest();
    }

    private static void assertSignedAndHashed(LoggedRequest r) throws Exception {
        byte[] body = r.getBody();
        assertThat(r.getHeader("Content-MD5"))
                .as("Content-MD5 of %s", r.getUrl())
                .isEqualTo(Base64.getEncoder().encodeToString(digest("MD5", body, 0, body.length)));
        assertSignedSha256(r);
        assertThat(S3EndpointTest.SigV4.parse(r.getHeader("Authorization")).signedHeaders())
                .contains("content-md5");
    }

    /** The body's SHA-256 signed as its payload hash, with a valid signature. */
    private static void assertSignedSha256(LoggedRequest r) throws Exception {
        byte[] body = r.getBody();
        assertThat(r.getHeader("x-amz-content-sha256"))
                .as("signed payload hash of %s", r.getUrl())
                .isEqualTo(HexFormat.of().formatHex(digest("SHA-256", body, 0, body.length)));
        S3EndpointTest.SigV4.Authorization auth = S3EndpointTest.SigV4.parse(r.getHeader("Authorization"));
        assertThat(auth.signedHeaders()).contains("x-amz-content-sha256");
        assertThat(S3EndpointTest.SigV4.expectedSignature(r, auth, SECRET_KEY))
                .as("signature of %s", r.getUrl())
                .isEqualTo(auth.signature());
    }

    private Payload payload(byte[] data, Uploads uploads) throws Exception {
        java.nio.file.Path file = java.nio.file.Files.write(dir.resolve("content"), data);
        return Payload.prepare(ObjectContent.ofFile(file), dir, uploads.digestsFor(data.length));
    }

    private static final Map<String, String> METADATA = Map.of(S3ObjectStore.META_PUT_TOKEN, "token-1");

    /** The content of a single PUT to "key", which the server accepts as version v1. */
    private static byte[] singlePutOf100000Bytes() {
        wireMock.stubFor(put(urlPathEqualTo("/bucket/key"))
                .willReturn(
                        aResponse().withStatus(200).withHeader("ETag", "\"e\"").withHeader("x-amz-version-id", "v1")));
        return bytes(100_000);
    }

    @Test
    void aSinglePutCarriesTheMd5AndSha256OfTheOneReadWithAValidSignature() throws Exception {
        byte[] data = singlePutOf100000Bytes();
        Uploads uploads = uploads(S3StoreConfig.ofDefaults());

        Uploads.Written written;
        try (Payload p = payload(data, uploads)) {
            written = uploads.upload("key", p, METADATA, WriteCondition.NONE);
        }

        assertThat(written.versionId()).isEqualTo("v1");
        LoggedRequest putRequest =
                wireMock.findAll(putRequestedFor(urlPathEqualTo("/bucket/key"))).get(0);
        assertThat(putRequest.getBody()).isEqualTo(data);
        assertSignedAndHashed(putRequest);
    }

    @Test
    void whereTheSignedPayloadHashIsValidatedASinglePutCarriesItsSignedSha256AndNoMd5() throws Exception {
        byte[] data = singlePutOf100000Bytes();
        Uploads uploads = uploads(S3StoreConfig.ofDefaults(), false);

        try (Payload p = payload(data, uploads)) {
            assertThatThrownBy(() -> p.md5(0)).as("no MD5 computed").isInstanceOf(IllegalStateException.class);
            uploads.upload("key", p, METADATA, WriteCondition.NONE);
        }

        LoggedRequest putRequest =
                wireMock.findAll(putRequestedFor(urlPathEqualTo("/bucket/key"))).get(0);
        assertThat(putRequest.getBody()).isEqualTo(data);
        assertThat(putRequest.containsHeader("Content-MD5")).isFalse();
        assertSignedSha256(putRequest);
    }

    @Test
    void whereTheSignedPayloadHashIsValidatedPartsCarryNoMd5AndTheCompletionIsCheckedAgainstThePartETags()
            throws Exception {
        byte[] data = bytes(11 * MIB);
        stubMultipart(multipartETag(data, 5 * MIB));
        for (int part = 1; part <= 3; part++) {
            int from = (part - 1) * 5 * MIB;
            String md5 = HexFormat.of().formatHex(digest("MD5", data, from, Math.min(data.length, from + 5 * MIB)));
            wireMock.stubFor(put(urlPathEqualTo("/bucket/big"))
                    .withQueryParam("partNumber", com.github.tomakehurst.wiremock.client.WireMock.equalTo("" + part))
                    .willReturn(aResponse().withStatus(200).withHeader("ETag", "\"" + md5 + "\"")));
        }
        Uploads uploads = uploads(multipartConfig(), false);

        try (Payload p = payload(data, uploads)) {
            assertThat(uploads.upload("big", p, METADATA, WriteCondition.NONE).versionId())
                    .isEqualTo("v9");
        }

        List<LoggedRequest> partRequests = wireMock.findAll(putRequestedFor(urlPathEqualTo("/bucket/big")));
        assertThat(partRequests).hasSize(3);
        for (LoggedRequest r : partRequests) {
            assertThat(r.containsHeader("Content-MD5")).isFalse();
            assertSignedSha256(r);
        }
    }

    @Test
    void withoutMd5sACompletionWhoseETagIsNotTheMd5OfThePartETagsIsAnIntegrityFailure() throws Exception {
        byte[] data = bytes(11 * MIB);
        stubMultipart("\"0123456789abcdef0123456789abcdef-3\"");
        wireMock.stubFor(put(urlPathEqualTo("/bucket/big"))
                .withQueryParam("uploadId", containing("u1"))
                .willReturn(aResponse().withStatus(200).withHeader("ETag", "\"" + "ab".repeat(16) + "\"")));
        Uploads uploads = uploads(multipartConfig(), false);

        try (Payload p = payload(data, uploads)) {
            assertThatThrownBy(() -> uploads.upload("big", p, METADATA, WriteCondition.NONE))
                    .isInstanceOf(IntegrityException.class)
                    .hasMessageContaining("0123456789abcdef0123456789abcdef-3");
        }
    }

    private void stubMultipart(String completeETag) {
        wireMock.stubFor(post(urlPathEqualTo("/bucket/big"))
                .withQueryParam("uploads", containing(""))
                .willReturn(aResponse()
                        .withStatus(200)
                        .withBody("<InitiateMultipartUploadResult><Bucket>bucket</Bucket>"
                                + "<Key>big</Key><UploadId>u1</UploadId></InitiateMultipartUploadResult>")));
        wireMock.stubFor(put(urlPathEqualTo("/bucket/big"))
                .withQueryParam("uploadId", containing("u1"))
                .willReturn(aResponse().withStatus(200).withHeader("ETag", "\"part\"")));
        wireMock.stubFor(post(urlPathEqualTo("/bucket/big"))
                .withQueryParam("uploadId", containing("u1"))
                .willReturn(aResponse()
                        .withStatus(200)
                        .withHeader("x-amz-version-id", "v9")
                        .withBody("<CompleteMultipartUploadResult><Bucket>bucket</Bucket><Key>big</Key><ETag>"
                                + completeETag + "</ETag></CompleteMultipartUploadResult>")));
        wireMock.stubFor(
                delete(urlPathEqualTo("/bucket/big")).willReturn(aResponse().withStatus(204)));
    }

    private static String multipartETag(byte[] data, int partSize) throws Exception {
        MessageDigest all = MessageDigest.getInstance("MD5");
        int count = 0;
        for (int from = 0; from < data.length; from += partSize, count++) {
            all.update(digest("MD5", data, from, Math.min(data.length, from + partSize)));
        }
        return "\"" + HexFormat.of().formatHex(all.digest()) + "-" + count + "\"";
    }

    @Test
    void everyPartCarriesItsMd5AndSha256AndTheCompletionGetsATimeoutGrowingWithItsParts() throws Exception {
        byte[] data = bytes(11 * MIB);
        stubMultipart(multipartETag(data, 5 * MIB));
        S3StoreConfig config = multipartConfig();
        Uploads uploads = uploads(config);

        Uploads.Written written;
        try (Payload p = payload(data, uploads)) {
            written = uploads.upload("big", p, METADATA, WriteCondition.NONE);
        }

        assertThat(written.versionId()).isEqualTo("v9");
        assertThat(maxPartsInFlight.get())
                .as("parts in flight at once, of 3 with partConcurrency 2")
                .isEqualTo(2);
        List<LoggedRequest> partRequests =
                new ArrayList<>(wireMock.findAll(putRequestedFor(urlPathEqualTo("/bucket/big"))));
        assertThat(partRequests).hasSize(3);
        partRequests.sort((a, b) -> a.queryParameter("partNumber")
                .firstValue()
                .compareTo(b.queryParameter("partNumber").firstValue()));
        for (int i = 0; i < 3; i++) {
            LoggedRequest r = partRequests.get(i);
            int from = i * 5 * MIB;
            assertThat(r.getBody())
                    .isEqualTo(java.util.Arrays.copyOfRange(data, from, Math.min(data.length, from + 5 * MIB)));
            assertSignedAndHashed(r);
        }
        LoggedRequest complete = wireMock.findAll(
                        postRequestedFor(urlPathEqualTo("/bucket/big")).withQueryParam("uploadId", containing("u1")))
                .get(0);
        assertThat(complete.getBodyAsString()).contains("<PartNumber>1</PartNumber>", "<PartNumber>3</PartNumber>");
        HttpRequest completeSent = sent.stream()
                .filter(r -> "POST".equals(r.method()) && r.uri().getRawQuery().contains("uploadId=u1"))
                .findFirst()
                .orElseThrow();
        assertThat(completeSent.timeout()).contains(config.completeTimeout(3));
        assertThat(sent.stream().filter(r -> r != completeSent))
                .allSatisfy(r -> assertThat(r.timeout()).isEmpty());
    }

    @Test
    void theCompletionTimeoutIsThirtySecondsAndATenthOfASecondPerPart() {
        S3StoreConfig defaults = S3StoreConfig.ofDefaults();

        assertThat(defaults.completeTimeout(1)).isEqualTo(Duration.ofMillis(30_100));
        assertThat(defaults.completeTimeout(320)).isEqualTo(Duration.ofSeconds(62));
        assertThat(defaults.completeTimeout(10_000)).isEqualTo(Duration.ofSeconds(1030));
        assertThat(S3StoreConfig.builder()
                        .completeTimeout(Duration.ofSeconds(5), Duration.ofSeconds(1))
                        .build()
                        .completeTimeout(10))
                .isEqualTo(Duration.ofSeconds(15));
    }

    @Test
    void aCompletionWhoseETagIsNotTheMd5OfThePartsSentIsAnIntegrityFailure() throws Exception {
        byte[] data = bytes(11 * MIB);
        stubMultipart("\"0123456789abcdef0123456789abcdef-3\"");
        Uploads uploads = uploads(multipartConfig());

        try (Payload p = payload(data, uploads)) {
            assertThatThrownBy(() -> uploads.upload("big", p, METADATA, WriteCondition.NONE))
                    .isInstanceOf(IntegrityException.class)
                    .hasMessageContaining("0123456789abcdef0123456789abcdef-3")
                    .hasMessageContaining(multipartETag(data, 5 * MIB));
        }
    }

    @Test
    void aCompletionWithAnotherETagFormIsCheckedByTheNewVersionsLengthAndPutToken() throws Exception {
        byte[] data = bytes(11 * MIB);
        stubMultipart("\"opaque\"");
        wireMock.stubFor(head(urlPathEqualTo("/bucket/big"))
                .willReturn(aResponse()
                        .withStatus(200)
                        .withHeader("Content-Length", Integer.toString(data.length))
                        .withHeader("ETag", "\"opaque\"")
                        .withHeader("x-amz-meta-ballast-put-token", "someone-else")));
        Uploads uploads = uploads(multipartConfig());

        try (Payload p = payload(data, uploads)) {
            assertThatThrownBy(() -> uploads.upload("big", p, METADATA, WriteCondition.NONE))
                    .isInstanceOf(IntegrityException.class)
                    .hasMessageContaining("someone-else");
        }
    }

    @Test
    void noSuchUploadFromTheCompletionIsAnAmbiguousOutcomeAndTheUploadIsNotAborted() throws Exception {
        byte[] data = bytes(11 * MIB);
        stubMultipart("\"x\"");
        wireMock.stubFor(post(urlPathEqualTo("/bucket/big"))
                .withQueryParam("uploadId", containing("u1"))
                .willReturn(aResponse()
                        .withStatus(404)
                        .withBody("<Error><Code>NoSuchUpload</Code>"
                                + "<Message>The specified upload does not exist.</Message></Error>")));
        Uploads uploads = uploads(multipartConfig());

        try (Payload p = payload(data, uploads)) {
            assertThatThrownBy(() -> uploads.upload("big", p, METADATA, WriteCondition.NONE))
                    .isInstanceOfSatisfying(
                            SdkClientException.class,
                            e -> assertThat(S3Errors.ambiguous(e)).isTrue())
                    .hasMessageContaining("NoSuchUpload");
        }
        wireMock.verify(0, deleteRequestedFor(urlPathEqualTo("/bucket/big")));
    }

    @Test
    void aCompletionThatFailsAmbiguouslyIsSentAgainAndTheVersionItMadeIsLookedUpByItsToken() throws Exception {
        byte[] data = bytes(11 * MIB);
        int completions = completedAgainAfterAFirstAnswerOf(
                data,
                aResponse()
                        .withStatus(500)
                        .withBody("<Error><Code>InternalError</Code>"
                                + "<Message>We encountered an internal error. Please try again.</Message></Error>"));
        assertThat(pauses).hasSize(completions - 1).containsOnly(S3StoreConfig.DEFAULT_STALE_READ_BACKOFF);
    }

    /**
     * Uploads {@code data} in parts whose first completion is answered {@code first} and the next ones with
     * success; asserts that the upload ends in an ambiguous failure that says a repeat succeeded (the repeat's
     * answer is not trusted to name the version: the caller reads it from the key), that the completion was
     * sent again within completeAttempts and that the upload was not aborted. Returns how many completions
     * were sent.
     */
    private int completedAgainAfterAFirstAnswerOf(
            byte[] data, com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder first) throws Exception {
        stubMultipart(multipartETag(data, 5 * MIB));
        wireMock.stubFor(post(urlPathEqualTo("/bucket/big"))
                .withQueryParam("uploadId", containing("u1"))
                .inScenario("complete")
                .whenScenarioStateIs(com.github.tomakehurst.wiremock.stubbing.Scenario.STARTED)
                .willReturn(first)
                .willSetStateTo("answered once"));
        Uploads uploads = uploads(multipartConfig());

        try (Payload p = payload(data, uploads)) {
            assertThatThrownBy(() -> uploads.upload("big", p, METADATA, WriteCondition.NONE))
                    .isInstanceOfSatisfying(
                            SdkClientException.class,
                            e -> assertThat(S3Errors.ambiguous(e)).isTrue())
                    .hasMessageContaining("succeeded on attempt");
        }
        int completions = wireMock.findAll(
                        postRequestedFor(urlPathEqualTo("/bucket/big")).withQueryParam("uploadId", containing("u1")))
                .size();
        assertThat(completions)
                .as("the completion sent again, within completeAttempts")
                .isBetween(2, 3);
        wireMock.verify(0, deleteRequestedFor(urlPathEqualTo("/bucket/big")));
        return completions;
    }

    /**
     * A completion answered {@code 200 OK} whose body breaks off: the SDK's XML parser let it through as an
     * {@link java.io.UncheckedIOException}, past the completion's retries and the caller's look for the version
     * it made, though the upload may well have completed (the answer had begun). It is an ambiguous outcome
     * like any other answer lost on the way: sent again, never aborted.
     */
    @Test
    void aCompletionWhoseAnswerBreaksOffIsSentAgainAsAnAmbiguousOutcome() throws Exception {
        completedAgainAfterAFirstAnswerOf(
                bytes(11 * MIB),
                aResponse()
                        .withStatus(200)
                        .withFault(com.github.tomakehurst.wiremock.http.Fault.MALFORMED_RESPONSE_CHUNK));
    }

    /**
     * The start of an upload whose answer breaks off (a fault tester's: a proxy that cut it after 5 bytes
     * failed the whole backup, exit 3, "EOF reached while reading"). It is sent again; the upload an earlier
     * attempt may have started holds no object and is swept by abortIncompleteUploads.
     */
    @Test
    void aStartOfAnUploadWhoseAnswerBreaksOffIsSentAgain() throws Exception {
        byte[] data = bytes(11 * MIB);
        stubMultipart(multipartETag(data, 5 * MIB));
        wireMock.stubFor(post(urlPathEqualTo("/bucket/big"))
                .withQueryParam("uploads", containing(""))
                .inScenario("create")
                .whenScenarioStateIs(com.github.tomakehurst.wiremock.stubbing.Scenario.STARTED)
                .willReturn(aResponse()
                        .withStatus(200)
                        .withFault(com.github.tomakehurst.wiremock.http.Fault.MALFORMED_RESPONSE_CHUNK))
                .willSetStateTo("answered once"));
        Uploads uploads = uploads(multipartConfig());

        Uploads.Written written;
        try (Payload p = payload(data, uploads)) {
            written = uploads.upload("big", p, METADATA, WriteCondition.NONE);
        }

        assertThat(written.versionId()).isEqualTo("v9");
        assertThat(wireMock.findAll(postRequestedFor(urlPathEqualTo("/bucket/big"))
                                .withQueryParam("uploads", containing("")))
                        .size())
                .isEqualTo(2);
        assertThat(pauses).containsExactly(S3StoreConfig.DEFAULT_STALE_READ_BACKOFF);
    }

    @Test
    void anErrorInTheBodyOfA200CompletionIsAnAmbiguousOutcomeAfterEveryAttempt() throws Exception {
        byte[] data = bytes(11 * MIB);
        stubMultipart("\"x\"");
        wireMock.stubFor(post(urlPathEqualTo("/bucket/big"))
                .withQueryParam("uploadId", containing("u1"))
                .willReturn(aResponse()
                        .withStatus(200)
                        .withBody("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error>"
                                + "<Code>InternalError</Code><Message>We encountered an internal error. Please try again.</Message>"
                                + "</Error>")));
        Uploads uploads = uploads(multipartConfig());

        try (Payload p = payload(data, uploads)) {
            assertThatThrownBy(() -> uploads.upload("big", p, METADATA, WriteCondition.NONE))
                    .isInstanceOfSatisfying(
                            SdkClientException.class,
                            e -> assertThat(S3Errors.ambiguous(e)).isTrue())
                    .hasMessageContaining("failed 3 times")
                    .hasMessageContaining("InternalError");
        }
        wireMock.verify(
                3, postRequestedFor(urlPathEqualTo("/bucket/big")).withQueryParam("uploadId", containing("u1")));
        wireMock.verify(0, deleteRequestedFor(urlPathEqualTo("/bucket/big")));
    }
}
