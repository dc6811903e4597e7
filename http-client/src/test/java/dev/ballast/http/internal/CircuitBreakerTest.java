package dev.ballast.http.internal;

import static dev.ballast.http.breaker.BreakerState.CLOSED;
import static dev.ballast.http.breaker.BreakerState.HALF_OPEN;
import static dev.ballast.http.breaker.BreakerState.OPEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.ballast.http.CircuitOpenException;
import dev.ballast.http.HttpClientListener;
import dev.ballast.http.breaker.BreakerConfig;
import dev.ballast.http.breaker.BreakerState;
import dev.ballast.testkit.FakeTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(30)
class CircuitBreakerTest {

    private static final Duration WAIT = Duration.ofSeconds(5);

    private final FakeTime ticker = new FakeTime();
    private final RecordingListener listener = new RecordingListener();
    private ExecutorService pool;

    @AfterEach
    void stopPool() {
        if (pool != null) {
            pool.shutdownNow();
        }
    }

    /** Window 10, minimum 5, 50%, consecutive rule off, 5 s open without jitter, 1 probe. */
    private static BreakerConfig.Builder config() {
        return BreakerConfig.builder()
                .slidingWindowSize(10)
                .minimumNumberOfCalls(5)
                .failureRateThreshold(50)
                .consecutiveFailureThreshold(0)
                .waitDurationInOpenState(WAIT)
                .openStateJitter(0)
                .permittedNumberOfCallsInHalfOpenState(1);
    }

    private CircuitBreaker breaker(BreakerConfig config) {
        return breaker(config, () -> new SplittableRandom(42));
    }

    private CircuitBreaker breaker(BreakerConfig config, Supplier<RandomGenerator> random) {
        return new CircuitBreaker("api:443", config, ticker, random, listener);
    }

    /** Reports a sequence such as "FSSF" (F failure, S success, I ignored, A abandoned) on fresh permits. */
    private static void calls(CircuitBreaker breaker, String outcomes) throws CircuitOpenException {
        for (char c : outcomes.toCharArray()) {
            CircuitBreaker.Permit permit = breaker.acquirePermission();
            switch (c) {
                case 'S' -> permit.onSuccess();
                case 'F' -> permit.onFailure();
                case 'I' -> permit.onIgnored();
                case 'A' -> permit.onAbandoned();
                default -> throw new IllegalArgumentException(String.valueOf(c));
            }
        }
    }

    private CircuitBreaker openBreaker(BreakerConfig config) throws CircuitOpenException {
        CircuitBreaker breaker = breaker(config);
        calls(breaker, "FFFFF");
        assertThat(breaker.state()).isEqualTo(OPEN);
        return breaker;
    }

    @Test
    void aTicketIsAPermitWithoutTheObjectAndFollowsTheSameRules() throws Exception {
        CircuitBreaker breaker = breaker(config().build());
        for (int i = 0; i < 5; i++) {
            breaker.report(breaker.acquireTicket(), CircuitBreaker.Report.FAILURE, 0);
        }
        assertThat(breaker.state()).as("tickets count like permits").isEqualTo(OPEN);
        assertThatThrownBy(breaker::acquireTicket).isInstanceOf(CircuitOpenException.class);

        ticker.advance(WAIT);
        long probe = breaker.acquireTicket();
        assertThat(breaker.state()).isEqualTo(HALF_OPEN);
        assertThatThrownBy(breaker::acquireTicket).as("the one probe is out").isInstanceOf(CircuitOpenException.class);
        breaker.report(probe, CircuitBreaker.Report.NOT_ATTEMPTED, 0);
        long second = breaker.acquireTicket();
        assertThat(second).as("a probe never sent gives its slot back").isEqualTo(probe);

        breaker.report(CircuitBreaker.NO_TICKET, CircuitBreaker.Report.FAILURE, 0);
        assertThat(breaker.state()).as("no ticket, no report").isEqualTo(HALF_OPEN);
        breaker.report(second, CircuitBreaker.Report.SUCCESS, 0);
        assertThat(breaker.state()).isEqualTo(CLOSED);

        breaker.report(probe, CircuitBreaker.Report.FAILURE, 0);
        assertThat(breaker.state())
                .as("a ticket of an earlier generation is stale")
                .isEqualTo(CLOSED);
        long closed = breaker.acquireTicket();
        assertThat(closed)
                .as("a new generation, not a probe")
                .isNotEqualTo(probe)
                .isGreaterThanOrEqualTo(0);
    }

