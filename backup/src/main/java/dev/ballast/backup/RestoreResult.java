package dev.ballast.backup;

import java.time.Duration;
import java.util.List;

/**
 * What a restore did.
 *
 * @param snapshotId the manifest version ID restored from
 * @param olderThanNewest whether that is an older backup than the newest, the newest being damaged
 * @param restored files written and their SHA-256 confirmed
 * @param alreadyPresent files already in the target with the backup's bytes, left as they were
 * @param bytes bytes written
 * @param failed files not restored, with the reason
 * @param damagedCopies how many of those failed because their stored copy is damaged or missing
 * @param unavailable whether the store became unavailable during the restore
 * @param cancelled whether {@link Cancellation#cancel()} stopped it
 * @param elapsed how long it took
 */
public record RestoreResult(
        String snapshotId,
        boolean olderThanNewest,
        int restored,
        int alreadyPresent,
        long bytes,
        List<FileProblem> failed,
        int damagedCopies,
        boolean unavailable,
        boolean cancelled,
        Duration elapsed) {
    /** Copies the list. */
    public RestoreResult {
        failed = List.copyOf(failed);
    }

    /** Whether every selected file was restored and its SHA-256 confirmed. */
    public boolean ok() {
        return failed.isEmpty() && !unavailable && !cancelled;
    }
}
