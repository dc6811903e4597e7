package dev.ballast.backup.snapshot;

import dev.ballast.backup.tree.PosixAttrs;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One file of a backup.
 *
 * @param path the path relative to the backed-up directory, {@code /}-separated
 * @param size the size in bytes
 * @param sha256 lowercase hex SHA-256 of the content
 * @param versionId the version ID of the object {@code NAME/path} holding the content
 * @param mtime the file's modification time when it was backed up
 * @param ctime the file's status-change time when it was backed up, or null when unknown or not to
 *     be trusted (the file changed too close to its backup): the next backup then reads it again
 * @param inode the file's inode number when it was backed up, or null when unknown
 * @param attrs the file's permission bits and owner, or null when unknown (a manifest written
 *     before they were recorded, or a platform without POSIX attributes): restore then leaves the
 *     file as the process creates it
 * @param chunks in a manifest of format 3 ({@link Manifest#PACKED_FORMAT_VERSION}), the IDs of the
 *     blobs holding the content in order (64 lowercase hex digits each; empty for an empty file), and
 *     {@code versionId} is {@code ""}; null in the earlier formats, whose content is the object
 *     version {@code versionId}
 */
public record ManifestEntry(
        String path,
        long size,
        String sha256,
        String versionId,
        Instant mtime,
        @Nullable Instant ctime,
        @Nullable Long inode,
        @Nullable PosixAttrs attrs,
        @Nullable List<String> chunks) {
    public ManifestEntry {
        chunks = chunks == null ? null : List.copyOf(chunks);
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(sha256, "sha256");
        Objects.requireNonNull(versionId, "versionId");
        Objects.requireNonNull(mtime, "mtime");
        if (size < 0) {
            throw new IllegalArgumentException("size must be >= 0 but was " + size);
        }
    }

    /** An entry of the earlier formats (content in the object version {@code versionId}). */
    public ManifestEntry(
            String path,
            long size,
            String sha256,
            String versionId,
            Instant mtime,
            @Nullable Instant ctime,
            @Nullable Long inode,
            @Nullable PosixAttrs attrs) {
        this(path, size, sha256, versionId, mtime, ctime, inode, attrs, null);
    }

    /** Whether the content is a list of blobs in packs (format 3) rather than an object version. */
    public boolean packed() {
        return chunks != null;
    }

    /** An entry without POSIX attributes, as manifests before format 1's mode, uid and gid fields hold. */
    public ManifestEntry(
            String path,
            long size,
            String sha256,
            String versionId,
            Instant mtime,
            @Nullable Instant ctime,
            @Nullable Long inode) {
        this(path, size, sha256, versionId, mtime, ctime, inode, null);
    }

    /** An entry without ctime and inode, as manifests before format 1's ctime and inode fields hold. */
    public ManifestEntry(String path, long size, String sha256, String versionId, Instant mtime) {
        this(path, size, sha256, versionId, mtime, null, null, null);
    }

    /** This entry with {@code attrs} (the same entry when they are equal). */
    public ManifestEntry withAttrs(@Nullable PosixAttrs newAttrs) {
        return Objects.equals(attrs, newAttrs)
                ? this
                : new ManifestEntry(path, size, sha256, versionId, mtime, ctime, inode, newAttrs, chunks);
    }
}
