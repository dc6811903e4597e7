package dev.ballast.storage.object.s3.transport;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.absent;
import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.http.RequestMethod;
import com.github.tomakehurst.wiremock.http.trafficlistener.WiremockNetworkTrafficListener;
import com.github.tomakehurst.wiremock.matching.RequestPatternBuilder;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import dev.ballast.storage.object.FaultInjectingHttpClient;
import dev.ballast.testkit.LeakCheck;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpFullRequest;
import software.amazon.awssdk.http.SdkHttpMethod;

/**
 * What every {@link SdkHttpClient} Ballast ships must do, written once and run for each transport
 * stack by a subclass supplying {@link #createSdkHttpClient(HttpClient)}. The case list starts with
 * the AWS SDK's own {@code SdkHttpClientTestSuite} (status codes with and without content, HEAD,
 * certificate validation, connection pooling) and adds what S3 over {@code java.net.http} needs:
 * exact {@code Content-Length} framing, no {@code Expect: 100-continue}, the signed {@code Host}, whole
 * bodies on every transmission, abort, and answers that come before the body is read.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ExtendWith(LeakCheck.class)
public abstract class SdkHttpClientContract {

    private static final AtomicInteger OPENED_CONNECTIONS = new AtomicInteger();
    private static WireMockServer wireMock;
    private static ExecutorService executor;

    /** The JDK client under every transport: one per test, so connection counts are the test's own. */
    protected HttpClient jdk;

    /**
     * The client under test, sending through {@code transport}; {@link #closeSdkHttpClient} releases it.
     * Each call may return a new client.
     */
    protected abstract SdkHttpClient createSdkHttpClient(HttpClient transport);

    /**
     * How many times a request answered {@code status} reaches the server: once, unless the stack
     * under test retries that answer (a {@code ResilientHttpClient} retries a 5xx).
     */
    protected int transmissionsOf(SdkHttpMethod method, int status) {
        return 1;
    }

    /** Releases what {@link #createSdkHttpClient} built around the transport; closes the SDK client by default. */
    protected void closeSdkHttpClient(SdkHttpClient client) {
        client.close();
    }

    @BeforeAll
    static void startServer() {
        wireMock = new WireMockServer(options()
                .dynamicPort()
                .dynamicHttpsPort()
                .bindAddress("127.0.0.1")
                .networkTrafficListener(new CountingListener()));
        wireMock.start();
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
        jdk = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    }

    @AfterEach
    void closeJdkClient() {
        if (jdk instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    // ------------------------------------------------------------ the AWS SdkHttpClientTestSuite cases

    @ParameterizedTest(name = "{0} answered {1}")
    @CsvSource({"POST, 200", "POST, 202", "POST, 301", "POST, 302", "POST, 403", "POST, 500", "HEAD, 200", "HEAD, 403"})
    void everyStatusIsAResponseWithItsHeadersAndBody(SdkHttpMethod method, int status) throws IOException {
        var answer = aResponse()
                .withStatus(status)
                .withHeader("Some-Header", "With Value")
                .withBody("hello");
        if (status >= 300 && status < 400) {
            answer.withHeader("Location", "Some New Location");
        }
        wireMock.stubFor(any(urlPathEqualTo("/")).willReturn(answer));

        HttpExecuteResponse response = execute(requestTo(base() + "/", method));

        RequestPatternBuilder sent = RequestPatternBuilder.newRequestPattern(
                        RequestMethod.fromString(method.name()), urlPathEqualTo("/"))
                .withHeader("Host", equalTo("127.0.0.1:" + wireMock.port()))
                .withHeader("User-Agent", equalTo("hello-world!"))
                .withRequestBody(method == SdkHttpMethod.HEAD ? absent() : equalTo("Body"));
        wireMock.verify(transmissionsOf(method, status), sent);
        assertThat(response.httpResponse().statusCode()).isEqualTo(status);
        assertThat(response.httpResponse().firstMatchingHeader("Some-Header")).contains("With Value");
        assertThat(response.httpResponse().statusText()).isPresent();
        if (method == SdkHttpMethod.HEAD) {
            assertThat(response.responseBody()).isEmpty();
        } else {
            assertThat(readAll(response.responseBody().orElseThrow())).isEqualTo("hello".getBytes(UTF_8));
        }
    }

    @Test
    void aCertificateSignedByNoTrustedIssuerIsRefused() {
        SdkHttpFullRequest request = requestTo("https://localhost:" + wireMock.httpsPort() + "/", SdkHttpMethod.POST);

        Throwable thrown = catchThrowable(() -> execute(request));

        assertThat(thrown).isInstanceOf(IOException.class);
        assertThat(causes(thrown)).anyMatch(SSLHandshakeException.class::isInstance);
        assertThat(wireMock.findAll(anyRequestedFor(anyUrl()))).isEmpty();
    }

    @Test
    void connectionsArePooled() throws Exception {
        int before = OPENED_CONNECTIONS.get();
        withClient(jdk, client -> {
            for (int i = 0; i < 5; i++) {
                readAll(prepare(client, requestTo(base() + "/", SdkHttpMethod.POST))
                        .call()
                        .responseBody()
                        .orElseThrow());
            }
        });

        assertThat(wireMock.findAll(anyRequestedFor(anyUrl()))).hasSize(5);
        assertThat(OPENED_CONNECTIONS.get() - before)
                .as("connections opened for 5 sequential requests")
                .isBetween(1, 2);
    }

    // ------------------------------------------------------------ framing of request content

    @Test
    void aKnownLengthIsSentAsContentLengthNeverChunked() throws IOException {
        byte[] body = "twelve bytes".getBytes(UTF_8);

        execute(put("/bucket/key", body, true));

        LoggedRequest received = single();
        assertThat(received.getHeader("Content-Length")).isEqualTo("12");
        assertThat(received.containsHeader("Transfer-Encoding")).isFalse();
        assertThat(received.getBody()).isEqualTo(body);
    }

    @Test
    void aZeroBytePutSendsContentLengthZeroAndNoExpect() throws IOException {
        SdkHttpFullRequest request = put("/bucket/empty", new byte[0], true).toBuilder()
                .putHeader("Expect", "100-continue")
                .build();

        execute(request);

        LoggedRequest received = single();
        assertThat(received.getMethod().getName()).isEqualTo("PUT");
        assertThat(received.getHeader("Content-Length")).isEqualTo("0");
        assertThat(received.containsHeader("Transfer-Encoding")).isFalse();
        assertThat(received.containsHeader("Expect")).isFalse();
        assertThat(received.getBody()).isEmpty();
    }

    @Test
    void anUnknownLengthIsSentChunkedWithoutADuplicateTransferEncoding() throws IOException {
        byte[] body = "no length given".getBytes(UTF_8);
        SdkHttpFullRequest request = put("/bucket/key", body, false).toBuilder()
                .putHeader("Transfer-Encoding", "chunked")
                .build();

        execute(request);

        LoggedRequest received = single();
        assertThat(received.getHeaders().getHeader("Transfer-Encoding").values())
                .containsExactly("chunked");
        assertThat(received.containsHeader("Content-Length")).isFalse();
        assertThat(received.getBody()).isEqualTo(body);
    }

    @Test
    void expectContinueIsNeverSentAndTheContentGoesAtOnce() throws IOException {
        byte[] body = "content".getBytes(UTF_8);

        execute(put("/bucket/asked", body, true).toBuilder()
                .putHeader("Expect", "100-continue")
                .build());

        LoggedRequest asked = wireMock.findAll(anyRequestedFor(urlPathEqualTo("/bucket/asked")))
                .get(0);
        assertThat(asked.containsHeader("Expect")).isFalse();
        assertThat(asked.getBody()).isEqualTo(body);
    }

    @Test
    void everyTransmissionSendsTheWholeContentFromItsFirstByte() throws Exception {
        byte[] body = "sent whole every time".getBytes(UTF_8);
        AtomicInteger streamsOpened = new AtomicInteger();
        ContentStreamProvider provider = () -> {
            streamsOpened.incrementAndGet();
            return new ByteArrayInputStream(body);
        };
        SdkHttpFullRequest request = put("/bucket/key", body, true);

        // twice through the client, then once through a layer below that sends the same request twice
        execute(request, provider);
        execute(request, provider);
        // FaultInjectingHttpClient stands for a retrying layer such as ResilientHttpClient: it sends the
        // very same HttpRequest twice, discarding the first response.
        FaultInjectingHttpClient sendsTwice = new FaultInjectingHttpClient(jdk);
        sendsTwice.sendTwiceOnce(r -> true);
        withClient(
                sendsTwice,
                resending -> resending
                        .prepareRequest(HttpExecuteRequest.builder()
                                .request(request)
                                .contentStreamProvider(provider)
                                .build())
                        .call());

        List<LoggedRequest> received = wireMock.findAll(anyRequestedFor(anyUrl()));
        assertThat(received).hasSize(4).allSatisfy(r -> {
            assertThat(r.getHeader("Content-Length")).isEqualTo(String.valueOf(body.length));
            assertThat(r.getBody()).isEqualTo(body);
        });
        assertThat(streamsOpened).hasValue(4);
    }

    // ------------------------------------------------------------ Host and headers

    @Test
    void theSignedHostIsTheOneSentAndAnotherIsRefusedBeforeAnythingIsSent() throws Exception {
        String signedHost = "localhost:" + wireMock.port();
        SdkHttpFullRequest request = SdkHttpFullRequest.builder()
                .method(SdkHttpMethod.GET)
                .uri(URI.create("http://localhost:" + wireMock.port() + "/bucket/a%2Fb?versionId=v1"))
                .putHeader("Host", signedHost)
                .build();
        SdkHttpFullRequest elsewhere =
                request.toBuilder().putHeader("Host", "bucket.example.com").build();

        execute(request);
        withClient(
                jdk,
                client -> assertThatThrownBy(() -> prepare(client, elsewhere))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("bucket.example.com")
                        .hasMessageContaining(signedHost));

        LoggedRequest received = single();
        assertThat(received.getHeader("Host")).isEqualTo(signedHost);
        assertThat(received.getUrl()).isEqualTo("/bucket/a%2Fb?versionId=v1");
    }

    @Test
    void multiValuedResponseHeadersAreMappedCaseInsensitively() throws IOException {
        wireMock.stubFor(get(urlPathEqualTo("/bucket/key"))
                .willReturn(aResponse()
                        .withStatus(200)
                        .withHeader("X-Amz-Meta-Tag", "first", "second")
                        .withHeader("ETag", "\"abc\"")
                        .withBody("body")));

        HttpExecuteResponse response = execute(requestTo(base() + "/bucket/key", SdkHttpMethod.GET));

        assertThat(response.httpResponse().statusText()).contains("OK");
        assertThat(response.httpResponse().matchingHeaders("x-amz-meta-tag")).containsExactly("first", "second");
        assertThat(response.httpResponse().firstMatchingHeader("etag")).contains("\"abc\"");
        assertThat(readAll(response.responseBody().orElseThrow())).isEqualTo("body".getBytes(UTF_8));
    }

    // ------------------------------------------------------------ abort and failures

    @Test
    void abortCancelsAnExchangeWaitingForItsResponse() throws Exception {
        try (ScriptedServer server = ScriptedServer.silent()) {
            withClient(jdk, client -> {
                ExecutableHttpRequest prepared =
                        prepare(client, requestTo(server.uri().toString(), SdkHttpMethod.GET));
                Future<HttpExecuteResponse> call = executor.submit(prepared::call);
                assertThat(server.requestReceived.await(20, TimeUnit.SECONDS)).isTrue();

                prepared.abort();

                assertThatThrownBy(() -> call.get(20, TimeUnit.SECONDS))
                        .isInstanceOf(ExecutionException.class)
                        .cause()
                        .isInstanceOf(IOException.class);
            });
            assertThat(server.connectionClosed.await(20, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void abortClosesAResponseBodyThatIsStillArriving() throws Exception {
        try (ScriptedServer server = ScriptedServer.partialBody()) {
            withClient(jdk, client -> {
                ExecutableHttpRequest prepared =
                        prepare(client, requestTo(server.uri().toString(), SdkHttpMethod.GET));
                InputStream body = prepared.call().responseBody().orElseThrow();
                assertThat(body.readNBytes(ScriptedServer.FIRST_BYTES.length)).isEqualTo(ScriptedServer.FIRST_BYTES);

                prepared.abort();

                assertThatThrownBy(body::read).isInstanceOf(IOException.class);
            });
            assertThat(server.connectionClosed.await(20, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void aCallAfterAbortSendsNothing() throws Exception {
        withClient(jdk, client -> {
            ExecutableHttpRequest prepared = prepare(client, requestTo(base() + "/bucket/key", SdkHttpMethod.GET));
            prepared.abort();

            assertThatThrownBy(prepared::call).isInstanceOf(IOException.class).hasMessageContaining("aborted");
        });
        assertThat(wireMock.findAll(anyRequestedFor(anyUrl()))).isEmpty();
    }

    @Test
    void aRefusedConnectionIsAnIOExceptionCausedByConnectException() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }

        Throwable thrown =
                catchThrowable(() -> execute(requestTo("http://127.0.0.1:" + closedPort + "/k", SdkHttpMethod.GET)));

        assertThat(thrown).isInstanceOf(IOException.class);
        assertThat(causes(thrown)).anyMatch(ConnectException.class::isInstance);
    }

    // ------------------------------------------------------------ answers before the body is read

    @Test
    void anErrorAnswerWhoseBodyBreaksOffStillComesBackAsItsStatus() throws Exception {
        try (ScriptedServer server = ScriptedServer.answersThenResets(
                "HTTP/1.1 412 Precondition Failed\r\nContent-Type: application/xml\r\nConnection: close\r\n\r\n<?xml v")) {
            SdkHttpFullRequest request = SdkHttpFullRequest.builder()
                    .method(SdkHttpMethod.PUT)
                    .uri(server.uri())
                    .putHeader("Content-Length", "0")
                    .putHeader("If-None-Match", "*")
                    .build();

            HttpExecuteResponse response = execute(request, null);

            assertThat(response.httpResponse().statusCode()).isEqualTo(412);
            assertThat(readAll(response.responseBody().orElseThrow())).isEmpty();
        }
    }

    @Test
    void aRefusalBeforeTheBodyOfALargePutComesBackAsItsStatus() throws Exception {
        try (ScriptedServer server = ScriptedServer.answersThenResets(
                "HTTP/1.1 412 Precondition Failed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")) {
            byte[] body = new byte[4 * 1024 * 1024];
            SdkHttpFullRequest request = putAskingForContinue(server, body.length).toBuilder()
                    .putHeader("If-None-Match", "*")
                    .build();

            HttpExecuteResponse response = execute(request, ContentStreamProvider.fromByteArray(body));

            // The content goes without waiting for 100 Continue (the SDK's Expect is dropped), and the
            // refusal the server sent while it arrived is still the answer.
            assertThat(response.httpResponse().statusCode()).isEqualTo(412);
        }
    }

    @Test
    void aServerThatSendsContinueTwiceGetsTheWholeBodyAndItsAnswerIsTheStatus() throws Exception {
        // Werkzeug 3.1, the server of moto_server, writes 100 Continue twice to a request asking for it
        // (Python's BaseHTTPRequestHandler once, Werkzeug once more); the JDK client took the second for
        // the answer, and every large PutObject failed with "HTTP 100".
        try (ScriptedServer server = ScriptedServer.continuesTwiceWhenAsked()) {
            byte[] body = new byte[5 * 1024 * 1024];

            HttpExecuteResponse response =
                    execute(putAskingForContinue(server, body.length), ContentStreamProvider.fromByteArray(body));

            assertThat(response.httpResponse().statusCode()).isEqualTo(200);
            assertThat(server.bodyBytesReceived.get()).isEqualTo(body.length);
        }
    }

    /** A PUT as the SDK makes a PutObject or UploadPart: with {@code Expect: 100-continue}. */
    private static SdkHttpFullRequest putAskingForContinue(ScriptedServer server, int contentLength) {
        return SdkHttpFullRequest.builder()
                .method(SdkHttpMethod.PUT)
                .uri(server.uri())
                .putHeader("Content-Length", String.valueOf(contentLength))
                .putHeader("Expect", "100-continue")
                .build();
    }

    @Test
    void closeLeavesTheCallersHttpClientUsable() throws IOException {
        SdkHttpClient first = createSdkHttpClient(jdk);
        closeSdkHttpClient(first);

        HttpExecuteResponse response = execute(requestTo(base() + "/bucket/key", SdkHttpMethod.GET));

        assertThat(response.httpResponse().statusCode()).isEqualTo(200);
    }

    // ------------------------------------------------------------ helpers

    protected static String base() {
        return "http://127.0.0.1:" + wireMock.port();
    }

    /** What a test does with a client; the client is released afterwards whatever happens. */
    @FunctionalInterface
    protected interface ClientUse {
        void accept(SdkHttpClient client) throws Exception;
    }

    protected void withClient(HttpClient transport, ClientUse use) throws Exception {
        SdkHttpClient client = createSdkHttpClient(transport);
        try {
            use.accept(client);
        } finally {
            closeSdkHttpClient(client);
        }
    }

    protected static ExecutableHttpRequest prepare(SdkHttpClient client, SdkHttpFullRequest request) {
        return client.prepareRequest(HttpExecuteRequest.builder()
                .request(request)
                .contentStreamProvider(request.contentStreamProvider().orElse(null))
                .build());
    }

    protected HttpExecuteResponse execute(SdkHttpFullRequest request) throws IOException {
        return execute(request, request.contentStreamProvider().orElse(null));
    }

    protected HttpExecuteResponse execute(SdkHttpFullRequest request, ContentStreamProvider content)
            throws IOException {
        SdkHttpClient client = createSdkHttpClient(jdk);
        try {
            return client.prepareRequest(HttpExecuteRequest.builder()
                            .request(request)
                            .contentStreamProvider(content)
                            .build())
                    .call();
        } finally {
            closeSdkHttpClient(client);
        }
    }

    /** The AWS suite's request: a {@code User-Agent}, the {@code Host}, and "Body" unless HEAD. */
    protected static SdkHttpFullRequest requestTo(String uri, SdkHttpMethod method) {
        URI target = URI.create(uri);
        SdkHttpFullRequest.Builder builder = SdkHttpFullRequest.builder()
                .uri(target)
                .method(method)
                .putHeader("Host", RestrictedHeaders.jdkHost(target))
                .putHeader("User-Agent", "hello-world!");
        if (method != SdkHttpMethod.HEAD && method != SdkHttpMethod.GET) {
            byte[] content = "Body".getBytes(UTF_8);
            builder.putHeader("Content-Length", Integer.toString(content.length))
                    .contentStreamProvider(() -> new ByteArrayInputStream(content));
        }
        return builder.build();
    }

    protected static SdkHttpFullRequest put(String path, byte[] body, boolean withLength) {
        SdkHttpFullRequest.Builder builder = SdkHttpFullRequest.builder()
                .method(SdkHttpMethod.PUT)
                .uri(URI.create(base() + path))
                .putHeader("Host", "127.0.0.1:" + wireMock.port())
                .contentStreamProvider(ContentStreamProvider.fromByteArray(body));
        if (withLength) {
            builder.putHeader("Content-Length", String.valueOf(body.length));
        }
        return builder.build();
    }

    protected static LoggedRequest single() {
        List<LoggedRequest> received = wireMock.findAll(anyRequestedFor(anyUrl()));
        assertThat(received).hasSize(1);
        return received.get(0);
    }

    protected static byte[] readAll(InputStream in) throws IOException {
        try (in) {
            return in.readAllBytes();
        }
    }

    private static List<Throwable> causes(Throwable t) {
        List<Throwable> chain = new java.util.ArrayList<>();
        for (Throwable c = t; c != null && !chain.contains(c); c = c.getCause()) {
            chain.add(c);
            chain.addAll(List.of(c.getSuppressed()));
        }
        return chain;
    }

    /** Counts the connections WireMock accepts. */
    private static final class CountingListener implements WiremockNetworkTrafficListener {
        @Override
        public void opened(Socket socket) {
            OPENED_CONNECTIONS.incrementAndGet();
        }

        @Override
        public void incoming(Socket socket, ByteBuffer bytes) {}

        @Override
        public void outgoing(Socket socket, ByteBuffer bytes) {}

        @Override
        public void closed(Socket socket) {}
    }

    /**
     * A one-connection-at-a-time server playing one script: silent (reads the request, never answers),
     * a partial body (headers announcing 1000 bytes, then a few), or an early answer (sent as soon as
     * the request's headers arrived, before any content is read, then the connection is reset).
     */
    protected static final class ScriptedServer implements AutoCloseable {
        static final byte[] FIRST_BYTES = "first".getBytes(US_ASCII);

        final CountDownLatch requestReceived = new CountDownLatch(1);
        final CountDownLatch connectionClosed = new CountDownLatch(1);
        final AtomicInteger bodyBytesReceived = new AtomicInteger();
        private final ServerSocket serverSocket;
        private final Thread thread;
        private final String earlyAnswer;
        private final boolean partialBody;
        private final boolean continuesTwice;

        private ScriptedServer(String earlyAnswer, boolean partialBody) throws IOException {
            this(earlyAnswer, partialBody, false);
        }

        private ScriptedServer(String earlyAnswer, boolean partialBody, boolean continuesTwice) throws IOException {
            this.earlyAnswer = earlyAnswer;
            this.partialBody = partialBody;
            this.continuesTwice = continuesTwice;
            serverSocket = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
            thread = new Thread(this::serve, "scripted-server");
            thread.setDaemon(true);
            thread.start();
        }

        static ScriptedServer silent() throws IOException {
            return new ScriptedServer(null, false);
        }

        static ScriptedServer partialBody() throws IOException {
            return new ScriptedServer(null, true);
        }

        static ScriptedServer answersThenResets(String answer) throws IOException {
            return new ScriptedServer(answer, false);
        }

        /**
         * Answers as Werkzeug 3.1 does: {@code 100 Continue} twice to a request with
         * {@code Expect: 100-continue}, then reads the content and answers {@code 200 OK}.
         */
        static ScriptedServer continuesTwiceWhenAsked() throws IOException {
            return new ScriptedServer(null, false, true);
        }

        URI uri() {
            return URI.create("http://127.0.0.1:" + serverSocket.getLocalPort() + "/bucket/key");
        }

        private void serve() {
            while (!serverSocket.isClosed()) {
                try (Socket socket = serverSocket.accept()) {
                    InputStream in = socket.getInputStream();
                    ByteArrayOutputStream head = new ByteArrayOutputStream();
                    while (!head.toString(US_ASCII).endsWith("\r\n\r\n")) {
                        int b = in.read();
                        if (b < 0) {
                            break;
                        }
                        head.write(b);
                    }
                    requestReceived.countDown();
                    OutputStream out = socket.getOutputStream();
                    if (continuesTwice) {
                        answerAfterTwoContinues(head.toString(US_ASCII).toLowerCase(Locale.ROOT), in, out);
                        continue;
                    }
                    if (earlyAnswer != null) {
                        out.write(earlyAnswer.getBytes(US_ASCII));
                        out.flush();
                        // Hold the connection briefly, as a server refusing the body does, then reset it.
                        socket.setSoTimeout(300);
                        try {
                            for (int b = in.read(); b >= 0; b = in.read()) {
                                bodyBytesReceived.incrementAndGet();
                            }
                        } catch (SocketTimeoutException enough) {
                            // reset now (linger 0)
                        }
                        socket.setSoLinger(true, 0);
                        continue;
                    }
                    if (partialBody) {
                        out.write("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n".getBytes(US_ASCII));
                        out.write(FIRST_BYTES);
                        out.flush();
                    }
                    while (in.read() >= 0) {
                        // Drain until the client closes its side.
                    }
                    connectionClosed.countDown();
                } catch (IOException e) {
                    // A reset by the client is a close too; a closed listener ends the loop.
                    connectionClosed.countDown();
                }
            }
        }

        private void answerAfterTwoContinues(String head, InputStream in, OutputStream out) throws IOException {
            if (head.contains("\r\nexpect: 100-continue")) {
                out.write("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 100 Continue\r\n\r\n".getBytes(US_ASCII));
                out.flush();
            }
            int length = Integer.parseInt(head.replaceAll("(?s).*\r\ncontent-length: *([0-9]+).*", "$1"));
            bodyBytesReceived.addAndGet(in.readNBytes(length).length);
            out.write("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".getBytes(US_ASCII));
            out.flush();
        }

        @Override
        public void close() throws IOException {
            serverSocket.close();
            thread.interrupt();
        }
    }
}
