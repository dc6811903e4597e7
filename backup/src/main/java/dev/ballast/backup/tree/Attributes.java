package dev.ballast.backup.tree;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * Applies recorded attributes to a restored file, directory or symbolic link, never following a
 * link (but for a file the restore has just created under its own temporary name): the owner first
 * (only when asked, that is when running as root; {@code chown} clears the set-ID bits), then the
 * modification time, then the mode (last, so a mode without read permission cannot stop the rest),
 * through the JDK's {@code unix} attribute view ({@code lchown}, {@code utimensat}, {@code fchmod};
 * by path for the restore's own files, but for the times, which the JDK sets through a descriptor).
 */
public final class Attributes {
    /**
     * The JDK's {@code UnixNativeDispatcher.chown} and {@code lchown} (JDK 17 to 25), which set owner
     * and group in one system call where its public attribute view makes two; null where this JVM does
     * not have them or does not open {@code sun.nio.fs} (the {@code ./ballast} launcher does, for
     * {@link Names}).
     */
    private static final @Nullable Method CHOWN;

    private static final @Nullable Method LCHOWN;

    static {
        Method chown = null;
        Method lchown = null;
        try {
            Class<?> dispatcher = Class.forName("sun.nio.fs.UnixNativeDispatcher");
            Class<?> unixPath = Class.forName("sun.nio.fs.UnixPath");
            if (unixPath.isInstance(Path.of("/"))) {
                chown = dispatcher.getDeclaredMethod("chown", unixPath, int.class, int.class);
                lchown = dispatcher.getDeclaredMethod("lchown", unixPath, int.class, int.class);
                chown.setAccessible(true); // InaccessibleObjectException without --add-opens
                lchown.setAccessible(true);
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            chown = null;
            lchown = null;
        }
        CHOWN = lchown == null ? null : chown;
        LCHOWN = chown == null ? null : lchown;
    }

    private Attributes() {}

    /**
     * Gives {@code path} the recorded owner (when {@code ownership}), {@code mtime} and mode; only the
     * mtime when {@code attrs} is null (a manifest written before they were recorded). Never follows
     * a symbolic link at {@code path}.
     */
    public static void apply(Path path, @Nullable PosixAttrs attrs, Instant mtime, boolean ownership)
            throws IOException {
        apply(path, attrs, mtime, ownership, LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * As {@link #apply(Path, PosixAttrs, Instant, boolean)} for a regular file this restore has just
     * created under a name of its own: by path ({@code chown}, {@code chmod}), and the times through a
     * descriptor of it ({@code open}, {@code futimens}, {@code close}); its access time becomes now.
     */
    public static void applyToOwnFile(Path file, @Nullable PosixAttrs attrs, Instant mtime, boolean ownership)
            throws IOException {
        apply(file, attrs, mtime, ownership, new LinkOption[0]);
    }

    private static void apply(
            Path path, @Nullable PosixAttrs attrs, Instant mtime, boolean ownership, LinkOption... options)
            throws IOException {
        boolean posix = attrs != null && FileStat.UNIX;
        if (posix && ownership) {
            setOwner(path, attrs, options.length == 0 ? CHOWN : LCHOWN, options);
        }
        if (options.length == 0) {
            // Both times given: the JDK then sets them with one futimens on a descriptor it opens, where
            // with the access time left out it first reads the file's attributes to keep it. The
            // access time of a file created a moment ago is that moment; now is as good.
            Files.getFileAttributeView(path, BasicFileAttributeView.class)
                    .setTimes(settable(mtime), FileTime.from(Instant.now()), null);
        } else {
            setMtime(path, mtime);
        }
        if (posix) {
            Files.setAttribute(path, "unix:mode", attrs.mode(), options);
        }
    }

    /** Gives {@code path} (a link itself, not its target) the recorded owner and group. */
    public static void chown(Path path, PosixAttrs attrs) throws IOException {
        setOwner(path, attrs, LCHOWN, LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * Owner and group in one call of {@code call} ({@link #CHOWN} or {@link #LCHOWN}) where there is
     * one; else, or when it fails, through the JDK's attribute view, which then reports the failure as
     * the {@link IOException} it always did.
     */
    private static void setOwner(Path path, PosixAttrs attrs, @Nullable Method call, LinkOption... options)
            throws IOException {
        if (call != null) {
            try {
                call.invoke(null, path, attrs.uid(), attrs.gid());
                return;
            } catch (ReflectiveOperationException | RuntimeException e) {
                // the attribute view below says why, in the JDK's words
            }
        }
        Files.setAttribute(path, "unix:uid", attrs.uid(), options);
        Files.setAttribute(path, "unix:gid", attrs.gid(), options);
    }

    /** Sets the modification time of {@code path} (of a link itself, where the platform can). */
    public static void setMtime(Path path, Instant mtime) throws IOException {
        Files.getFileAttributeView(path, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                .setTimes(settable(mtime), null, null);
    }

    /**
     * {@code t} as a time the JDK sets as it is: before 1970 only whole seconds, its fraction dropped
     * (as on a file system that keeps whole seconds). The JDK passes {@code utimensat}/{@code futimens}
     * a time before 1970 with a negative nanosecond part, which Linux refuses, and then sets
     * 1970-01-01T00:00:00Z instead ({@code sun.nio.fs.UnixFileAttributeViews.Basic.setTimes}, JDK 17
     * to 25): a file of 1969-07-20T20:17:40.5Z came back 55 years younger. Later times are unchanged.
     */
    /**
     * Whether a restore sets {@code t} exactly as a modification time: not before 1970 with a fraction
     * of a second ({@link #settable}), and not after 2262-04-11T23:47:16.854775807Z, the last time the
     * JDK's {@code futimens} call can take (it passes nanoseconds since 1970 as a {@code long} and
     * sets a later time as that one, {@code FileTime.to(TimeUnit.NANOSECONDS)} saturating).
     */
    public static boolean settableExactly(Instant t) {
        return t.getEpochSecond() < 0 ? t.getNano() == 0 : !t.isAfter(LAST_NANOSECOND);
    }

    private static final Instant LAST_NANOSECOND = Instant.ofEpochSecond(0, Long.MAX_VALUE);

    static FileTime settable(Instant t) {
        return FileTime.from(t.getEpochSecond() < 0 ? Instant.ofEpochSecond(t.getEpochSecond()) : t);
    }
}
