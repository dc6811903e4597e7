package dev.ballast.http.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.http.ConcurrencyLimitExceededException;
import dev.ballast.http.limit.ConcurrencyLimitConfig;
import dev.ballast.testkit.FakeTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The adaptive limit's algorithm, driven by a fake ticker: no sleeps, no network. */
@Timeout(30)
class ConcurrencyLimiterTest {

    private static final Duration WINDOW = ConcurrencyLimitConfig.DEFAULT_WINDOW;

    private final FakeTime time = new FakeTime();

    private ConcurrencyLimiter limiter(ConcurrencyLimitConfig config) {
        return new ConcurrencyLimiter("api:443", config, time.read());
    }

    private static ConcurrencyLimitConfig.Builder config(int initial) {
        return ConcurrencyLimitConfig.builder().initialLimit(initial);
    }

    /**
     * Feeds one whole window: {@code samples} attempts of {@code latencyMillis} each, every one of which
     * saw {@code inFlight} attempts in flight (itself included), spread over a window's length; the
     * last sample closes the window.
     */
    private void window(ConcurrencyLimiter limiter, long latencyMillis, int inFlight, int samples) {
        long step = WINDOW.toNanos() / samples;
        for (int i = 0; i < samples; i++) {
            time.advanceNanos(step);
            limiter.sample(TimeUnit.MILLISECONDS.toNanos(latencyMillis), inFlight - 1, time.read());
        }
    }

    /** A limiter that has learned a no-load latency of 10 ms. */
    private ConcurrencyLimiter learned(ConcurrencyLimitConfig config) {
        ConcurrencyLimiter limiter = limiter(config);
        window(limiter, 10, 1, 20);
        assertThat(limiter.noLoadNanos()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(10));
        return limiter;
    }

    @Test
    void admitsUpToTheLimitAndRefusesTheNextWithoutWaiting() {
        ConcurrencyLimiter limiter = limiter(config(20).build());
        for (int i = 0; i < 20; i++) {
            assertThat(limiter.tryAcquire(time.read())).isEqualTo(i);
        }

        assertThat(limiter.tryAcquire(time.read())).isEqualTo(-1);
        assertThat(limiter.inFlight()).isEqualTo(20);

        limiter.release();
        assertThat(limiter.tryAcquire(time.read())).isEqualTo(19);
    }

