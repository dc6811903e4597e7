package dev.ballast.storage.object.s3;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.head;
import static com.github.tomakehurst.wiremock.client.WireMock.put;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static com.github.tomakehurst.wiremock.stubbing.Scenario.STARTED;
import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import dev.ballast.http.ResilientHttpClient;
import dev.ballast.http.retry.Backoff;
import dev.ballast.http.retry.Jitter;
import dev.ballast.http.retry.RetryConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpFullRequest;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;

/** What {@link JdkSdkHttpClient} puts on the wire and how it maps what comes back. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JdkSdkHttpClientTest {

    private static final String ACCESS_KEY = "AKIDEXAMPLE";
    private static final String SECRET_KEY = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
    private static final String REGION = "eu-central-1";

    private static WireMockServer wireMock;
    private static HttpClient jdk;
    private static ExecutorService executor;

    @BeforeAll
    static void startServer() {
        wireMock = new WireMockServer(options().dynamicPort().bindAddress("127.0.0.1"));
        wireMock.start();
        jdk = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        executor = Executors.newCachedThreadPool();
    }

    @AfterAll
    static void stopServer() {
        wireMock.stop();
        executor.shutdownNow();
    }

    @BeforeEach
    void reset() {
        wireMock.resetAll();
        wireMock.stubFor(any(anyUrl()).willReturn(aResponse().withStatus(200)));
    }

    @Test
    void knownLengthIsSentAsContentLengthNotChunked() throws IOException {
        byte[] body = "twelve bytes".getBytes(UTF_8);

        execute(JdkSdkHttpClient.create(jdk), sdkPut("/bucket/key", body, true));

        LoggedRequest received = single();
        assertThat(received.getHeader("Content-Length")).isEqualTo("12");
        assertThat(received.containsHeader("Transfer-Encoding")).isFalse();
        assertThat(received.getBody()).isEqualTo(body);
    }

    @Test
    void putThroughResilientHttpClientAnswered503ThenOkIsRetriedOnceWithIdenticalBytes() throws IOException {
        wireMock.resetAll();
        wireMock.stubFor(put(urlPathEqualTo("/bucket/retried")).inScenario("flaky").whenScenarioStateIs(STARTED)
                .willReturn(aResponse().withStatus(503)).willSetStateTo("recovered"));
        wireMock.stubFor(put(urlPathEqualTo("/bucket/retried")).inScenario("flaky").whenScenarioStateIs("recovered")
                .willReturn(aResponse().withStatus(200)));
        byte[] body = "the same bytes on every attempt".getBytes(UTF_8);
        ResilientHttpClient resilient = ResilientHttpClient.newBuilder()
                .retry(RetryConfig.builder().maxAttempts(3)
                        .backoff(Backoff.exponential(Duration.ofMillis(1), Duration.ofMillis(1), Jitter.NONE)).build())
                .build();
        try {
            HttpExecuteResponse response = execute(JdkSdkHttpClient.create(resilient),
                    sdkPut("/bucket/retried", body, true));

            assertThat(response.httpResponse().statusCode()).isEqualTo(200);
            List<LoggedRequest> received = wireMock.findAll(anyRequestedFor(anyUrl()));
            assertThat(received).hasSize(2);
            for (LoggedRequest attempt : received) {
                assertThat(attempt.getHeader("Content-Length")).isEqualTo(String.valueOf(body.length));
                assertThat(attempt.getBody()).isEqualTo(body);
            }
        } finally {
            resilient.shutdownNow();
        }
    }

    @Test
    void zeroBytePutSendsContentLengthZeroAndNoExpect() throws IOException {
        SdkHttpFullRequest request = sdkPut("/bucket/empty", new byte[0], true).toBuilder()
                .putHeader("Expect", "100-continue")
                .build();

        execute(JdkSdkHttpClient.create(jdk), request, ContentStreamProvider.fromByteArray(new byte[0]));

        LoggedRequest received = single();
        assertThat(received.getMethod().getName()).isEqualTo("PUT");
        assertThat(received.getHeader("Content-Length")).isEqualTo("0");
        assertThat(received.containsHeader("Transfer-Encoding")).isFalse();
        assertThat(received.containsHeader("Expect")).isFalse();
        assertThat(received.getBody()).isEmpty();
    }

    @Test
    void unknownLengthIsSentChunkedWithoutADuplicateTransferEncoding() throws IOException {
        byte[] body = "no length given".getBytes(UTF_8);
        SdkHttpFullRequest request = sdkPut("/bucket/key", body, false).toBuilder()
                .putHeader("Transfer-Encoding", "chunked")
                .build();

        execute(JdkSdkHttpClient.create(jdk), request, ContentStreamProvider.fromByteArray(body));

        LoggedRequest received = single();
        assertThat(received.getHeaders().getHeader("Transfer-Encoding").values()).containsExactly("chunked");
        assertThat(received.containsHeader("Content-Length")).isFalse();
        assertThat(received.getBody()).isEqualTo(body);
    }

    @Test
    void expectContinueIsSentWhenTheSdkAsksAndTheBodyIsNotEmpty() throws IOException {
        byte[] body = "content".getBytes(UTF_8);
        SdkHttpFullRequest request = sdkPut("/bucket/key", body, true).toBuilder()
                .putHeader("Expect", "100-continue")
                .build();

        HttpExecuteResponse response = execute(JdkSdkHttpClient.create(jdk), request,
                ContentStreamProvider.fromByteArray(body));

        assertThat(response.httpResponse().statusCode()).isEqualTo(200);
        LoggedRequest received = single();
        assertThat(received.getHeader("Expect")).isEqualToIgnoringCase("100-continue");
        assertThat(received.getBody()).isEqualTo(body);
    }

    @Test
    void expectContinueIsNotSentWhenTheSdkDidNotAsk() throws IOException {
        execute(JdkSdkHttpClient.create(jdk), sdkPut("/bucket/key", "content".getBytes(UTF_8), true));

        assertThat(single().containsHeader("Expect")).isFalse();
    }

    @Test
    void hostHeaderMatchesTheUriWithANonDefaultPort() throws IOException {
        String signedHost = "localhost:" + wireMock.port();
        SdkHttpFullRequest request = SdkHttpFullRequest.builder()
                .method(SdkHttpMethod.GET)
                .uri(URI.create("http://localhost:" + wireMock.port() + "/bucket/a%2Fb?versionId=v1"))
                .putHeader("Host", signedHost)
                .build();

        execute(JdkSdkHttpClient.create(jdk), request, null);

        LoggedRequest received = single();
        assertThat(received.getHeader("Host")).isEqualTo(signedHost);
        assertThat(received.getUrl()).isEqualTo("/bucket/a%2Fb?versionId=v1");
    }

    @Test
    void aHostHeaderTheJdkWouldNotSendIsRefusedBeforeAnythingIsSent() {
        SdkHttpFullRequest request = SdkHttpFullRequest.builder()
                .method(SdkHttpMethod.GET)
                .uri(URI.create("http://localhost:" + wireMock.port() + "/bucket/key"))
                .putHeader("Host", "bucket.example.com")
                .build();
        JdkSdkHttpClient client = JdkSdkHttpClient.create(jdk);

        assertThatThrownBy(() -> client.prepareRequest(HttpExecuteRequest.builder().request(request).build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bucket.example.com")
                .hasMessageContaining("localhost:" + wireMock.port());
        assertThat(wireMock.findAll(anyRequestedFor(anyUrl()))).isEmpty();
    }

    @Test
    void multiValuedResponseHeadersAreMappedCaseInsensitively() throws IOException {
        wireMock.stubFor(get(urlPathEqualTo("/bucket/key")).willReturn(aResponse()
                .withStatus(200)
                .withHeader("X-Amz-Meta-Tag", "first", "second")
                .withHeader("ETag", "\"abc\"")
                .withBody("body")));

        HttpExecuteResponse response = execute(JdkSdkHttpClient.create(jdk), sdkGet("/bucket/key"), null);

        assertThat(response.httpResponse().statusCode()).isEqualTo(200);
        assertThat(response.httpResponse().statusText()).contains("OK");
        assertThat(response.httpResponse().matchingHeaders("x-amz-meta-tag")).containsExactly("first", "second");
        assertThat(response.httpResponse().firstMatchingHeader("etag")).contains("\"abc\"");
        assertThat(readAll(response.responseBody().orElseThrow())).isEqualTo("body".getBytes(UTF_8));
    }

    @Test
    void aServerErrorIsAResponseNotAnException() throws IOException {
        wireMock.stubFor(get(urlPathEqualTo("/bucket/key")).willReturn(aResponse()
                .withStatus(500)
                .withBody("<Error><Code>InternalError</Code></Error>")));

        HttpExecuteResponse response = execute(JdkSdkHttpClient.create(jdk), sdkGet("/bucket/key"), null);

        assertThat(response.httpResponse().statusCode()).isEqualTo(500);
        assertThat(response.httpResponse().statusText()).contains("Internal Server Error");
        assertThat(new String(readAll(response.responseBody().orElseThrow()), UTF_8)).contains("InternalError");
    }

    @Test
    void headResponsesHaveNoBody() throws IOException {
        wireMock.stubFor(head(urlPathEqualTo("/bucket/key")).willReturn(aResponse()
                .withStatus(200)
                .withHeader("Content-Length", "5")
                .withHeader("ETag", "\"abc\"")));
        SdkHttpFullRequest request = sdkGet("/bucket/key").toBuilder().method(SdkHttpMethod.HEAD).build();

        HttpExecuteResponse response = execute(JdkSdkHttpClient.create(jdk), request, null);

        assertThat(response.responseBody()).isEmpty();
        assertThat(response.httpResponse().firstMatchingHeader("Content-Length")).contains("5");
        assertThat(single().getMethod().getName()).isEqualTo("HEAD");
    }

    @Test
    void theSamePreparedRequestCanBeExecutedTwiceWithTheSameBytes() throws IOException {
        byte[] body = "replayable content".getBytes(UTF_8);
        AtomicInteger streamsOpened = new AtomicInteger();
        ContentStreamProvider provider = () -> {
            streamsOpened.incrementAndGet();
            return new java.io.ByteArrayInputStream(body);
        };
        SdkHttpFullRequest request = sdkPut("/bucket/key", body, true);
        JdkSdkHttpClient client = JdkSdkHttpClient.create(jdk);

        execute(client, request, provider);
        execute(client, request, provider);

        List<LoggedRequest> received = wireMock.findAll(anyRequestedFor(anyUrl()));
        assertThat(received).hasSize(2);
        assertThat(received).allSatisfy(r -> assertThat(r.getBody()).isEqualTo(body));
        assertThat(streamsOpened).hasValue(2);
    }

    @Test
    void aLayerBelowThatResendsTheSameJdkRequestSendsFreshBytesEachTime() throws IOException {
        byte[] body = "sent by a retrying layer".getBytes(UTF_8);
        AtomicInteger streamsOpened = new AtomicInteger();
        ContentStreamProvider provider = () -> {
            streamsOpened.incrementAndGet();
            return new java.io.ByteArrayInputStream(body);
        };

        HttpExecuteResponse response = execute(JdkSdkHttpClient.create(new SendsTwiceHttpClient(jdk)),
                sdkPut("/bucket/key", body, true), provider);

        assertThat(response.httpResponse().statusCode()).isEqualTo(200);
        List<LoggedRequest> received = wireMock.findAll(anyRequestedFor(anyUrl()));
        assertThat(received).hasSize(2);
        assertThat(received).allSatisfy(r -> {
            assertThat(r.getHeader("Content-Length")).isEqualTo(String.valueOf(body.length));
            assertThat(r.getBody()).isEqualTo(body);
        });
        assertThat(streamsOpened).hasValue(2);
    }

    @Test
    void abortCancelsAnExchangeWaitingForItsResponse() throws Exception {
        try (SilentServer server = new SilentServer(false)) {
            ExecutableHttpRequest prepared = JdkSdkHttpClient.create(jdk)
                    .prepareRequest(HttpExecuteRequest.builder().request(getFrom(server.uri())).build());
            Future<HttpExecuteResponse> call = executor.submit(prepared::call);
            assertThat(server.requestReceived.await(20, TimeUnit.SECONDS)).isTrue();

            prepared.abort();

            assertThatThrownBy(() -> call.get(20, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(IOException.class);
            assertThat(server.connectionClosed.await(20, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void abortClosesAResponseBodyThatIsStillArriving() throws Exception {
        try (SilentServer server = new SilentServer(true)) {
            ExecutableHttpRequest prepared = JdkSdkHttpClient.create(jdk)
                    .prepareRequest(HttpExecuteRequest.builder().request(getFrom(server.uri())).build());
            HttpExecuteResponse response = prepared.call();
            InputStream body = response.responseBody().orElseThrow();
            assertThat(body.readNBytes(SilentServer.FIRST_BYTES.length)).isEqualTo(SilentServer.FIRST_BYTES);

            prepared.abort();

            assertThatThrownBy(body::read).isInstanceOf(IOException.class);
            assertThat(server.connectionClosed.await(20, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void aCallAfterAbortSendsNothing() throws Exception {
        ExecutableHttpRequest prepared = JdkSdkHttpClient.create(jdk)
                .prepareRequest(HttpExecuteRequest.builder().request(sdkGet("/bucket/key")).build());
        prepared.abort();

        assertThatThrownBy(prepared::call).isInstanceOf(IOException.class).hasMessageContaining("aborted");
        assertThat(wireMock.findAll(anyRequestedFor(anyUrl()))).isEmpty();
    }

    @Test
    void aResponseTimeoutSurfacesAsHttpTimeoutExceptionWithTheJdkCause() throws Exception {
        try (SilentServer server = new SilentServer(false)) {
            JdkSdkHttpClient client = JdkSdkHttpClient.builder(jdk).responseTimeout(Duration.ofMillis(300)).build();
            ExecutableHttpRequest prepared =
                    client.prepareRequest(HttpExecuteRequest.builder().request(getFrom(server.uri())).build());

            assertThatThrownBy(prepared::call)
                    .isInstanceOf(HttpTimeoutException.class)
                    .hasMessageContaining("GET " + server.uri())
                    .cause().isInstanceOf(HttpTimeoutException.class);
        }
    }

    @Test
    void aRefusedConnectionSurfacesAsConnectException() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        ExecutableHttpRequest prepared = JdkSdkHttpClient.create(jdk).prepareRequest(HttpExecuteRequest.builder()
                .request(getFrom(URI.create("http://127.0.0.1:" + closedPort + "/bucket/key"))).build());

        assertThatThrownBy(prepared::call)
                .isInstanceOf(ConnectException.class)
                .cause().isInstanceOf(ConnectException.class);
    }

    @Test
    void closeLeavesTheCallersHttpClientUsable() throws IOException {
        JdkSdkHttpClient client = JdkSdkHttpClient.create(jdk);
        client.close();

        HttpExecuteResponse response = execute(JdkSdkHttpClient.create(jdk), sdkGet("/bucket/key"), null);

        assertThat(response.httpResponse().statusCode()).isEqualTo(200);
    }

    @Test
    void invalidOptionsAreRefused() {
        assertThatThrownBy(() -> JdkSdkHttpClient.create(null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("httpClient");
        assertThatThrownBy(() -> JdkSdkHttpClient.builder(jdk).responseTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("responseTimeout");
    }

    /** The SDK signs what it sends; a server-side SigV4 check of what arrived must pass. */
    @ParameterizedTest
    @EnumSource(RequestChecksumCalculation.class)
    void sigV4SignsTheHostAndContentLengthTheServerReceived(RequestChecksumCalculation checksums) {
        wireMock.stubFor(put(urlPathEqualTo("/bucket/dir/key.bin")).willReturn(aResponse()
                .withStatus(200).withHeader("ETag", "\"e\"").withHeader("x-amz-version-id", "v1")));
        wireMock.stubFor(head(urlPathEqualTo("/bucket/dir/key.bin")).willReturn(aResponse()
                .withStatus(200).withHeader("ETag", "\"e\"").withHeader("Content-Length", "3")));
        byte[] content = "abc".getBytes(UTF_8);

        try (S3Client s3 = s3Client(checksums)) {
            PutObjectResponse put = s3.putObject(b -> b.bucket("bucket").key("dir/key.bin"), RequestBody.fromBytes(content));
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
                .filter(r -> r.getMethod().getName().equals("PUT")).findFirst().orElseThrow();
        assertThat(SigV4.parse(putRequest.getHeader("Authorization")).signedHeaders()).contains("content-length");
    }

    @Test
    void theSdksRetriesAreOffSoA503ReachesTheServerOnce() {
        wireMock.stubFor(put(urlPathEqualTo("/bucket/key")).willReturn(aResponse()
                .withStatus(503)
                .withBody("<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>")));

        try (S3Client s3 = s3Client(RequestChecksumCalculation.WHEN_REQUIRED)) {
            assertThatThrownBy(() -> s3.putObject(b -> b.bucket("bucket").key("key"), RequestBody.fromString("x")))
                    .hasMessageContaining("503");
        }

        assertThat(wireMock.findAll(anyRequestedFor(anyUrl()))).hasSize(1);
    }

    @Test
    void sessionCredentialsSendASignedSecurityToken() {
        wireMock.stubFor(head(urlPathEqualTo("/bucket/key")).willReturn(aResponse()
                .withStatus(200).withHeader("ETag", "\"e\"").withHeader("Content-Length", "0")));

        try (S3Client s3 = S3ClientFactory.builder(jdk)
                .endpoint(URI.create("http://localhost:" + wireMock.port()))
                .region(REGION)
                .credentials(ACCESS_KEY, SECRET_KEY, "session-token")
                .pathStyle(true)
                .build()) {
            s3.headObject(b -> b.bucket("bucket").key("key"));
        }

        LoggedRequest received = single();
        SigV4.Authorization authorization = SigV4.parse(received.getHeader("Authorization"));
        assertThat(received.getHeader("X-Amz-Security-Token")).isEqualTo("session-token");
        assertThat(authorization.signedHeaders()).contains("x-amz-security-token");
        assertThat(SigV4.expectedSignature(received, authorization, SECRET_KEY)).isEqualTo(authorization.signature());
    }

    @Test
    void factoryRefusesIncompleteOrInvalidSettings() {
        assertThatThrownBy(() -> S3ClientFactory.builder(jdk).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("region must be set");
        assertThatThrownBy(() -> S3ClientFactory.builder(jdk).region(" ").build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("region");
        assertThatThrownBy(() -> S3ClientFactory.builder(jdk).region(REGION)
                .endpoint(URI.create("http://localhost:9000/?x=1")).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("endpoint must be");
        assertThatThrownBy(() -> S3ClientFactory.builder(jdk).region(REGION)
                .endpoint(URI.create("ftp://localhost:9000")).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("ftp://localhost:9000");
        assertThatThrownBy(() -> S3ClientFactory.builder(jdk).region(REGION).credentials("", "secret").build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("accessKeyId");
        assertThatThrownBy(() -> S3ClientFactory.builder(jdk).credentials(null, "secret"))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("accessKeyId");
        assertThatThrownBy(() -> S3ClientFactory.builder(null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("httpClient");
    }

    private S3Client s3Client(RequestChecksumCalculation checksums) {
        return S3ClientFactory.builder(jdk)
                .endpoint(URI.create("http://localhost:" + wireMock.port()))
                .region(REGION)
                .credentials(ACCESS_KEY, SECRET_KEY)
                .pathStyle(true)
                .requestChecksumCalculation(checksums)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .build();
    }

    private static HttpExecuteResponse execute(JdkSdkHttpClient client, SdkHttpFullRequest request) throws IOException {
        return execute(client, request, request.contentStreamProvider().orElse(null));
    }

    private static HttpExecuteResponse execute(JdkSdkHttpClient client, SdkHttpFullRequest request,
            ContentStreamProvider content) throws IOException {
        HttpExecuteResponse response = client.prepareRequest(HttpExecuteRequest.builder()
                .request(request).contentStreamProvider(content).build()).call();
        return response;
    }

    private static SdkHttpFullRequest sdkPut(String path, byte[] body, boolean withLength) {
        SdkHttpFullRequest.Builder builder = SdkHttpFullRequest.builder()
                .method(SdkHttpMethod.PUT)
                .uri(URI.create("http://localhost:" + wireMock.port() + path))
                .putHeader("Host", "localhost:" + wireMock.port())
                .contentStreamProvider(ContentStreamProvider.fromByteArray(body));
        if (withLength) {
            builder.putHeader("Content-Length", String.valueOf(body.length));
        }
        return builder.build();
    }

    private static SdkHttpFullRequest sdkGet(String path) {
        return getFrom(URI.create("http://localhost:" + wireMock.port() + path));
    }

    private static SdkHttpFullRequest getFrom(URI uri) {
        return SdkHttpFullRequest.builder().method(SdkHttpMethod.GET).uri(uri).build();
    }

    private static LoggedRequest single() {
        List<LoggedRequest> received = wireMock.findAll(anyRequestedFor(anyUrl()));
        assertThat(received).hasSize(1);
        return received.get(0);
    }

    private static byte[] readAll(InputStream in) throws IOException {
        try (in) {
            return in.readAllBytes();
        }
    }

    /**
     * A server that reads one request and never completes its response: either nothing at all, or
     * headers announcing 1000 bytes followed by only a few. It reports when the request arrived and
     * when the client closed the connection.
     */
    private static final class SilentServer implements AutoCloseable {
        static final byte[] FIRST_BYTES = "first".getBytes(US_ASCII);

        final CountDownLatch requestReceived = new CountDownLatch(1);
        final CountDownLatch connectionClosed = new CountDownLatch(1);
        private final ServerSocket serverSocket;
        private final Thread thread;

        SilentServer(boolean partialBody) throws IOException {
            serverSocket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
            thread = new Thread(() -> serve(partialBody), "silent-server");
            thread.setDaemon(true);
            thread.start();
        }

        URI uri() {
            return URI.create("http://127.0.0.1:" + serverSocket.getLocalPort() + "/bucket/slow");
        }

        private void serve(boolean partialBody) {
            try (Socket socket = serverSocket.accept()) {
                InputStream in = socket.getInputStream();
                ByteArrayOutputStream head = new ByteArrayOutputStream();
                while (!head.toString(US_ASCII).endsWith("\r\n\r\n")) {
                    int b = in.read();
                    if (b < 0) {
                        return;
                    }
                    head.write(b);
                }
                if (partialBody) {
                    OutputStream out = socket.getOutputStream();
                    out.write("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n".getBytes(US_ASCII));
                    out.write(FIRST_BYTES);
                    out.flush();
                }
                requestReceived.countDown();
                while (in.read() >= 0) {
                    // Drain until the client closes its side.
                }
                connectionClosed.countDown();
            } catch (IOException e) {
                // A reset by the client is a close too.
                connectionClosed.countDown();
            }
        }

        @Override
        public void close() throws IOException {
            serverSocket.close();
            thread.interrupt();
        }
    }

    /**
     * Stands for a retrying layer such as {@code ResilientHttpClient}: sends the very same
     * {@link HttpRequest} twice, discarding the first response.
     */
    private static final class SendsTwiceHttpClient extends dev.ballast.storage.object.ForwardingHttpClient {

        SendsTwiceHttpClient(HttpClient delegate) {
            super(delegate);
        }

        @Override
        public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request,
                HttpResponse.BodyHandler<T> handler) {
            return delegate.sendAsync(request, HttpResponse.BodyHandlers.discarding())
                    .thenCompose(first -> delegate.sendAsync(request, handler));
        }

        @Override
        public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request,
                HttpResponse.BodyHandler<T> handler, HttpResponse.PushPromiseHandler<T> push) {
            return sendAsync(request, handler);
        }

        @Override
        public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
                throws IOException, InterruptedException {
            try {
                return sendAsync(request, handler).get();
            } catch (ExecutionException e) {
                throw new IOException(e.getCause());
            }
        }

    }

    /**
     * A server-side check of AWS Signature Version 4 ("Authenticating Requests (AWS Signature
     * Version 4)", S3 API reference): rebuilds the canonical request from what the server received
     * and computes the signature the client should have sent.
     */
    static final class SigV4 {
        private SigV4() {
        }

        record Authorization(String accessKey, String date, String region, String service,
                List<String> signedHeaders, String signature) {
        }

        static Authorization parse(String header) {
            assertThat(header).startsWith("AWS4-HMAC-SHA256 ");
            Map<String, String> parts = new TreeMap<>();
            for (String part : header.substring("AWS4-HMAC-SHA256 ".length()).split(",")) {
                String[] kv = part.trim().split("=", 2);
                parts.put(kv[0], kv[1]);
            }
            String[] scope = parts.get("Credential").split("/");
            return new Authorization(scope[0], scope[1], scope[2], scope[3],
                    List.of(parts.get("SignedHeaders").split(";")), parts.get("Signature"));
        }

        static String expectedSignature(LoggedRequest request, Authorization auth, String secretKey) {
            String url = request.getUrl();
            int q = url.indexOf('?');
            String path = q < 0 ? url : url.substring(0, q);
            String query = q < 0 ? "" : canonicalQuery(url.substring(q + 1));
            StringBuilder canonicalHeaders = new StringBuilder();
            for (String name : auth.signedHeaders()) {
                List<String> values = new ArrayList<>(request.getHeaders().getHeader(name).values());
                assertThat(values).as("signed header %s received", name).isNotEmpty();
                canonicalHeaders.append(name).append(':')
                        .append(values.stream().map(v -> v.trim().replaceAll(" +", " "))
                                .collect(Collectors.joining(",")))
                        .append('\n');
            }
            String canonicalRequest = String.join("\n", request.getMethod().getName(), path, query,
                    canonicalHeaders.toString(), String.join(";", auth.signedHeaders()),
                    request.getHeader("x-amz-content-sha256"));
            String scope = String.join("/", auth.date(), auth.region(), auth.service(), "aws4_request");
            String stringToSign = String.join("\n", "AWS4-HMAC-SHA256", request.getHeader("x-amz-date"), scope,
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
