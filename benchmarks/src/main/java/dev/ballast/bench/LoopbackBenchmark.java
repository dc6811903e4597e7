package dev.ballast.bench;

import com.sun.net.httpserver.HttpServer;
import dev.ballast.http.ResilientHttpClient;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * (b) A healthy GET to an in-process JDK {@code HttpServer} on loopback, HTTP/1.1, from 1 and from
 * 16 caller threads: sample mode for p50/p99, throughput mode for calls per second. The raw client,
 * Failsafe and resilience4j share one JDK client; Ballast builds its own with its defaults, so each
 * keeps a warm connection pool. {@code sun.net.httpserver.nodelay=true}, or the server's small
 * writes meet delayed ACKs and every call takes 40 ms.
 */
@State(Scope.Benchmark)
@BenchmarkMode({Mode.SampleTime, Mode.Throughput})
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(
        value = 2,
        jvmArgsAppend = {"-Xmx1g", "-Dsun.net.httpserver.nodelay=true"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class LoopbackBenchmark {

    private HttpServer server;
    private ExecutorService serverThreads;
    private Peers peers;
    private HttpRequest request;
    private HttpRequest requestWithTimeout;

    @Setup
    public void setUp() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 256);
        serverThreads = Executors.newFixedThreadPool(16);
        server.setExecutor(serverThreads);
        server.createContext("/item", exchange -> {
            exchange.getRequestBody().readAllBytes();
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, WrapperCostBenchmark.BODY.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(WrapperCostBenchmark.BODY);
            }
        });
        server.start();
        HttpClient raw =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        ResilientHttpClient ballast = ResilientHttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .build();
        peers = new Peers(raw, ballast);
        request = HttpRequest.newBuilder(
                        URI.create("http://" + server.getAddress().getHostString() + ":"
                                + server.getAddress().getPort() + "/item?q=1"))
                .GET()
                .build();
        requestWithTimeout = HttpRequest.newBuilder(request, (name, value) -> true)
                .timeout(java.time.Duration.ofSeconds(10))
                .build();
    }

    @TearDown
    public void tearDown() {
        peers.close();
        server.stop(0);
        serverThreads.shutdownNow();
    }

    @Benchmark
    public Object raw() throws Exception {
        return peers.raw(request);
    }

    /** The raw client with a request timeout: what the JDK's own timer costs per call. */
    @Benchmark
    public Object rawWithTimeout() throws Exception {
        return peers.raw(requestWithTimeout);
    }

    @Benchmark
    public Object failsafe() {
        return peers.failsafe(request);
    }

    @Benchmark
    public Object resilience4j() throws Throwable {
        return peers.resilience4j(request);
    }

    @Benchmark
    public Object ballast() throws Exception {
        return peers.ballast(request);
    }

    @Benchmark
    @Threads(16)
    public Object raw16() throws Exception {
        return peers.raw(request);
    }

    @Benchmark
    @Threads(16)
    public Object failsafe16() {
        return peers.failsafe(request);
    }

    @Benchmark
    @Threads(16)
    public Object resilience4j16() throws Throwable {
        return peers.resilience4j(request);
    }

    @Benchmark
    @Threads(16)
    public Object ballast16() throws Exception {
        return peers.ballast(request);
    }
}
