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
 * @param damaged files whose stored copy is damaged or missing, with what was found; recorded in the
 *     store so that no later backup reuses them (see {@code recorded})
 * @param unreadable files that could not be verified, each path with why when known
 * @param recorded whether the damaged versions were recorded (false when there were none, or the
 *     record could not be written: a notice says so)
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
