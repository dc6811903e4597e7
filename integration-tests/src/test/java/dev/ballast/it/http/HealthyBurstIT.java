package dev.ballast.it.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.ballast.http.DependencyStatus;
import dev.ballast.http.ResilientHttpClient;
import dev.ballast.testkit.LeakCheck;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A drop-in replacement must not fail calls that {@code HttpClient} completes against a healthy
 * dependency: bursts that the old default bulkhead (64 calls) refused, with the client's defaults,
 * against healthy loopback servers. Field inputs: 2,000 calls from virtual threads (1,936 refused on
 * JDK 25), and an async fan-out of 100 calls over HTTP/2 (35 refused).
 */
@Timeout(120)
@ExtendWith(LeakCheck.class)
class HealthyBurstIT {

    private static final int BURST = 2_000;

    private HttpServer server;
    private ExecutorService serverThreads;
    private final List<ResilientHttpClient> clients = new ArrayList<>();

    @BeforeEach
    void startServer() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), BURST);
        serverThreads = Executors.newFixedThreadPool(64);
        server.setExecutor(serverThreads);
        server.createContext("/item", exchange -> {
            exchange.getRequestBody().readAllBytes();
            // a healthy dependency's own work: 20 ms per request, 64 at a time, so the burst is in flight together
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            byte[] body = "ok".getBytes(StandardCharsets.US_ASCII);
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
    }

    @AfterEach
    void stop() throws Exception {
        clients.forEach(ResilientHttpClient::shutdownNow);
        server.stop(0);
        serverThreads.shutdownNow();
        serverThreads.awaitTermination(10, TimeUnit.SECONDS);
    }

    private ResilientHttpClient defaults(HttpClient.Version version) {
        ResilientHttpClient client =
                ResilientHttpClient.newBuilder().version(version).build();
        clients.add(client);
        return client;
    }

    private String dependency() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private HttpRequest get() {
        return HttpRequest.newBuilder(URI.create(dependency() + "/item")).build();
    }

    /** Runs {@link #BURST} calls on {@code threads}, all released at once; returns how many got a 200. */
    private int burst(ResilientHttpClient client, ExecutorService threads) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Integer>> calls = new ArrayList<>();
        Callable<Integer> call = () -> {
            start.await();
            return client.send(get(), BodyHandlers.ofString()).statusCode();
        };
        for (int i = 0; i < BURST; i++) {
            calls.add(threads.submit(call));
        }
        start.countDown();
        int ok = 0;
        for (Future<Integer> f : calls) {
            if (f.get(60, TimeUnit.SECONDS) == 200) {
                ok++;
            }
        }
        return ok;
    }

    private static void assertNothingRefused(ResilientHttpClient client, String dependency) {
        DependencyStatus status = client.dependencyStatus(dependency).orElseThrow();
        assertThat(status.concurrencyLimitRejections()).isZero();
        assertThat(status.bulkheadFullRejections()).isZero();
    }

    @Test
    @EnabledForJreRange(min = JRE.JAVA_21)
    void twoThousandCallsFromVirtualThreadsAllComplete() throws Exception {
        ResilientHttpClient client = defaults(HttpClient.Version.HTTP_1_1);
        // Executors.newVirtualThreadPerTaskExecutor() by reflection: this module compiles for Java 17
        ExecutorService virtualThreads = (ExecutorService)
                Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        try {
            assertThat(burst(client, virtualThreads)).isEqualTo(BURST);
        } finally {
            virtualThreads.shutdownNow();
        }
        assertNothingRefused(client, dependency());
    }

    @Test
    void twoThousandCallsFromPlatformThreadsReleasedTogetherAllComplete() throws Exception {
        // the same burst on any supported JDK: one platform thread per call, released by one latch
        ResilientHttpClient client = defaults(HttpClient.Version.HTTP_1_1);
        ExecutorService platformThreads = Executors.newFixedThreadPool(BURST);
        try {
            assertThat(burst(client, platformThreads)).isEqualTo(BURST);
        } finally {
            platformThreads.shutdownNow();
            platformThreads.awaitTermination(10, TimeUnit.SECONDS);
        }
        assertNothingRefused(client, dependency());
    }

    @Test
    void anAsyncFanOutOfAHundredCallsOverHttp2AllComplete() throws Exception {
        try (RefusingH2cServer h2 = new RefusingH2cServer(0, 200)) {
            ResilientHttpClient client = defaults(HttpClient.Version.HTTP_2);
            // the first request upgrades the connection to h2c; the fan-out then shares it
            assertThat(client.send(
                                    HttpRequest.newBuilder(URI.create(h2.baseUrl() + "/"))
                                            .build(),
                                    BodyHandlers.ofString())
                            .statusCode())
                    .isEqualTo(200);

            List<CompletableFuture<HttpResponse<String>>> fanOut = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                fanOut.add(client.sendAsync(
                        HttpRequest.newBuilder(URI.create(h2.baseUrl() + "/item/" + i))
                                .build(),
                        BodyHandlers.ofString()));
            }

            for (CompletableFuture<HttpResponse<String>> call : fanOut) {
                HttpResponse<String> response = call.get(60, TimeUnit.SECONDS);
                assertThat(response.statusCode()).isEqualTo(200);
                assertThat(response.version()).isEqualTo(HttpClient.Version.HTTP_2);
            }
            assertThat(h2.answered.get()).isEqualTo(100);
            assertNothingRefused(client, h2.baseUrl());
        }
    }
}
