package dev.ballast.bench;

import dev.ballast.http.CircuitOpenException;
import dev.ballast.http.ResilientHttpClient;
import dev.ballast.http.breaker.BreakerState;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
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
 * (c) What a call costs while its dependency's circuit breaker is open: the rejection, with no
 * network call. Each wrapper's breaker is opened in setup (Ballast's by real failures: a wrapped
 * client answering 503) and stays open for an hour. Sample mode gives p50 and p99.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 2, jvmArgsAppend = "-Xmx1g")
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class OpenCircuitBenchmark {

    private Peers peers;
    private MeteredBallast metered;
    private HttpRequest request;

    @Setup
    public void setUp() throws Exception {
        InstantHttpClient failing = new InstantHttpClient(503, new byte[0]);
        ResilientHttpClient ballast = Peers.ballastOpeningForAnHour(failing);
        peers = new Peers(failing, ballast);
        metered = new MeteredBallast(Peers.ballastOpeningForAnHourBuilder(failing));
        request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:8080/item?q=1"))
                .GET()
                .build();
        peers.failsafeBreaker.open();
        peers.r4jBreaker.transitionToOpenState();
        openByFailures(ballast);
        openByFailures(metered.client);
    }

    private void openByFailures(ResilientHttpClient ballast) throws Exception {
        for (int i = 0; i < 10 && !open(ballast); i++) {
            try {
                ballast.send(request, BodyHandlers.ofByteArray()); // 503 three times; opens on the fifth failure
            } catch (CircuitOpenException openedMidCall) {
                break;
            }
        }
        if (!open(ballast)) {
            throw new IllegalStateException(
                    "Ballast's breaker did not open: " + ballast.dependencyStatus("http://127.0.0.1:8080"));
        }
    }

    private static boolean open(ResilientHttpClient ballast) {
        return ballast.dependencyStatus("http://127.0.0.1:8080")
                .map(s -> s.breakerState() == BreakerState.OPEN)
                .orElse(false);
    }

    @TearDown
    public void tearDown() {
        peers.close();
        metered.close();
    }

    @Benchmark
    public Object failsafe() {
        try {
            return peers.failsafe(request);
        } catch (RuntimeException rejected) {
            return rejected;
        }
    }

    @Benchmark
    public Object resilience4j() {
        try {
            return peers.resilience4j(request);
        } catch (Throwable rejected) {
            return rejected;
        }
    }

    @Benchmark
    public Object ballast() {
        try {
            return peers.ballast(request);
        } catch (Exception rejected) {
            return rejected;
        }
    }

    @Benchmark
    public Object ballastWithMetrics() {
        try {
            return metered.send(request);
        } catch (Exception rejected) {
            return rejected;
        }
    }
}
