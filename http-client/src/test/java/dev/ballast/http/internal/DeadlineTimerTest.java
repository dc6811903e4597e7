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
}
