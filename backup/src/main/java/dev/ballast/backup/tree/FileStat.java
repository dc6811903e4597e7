package dev.ballast.backup.tree;

import dev.ballast.backup.snapshot.ManifestEntry;
import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What a backup compares to decide, without reading a file, that it is unchanged since the previous
 * backup, as restic and git do: size, modification time, and where the platform has them the
 * status-change time (ctime, which also moves when a file is rewritten with its old mtime put back)
 * and the inode number (which moves when a file is replaced by another).
 *
 * @param size bytes
 * @param mtime last modification
 * @param ctime last status change, or null where the platform has none
 * @param inode the inode number, or null where the platform has none
 * @param attrs permission bits and owner, or null where the platform has none
 * @param links the number of hard links to the file (1 where the platform does not say)
 */
public record FileStat(
        long size,
        Instant mtime,
        @Nullable Instant ctime,
        @Nullable Long inode,
        @Nullable PosixAttrs attrs,
        int links) {

    /** Whether this platform has {@code stat(2)}'s fields (the JDK's "unix" attribute view). */
    public static final boolean UNIX =
            FileSystems.getDefault().supportedFileAttributeViews().contains("unix");

    private static final String UNIX_FIELDS = "unix:ctime,ino,mode,uid,gid,nlink";

    /** A stat without POSIX attributes and with one link. */
    public FileStat(long size, Instant mtime, @Nullable Instant ctime, @Nullable Long inode) {
        this(size, mtime, ctime, inode, null, 1);
    }

    /**
     * The stat of {@code file}, completing {@code attrs} (one {@code stat} already made) with ctime,
     * inode, mode, owner and link count in one more.
     */
    public static FileStat of(Path file, BasicFileAttributes attrs, LinkOption... options) throws IOException {
        Instant mtime = attrs.lastModifiedTime().toInstant();
        if (!UNIX) {
            return new FileStat(attrs.size(), mtime, null, null);
        }
        Map<String, Object> unix = Files.readAttributes(file, UNIX_FIELDS, options);
        return new FileStat(
                attrs.size(),
                mtime,
                ((FileTime) unix.get("ctime")).toInstant(),
                (Long) unix.get("ino"),
                attrsOf(unix),
                (Integer) unix.get("nlink"));
    }

    /**
     * The mode and owner of {@code path} (of a symbolic link itself unless {@code options} is empty),
     * or null where the platform has none.
     */
    public static @Nullable PosixAttrs attrsOf(Path path, LinkOption... options) throws IOException {
        return UNIX ? attrsOf(Files.readAttributes(path, "unix:mode,uid,gid", options)) : null;
    }

    private static PosixAttrs attrsOf(Map<String, Object> unix) {
        return new PosixAttrs((Integer) unix.get("mode") & PosixAttrs.MODE_BITS, (Integer) unix.get("uid"), (Integer)
                unix.get("gid"));
    }

    /**
     * Whether a file with this stat can be taken as unchanged from one recorded with {@code recorded}:
     * every field this platform has must be equal, and a recorded entry without ctime (written by an
     * earlier version, on another platform, or too close to its backup to be trusted) never matches.
     */
    public boolean sameAs(@Nullable ManifestEntry recorded) {
        if (recorded == null || recorded.size() != size || !recorded.mtime().equals(mtime)) {
            return false;
        }
        if (ctime == null) {
            return true;
        }
        return ctime.equals(recorded.ctime()) && inode.equals(recorded.inode());
    }
}
