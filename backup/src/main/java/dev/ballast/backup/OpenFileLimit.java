package dev.ballast.backup;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What the limit of open files ({@code RLIMIT_NOFILE}, {@code ulimit -n}) leaves room for: how many
 * transfers ({@link #fit(int)}), and how many files a restore may hold written and open while they wait
 * for their sync ({@link #room()}). Each transfer holds a few file descriptors at once: the file it reads
 * or writes, the directory it works in, and on an S3 endpoint the connection its requests travel on. Run
 * beyond the limit, a backup or restore failed file by file with "Too many open files" (under {@code
 * ulimit -n 128}, 1,836 of 20,000 files not stored with {@code --transfers 64} on the local store, and
 * a restore from Ceph RGW with 32 transfers wrote 37 of them). The limit is read on Linux
 * ({@code /proc/self}); elsewhere, or where it cannot be read, it is taken as unlimited. Stateless and
 * thread-safe.
 */
public final class OpenFileLimit {
    /**
     * Descriptors one transfer may hold at once. Measured under {@code ulimit -n 128}, where the JVM
     * starts with about 60 open: 16 transfers restored and backed up 20,000 files from Ceph RGW, 24
     * did not; 4 a transfer keeps room to spare.
     */
    public static final int PER_TRANSFER = 4;

    /**
     * Descriptors kept for the rest of the command: the HTTP client's selector, the index database,
     * the end sync's pipes, a password command, the directories a restore holds open.
     */
    public static final int RESERVE = 24;

    /** Where Linux states this process's limits. */
    public static final Path LIMITS = Path.of("/proc/self/limits");

    /** Where Linux lists this process's open descriptors. */
    static final Path OPEN = Path.of("/proc/self/fd");

    private OpenFileLimit() {}

    /**
     * The transfers that fit: {@code requested} when they all do, else as many as {@code limit} leaves
     * room for with {@code open} descriptors open already, at least 1.
     *
     * @param requested transfers asked for, 1 or more
     * @param limit the limit of open files, or a negative number when it is unknown or unlimited
     * @param open descriptors open now
     */
    public static int fit(int requested, long limit, long open) {
        if (limit < 0) {
            return requested;
        }
        long room = (limit - open - RESERVE) / PER_TRANSFER;
        return (int) Math.max(1, Math.min(requested, room));
    }

    /** {@link #fit} for this process, its limit and open descriptors read from {@code /proc/self}. */
    public static int fit(int requested) {
        long limit = limit(LIMITS);
        if (limit < 0 || requested <= 1) {
            return requested;
        }
        long open = open(OPEN);
        return open < 0 ? requested : fit(requested, limit, open);
    }

    /**
     * This process's soft limit of open files as {@code limits} ({@code /proc/self/limits}) states it
     * on its "Max open files" line; -1 when it is unlimited, absent or cannot be read.
     */
    public static long limit(Path limits) {
        try {
            for (String line : Files.readAllLines(limits)) {
                if (line.startsWith("Max open files")) {
                    String[] words =
                            line.substring("Max open files".length()).trim().split("\\s+");
                    return words.length > 0 && words[0].matches("[0-9]{1,18}") ? Long.parseLong(words[0]) : -1;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or /proc not mounted: nothing known
        }
        return -1;
    }

    /**
     * The descriptors this process may still open beyond {@link #RESERVE}: its limit less those open now
     * and the reserve, at least 0; {@link Long#MAX_VALUE} when the limit is unknown or unlimited.
     */
    public static long room() {
        long limit = limit(LIMITS);
        long open = limit < 0 ? -1 : open(OPEN);
        return limit < 0 || open < 0 ? Long.MAX_VALUE : Math.max(0, limit - open - RESERVE);
    }

    /** How many entries {@code fds} ({@code /proc/self/fd}) holds; -1 when it cannot be read. */
    static long open(Path fds) {
        long n = 0;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(fds)) {
            for (Path ignored : entries) {
                n++;
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return n;
    }
}
