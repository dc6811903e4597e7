package dev.ballast.test;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.ballast.http.ResilientHttpClient;
import dev.ballast.http.idempotency.IdempotencyKeyConfig;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class FaultInjectingHttpClientTest {
    private final FakeTime time = new FakeTime();
    private final FakeTimeScheduler scheduler = new FakeTimeScheduler(time);
    private HttpServer server;
    private HttpServer other;
    private final AtomicInteger served = new AtomicInteger();
    private final List<String> idempotencyKeys = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
    private HttpClient jdk;
    private FaultInjectingHttpClient faults;
    private ResilientHttpClient client;

    @BeforeEach
    void start() throws IOException {
        server = server("hello");
        other = server("other");
        jdk = HttpClient.newHttpClient();
        faults = FaultInjectingHttpClient.newBuilder(jdk)
                .seed(3)
                .passTimeWith(time::advance)
                .build();
        client = ResilientHttpClient.newBuilder()
                .delegate(faults)
                .clock(time)
                .ticker(time)
                .scheduler(scheduler)
                .build();
    }

    private HttpServer server(String answer) throws IOException {
        HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        s.createContext("/", exchange -> {
            served.incrementAndGet();
            idempotencyKeys.add(exchange.getRequestHeaders().getFirst("Idempotency-Key"));
            exchange.getRequestBody().readAllBytes();
            byte[] body = answer.getBytes(UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        s.start();
        return s;
    }

    @AfterEach
    void stop() {
        client.shutdownNow();
        scheduler.shutdownNow();
        server.stop(0);
        other.stop(0);
    }

    private URI uri(HttpServer s) {
        return URI.create("http://127.0.0.1:" + s.getAddress().getPort() + "/x");
    }

    private String origin(HttpServer s) {
        return "http://127.0.0.1:" + s.getAddress().getPort();
    }

    /** Runs the backoffs the client schedules, moving the fake time, until {@code call} is done. */
    private <T> T complete(CompletableFuture<T> call) throws Exception {
        for (int i = 0; i < 20 && !call.isDone(); i++) {
            List<Duration> pending = scheduler.pendingDelays();
            if (pending.isEmpty()) {
                Thread.onSpinWait();
                i--;
                continue;
            }
            scheduler.advance(pending.get(0));
        }
        return call.get(30, TimeUnit.SECONDS);
    }

    @Test
    void a503WithRetryAfterIsRetriedAfterTheTimeItAsksFor() throws Exception {
        faults.inject(HttpFault.status(503, Duration.ofSeconds(7)))
                .forDependency(origin(server))
                .times(1);

        CompletableFuture<HttpResponse<String>> call =
                client.sendAsync(HttpRequest.newBuilder(uri(server)).build(), BodyHandlers.ofString());
        while (scheduler.pendingDelays().isEmpty()) {
            Thread.onSpinWait();
        }
        assertThat(scheduler.pendingDelays()).contains(Duration.ofSeconds(7));
        assertThat(call).isNotDone();
        assertThat(served).hasValue(0);

        scheduler.advance(Duration.ofSeconds(7));
        HttpResponse<String> response = call.get(30, TimeUnit.SECONDS);
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("hello");
        assertThat(served).hasValue(1);
        assertThat(faults.injected()).singleElement().satisfies(f -> {
            assertThat(f.dependency()).isEqualTo(origin(server));
            assertThat(f.fault()).isEqualTo(HttpFault.status(503, Duration.ofSeconds(7)));
        });
    }

    @Test
    void aResetIsRetriedForAGetAndForAPostOnlyWithItsIdempotencyKey() throws Exception {
        faults.inject(HttpFault.reset()).times(2);
        HttpResponse<String> get =
                complete(client.sendAsync(HttpRequest.newBuilder(uri(server)).build(), BodyHandlers.ofString()));
        assertThat(get.body()).isEqualTo("hello");
        assertThat(served).hasValue(1);

        faults.inject(HttpFault.resetAfterProcessing()).times(1);
        HttpResponse<String> post = complete(client.sendAsync(
                HttpRequest.newBuilder(uri(server))
                        .POST(BodyPublishers.ofString("order"))
                        .build(),
                BodyHandlers.ofString()));
        assertThat(post.statusCode()).isEqualTo(200);
        assertThat(served).hasValue(3);
        // the GET carried no key; the POST and its retry carried the same one
        assertThat(idempotencyKeys.get(0)).isNull();
        assertThat(idempotencyKeys.get(1)).isNotNull().isEqualTo(idempotencyKeys.get(2));
        assertThat(faults.injected()).hasSize(3);
    }

    @Test
    void aResetPostWithoutAnIdempotencyKeyIsNeverRetried() {
        ResilientHttpClient unkeyed = ResilientHttpClient.newBuilder()
                .delegate(faults)
                .clock(time)
                .ticker(time)
                .scheduler(scheduler)
                .idempotencyKeys(IdempotencyKeyConfig.builder()
                        .policy(IdempotencyKeyConfig.Policy.NEVER)
                        .build())
                .build();
        faults.inject(HttpFault.resetAfterProcessing()).times(1);

        assertThatThrownBy(() -> unkeyed.sendAsync(
                                HttpRequest.newBuilder(uri(server))
                                        .POST(BodyPublishers.ofString("order"))
                                        .build(),
                                BodyHandlers.ofString())
                        .get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .rootCause()
                .isInstanceOf(SocketException.class)
                .hasMessage("Connection reset");
        assertThat(served).hasValue(1);
        unkeyed.shutdownNow();
    }

    @Test
    void aRefusedStreamIsRetriedEvenForAPostSinceNothingWasProcessed() throws Exception {
        faults.inject(HttpFault.refusedStream()).times(1);

        HttpResponse<String> post = complete(client.sendAsync(
                HttpRequest.newBuilder(uri(server))
                        .POST(BodyPublishers.ofString("order"))
                        .build(),
                BodyHandlers.ofString()));

        assertThat(post.statusCode()).isEqualTo(200);
        assertThat(served).hasValue(1);
    }

    @Test
    void faultsForOneDependencyLeaveTheOthersAlone() throws Exception {
        faults.inject(HttpFault.connectionRefused())
                .forDependency("127.0.0.1:" + server.getAddress().getPort());

        HttpResponse<String> fine = jdkThroughFaults(uri(other));
        assertThat(fine.body()).isEqualTo("other");
        assertThatThrownBy(() -> jdkThroughFaults(uri(server))).isInstanceOf(java.net.ConnectException.class);
        assertThat(faults.injected()).extracting(InjectedHttpFault::dependency).containsExactly(origin(server));
        assertThat(faults.calls()).isEqualTo(2);
    }

    private HttpResponse<String> jdkThroughFaults(URI uri) throws IOException, InterruptedException {
        return faults.send(HttpRequest.newBuilder(uri).build(), BodyHandlers.ofString());
    }

    @Test
    void aStallHoldsTheExchangeUntilTheTestReleasesIt() throws Exception {
        faults.inject(HttpFault.stall()).times(1);
        CompletableFuture<HttpResponse<String>> call = CompletableFuture.supplyAsync(() -> {
            try {
                return jdkThroughFaults(uri(server));
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        while (faults.stalled() == 0) {
            Thread.onSpinWait();
        }
        assertThat(call).isNotDone();
        assertThat(served).hasValue(0);

        faults.releaseStalls();
        assertThat(call.get(30, TimeUnit.SECONDS).body()).isEqualTo("hello");
    }

    @Test
    void aStalledAsyncExchangeEndsWhenTheCallerCancelsIt() {
        faults.inject(HttpFault.stall()).times(1);
        CompletableFuture<HttpResponse<String>> call =
                faults.sendAsync(HttpRequest.newBuilder(uri(server)).build(), BodyHandlers.ofString());
        assertThat(faults.stalled()).isEqualTo(1);

        call.cancel(true);
        assertThat(faults.stalled()).isZero();
        faults.releaseStalls();
        assertThat(served).hasValue(0);
    }

    @Test
    void aSlowBodyArrivesWholeInChunksWithTimePassingBetween() throws Exception {
        faults.inject(HttpFault.slowBody(5, Duration.ofSeconds(1))).times(1);
        var before = time.instant();

        HttpResponse<InputStream> response =
                faults.send(HttpRequest.newBuilder(uri(server)).build(), BodyHandlers.ofInputStream());
        try (InputStream body = response.body()) {
            assertThat(new String(body.readAllBytes(), UTF_8)).isEqualTo("hello");
        }
        assertThat(Duration.between(before, time.instant())).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void probabilisticFaultsRepeatWithTheSameSeed() throws Exception {
        assertThat(faultedExchanges(11)).isEqualTo(faultedExchanges(11)).isNotEqualTo(faultedExchanges(12));
    }

    private List<Long> faultedExchanges(long seed) throws Exception {
        FaultInjectingHttpClient f =
                FaultInjectingHttpClient.newBuilder(jdk).seed(seed).build();
        f.inject(HttpFault.status(500)).withProbability(0.4);
        for (int i = 0; i < 40; i++) {
            f.send(HttpRequest.newBuilder(uri(server)).build(), BodyHandlers.discarding());
        }
        return f.injected().stream().map(InjectedHttpFault::call).toList();
    }

    @Test
    void aBadDependencyIsRefusedWithWhatWouldBeAccepted() {
        assertThatThrownBy(() -> faults.inject(HttpFault.reset()).forDependency("localhost"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'localhost'")
                .hasMessageContaining("host:port");
    }
}
