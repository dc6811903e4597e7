package dev.ballast.it.http;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.stubbing.Scenario.STARTED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.sun.net.httpserver.HttpServer;
import dev.ballast.http.ResilientHttpClient;
import dev.ballast.http.breaker.BreakerState;
import dev.ballast.http.idempotency.IdempotencyKeyConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpResponse.BodySubscribers;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Failures reported from the field, each with its input, against real servers and the JDK's client. */
@Timeout(60)
class FieldFailuresIT extends WireMockSupport {

    private final ExecutorService threads = Executors.newCachedThreadPool();
    private HttpServer stallingServer;
    private final CountDownLatch releaseServer = new CountDownLatch(1);

    @AfterEach
    void stopServers() {
        releaseServer.countDown();
        if (stallingServer != null) {
            stallingServer.stop(0);
        }
        threads.shutdownNow();
    }

    // ---- 3. a handler that cannot parse a complete 200 ---------------------------------------------

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aHandlerThatCannotParseA200HtmlBodySendsOnceAndTheOriginStaysUsable(Mode mode) throws Exception {
        server.stubFor(get("/api")
                .willReturn(aResponse()
                        .withStatus(200)
                        .withHeader("Content-Type", "text/html")
                        .withBody("<html><body>Service is being updated</body></html>")));
        ResilientHttpClient client =
                track(ResilientHttpClient.newBuilder().listener(listener).build()); // defaults
        BodyHandler<String> parser =
                info -> BodySubscribers.mapping(BodySubscribers.ofString(StandardCharsets.UTF_8), s -> {
                    throw new UncheckedIOException(new IOException("parse error"));
                });

        for (int call = 0; call < 2; call++) {
            Throwable thrown = catchThrowable(() -> mode.call(client, httpGet("/api"), parser));
            assertThat(thrown).hasRootCauseMessage("parse error");
            assertThat(thrown).isInstanceOf(mode == Mode.SEND ? IOException.class : UncheckedIOException.class);
        }
        HttpResponse<String> plain = mode.call(client, httpGet("/api"), BodyHandlers.ofString());

        server.verify(3, getRequestedFor(urlPathEqualTo("/api")));
        assertThat(plain.statusCode()).isEqualTo(200);
        assertThat(client.dependencyStatus(dependency()).orElseThrow().breakerState())
                .isEqualTo(BreakerState.CLOSED);
    }

    // ---- 5. a stalled body, streamed by the caller ----------------------------------------------------

    /**
     * A server that answers a chunked body, sends 10 bytes and goes silent until released; then writes
     * until a write fails (the client closed the connection) or 64 MiB went out. A connection the client
     * kept open but no longer reads blocks the writes once the socket buffers are full, so the future
     * then never completes (and the test's wait for it fails). Writing until the failure, rather than a
     * fixed number of bytes, does not depend on how soon the client's selector thread closes the socket.
     */
    private CompletableFuture<IOException> startStallingServer() throws IOException {
        CompletableFuture<IOException> laterWrite = new CompletableFuture<>();
        stallingServer = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        stallingServer.createContext("/file", exchange -> {
            exchange.sendResponseHeaders(200, 0);
            OutputStream out = exchange.getResponseBody();
            out.write("0123456789".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            try {
                releaseServer.await(30, TimeUnit.SECONDS);
                byte[] more = new byte[8192];
                for (long sent = 0; sent < 64L << 20; sent += more.length) {
                    out.write(more);
                    out.flush();
                }
                laterWrite.complete(null);
            } catch (IOException e) {
                laterWrite.complete(e); // the client aborted the exchange: the connection is gone
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                exchange.close();
            }
        });
        stallingServer.setExecutor(threads);
        stallingServer.start();
        return laterWrite;
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aStalledBodyStreamedThroughOfInputStreamFailsWithTheAttemptTimeoutAndTheExchangeIsAborted(Mode mode)
            throws Exception {
        CompletableFuture<IOException> laterWrite = startStallingServer();
        ResilientHttpClient client = track(ResilientHttpClient.newBuilder()
                .listener(listener)
                .attemptTimeout(Duration.ofMillis(500))
                .totalTimeout(Duration.ofMillis(1500))
                .build());
        URI uri = URI.create("http://127.0.0.1:" + stallingServer.getAddress().getPort() + "/file");

        HttpResponse<InputStream> response =
                mode.call(client, HttpRequest.newBuilder(uri).build(), BodyHandlers.ofInputStream());
        Future<byte[]> read = threads.submit(() -> response.body().readAllBytes());

        Throwable thrown = catchThrowable(() -> read.get(20, TimeUnit.SECONDS));
        assertThat(thrown).hasCauseInstanceOf(IOException.class).hasRootCauseInstanceOf(HttpTimeoutException.class);
        releaseServer.countDown();
        assertThat(laterWrite.get(20, TimeUnit.SECONDS))
                .as("the server's connection was closed by the client")
                .isInstanceOf(IOException.class);
    }

    // ---- 7. redirects and retries -------------------------------------------------------------------

    private ResilientHttpClient followingRedirects(IdempotencyKeyConfig keys) {
        return track(clientBuilder()
                .followRedirects(HttpClient.Redirect.NORMAL)
                .idempotencyKeys(keys)
                .build());
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aPostAnswered303WhoseRedirectedGetFailsTransientlyIsNeverSentAgain(Mode mode) throws Exception {
        server.stubFor(post("/orders").willReturn(aResponse().withStatus(303).withHeader("Location", "/orders/7")));
        server.stubFor(get("/orders/7")
                .inScenario("result")
                .whenScenarioStateIs(STARTED)
                .willReturn(aResponse().withStatus(503))
                .willSetStateTo("up"));
        server.stubFor(get("/orders/7")
                .inScenario("result")
                .whenScenarioStateIs("up")
                .willReturn(aResponse().withStatus(200).withBody("{\"id\":7}")));
        ResilientHttpClient client = followingRedirects(IdempotencyKeyConfig.ofDefaults());

        HttpResponse<String> response = mode.call(
                client,
                HttpRequest.newBuilder(uri("/orders"))
                        .POST(BodyPublishers.ofString("{\"item\":1}"))
                        .build(),
                BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("{\"id\":7}");
        server.verify(1, postRequestedFor(urlPathEqualTo("/orders")));
        server.verify(2, getRequestedFor(urlPathEqualTo("/orders/7")));
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void anUnkeyedPostAnswered303WhoseRedirectTargetRefusesTheConnectionIsNotSentAgain(Mode mode) throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        server.stubFor(post("/orders")
                .willReturn(aResponse()
                        .withStatus(303)
                        .withHeader("Location", "http://127.0.0.1:" + closedPort + "/orders/7")));
        ResilientHttpClient client = followingRedirects(IdempotencyKeyConfig.builder()
                .policy(IdempotencyKeyConfig.Policy.NEVER)
                .build());

        Throwable thrown = catchThrowable(() -> mode.call(
                client,
                HttpRequest.newBuilder(uri("/orders"))
                        .POST(BodyPublishers.ofString("{\"item\":1}"))
                        .build(),
                BodyHandlers.ofString()));

        // the connect failure may be the redirected GET's, after the POST was answered: no telling, no re-send
        assertThat(thrown).isInstanceOf(ConnectException.class);
        server.verify(1, postRequestedFor(urlPathEqualTo("/orders")));
    }
}
