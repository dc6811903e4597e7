package dev.ballast.http.internal;

import static dev.ballast.http.Await.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.testkit.FakeTime;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The shared timer: only the ticker makes a deadline pass, a disarmed timeout never fires, the thread goes. */
@Timeout(30)
class DeadlineTimerTest {

    private final FakeTime ticker = new FakeTime();
    private final DeadlineTimer timer = new DeadlineTimer(ticker);
    private final List<String> fired = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        timer.shutdown();
    }

    private DeadlineTimer.Timeout timeout(String name, Duration after) {
        return new DeadlineTimer.Timeout(ticker.read() + after.toNanos()) {
            @Override
            protected void expire() {
                fired.add(name);
            }
        };
    }

    @Test
    void aTimeoutFiresOnceTheTickerPassesItsDeadlineAndNotBefore() {
        DeadlineTimer.Timeout t = timeout("a", Duration.ofSeconds(10));
        timer.arm(t);
        ticker.advance(Duration.ofMillis(9_999));
        assertThat(fired).isEmpty();

        ticker.advance(Duration.ofMillis(1));

        awaitTrue("fired", () -> fired.size() == 1);
        assertThat(t.fired()).isTrue();
        assertThat(t.disarm()).as("too late to disarm").isFalse();
        assertThat(fired).containsExactly("a");
    }

    @Test
    void aDisarmedTimeoutNeverFiresAndTheOthersDo() {
        DeadlineTimer.Timeout disarmed = timeout("disarmed", Duration.ofSeconds(1));
        DeadlineTimer.Timeout early = timeout("early", Duration.ofSeconds(1));
        DeadlineTimer.Timeout late = timeout("late", Duration.ofSeconds(5));
        timer.arm(late);
        timer.arm(disarmed);
        timer.arm(early);
        assertThat(disarmed.disarm()).isTrue();

        ticker.advance(Duration.ofSeconds(2));
        awaitTrue("early fired", () -> fired.contains("early"));
        ticker.advance(Duration.ofSeconds(3));
        awaitTrue("late fired", () -> fired.contains("late"));

        assertThat(fired).containsExactly("early", "late");
        assertThat(disarmed.fired()).isFalse();
    }

    @Test
    void afterShutdownTheThreadEndsOnceNothingIsArmedAndArmedTimeoutsStillFire() throws Exception {
        DeadlineTimer.Timeout t = timeout("in flight", Duration.ofSeconds(1));
        timer.arm(t);
        timer.shutdown();
        assertThat(timer.awaitTermination(TimeUnit.MILLISECONDS.toNanos(200)))
                .as("still has work")
                .isFalse();

        ticker.advance(Duration.ofSeconds(1));

        assertThat(timer.awaitTermination(TimeUnit.SECONDS.toNanos(10))).isTrue();
        assertThat(fired).containsExactly("in flight");
    }

    @Test
    void aTimerNeverArmedHasNoThread() {
        assertThat(new DeadlineTimer(ticker).isTerminated())
                .as("not shut down yet")
                .isFalse();
        DeadlineTimer idle = new DeadlineTimer(ticker);
        idle.shutdown();
        assertThat(idle.isTerminated()).isTrue();
    }

    /**
     * Deadlines kept in their owners' fields and polled: one set with {@code deadlineSet} fires
     * through the source once the ticker passes it, whether the worker was running or had to be
     * started for it; the worker keeps polling while the source has one pending, and ends after a
     * shutdown once none is.
     */
    @Test
    void aPolledDeadlineFiresOnceTheTickerPassesItAndTheWorkerStaysWhileOneIsPending() throws Exception {
        java.util.concurrent.atomic.AtomicLong deadline = new java.util.concurrent.atomic.AtomicLong(Long.MAX_VALUE);
        java.util.concurrent.atomic.AtomicBoolean pending = new java.util.concurrent.atomic.AtomicBoolean();
        DeadlineTimer polled = new DeadlineTimer(ticker, (now, earliest, fire) -> {
            if (!pending.get()) {
                return false;
            }
            long d = deadline.get();
            if (d - now <= 0) {
                if (!fire) {
                    return true;
                }
                pending.set(false);
                fired.add("polled");
                return false;
            }
            if (d - earliest[0] < 0) {
                earliest[0] = d;
            }
            return true;
        });
        try {
            deadline.set(ticker.read() + Duration.ofSeconds(5).toNanos());
            pending.set(true);
            polled.deadlineSet(deadline.get(), ticker.read()); // starts the worker
            polled.shutdown();
            assertThat(polled.awaitTermination(TimeUnit.MILLISECONDS.toNanos(200)))
                    .as("a polled deadline is pending")
                    .isFalse();
            ticker.advance(Duration.ofMillis(4_999));
            assertThat(fired).isEmpty();

            ticker.advance(Duration.ofMillis(1));

            awaitTrue("fired", () -> fired.contains("polled"));
            assertThat(polled.awaitTermination(TimeUnit.SECONDS.toNanos(10)))
                    .as("nothing pending after the shutdown")
                    .isTrue();
            assertThat(fired).containsExactly("polled");
        } finally {
            polled.shutdown();
        }
    }
}
