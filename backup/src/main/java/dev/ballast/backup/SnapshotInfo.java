package dev.ballast.backup;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * One manifest version (snapshot) of a backup name, newest first in a listing.
 *
 * @param versionId its manifest version ID
 * @param shortId the first 8 hex digits of its SHA-256 identity, as {@code ballast list} shows it
 * @param createdAt when its run started (the version's last-modified time if the manifest is damaged)
 * @param damaged why its manifest cannot be read, or null when it reads
 * @param complete whether its run stored every file (false for a damaged one)
 * @param files how many files it holds (0 for a damaged one)
 * @param bytes their total size in bytes
 */
public record SnapshotInfo(
        String versionId,
        String shortId,
        Instant createdAt,
        @Nullable String damaged,
        boolean complete,
        int files,
        long bytes) {}
