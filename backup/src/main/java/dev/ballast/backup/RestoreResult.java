package dev.ballast.backup;

import java.time.Duration;
import java.util.List;

/**
 * What a restore did.
 *
 * @param snapshotId the manifest version ID restored from
 * @param olderThanNewest whether that is an older backup than the newest, the newest being damaged
 * @param restored files written and checked before they took their names: in a repository of format
 *     3 every chunk against its ID and the file's size; in a store of the earlier formats the file's
 *     SHA-256 ({@link Backups#restore(String, java.nio.file.Path, RestoreOptions)})
 * @param alreadyPresent files already in the target with the backup's bytes, left as they were
 * @param bytes bytes written
 * @param failed files not restored, with the reason
 * @param damagedCopies how many of those failed because their stored copy is damaged or missing
 * @param missingChunks of those, how many failed because a chunk of theirs is in no pack of an encrypted
 *     repository (dropped by {@link Backups#verify} or a repair, or lost with its pack): nothing is left
 *     to drop, and the next backup of a source that still holds them stores them again
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
        int missingChunks,
        boolean unavailable,
        boolean cancelled,
        Duration elapsed) {
    /** Copies the list. */
    public RestoreResult {
        failed = List.copyOf(failed);
    }

    /** As the canonical constructor, without telling missing chunks from damaged ones (0 missing). */
    public RestoreResult(
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
        this(
                snapshotId,
                olderThanNewest,
                restored,
                alreadyPresent,
                bytes,
                failed,
                damagedCopies,
                0,
                unavailable,
                cancelled,
                elapsed);
    }

    /**
     * Whether every selected file was restored (or found already there) and checked as {@code restored}
     * says, and the restore was neither cut short by the store nor cancelled.
     */
    public boolean ok() {
        return failed.isEmpty() && !unavailable && !cancelled;
    }
}
