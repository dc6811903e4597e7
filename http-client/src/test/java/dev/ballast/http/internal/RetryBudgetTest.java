package dev.ballast.http.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.ballast.http.budget.RetryBudgetConfig;
import dev.ballast.testkit.FakeTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class RetryBudgetTest {

    private static final Duration TTL = Duration.ofSeconds(10);

    private final FakeTime ticker = new FakeTime();

    private RetryBudget budget(double ratio, int minRetriesPerSecond) {
        return new RetryBudget(
                RetryBudgetConfig.builder()
                        .ratio(ratio)
                        .minRetriesPerSecond(minRetriesPerSecond)
                        .ttl(TTL)
                        .build(),
                ticker);
    }

    private static int drain(RetryBudget budget) {
        int retries = 0;
        while (budget.tryAcquireRetry()) {
            retries++;
            assertThat(retries).as("the budget must run dry").isLessThan(1_000_000);
        }
        return retries;
    }

    private static void firstAttempts(RetryBudget budget, int count) {
        for (int i = 0; i < count; i++) {
            budget.recordFirstAttempt();
        }
    }

    @Test
    void aFirstAttemptCountsInTheSliceOfTheReadingItWasGiven() {
        RetryBudget budget = budget(1.0, 0);
        long start = ticker.read();
        ticker.advance(TTL.minusSeconds(1)); // the deposit still counts at TTL - 1 s after the reading
        budget.recordFirstAttempt(start);
        assertThat(budget.availableRetries()).isEqualTo(1.0);

        ticker.advance(Duration.ofSeconds(1)); // a whole ttl after the reading: decayed
        assertThat(budget.availableRetries()).isZero();
    }

    @Test
    void aFirstAttemptReadAWholeTtlBeforeItGotTheBudgetNeitherCountsNorEvictsNewerDeposits() {
        RetryBudget budget = budget(1.0, 0);
        long stale = ticker.read();
        ticker.advance(TTL); // a caller stalled a whole ttl between its reading and the deposit
        budget.recordFirstAttempt(); // a deposit now, in the slot the stale reading maps to
        budget.recordFirstAttempt(stale);
        assertThat(budget.availableRetries()).isEqualTo(1.0);
    }

    @Test
    void refundRetryGivesBackExactlyTheWithdrawnTokensAndNeverMore() {
        RetryBudget budget = budget(0.1, 0);
        firstAttempts(budget, 30); // 3 tokens
        assertThat(budget.tryAcquireRetry()).isTrue();
        assertThat(budget.tryAcquireRetry()).isTrue();
        assertThat(budget.availableRetries()).isEqualTo(1.0);

        assertThat(budget.refundRetry()).isTrue();
        assertThat(budget.availableRetries()).isEqualTo(2.0);
        assertThat(budget.refundRetry()).isTrue();
        assertThat(budget.availableRetries()).isEqualTo(3.0);

        // nothing withdrawn is left: a third refund must not mint a token
        assertThat(budget.refundRetry()).isFalse();
        assertThat(budget.availableRetries()).isEqualTo(3.0);
    }

    @Test
    void refundRetryWithoutAnyWithdrawalChangesNothing() {
        RetryBudget budget = budget(0.1, 1);

        assertThat(budget.refundRetry()).isFalse();
        assertThat(budget.availableRetries()).isEqualTo(10.0);
    }

    @Test
    void refundRetryAfterTheWithdrawalDecayedHasNothingToGiveBack() {
        RetryBudget budget = budget(0.1, 0);
        firstAttempts(budget, 10);
        assertThat(budget.tryAcquireRetry()).isTrue();

        ticker.advance(TTL); // the deposit and the withdrawal both left the window

        assertThat(budget.refundRetry()).isFalse();
        assertThat(budget.availableRetries()).isZero();
    }

    @Test
    void refundRetryReturnsTheTokenToTheSliceItCameFromSoItDecaysOnSchedule() {
        RetryBudget budget = budget(0.1, 0);
        firstAttempts(budget, 10); // 1 token, in slice 0
        assertThat(budget.tryAcquireRetry()).isTrue();
        ticker.advance(TTL.dividedBy(2));
        firstAttempts(budget, 10); // 1 token, in slice 5

        assertThat(budget.refundRetry()).isTrue();
        assertThat(budget.availableRetries()).isEqualTo(2.0);

        ticker.advance(TTL.dividedBy(2)); // slice 0 decays, with the refunded token; slice 5 remains
        assertThat(budget.availableRetries()).isEqualTo(1.0);
    }

    @Test
    void refundRetryOnADisabledBudgetIsANoOp() {
        RetryBudget budget = new RetryBudget(RetryBudgetConfig.disabled(), ticker);

        assertThat(budget.refundRetry()).isFalse();
        assertThat(budget.availableRetries()).isInfinite();
    }

    @Test
    void theFloorIsMinRetriesPerSecondTimesTtl() {
        RetryBudget budget = budget(0.1, 10);

        assertThat(budget.availableRetries()).isEqualTo(100.0);
        assertThat(drain(budget)).isEqualTo(100);
        assertThat(budget.availableRetries()).isZero();
    }

    @Test
    void eachFirstAttemptDepositsRatioTokens() {
        RetryBudget budget = budget(0.1, 0);
        assertThat(budget.availableRetries()).isZero();
        assertThat(budget.tryAcquireRetry()).isFalse();

        firstAttempts(budget, 9);
        assertThat(budget.availableRetries()).isCloseTo(0.9, within(1e-9));
        assertThat(budget.tryAcquireRetry()).as("0.9 tokens are not a retry").isFalse();

        budget.recordFirstAttempt();
        assertThat(budget.availableRetries())
                .as("ten deposits of 0.1 add up exactly")
                .isEqualTo(1.0);
        assertThat(budget.tryAcquireRetry()).isTrue();
        assertThat(budget.tryAcquireRetry()).isFalse();
    }

    @Test
    void depositsAndFloorAddUp() {
        RetryBudget budget = budget(0.2, 1);

        firstAttempts(budget, 50);

        assertThat(budget.availableRetries()).isEqualTo(20.0);
        assertThat(drain(budget)).isEqualTo(20);
    }

    @Test
    void exhaustedThenRefilledByNewFirstAttempts() {
        RetryBudget budget = budget(0.5, 0);
        firstAttempts(budget, 4);
        assertThat(drain(budget)).isEqualTo(2);

        firstAttempts(budget, 3);

        assertThat(budget.availableRetries()).isEqualTo(1.5);
        assertThat(drain(budget)).isEqualTo(1);
        assertThat(budget.availableRetries()).isEqualTo(0.5);
    }

    @Test
    void depositsDecayAfterTtl() {
        RetryBudget budget = budget(0.1, 1);
        firstAttempts(budget, 100);
        assertThat(budget.availableRetries()).isEqualTo(20.0);

        ticker.advance(TTL.multipliedBy(8).dividedBy(10));
        assertThat(budget.availableRetries()).as("still inside the window").isEqualTo(20.0);

        ticker.advance(TTL.multipliedBy(2).dividedBy(10));
        assertThat(budget.availableRetries()).as("only the floor remains").isEqualTo(10.0);
    }

    @Test
    void withdrawalsDecaySoAnExhaustedFloorRefillsAfterTtl() {
        RetryBudget budget = budget(0.1, 1);
        assertThat(drain(budget)).isEqualTo(10);
        assertThat(budget.tryAcquireRetry()).isFalse();

        ticker.advance(TTL.dividedBy(2));
        assertThat(budget.tryAcquireRetry())
                .as("withdrawals still count after half the ttl")
                .isFalse();

        ticker.advance(TTL.dividedBy(2));
        assertThat(budget.availableRetries()).isEqualTo(10.0);
        assertThat(drain(budget)).isEqualTo(10);
    }

    @Test
    void theWindowSlidesSliceBySlice() {
        RetryBudget budget = budget(1.0, 0);
        firstAttempts(budget, 5);
        ticker.advance(Duration.ofSeconds(5));
        firstAttempts(budget, 3);
        assertThat(budget.availableRetries()).isEqualTo(8.0);

        ticker.advance(Duration.ofSeconds(5));
        assertThat(budget.availableRetries()).as("the first five have expired").isEqualTo(3.0);

        ticker.advance(Duration.ofSeconds(5));
        assertThat(budget.availableRetries()).isZero();
    }

    @Test
    void recentRetriesCanOutliveTheDepositsThatPaidForThem() {
        RetryBudget budget = budget(1.0, 0);
        firstAttempts(budget, 2);
        ticker.advance(Duration.ofSeconds(9));
        assertThat(drain(budget)).isEqualTo(2);

        ticker.advance(Duration.ofSeconds(1));
        firstAttempts(budget, 3);

        assertThat(budget.availableRetries())
                .as("3 new tokens minus 2 retries still in the window")
                .isEqualTo(1.0);
    }

    @Test
    void aZeroRatioLeavesOnlyTheFloor() {
        RetryBudget budget = budget(0.0, 2);

        firstAttempts(budget, 1_000);

        assertThat(drain(budget)).isEqualTo(20);
    }

    @Test
    void aDisabledBudgetPermitsEveryRetry() {
        RetryBudget budget = new RetryBudget(RetryBudgetConfig.disabled(), ticker);

        for (int i = 0; i < 10_000; i++) {
            assertThat(budget.tryAcquireRetry()).isTrue();
        }
        budget.recordFirstAttempt();
        assertThat(budget.availableRetries()).isInfinite();
        assertThat(RetryBudgetConfig.disabled().enabled()).isFalse();
    }

    @Test
    void concurrentRetriesNeverOverdrawTheBudget() throws Exception {
        RetryBudget budget = budget(0.1, 5);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            AtomicInteger granted = new AtomicInteger();
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                done.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < 1_000; i++) {
                        if (budget.tryAcquireRetry()) {
                            granted.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get(10, TimeUnit.SECONDS);
            }

            assertThat(granted.get()).isEqualTo(50);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void configDefaultsAndValidation() {
        RetryBudgetConfig defaults = RetryBudgetConfig.ofDefaults();
        assertThat(defaults.ratio()).isEqualTo(0.1).isEqualTo(RetryBudgetConfig.DEFAULT_RATIO);
        assertThat(defaults.minRetriesPerSecond()).isEqualTo(10);
        assertThat(defaults.ttl()).isEqualTo(Duration.ofSeconds(10));
        assertThat(defaults.enabled()).isTrue();
        assertThat(defaults.toBuilder().build()).isEqualTo(defaults);
        assertThat(RetryBudgetConfig.disabled().toBuilder().build()).isEqualTo(defaults);

        assertThatThrownBy(() -> RetryBudgetConfig.builder().ratio(-0.1).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ratio must be >= 0 and <= 1000.0 but was -0.1");
        assertThatThrownBy(() -> RetryBudgetConfig.builder().ratio(Double.NaN).build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() ->
                        RetryBudgetConfig.builder().minRetriesPerSecond(-1).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("minRetriesPerSecond must be >= 0 but was -1");
        assertThatThrownBy(() ->
                        RetryBudgetConfig.builder().ttl(Duration.ofMillis(999)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ttl must be >= PT1S and <= PT1M");
        assertThatThrownBy(() ->
                        RetryBudgetConfig.builder().ttl(Duration.ofSeconds(61)).build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RetryBudget(null, ticker))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("config");
        assertThatThrownBy(() -> new RetryBudget(defaults, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("ticker");
    }
}
