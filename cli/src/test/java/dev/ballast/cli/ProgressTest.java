package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The time left a progress display shows (a README user's: "0/381 MiB (0:00:01 / 19355:47:53) .0 MiB/s",
 * the estimate climbing to 67,712 hours while a file's first bytes were not yet counted).
 */
class ProgressTest {
    private static final long MIB = 1048576;

    @Test
    void noEstimateWithoutATotalARateOrASecondOfHistory() {
        assertThat(Progress.eta(0, 381 * MIB, Duration.ofSeconds(1))).isEmpty();
        assertThat(Progress.eta(10 * MIB, -1, Duration.ofSeconds(5))).isEmpty();
        assertThat(Progress.eta(10 * MIB, 381 * MIB, Duration.ofMillis(500))).isEmpty();
        assertThat(Progress.eta(MIB / 100, 381 * MIB, Duration.ofSeconds(1))).isEmpty();
    }

    @Test
    void theEstimateIsWhatIsLeftAtTheRateSoFar() {
        assertThat(Progress.eta(100 * MIB, 400 * MIB, Duration.ofSeconds(2))).contains(Duration.ofSeconds(6));
        assertThat(Progress.eta(400 * MIB, 400 * MIB, Duration.ofSeconds(4))).contains(Duration.ZERO);
        // more done than the total known so far (the walk still finding files): nothing left, not negative
        assertThat(Progress.eta(500 * MIB, 400 * MIB, Duration.ofSeconds(4))).contains(Duration.ZERO);
    }

    @Test
    void theSpeedIsOverTheTimeToTheNanosecondWithALeadingZero() {
        // progressbar divided by whole seconds: 286 MiB after 1.9 s showed 286.0 MiB/s, then 143.0 at 2.0 s
        assertThat(Progress.speed(286 * MIB, 1_900_000_000L)).isEqualTo("150.5 MiB/s");
        assertThat(Progress.speed(MIB / 100, 2_000_000_000L)).isEqualTo("0.0 MiB/s");
        assertThat(Progress.speed(MIB, 50_000_000L)).isEqualTo("? MiB/s");
    }
}
