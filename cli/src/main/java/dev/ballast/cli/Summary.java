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

    /** A size in the unit that shows it: "512 bytes", "21.6 KiB", "8.0 MiB", "1.2 GiB" (units of 1,024). */
    static String size(long bytes) {
        if (bytes < 1024) {
            return bytes == 1 ? "1 byte" : bytes + " bytes";
        }
        if (bytes < 1024 * 1024) {
            return String.format(Locale.ROOT, "%.1f KiB", bytes / 1024.0);
        }
        if (bytes < 1024L * 1024 * 1024) {
            return mib(bytes);
        }
        return String.format(Locale.ROOT, "%.1f GiB", bytes / 1073741824.0);
    }

    /** Bytes per second over {@code elapsed} in the unit that shows it, as {@link #size}: "97.3 MiB/s", "18.0 KiB/s", "300 bytes/s". */
    static String rate(long bytes, Duration elapsed) {
        double seconds = Math.max(elapsed.toNanos() / 1e9, 1e-3);
        double perSecond = bytes / seconds;
        if (perSecond >= 1024 * 1024) {
            return String.format(Locale.ROOT, "%.1f MiB/s", perSecond / 1048576.0);
        }
        return perSecond >= 1024
                ? String.format(Locale.ROOT, "%.1f KiB/s", perSecond / 1024.0)
                : String.format(Locale.ROOT, "%d bytes/s", Math.round(perSecond));
    }

    static String duration(Duration d) {
        return Messages.duration(d);
    }
}
