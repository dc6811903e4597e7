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

    /** A tester's: the finished bar was drawn twice at the end of a backup on a terminal. */
    @Test
    void theFinishedBarIsDrawnOnce() {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        java.io.PrintStream out = new java.io.PrintStream(bytes, true, java.nio.charset.StandardCharsets.UTF_8);
        try (Progress bar = Progress.create("backup src", 2, 2 * MIB, true, out, 5)) {
            bar.addBytes(2 * MIB);
            bar.fileDone();
            bar.fileDone();
        }
        String printed = bytes.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertThat(printed).endsWith("\n");
        String[] drawn = printed.strip().split("\r");
        String last = drawn[drawn.length - 1];
        assertThat(last).startsWith("backup src 100%").contains("2/2 files");
        assertThat(java.util.Arrays.stream(drawn).filter(last::equals)).hasSize(1);
    }

    @Test
    void theSpeedIsOverTheTimeToTheNanosecondWithALeadingZero() {
        // progressbar divided by whole seconds: 286 MiB after 1.9 s showed 286.0 MiB/s, then 143.0 at 2.0 s
        assertThat(Progress.speed(286 * MIB, 1_900_000_000L)).isEqualTo("150.5 MiB/s");
        assertThat(Progress.speed(MIB / 100, 2_000_000_000L)).isEqualTo("0.0 MiB/s");
        assertThat(Progress.speed(MIB, 50_000_000L)).isEqualTo("? MiB/s");
    }
}
