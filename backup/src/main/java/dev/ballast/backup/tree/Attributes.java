package dev.ballast.backup.tree;

import java.io.IOException;
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
 * by path for the restore's own files, without opening them).
 */
public final class Attributes {
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
     * created under a name of its own: by path ({@code chown}, {@code utimensat}, {@code chmod}),
     * without opening it.
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
            Files.setAttribute(path, "unix:uid", attrs.uid(), options);
            Files.setAttribute(path, "unix:gid", attrs.gid(), options);
        }
        if (options.length == 0) {
            Files.setLastModifiedTime(path, FileTime.from(mtime));
        } else {
            setMtime(path, mtime);
        }
        if (posix) {
            Files.setAttribute(path, "unix:mode", attrs.mode(), options);
        }
    }

    /** Gives {@code path} (a link itself, not its target) the recorded owner and group. */
    public static void chown(Path path, PosixAttrs attrs) throws IOException {
        Files.setAttribute(path, "unix:uid", attrs.uid(), LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(path, "unix:gid", attrs.gid(), LinkOption.NOFOLLOW_LINKS);
    }

    /** Sets the modification time of {@code path} (of a link itself, where the platform can). */
    public static void setMtime(Path path, Instant mtime) throws IOException {
        Files.getFileAttributeView(path, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                .setTimes(FileTime.from(mtime), null, null);
    }
}
