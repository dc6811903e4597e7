package dev.ballast.backup;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * One manifest version (snapshot) of a backup name, newest first in a listing, with what
 * {@code ballast list} shows of it. Immutable.
 *
 * @param versionId its manifest version ID
 * @param shortId the first 8 hex digits of its SHA-256 identity, as {@code ballast list} shows it
 * @param createdAt when its run started (the version's last-modified time if the manifest is damaged)
 * @param damaged why its manifest cannot be read, or null when it reads
 * @param complete whether its run stored every file (false for a damaged one)
 * @param files how many files it holds (0 for a damaged one)
 * @param bytes their total size in bytes
 * @param host the host name its run ran on, or null when the manifest does not record it (made
 *     before hosts were recorded, or damaged)
 * @param source the absolute path of the directory it backed up, as that host named it, or null when
 *     the manifest does not record it (made before sources were recorded, or damaged)
 * @param notStored how many files of the source it holds no copy of: its run could not store them and
 *     no earlier snapshot's copy is kept in their place (what {@code ballast list} shows as "not
 *     stored"); 0 for a damaged one
 * @param stale how many files it holds with an earlier snapshot's copy because its run could not store
 *     them (what {@code ballast list} shows as "stale"); 0 for a damaged one
 */
public record SnapshotInfo(
        String versionId,
        String shortId,
        Instant createdAt,
        @Nullable String damaged,
        boolean complete,
        int files,
        long bytes,
        @Nullable String host,
        @Nullable String source,
        int notStored,
        int stale) {

    /**
     * A snapshot without host, source or files not stored.
     *
     * @deprecated the record has {@code host}, {@code source}, {@code notStored} and {@code stale} now;
     *     use the canonical constructor
     */
    @Deprecated
    public SnapshotInfo(
            String versionId,
            String shortId,
            Instant createdAt,
            @Nullable String damaged,
            boolean complete,
            int files,
            long bytes) {
        this(versionId, shortId, createdAt, damaged, complete, files, bytes, null, null, 0, 0);
    }
}
