package dev.ballast.backup;

import dev.ballast.backup.tree.Names;
import java.time.Duration;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The wording the engine's notes, warnings and failure reasons share: the most specific message of a
 * cause chain, a local file failure with its file, whether a failure means the store is out of
 * space, counts and durations. Not API: the {@code ballast} command uses it to word its messages
 * as the engine does. Thread-safe (stateless).
 */
public final class Messages {
    private Messages() {}

    /** The most specific message in a cause chain, without class names. */
    public static String rootMessage(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof OutOfMemoryError oom) {
                // "Java heap space" alone does not say what to do about it (tester's finding)
                return (oom.getMessage() == null ? "out of memory" : oom.getMessage())
                        + ": the JVM's maximum heap is too small; " + Advice.HEAP.text();
            }
        }
        String msg = t.getMessage();
        Throwable c = t.getCause();
        while (c != null && c != t) {
            if (c.getMessage() != null && !c.getMessage().isBlank()) {
                msg = c.getMessage();
            }
            t = c;
            c = c.getCause();
        }
        if (msg == null || msg.isBlank()) {
            return t.getClass().getSimpleName();
        }
        int nl = msg.indexOf('\n');
        String line = nl < 0 ? msg : msg.substring(0, nl);
        // Some SDK messages list every provider tried; the sentence stays readable, --verbose has it all.
        return line.length() > 300 ? line.substring(0, 297) + "..." : line;
    }

    /**
     * What a local file failure was, with the file it concerns: the JDK's file exceptions carry only
     * the path as their message ({@code AccessDeniedException: /x}), which alone says nothing.
     */
    public static String describeIo(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof java.nio.file.FileSystemException fse) {
                String what = fse instanceof java.nio.file.AccessDeniedException
                        ? "permission denied"
                        : fse instanceof java.nio.file.NoSuchFileException
                                ? "no such file or directory"
                                : fse instanceof java.nio.file.FileAlreadyExistsException
                                        ? "it already exists, or a folder above it is a file"
                                        : fse instanceof java.nio.file.NotDirectoryException
                                                ? "not a directory"
                                                : fse.getReason() != null
                                                        ? fse.getReason()
                                                        : fse.getClass().getSimpleName();
                return (fse.getFile() == null ? "" : fse.getFile() + ": ") + what;
            }
        }
        return rootMessage(t);
    }

    /**
     * Whether {@code t} says the store ran out of space: a local disk's ENOSPC ("No space left on
     * device") or SQLite's full database, or an S3 endpoint's answer to it: HTTP 507 Insufficient
     * Storage (RFC 4918 section 11.5), MinIO's {@code XMinioStorageFull}, or an
     * {@code InsufficientCapacity} error code, or a server error whose message carries the ENOSPC text.
     */
    public static boolean outOfSpace(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            String m = c.getMessage();
            if (m != null
                    && (m.contains("out of space")
                            || m.contains("No space left on device")
                            || m.contains("XMinioStorageFull")
                            || m.contains("InsufficientCapacity")
                            || m.contains("Insufficient Storage")
                            || m.contains("SQLITE_FULL")
                            || m.contains("database or disk is full")
                            || m.contains("HTTP 507"))) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether {@code t} or one of its causes says this process (or the system) has no file descriptor left
     * ("Too many open files", EMFILE or ENFILE): the limit of open files, not the store.
     */
    public static boolean outOfFileDescriptors(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            String m = c.getMessage();
            if (m != null && m.contains("Too many open files")) {
                return true;
            }
        }
        return false;
    }

    /** "the store is out of space", or {@code otherwise}. */
    public static String unavailableReason(Throwable t, String otherwise) {
        return outOfSpace(t) ? "the store is out of space" : otherwise;
    }

    /**
     * {@code text} with every ISO control character shown as a backslash, {@code u} and four hex digits, and
     * each byte of a file name that is not valid UTF-8 as a backslash, {@code x} and two hex digits
     * ({@link Names#printable}): Linux file names may hold newlines, escape sequences or any bytes, and a message
     * must stay one line that cannot drive the terminal.
     */
    public static String printable(@Nullable String text) {
        return Names.printable(text);
    }

    /** {@code n} and the noun, plural unless {@code n} is 1: "1 file", "2 files", "0 backups". */
    public static String count(long n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }

    /** {@code d} in seconds with one decimal: "2.5 s". */
    public static String duration(Duration d) {
        return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
    }
}