    @Test
    void anAttemptOverTheLimitWaitsForTheFirstPlaceThatComesFree() throws Exception {
        ConcurrencyLimiter limiter = limiter(config(20).build());
        for (int i = 0; i < 20; i++) {
            assertThat(limiter.tryAcquire(time.read())).isNotNegative();
        }
        ExecutorService threads = Executors.newSingleThreadExecutor();
        try {
            Future<Integer> waiter = threads.submit(() -> limiter.acquire(Duration.ofMinutes(1)));
            dev.ballast.http.Await.awaitTrue("the attempt waits", () -> limiter.waiting() == 1);
            assertThat(limiter.tryAcquire(time.read()))
                    .as("a newcomer does not overtake the waiter")
                    .isEqualTo(-1);

            limiter.release();

            assertThat(waiter.get(10, TimeUnit.SECONDS)).isEqualTo(19);
            assertThat(limiter.inFlight()).isEqualTo(20);
            assertThat(limiter.waiting()).isZero();
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void aWaitThatRunsOutIsRefusedSayingItWaited() {
        ConcurrencyLimiter limiter = limiter(config(20).build());
        for (int i = 0; i < 20; i++) {
            limiter.tryAcquire(time.read());
        }

        assertThatThrownBy(() -> limiter.acquire(Duration.ofMillis(20)))
                .isInstanceOf(ConcurrencyLimitExceededException.class)
                .hasMessage("Concurrency limit of 'api:443' reached: 20 attempts in flight,"
                        + " as many as its latency allows now; waited 20 ms for a place");
        assertThat(limiter.inFlight()).isEqualTo(20);
        assertThat(limiter.waiting()).isZero();
    }

    @Test
    void aLimitThatGrowsHandsItsNewPlacesToTheWaiters() throws Exception {
        ConcurrencyLimiter limiter = learned(config(20).build());
        for (int i = 0; i < 20; i++) {
            limiter.tryAcquire(time.read());
        }
        java.util.concurrent.ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        try {
            java.util.concurrent.CompletableFuture<Integer> waiter =
                    limiter.acquireAsync(scheduler, Duration.ofMinutes(1));
            assertThat(waiter).isNotDone();

            window(limiter, 10, 20, 20); // no queue at the limit: it grows by half

            assertThat(limiter.limit()).isEqualTo(30);
            assertThat(waiter.get(10, TimeUnit.SECONDS)).isEqualTo(20);
        } finally {
            scheduler.shutdownNow();
        }
    }

    @Test
    void aQuietDependencyRelaxesTowardsTheCeilingOnePowerOfTwoPerIdleWindow() {
        ConcurrencyLimiter limiter = learned(config(1000).maxLimit(1000).build());
        window(limiter, 500, 200, 20);
        assertThat(limiter.limit()).isEqualTo(20);

        // under two windows of quiet: no change yet (the current window may still see traffic)
        time.advance(WINDOW.multipliedBy(2).minusNanos(1));
        limiter.tryAcquire(time.read());
        limiter.release();
        assertThat(limiter.limit()).isEqualTo(20);

        // three windows without a sample: two quiet ones behind the current
        time.advance(WINDOW.plusNanos(1));
        limiter.tryAcquire(time.read());
        limiter.release();
        assertThat(limiter.limit()).isEqualTo(80);

        // a long idle spell: back to the ceiling, not beyond
        time.advance(Duration.ofMinutes(1));
        limiter.tryAcquire(time.read());
        limiter.release();
        assertThat(limiter.limit()).isEqualTo(1000);
    }

    @Test
    void windowsWithCallsPressingOnTheLimitAreNotQuiet() {
        ConcurrencyLimiter limiter = learned(config(1000).build());
        window(limiter, 500, 200, 20);
        for (int i = 0; i < 10; i++) {
            assertThat(limiter.tryAcquire(time.read())).isNotNegative(); // half the limit in flight, few samples
        }

        time.advance(Duration.ofSeconds(8));
        limiter.tryAcquire(time.read());

        assertThat(limiter.limit()).isEqualTo(20);
    }

    @Test
    void defaultsAdmitABurstOfThousandsToADependencyWithNoHistory() {
        ConcurrencyLimiter limiter = limiter(ConcurrencyLimitConfig.ofDefaults());

        for (int i = 0; i < 2_000; i++) {
            assertThat(limiter.tryAcquire(time.read())).isNotNegative();
        }
        assertThat(limiter.limit()).isEqualTo(ConcurrencyLimitConfig.DEFAULT_INITIAL_LIMIT);
    }

    @Test
    void theFirstWindowOnlyLearnsTheNoLoadLatency() {
        ConcurrencyLimiter limiter = limiter(config(100).build());

        window(limiter, 10, 100, 20);

        assertThat(limiter.limit()).isEqualTo(100);
        assertThat(limiter.noLoadNanos()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(10));
    }

    @Test
    void shrinksByLittlesLawWhenTheDependencyQueues() {
        ConcurrencyLimiter limiter = learned(config(1000).build());

        // 100 in flight and the median at 5x the no-load latency: the dependency serves 100/50ms = 2,000/s;
        // at twice the no-load latency (the tolerance) that needs 2,000/s x 20 ms = 40 in flight
        window(limiter, 50, 100, 20);

        assertThat(limiter.limit()).isEqualTo(40);
    }

    @Test
    void growsWhileLatencyHoldsAndTheCallsPressOnTheLimit() {
        ConcurrencyLimiter limiter = learned(config(40).build());

        // no queue at all (median at the no-load latency): by half each window
        window(limiter, 10, 40, 20);
        assertThat(limiter.limit()).isEqualTo(60);
        window(limiter, 10, 60, 20);
        assertThat(limiter.limit()).isEqualTo(90);

        // some queue, within tolerance (1.8x): by the square root of the limit, probing
        window(limiter, 18, 90, 20);
        assertThat(limiter.limit()).isEqualTo(99); // 90 + 9.49
    }

    @Test
    void relaxesTowardsItsCeilingWhenNothingConstrainsTheCalls() {
        ConcurrencyLimiter limiter = learned(config(40).build());

        window(limiter, 10, 5, 20); // 5 in flight, far below half the limit

        assertThat(limiter.limit()).isEqualTo(80);
    }

    @Test
    void comesBackAfterTheQueueDrains() {
        ConcurrencyLimiter limiter = learned(config(1000).minLimit(20).build());
        window(limiter, 500, 200, 20);
        assertThat(limiter.limit()).isEqualTo(20);

        List<Integer> limits = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            window(limiter, 10, limiter.limit(), 20);
            limits.add(limiter.limit());
        }

        assertThat(limits).isSorted().last().isEqualTo(227); // 20 x 1.5^6
    }

    @Test
    void neverGoesBelowItsFloor() {
        ConcurrencyLimiter limiter = learned(config(100).minLimit(7).build());

        for (int i = 0; i < 5; i++) {
            window(limiter, 10_000, 3, 20); // a thousand times the no-load latency, at 3 in flight
        }

        assertThat(limiter.limit()).isEqualTo(7);
        for (int i = 0; i < 7; i++) {
            assertThat(limiter.tryAcquire(time.read())).isNotNegative();
        }
        assertThat(limiter.tryAcquire(time.read())).isEqualTo(-1);
    }

    @Test
    void neverGoesAboveItsCeiling() {
        ConcurrencyLimiter limiter = learned(config(100).maxLimit(150).build());

        for (int i = 0; i < 5; i++) {
            window(limiter, 10, limiter.limit(), 20);
        }

        assertThat(limiter.limit()).isEqualTo(150);
    }

    @Test
    void aWindowNeedsItsMinimumSamplesAndItsLength() {
        ConcurrencyLimiter limiter = learned(config(1000).minWindowSamples(10).build());

        // nine queueing samples, however long they take: no window closes
        for (int i = 0; i < 9; i++) {
            time.advance(Duration.ofSeconds(5));
            limiter.sample(TimeUnit.MILLISECONDS.toNanos(500), 99, time.read());
        }
        assertThat(limiter.limit()).isEqualTo(1000);

        // ten samples within a fraction of the window: none either
        ConcurrencyLimiter fresh = learned(config(1000).minWindowSamples(10).build());
        for (int i = 0; i < 30; i++) {
            time.advance(Duration.ofMillis(10));
            fresh.sample(TimeUnit.MILLISECONDS.toNanos(500), 99, time.read());
        }
        assertThat(fresh.limit()).isEqualTo(1000);

        // and once the window's length has passed, the next sample closes it
        time.advance(WINDOW);
        fresh.sample(TimeUnit.MILLISECONDS.toNanos(500), 99, time.read());
        assertThat(fresh.limit()).isEqualTo(20); // 100 x 2 / 50 = 4, floored at minLimit
    }

    @Test
    void theMedianIgnoresAFewVerySlowAttempts() {
        ConcurrencyLimiter limiter = learned(config(100).build());

        // 20 samples, 8 of them a minute long (a slow download, timeouts), the rest at the no-load latency
        long step = WINDOW.toNanos() / 20;
        for (int i = 0; i < 20; i++) {
            time.advanceNanos(step);
            long latency = i % 5 < 2 ? TimeUnit.MINUTES.toNanos(1) : TimeUnit.MILLISECONDS.toNanos(10);
            limiter.sample(latency, 99, time.read());
        }

        assertThat(limiter.limit()).isGreaterThanOrEqualTo(100);
    }

    @ParameterizedTest
    @CsvSource({"30", "40", "100", "400"})
    void anOverloadOfAnySizeComesDownToTheConcurrencyThatKeepsTheMedianWithinTolerance(int inFlight) {
        // a dependency that serves 10 calls at once in 10 ms, queueing the rest: with n in flight the
        // median is n ms; at twice its no-load latency (20 ms) it has 20 in flight
        ConcurrencyLimiter limiter = learned(config(1000).minLimit(1).build());

        window(limiter, inFlight, inFlight, 20);

        assertThat(limiter.limit()).isEqualTo(20);
    }

    @Test
    void aDisabledLimitCountsButNeverRefusesNorSamples() {
        ConcurrencyLimiter limiter = limiter(ConcurrencyLimitConfig.disabled());
        for (int i = 0; i < 10_000; i++) {
            assertThat(limiter.tryAcquire(time.read())).isNotNegative();
        }
        window(limiter, 10, 10_000, 20);
        window(limiter, 10_000, 10_000, 20);

        assertThat(limiter.adaptive()).isFalse();
        assertThat(limiter.limit()).isEqualTo(Integer.MAX_VALUE);
        assertThat(limiter.inFlight()).isEqualTo(10_000);
        assertThat(limiter.noLoadNanos()).isZero();
    }

    @Test
    void theRejectionNamesTheDependencyAndTheLimit() {
        ConcurrencyLimiter limiter = limiter(config(20).build());

        ConcurrencyLimitExceededException rejection = limiter.rejection();

        assertThat(rejection.dependency()).isEqualTo("api:443");
        assertThat(rejection.limit()).isEqualTo(20);
        assertThat(rejection.getMessage())
                .isEqualTo("Concurrency limit of 'api:443' reached: 20 attempts in flight,"
                        + " as many as its latency allows now; did not wait for a place");
        assertThat(rejection.getStackTrace()).isEmpty();
    }

    @Test
    void concurrentAcquiresNeverExceedTheLimit() throws Exception {
        for (int round = 0; round < 20; round++) {
            ConcurrencyLimiter limiter = limiter(config(25).build());
            ExecutorService threads = Executors.newFixedThreadPool(8);
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Integer>> admitted = new ArrayList<>();
            try {
                for (int t = 0; t < 8; t++) {
                    admitted.add(threads.submit(() -> {
                        start.await();
                        int n = 0;
                        for (int i = 0; i < 100; i++) {
                            if (limiter.tryAcquire(time.read()) >= 0) {
                                n++;
                            }
                        }
                        return n;
                    }));
                }
                start.countDown();
                int total = 0;
                for (Future<Integer> f : admitted) {
                    total += f.get(10, TimeUnit.SECONDS);
                }
                assertThat(total).isEqualTo(25);
                assertThat(limiter.inFlight()).isEqualTo(25);
            } finally {
                threads.shutdownNow();
            }
        }
    }

    @Test
    void configRejectsValuesOutsideTheirRanges() {
        assertThatThrownBy(() -> ConcurrencyLimitConfig.builder().minLimit(0).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("minLimit must be >= 1 but was 0");
        assertThatThrownBy(() -> ConcurrencyLimitConfig.builder()
                        .minLimit(10)
                        .maxLimit(5)
                        .initialLimit(5)
                        .build())
                .hasMessage("maxLimit must be >= minLimit (10) but was 5");
        assertThatThrownBy(
                        () -> ConcurrencyLimitConfig.builder().initialLimit(10).build())
                .hasMessage("initialLimit must be >= minLimit (20) and <= maxLimit (10000) but was 10");
        assertThatThrownBy(() ->
                        ConcurrencyLimitConfig.builder().latencyTolerance(1.0).build())
                .hasMessage("latencyTolerance must be > 1 and <= 100.0 but was 1.0");
        assertThatThrownBy(() -> ConcurrencyLimitConfig.builder()
                        .window(Duration.ofMillis(1))
                        .build())
                .hasMessage("window must be >= PT0.01S and <= PT1M but was PT0.001S");
        assertThatThrownBy(() ->
                        ConcurrencyLimitConfig.builder().minWindowSamples(0).build())
                .hasMessage("minWindowSamples must be >= 1 and <= 1000 but was 0");
        assertThatThrownBy(() -> ConcurrencyLimitConfig.builder()
                        .maxWaitDuration(Duration.ofMillis(-1))
                        .build())
                .hasMessage("maxWaitDuration must be >= 0 but was PT-0.001S");
        assertThatThrownBy(() ->
                        ConcurrencyLimitConfig.builder().maxWaitingCalls(-1).build())
                .hasMessage("maxWaitingCalls must be >= 0 but was -1");
        assertThatThrownBy(() -> ConcurrencyLimitConfig.builder().window(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("window");
    }

    @Test
    void configDefaultsAreTheDocumentedOnes() {
        ConcurrencyLimitConfig defaults = ConcurrencyLimitConfig.ofDefaults();
        assertThat(defaults.enabled()).isTrue();
        assertThat(defaults.initialLimit()).isEqualTo(10_000);
        assertThat(defaults.minLimit()).isEqualTo(20);
        assertThat(defaults.maxLimit()).isEqualTo(10_000);
        assertThat(defaults.latencyTolerance()).isEqualTo(2.0);
        assertThat(defaults.window()).isEqualTo(Duration.ofSeconds(1));
        assertThat(defaults.minWindowSamples()).isEqualTo(10);
        assertThat(defaults.maxWaitDuration()).isEqualTo(Duration.ofSeconds(2));
        assertThat(defaults.maxWaitingCalls()).isEqualTo(10_000);
        assertThat(defaults.toBuilder().build()).isEqualTo(defaults);
        assertThat(ConcurrencyLimitConfig.disabled().enabled()).isFalse();
        assertThat(ConcurrencyLimitConfig.disabled().toString()).isEqualTo("ConcurrencyLimitConfig[disabled]");
    }
}