    @Test
    void startsClosedAndPermitsCalls() throws Exception {
        CircuitBreaker breaker = breaker(config().build());

        assertThat(breaker.state()).isEqualTo(CLOSED);
        assertThat(breaker.remainingOpenTime()).isZero();
        assertThat(breaker.dependency()).isEqualTo("api:443");
        calls(breaker, "SSSSSSSSSSSSSSSSSSSS");
        assertThat(breaker.state()).isEqualTo(CLOSED);
        assertThat(listener.transitions()).isEmpty();
    }

    @Test
    void doesNotEvaluateTheFailureRateBeforeMinimumNumberOfCalls() throws Exception {
        CircuitBreaker breaker = breaker(config().build());

        calls(breaker, "FFFF");

        assertThat(breaker.state()).isEqualTo(CLOSED);
    }

    @Test
    void opensOnFailureRateOnceMinimumNumberOfCallsIsReached() throws Exception {
        CircuitBreaker breaker = breaker(config().build());

        calls(breaker, "FSFS");
        assertThat(breaker.state()).as("50% of 4 calls, below the minimum of 5").isEqualTo(CLOSED);

        calls(breaker, "F");

        assertThat(breaker.state()).as("60% of 5 calls").isEqualTo(OPEN);
        assertThat(listener.transitions()).containsExactly("CLOSED->OPEN");
    }

    @Test
    void opensExactlyAtTheThresholdButNotBelowIt() throws Exception {
        CircuitBreaker atThreshold = breaker(config().minimumNumberOfCalls(6).build());
        calls(atThreshold, "SFSFS");
        assertThat(atThreshold.state()).isEqualTo(CLOSED);
        calls(atThreshold, "F");
        assertThat(atThreshold.state()).as("3 of 6 = 50%").isEqualTo(OPEN);

        CircuitBreaker below = breaker(
                config().failureRateThreshold(50.1).minimumNumberOfCalls(6).build());
        calls(below, "SFSFSF");
        assertThat(below.state()).as("50% < 50.1%").isEqualTo(CLOSED);
    }

    @Test
    void theCountBasedWindowHoldsOnlyTheLastSlidingWindowSizeOutcomes() throws Exception {
        CircuitBreaker breaker =
                breaker(config().slidingWindowSize(4).minimumNumberOfCalls(4).build());

        calls(breaker, "FSSS");
        calls(breaker, "SS");
        calls(breaker, "F");
        assertThat(breaker.state()).as("window S S S F = 25%").isEqualTo(CLOSED);

        calls(breaker, "F");

        assertThat(breaker.state())
                .as("window S S F F = 50%; 3 of 8 overall would be 37.5%")
                .isEqualTo(OPEN);
    }

    /**
     * A fast success into a window full of fast successes is not recorded at all (it would replace
     * an equal entry): the window must still count what follows exactly as if it had been.
     */
    @Test
    void aWindowFullOfFastSuccessesStillCountsTheFailuresAndSlowCallsThatFollow() throws Exception {
        CircuitBreaker failing =
                breaker(config().slidingWindowSize(4).minimumNumberOfCalls(4).build());
        calls(failing, "SSSSSSSSSS");
        calls(failing, "F");
        assertThat(failing.state()).as("window S S S F = 25%").isEqualTo(CLOSED);
        calls(failing, "F");
        assertThat(failing.state()).as("window S S F F = 50%").isEqualTo(OPEN);

        CircuitBreaker slow = breaker(slowAboveOneSecond(50)
                .slidingWindowSize(4)
                .minimumNumberOfCalls(4)
                .build());
        timedCalls(slow, "S0", "S0", "S0", "S0", "S0", "S0", "S20");
        assertThat(slow.state()).as("window S0 S0 S0 S20: 25 % slow").isEqualTo(CLOSED);
        timedCalls(slow, "S20");
        assertThat(slow.state()).as("window S0 S0 S20 S20: 50 % slow").isEqualTo(OPEN);
    }

    @Test
    void theWindowForgetsFailuresThatSlideOut() throws Exception {
        CircuitBreaker breaker =
                breaker(config().slidingWindowSize(4).minimumNumberOfCalls(4).build());

        calls(breaker, "FSSSSSSFS");

        assertThat(breaker.state())
                .as("the first failure slid out; window S S F S = 25%")
                .isEqualTo(CLOSED);
    }

