package dev.ballast.backup;

import java.time.Duration;
import java.util.List;

/**
 * What a verify found.
 *
 * @param snapshotId the manifest version ID verified
 * @param olderThanNewest whether that is an older backup than the newest, the newest being damaged
 * @param verified files whose stored copy was read (or, outside a subset, found present with its
 *     size) and matched the manifest
 * @param damaged files whose stored copy is damaged or missing, with what was found; kept from later
 *     backups (see {@code recorded})
 * @param unreadable files that could not be verified, each path with why when known
 * @param recorded whether what is damaged was kept from later backups: in a store of the earlier
 *     formats, the damaged versions recorded; in a repository of format 3, no damaged chunk left in the
 *     index (dropped, or in no pack already), so the next backup of a source that still holds the files
 *     stores them again. False when nothing was damaged, or it could not be done (the store could not be
 *     written, a backup or prune was running): a notice says so
 * @param unavailable whether the store became unavailable during the verify
 * @param bytes bytes read and confirmed
 * @param elapsed how long it took
 */
public record VerifyResult(
        String snapshotId,
        boolean olderThanNewest,
        int verified,
        List<FileProblem> damaged,
        List<String> unreadable,
        boolean recorded,
        boolean unavailable,
        long bytes,
        Duration elapsed) {
    /** Copies the lists. */
    public VerifyResult {
        damaged = List.copyOf(damaged);
        unreadable = List.copyOf(unreadable);
    }

    /** Whether every file was verified and none is damaged. */
    public boolean ok() {
        return damaged.isEmpty() && unreadable.isEmpty() && !unavailable;
    }
}
