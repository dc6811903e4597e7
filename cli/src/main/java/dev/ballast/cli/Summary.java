package dev.ballast.cli;

import dev.ballast.backup.Messages;
import java.time.Duration;
import java.util.Locale;

/** Formatting of sizes, rates and durations for summaries. */
final class Summary {
    private Summary() {}

    /** {@code n} and the noun, plural unless {@code n} is 1: "1 file", "2 files", "0 backups". */
    static String count(long n, String noun) {
        return Messages.count(n, noun);
    }

    /**
     * {@link #count} as a column of a table: the number right-aligned in 6 places, the noun padded to
     * its plural's width, so "     1 file " lines up under "     3 files".
     */
    static String countColumn(long n, String noun) {
        return String.format(Locale.ROOT, "%6d %-" + (noun.length() + 1) + "s", n, n == 1 ? noun : noun + "s");
    }

    static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.1f MiB", bytes / 1048576.0);
    }

    static String rate(long bytes, Duration elapsed) {
        double seconds = Math.max(elapsed.toNanos() / 1e9, 1e-3);
        return String.format(Locale.ROOT, "%.1f MiB/s", bytes / 1048576.0 / seconds);
    }

    static String duration(Duration d) {
        return Messages.duration(d);
    }
}