    @Test
    void opensOnConsecutiveFailuresEvenBeforeMinimumNumberOfCalls() throws Exception {
        CircuitBreaker breaker = breaker(config().consecutiveFailureThreshold(3)
                .minimumNumberOfCalls(10)
                .slidingWindowSize(20)
                .build());

        calls(breaker, "FFSFF");
        assertThat(breaker.state()).as("a success resets the run").isEqualTo(CLOSED);

        calls(breaker, "F");

        assertThat(breaker.state()).isEqualTo(OPEN);
        assertThat(listener.transitions()).containsExactly("CLOSED->OPEN");
    }

    @Test
    void zeroDisablesTheConsecutiveFailureRule() throws Exception {
        CircuitBreaker breaker =
                breaker(config().minimumNumberOfCalls(10).slidingWindowSize(10).build());

        calls(breaker, "FFFFFFFFF");

        assertThat(breaker.state()).isEqualTo(CLOSED);
    }

    @Test
    void openRejectsWithTheRemainingOpenTime() throws Exception {
        CircuitBreaker breaker = openBreaker(config().build());
        ticker.advance(Duration.ofSeconds(2));

        CircuitOpenException e = catchThrowableOfType(CircuitOpenException.class, breaker::acquirePermission);

        assertThat(e.dependency()).isEqualTo("api:443");
        assertThat(e.remainingOpenTime()).isEqualTo(Duration.ofSeconds(3));
        assertThat(e.getMessage()).contains("'api:443' is OPEN", "retry in 3000 ms");
        assertThat(breaker.remainingOpenTime()).isEqualTo(Duration.ofSeconds(3));
        assertThat(breaker.state()).isEqualTo(OPEN);
    }

    @Test
    void openTurnsHalfOpenWhenTheWaitHasElapsed() throws Exception {
        CircuitBreaker breaker = openBreaker(config().build());

        ticker.advance(WAIT.minusNanos(1));
        assertThat(catchThrowableOfType(CircuitOpenException.class, breaker::acquirePermission)
                        .remainingOpenTime())
                .isEqualTo(Duration.ofNanos(1));

        ticker.advanceNanos(1);
        assertThat(breaker.state())
                .as("the transition happens on the next acquirePermission")
                .isEqualTo(OPEN);
        assertThat(breaker.remainingOpenTime()).isZero();
        breaker.acquirePermission();

        assertThat(breaker.state()).isEqualTo(HALF_OPEN);
        assertThat(listener.transitions()).containsExactly("CLOSED->OPEN", "OPEN->HALF_OPEN");
    }

    @Test
    void theOpenWaitIsJitteredDownBy20PercentAtMost() throws Exception {
        CircuitBreaker breaker = breaker(config().openStateJitter(0.2).build(), () -> new FixedRandom(0.0));
        calls(breaker, "FFFFF");

        ticker.advance(Duration.ofSeconds(4).minusNanos(1));
        assertThatThrownBy(breaker::acquirePermission).isInstanceOf(CircuitOpenException.class);
        ticker.advanceNanos(1);

        breaker.acquirePermission();
        assertThat(breaker.state()).isEqualTo(HALF_OPEN);
    }

    @Test
    void theOpenWaitIsJitteredUpBy20PercentAtMost() throws Exception {
        CircuitBreaker breaker =
                breaker(config().openStateJitter(0.2).build(), () -> new FixedRandom(Math.nextDown(1.0)));
        calls(breaker, "FFFFF");

        assertThat(breaker.remainingOpenTime()).isBetween(Duration.ofMillis(5999), Duration.ofSeconds(6));
        ticker.advance(Duration.ofMillis(5999));
        assertThatThrownBy(breaker::acquirePermission).isInstanceOf(CircuitOpenException.class);
        ticker.advance(Duration.ofMillis(1));

        breaker.acquirePermission();
        assertThat(breaker.state()).isEqualTo(HALF_OPEN);
    }

    @Test
    void everyOpenWaitIsWithin20PercentOfTheConfiguredWaitAndTheyVary() throws Exception {
        SplittableRandom seeded = new SplittableRandom(2026);
        CircuitBreaker breaker = breaker(config().openStateJitter(0.2).build(), () -> seeded);
        calls(breaker, "FFFFF");

        List<Duration> waits = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            Duration wait = breaker.remainingOpenTime();
            waits.add(wait);
            assertThat(wait).isBetween(Duration.ofSeconds(4), Duration.ofSeconds(6));
            ticker.advance(wait);
            breaker.acquirePermission().onFailure();
            assertThat(breaker.state()).isEqualTo(OPEN);
        }

