package dev.ballast.bench;

import dev.ballast.http.ResilientHttpClient;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * (a) What each wrapper costs by itself: one healthy call through a wrapped client that answers at
 * once and runs the caller's body handler ({@link InstantHttpClient}), so the difference to
 * {@code raw} is the wrapper's own CPU per call. Run with {@code -prof gc} for the allocation.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 2, jvmArgsAppend = "-Xmx1g")
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class WrapperCostBenchmark {

    static final byte[] BODY = "{\"ok\":true}".getBytes(StandardCharsets.UTF_8);

    private Peers peers;
    private MeteredBallast metered;
    private HttpRequest request;

    @Setup
    public void setUp() {
        InstantHttpClient instant = new InstantHttpClient(200, BODY);
        peers = new Peers(
                instant, ResilientHttpClient.newBuilder().delegate(instant).build());
        metered = new MeteredBallast(ResilientHttpClient.newBuilder().delegate(instant));
        request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:8080/item?q=1"))
                .GET()
                .build();
    }

    @TearDown
    public void tearDown() {
        peers.close();
        metered.close();
    }

    @Benchmark
    public Object raw() throws Exception {
        return peers.raw(request);
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
    public Object ballastWithMetrics() throws Exception {
        return metered.send(request);
    }
}