        assertThat(Collections.min(waits)).isLessThan(Duration.ofMillis(4200));
        assertThat(Collections.max(waits)).isGreaterThan(Duration.ofMillis(5800));
    }

    @Test
    void halfOpenAdmitsExactlyThePermittedNumberOfProbes() throws Exception {
        CircuitBreaker breaker =
                openBreaker(config().permittedNumberOfCallsInHalfOpenState(3).build());
        ticker.advance(WAIT);

        breaker.acquirePermission();
        breaker.acquirePermission();
        breaker.acquirePermission();
        CircuitOpenException e = catchThrowableOfType(CircuitOpenException.class, breaker::acquirePermission);

        assertThat(e.remainingOpenTime()).isZero();
        assertThat(e.getMessage()).contains("is HALF_OPEN");
        assertThat(breaker.state()).isEqualTo(HALF_OPEN);
    }

    @Test
    void halfOpenClosesAfterThatManySuccesses() throws Exception {
        CircuitBreaker breaker =
                openBreaker(config().permittedNumberOfCallsInHalfOpenState(3).build());
        ticker.advance(WAIT);
        CircuitBreaker.Permit a = breaker.acquirePermission();
        CircuitBreaker.Permit b = breaker.acquirePermission();
        CircuitBreaker.Permit c = breaker.acquirePermission();

        a.onSuccess();
        b.onSuccess();
        assertThat(breaker.state()).isEqualTo(HALF_OPEN);
        assertThatThrownBy(breaker::acquirePermission)
                .as("successes do not free probe slots")
                .isInstanceOf(CircuitOpenException.class);
        c.onSuccess();

        assertThat(breaker.state()).isEqualTo(CLOSED);
        assertThat(listener.transitions()).containsExactly("CLOSED->OPEN", "OPEN->HALF_OPEN", "HALF_OPEN->CLOSED");
        calls(breaker, "FFFF");
        assertThat(breaker.state()).as("closing starts a fresh window").isEqualTo(CLOSED);
    }

    @Test
    void aProbeFailureReopensAndLaterProbeReportsAreIgnored() throws Exception {
        CircuitBreaker breaker =
                openBreaker(config().permittedNumberOfCallsInHalfOpenState(2).build());
        ticker.advance(WAIT);
        CircuitBreaker.Permit first = breaker.acquirePermission();
        CircuitBreaker.Permit second = breaker.acquirePermission();

        first.onFailure();
        second.onSuccess();

        assertThat(breaker.state()).isEqualTo(OPEN);
        assertThat(breaker.remainingOpenTime()).isEqualTo(WAIT);
        assertThat(listener.transitions()).containsExactly("CLOSED->OPEN", "OPEN->HALF_OPEN", "HALF_OPEN->OPEN");
    }

    @Test
    void anAbandonedProbeCountsAsAFailureAndTheBreakerProbesAgainLater() throws Exception {
        CircuitBreaker breaker = openBreaker(config().build());
        ticker.advance(WAIT);

        breaker.acquirePermission().onAbandoned();

        assertThat(breaker.state()).isEqualTo(OPEN);
        ticker.advance(WAIT);
        breaker.acquirePermission().onSuccess();
        assertThat(breaker.state()).isEqualTo(CLOSED);
        assertThat(listener.transitions())
                .containsExactly(
                        "CLOSED->OPEN", "OPEN->HALF_OPEN", "HALF_OPEN->OPEN", "OPEN->HALF_OPEN", "HALF_OPEN->CLOSED");
    }

    @Test
    void probesThatNeverReportCannotLeaveTheBreakerStuckHalfOpen() throws Exception {
        Duration maxHalfOpen = Duration.ofSeconds(30);
        CircuitBreaker breaker = openBreaker(config().permittedNumberOfCallsInHalfOpenState(2)
                .maxWaitDurationInHalfOpenState(maxHalfOpen)
                .build());
        ticker.advance(WAIT);
        CircuitBreaker.Permit lost = breaker.acquirePermission();
        breaker.acquirePermission();

        ticker.advance(maxHalfOpen.minusNanos(1));
        assertThat(catchThrowableOfType(CircuitOpenException.class, breaker::acquirePermission)
                        .remainingOpenTime())
                .isZero();
        assertThat(breaker.state()).isEqualTo(HALF_OPEN);

        ticker.advanceNanos(1);
        CircuitOpenException e = catchThrowableOfType(CircuitOpenException.class, breaker::acquirePermission);

        assertThat(breaker.state()).isEqualTo(OPEN);
        assertThat(e.remainingOpenTime()).isEqualTo(WAIT);
        lost.onSuccess();
        assertThat(breaker.state())
                .as("a report from the given-up probe is stale")
                .isEqualTo(OPEN);
        ticker.advance(WAIT);
        breaker.acquirePermission();
        assertThat(breaker.state()).isEqualTo(HALF_OPEN);
    }

    @Test
    void aProbeThatWasNeverSentGivesItsSlotBack() throws Exception {
        CircuitBreaker breaker = openBreaker(config().build());
        ticker.advance(WAIT);
        CircuitBreaker.Permit rejectedDownstream = breaker.acquirePermission();
        assertThatThrownBy(breaker::acquirePermission).isInstanceOf(CircuitOpenException.class);

        rejectedDownstream.onNotAttempted();
        rejectedDownstream.onFailure();

        assertThat(breaker.state()).as("neither a failure nor a success").isEqualTo(HALF_OPEN);
        breaker.acquirePermission().onSuccess();
        assertThat(breaker.state()).isEqualTo(CLOSED);
    }

    @Test
    void callsNeverSentAreNotRecordedWhileClosed() throws Exception {
        CircuitBreaker breaker = breaker(config().consecutiveFailureThreshold(2).build());

        calls(breaker, "F");
        breaker.acquirePermission().onNotAttempted();
        calls(breaker, "F");

        assertThat(breaker.state())
                .as("the unsent call neither broke nor extended the run")
                .isEqualTo(OPEN);
    }

    @Test
    void aTestDoublePermitTreatsNotAttemptedAsAbandoned() {
        List<String> reports = new ArrayList<>();
        CircuitBreaker.Permit permit = new CircuitBreaker.Permit() {
            @Override
            public void onSuccess() {
                reports.add("success");
            }

            @Override
            public void onFailure() {
                reports.add("failure");
            }

            @Override
            public void onIgnored() {
                reports.add("ignored");
            }

            @Override
            public void onAbandoned() {
                reports.add("abandoned");
            }
        };

        permit.onNotAttempted();

        assertThat(reports).containsExactly("abandoned");
    }

    @Test
    void abandonedCallsAreIgnoredWhileClosed() throws Exception {
        CircuitBreaker breaker = breaker(
                config().consecutiveFailureThreshold(1).minimumNumberOfCalls(1).build());

        calls(breaker, "AAAAAAAAAAAAAAAAAAAAAAAA");

        assertThat(breaker.state()).isEqualTo(CLOSED);
    }

    @Test
    void ignoredAnswersNeverCountAsFailures() throws Exception {
        CircuitBreaker breaker = breaker(
                config().consecutiveFailureThreshold(1).minimumNumberOfCalls(1).build());

        calls(breaker, "I".repeat(100));

        assertThat(breaker.state()).isEqualTo(CLOSED);
        assertThat(listener.transitions()).isEmpty();
    }

    @Test
    void ignoredAnswersAreNotRecordedSoTheyDoNotDiluteTheFailureRate() throws Exception {
        CircuitBreaker breaker = breaker(config().build());

        calls(breaker, "IIIIIIIIII" + "FSFS" + "IIII");
        assertThat(breaker.state())
                .as("4 recorded calls, below the minimum of 5")
                .isEqualTo(CLOSED);
        calls(breaker, "F");

        assertThat(breaker.state()).isEqualTo(OPEN);
    }

    @Test
    void anIgnoredAnswerToAProbeCountsAsSuccess() throws Exception {
        CircuitBreaker breaker = openBreaker(config().build());
        ticker.advance(WAIT);

        breaker.acquirePermission().onIgnored();

        assertThat(breaker.state()).isEqualTo(CLOSED);
    }

    @Test
    void theFirstReportOfAPermitWins() throws Exception {
        CircuitBreaker breaker = breaker(
                config().minimumNumberOfCalls(2).failureRateThreshold(60).build());

        CircuitBreaker.Permit permit = breaker.acquirePermission();
        permit.onSuccess();
        permit.onFailure();
        permit.onFailure();
        calls(breaker, "F");

        assertThat(breaker.state()).as("1 failure of 2 calls = 50% < 60%").isEqualTo(CLOSED);

        CircuitBreaker halfOpen = openBreaker(config().build());
        ticker.advance(WAIT);
        CircuitBreaker.Permit probe = halfOpen.acquirePermission();
        probe.onSuccess();
        probe.onFailure();
        assertThat(halfOpen.state()).isEqualTo(CLOSED);
    }

    @Test
    void permitsFromAnEarlierGenerationDoNotAffectTheCurrentState() throws Exception {
        CircuitBreaker breaker =
                breaker(config().minimumNumberOfCalls(1).slidingWindowSize(1).build());
        CircuitBreaker.Permit slowClosedCall = breaker.acquirePermission();
        CircuitBreaker.Permit anotherSlowCall = breaker.acquirePermission();

        calls(breaker, "F");
        assertThat(breaker.state()).isEqualTo(OPEN);
        ticker.advance(Duration.ofSeconds(2));
        slowClosedCall.onFailure();
        assertThat(breaker.state()).isEqualTo(OPEN);
        assertThat(breaker.remainingOpenTime())
                .as("a stale failure must not restart the open wait")
                .isEqualTo(Duration.ofSeconds(3));

        ticker.advance(Duration.ofSeconds(3));
        CircuitBreaker.Permit probe = breaker.acquirePermission();
        anotherSlowCall.onSuccess();
        assertThat(breaker.state())
                .as("a stale success must not close a half-open breaker")
                .isEqualTo(HALF_OPEN);

        probe.onSuccess();
        assertThat(breaker.state()).isEqualTo(CLOSED);
        CircuitBreaker.Permit staleProbe = probe;
        staleProbe.onFailure();
        anotherSlowCall.onFailure();
        assertThat(breaker.state())
                .as("stale failures must not open the new closed period")
                .isEqualTo(CLOSED);
        assertThat(listener.transitions()).containsExactly("CLOSED->OPEN", "OPEN->HALF_OPEN", "HALF_OPEN->CLOSED");
    }

    @Test
    void aProbeFromAnEarlierHalfOpenPeriodDoesNotCountInTheNextOne() throws Exception {
        CircuitBreaker breaker =
                openBreaker(config().permittedNumberOfCallsInHalfOpenState(2).build());
        ticker.advance(WAIT);
        CircuitBreaker.Permit slowProbe = breaker.acquirePermission();
        breaker.acquirePermission().onFailure();
        ticker.advance(WAIT);
        CircuitBreaker.Permit currentProbe = breaker.acquirePermission();

        slowProbe.onSuccess();
        currentProbe.onSuccess();

        assertThat(breaker.state()).as("one current success of two needed").isEqualTo(HALF_OPEN);
    }

    @Test
    void aStaleClosedPermitDoesNotCountInTheNextClosedPeriod() throws Exception {
        CircuitBreaker breaker =
                breaker(config().minimumNumberOfCalls(1).slidingWindowSize(1).build());
        CircuitBreaker.Permit fromFirstClosedPeriod = breaker.acquirePermission();
        calls(breaker, "F");
        ticker.advance(WAIT);
        calls(breaker, "S");
        assertThat(breaker.state()).isEqualTo(CLOSED);

        fromFirstClosedPeriod.onFailure();

        assertThat(breaker.state()).isEqualTo(CLOSED);
    }

    @Test
    void theListenerSeesEveryTransitionOnceAndInOrder() throws Exception {
        CircuitBreaker breaker = breaker(config().build());

        calls(breaker, "FFFFF");
        ticker.advance(WAIT);
        calls(breaker, "F");
        ticker.advance(WAIT);
        calls(breaker, "S");

        assertThat(listener.transitions())
                .containsExactly(
                        "CLOSED->OPEN", "OPEN->HALF_OPEN", "HALF_OPEN->OPEN", "OPEN->HALF_OPEN", "HALF_OPEN->CLOSED");
        assertThat(listener.dependencies()).containsOnly("api:443");
    }

    @Test
    void aFailingListenerDoesNotBreakTheBreaker() throws Exception {
        CircuitBreaker breaker = new CircuitBreaker(
                "api:443", config().build(), ticker, () -> new SplittableRandom(1), new HttpClientListener() {
                    @Override
                    public void onBreakerStateTransition(String dependency, BreakerState from, BreakerState to) {
                        throw new IllegalStateException("listener bug");
                    }
                });

        calls(breaker, "FFFFF");
        assertThat(breaker.state()).isEqualTo(OPEN);
        ticker.advance(WAIT);
        calls(breaker, "S");
        assertThat(breaker.state()).isEqualTo(CLOSED);
    }

    @Test
    void concurrentFailuresOpenTheBreakerOnce() throws Exception {
        CircuitBreaker breaker = breaker(
                config().slidingWindowSize(100).minimumNumberOfCalls(100).build());
        pool = Executors.newFixedThreadPool(8);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            done.add(pool.submit(() -> {
                start.await();
                for (int i = 0; i < 50; i++) {
                    try {
                        breaker.acquirePermission().onFailure();
                    } catch (CircuitOpenException rejected) {
                        // expected once the breaker is open
                    }
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> f : done) {
            f.get(20, TimeUnit.SECONDS);
        }

        assertThat(breaker.state()).isEqualTo(OPEN);
        assertThat(listener.transitions()).containsExactly("CLOSED->OPEN");
    }

    @ParameterizedTest(name = "{0} probe(s)")
    @ValueSource(ints = {1, 2, 3, 5, 8, 15, 16})
    void sixteenRacingCallersGetExactlyThePermittedNumberOfProbes(int probes) throws Exception {
        pool = Executors.newFixedThreadPool(16);
        for (int round = 0; round < 20; round++) {
            listener.clear();
            CircuitBreaker breaker = openBreaker(
                    config().permittedNumberOfCallsInHalfOpenState(probes).build());
            ticker.advance(WAIT);

            CountDownLatch ready = new CountDownLatch(16);
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Boolean>> results = new ArrayList<>();
            for (int t = 0; t < 16; t++) {
                results.add(pool.submit(() -> {
                    ready.countDown();
                    start.await();
                    try {
                        breaker.acquirePermission();
                        return true;
                    } catch (CircuitOpenException rejected) {
                        return false;
                    }
                }));
            }
            assertThat(ready.await(10, TimeUnit.SECONDS)).isTrue();
            start.countDown();
            int granted = 0;
            for (Future<Boolean> result : results) {
                if (result.get(10, TimeUnit.SECONDS)) {
                    granted++;
                }
            }

            assertThat(granted).as("round %d", round).isEqualTo(probes);
            assertThat(breaker.state()).isEqualTo(HALF_OPEN);
            assertThat(listener.transitions()).containsExactly("CLOSED->OPEN", "OPEN->HALF_OPEN");
        }
    }

    @Test
    void nullArgumentsAreRejectedByName() {
        BreakerConfig config = config().build();
        Supplier<RandomGenerator> random = () -> new SplittableRandom(1);
        assertThatThrownBy(() -> new CircuitBreaker(null, config, ticker, random, listener))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("dependency");
        assertThatThrownBy(() -> new CircuitBreaker("d", null, ticker, random, listener))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("config");
        assertThatThrownBy(() -> new CircuitBreaker("d", config, null, random, listener))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("ticker");
        assertThatThrownBy(() -> new CircuitBreaker("d", config, ticker, null, listener))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("random");
        assertThatThrownBy(() -> new CircuitBreaker("d", config, ticker, random, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("listener");
    }

    /** A random generator whose nextDouble is fixed, to hit the jitter's bounds exactly. */
    private static final class FixedRandom implements RandomGenerator {
        private final double value;

        FixedRandom(double value) {
            this.value = value;
        }

        @Override
        public long nextLong() {
            throw new AssertionError("only nextDouble is expected");
        }

        @Override
        public double nextDouble() {
            return value;
        }
    }

    /** Records transitions as "FROM->TO". */
    // ---- slow calls (resilience4j's slowCallRateThreshold / slowCallDurationThreshold) -------------

    private static final long SECOND = Duration.ofSeconds(1).toNanos();

    /** Reports successes and failures with durations: "S2" a 2 s success, "F0" an instant failure. */
    private static void timedCalls(CircuitBreaker breaker, String... outcomes) throws CircuitOpenException {
        for (String outcome : outcomes) {
            CircuitBreaker.Permit permit = breaker.acquirePermission();
            long nanos = Long.parseLong(outcome.substring(1)) * SECOND;
            if (outcome.charAt(0) == 'S') {
                permit.onSuccess(nanos);
            } else {
                permit.onFailure(nanos);
            }
        }
    }

    private static BreakerConfig.Builder slowAboveOneSecond(double percent) {
        return config().slowCallRateThreshold(percent).slowCallDurationThreshold(Duration.ofSeconds(1));
    }

    @Test
    void successesSlowerThanTheThresholdAtTheSlowCallRateOpenTheBreaker() throws CircuitOpenException {
        CircuitBreaker breaker = breaker(slowAboveOneSecond(60).build());

        timedCalls(breaker, "S0", "S0", "S20", "S20");
        assertThat(breaker.state()).isEqualTo(CLOSED); // below minimumNumberOfCalls (5)
        timedCalls(breaker, "S20");

        assertThat(breaker.state()).isEqualTo(OPEN); // 3 of 5 slow: 60 %
        assertThat(listener.transitions()).containsExactly("CLOSED->OPEN");
    }

    @Test
    void slowCallsBelowTheRateOrExactlyAtTheDurationLeaveItClosed() throws CircuitOpenException {
        CircuitBreaker breaker = breaker(slowAboveOneSecond(60).build());

        timedCalls(breaker, "S0", "S0", "S0", "S20", "S1", "S20", "S0", "S0", "S1", "S0");

        assertThat(breaker.state()).isEqualTo(CLOSED); // 2 of 10 slower than 1 s; 1 s itself is not slow
    }

    @Test
    void slowFailuresCountTowardsBothRatesAndTheSlowRateAloneCanOpen() throws CircuitOpenException {
        CircuitBreaker breaker =
                breaker(slowAboveOneSecond(40).failureRateThreshold(100).build());

        timedCalls(breaker, "F20", "S0", "S0", "F20", "S0");

        assertThat(breaker.state()).isEqualTo(OPEN); // 40 % slow, 40 % failed (threshold 100)
    }

    @Test
    void slowCallsLeaveTheWindowAsItSlides() throws CircuitOpenException {
        CircuitBreaker breaker = breaker(slowAboveOneSecond(50)
                .slidingWindowSize(5)
                .minimumNumberOfCalls(5)
                .build());

        timedCalls(breaker, "S20", "S20", "S0", "S0", "S0"); // 40 %
        timedCalls(breaker, "S0", "S0", "S20"); // window: S0 S0 S0 S0 S20: 20 %

        assertThat(breaker.state()).isEqualTo(CLOSED);
    }

    @Test
    void aHalfOpenProbeThatSucceedsSlowlyOpensTheBreakerAgain() throws CircuitOpenException {
        CircuitBreaker breaker = breaker(slowAboveOneSecond(100).build());
        calls(breaker, "FFFFF");
        ticker.advance(WAIT);

        timedCalls(breaker, "S20");

        assertThat(breaker.state()).isEqualTo(OPEN);
        assertThat(listener.transitions()).containsExactly("CLOSED->OPEN", "OPEN->HALF_OPEN", "HALF_OPEN->OPEN");
        ticker.advance(WAIT);
        timedCalls(breaker, "S0");
        assertThat(breaker.state()).isEqualTo(CLOSED);
    }

    @Test
    void byDefaultOnlyCallsSlowerThanSixtySecondsAllOfThemOpen() throws CircuitOpenException {
        CircuitBreaker breaker =
                breaker(BreakerConfig.builder().consecutiveFailureThreshold(0).build());

        timedCalls(breaker, "S60", "S60", "S60", "S60", "S60", "S60", "S60", "S60", "S60", "S60");
        assertThat(breaker.state()).isEqualTo(CLOSED); // exactly 60 s is not slow
        timedCalls(breaker, "S61", "S61", "S61", "S61", "S61", "S61", "S61", "S61", "S61");
        assertThat(breaker.state()).isEqualTo(CLOSED); // 9 of 19
        CircuitBreaker allSlow =
                breaker(BreakerConfig.builder().consecutiveFailureThreshold(0).build());
        timedCalls(allSlow, "S61", "S61", "S61", "S61", "S61", "S61", "S61", "S61", "S61", "S61");
        assertThat(allSlow.state()).isEqualTo(OPEN);
    }

    static final class RecordingListener implements HttpClientListener {
        private final List<String> transitions = Collections.synchronizedList(new ArrayList<>());
        private final List<String> dependencies = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void onBreakerStateTransition(String dependency, BreakerState from, BreakerState to) {
            transitions.add(from + "->" + to);
            dependencies.add(dependency);
        }

        List<String> transitions() {
            return List.copyOf(transitions);
        }

        List<String> dependencies() {
            return List.copyOf(dependencies);
        }

        void clear() {
            transitions.clear();
            dependencies.clear();
        }
    }
}
