package dev.ballast.backup;

import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What a backup run did.
 *
 * @param snapshotId the manifest version ID of the snapshot written, or null when none could be
 * @param complete whether that snapshot holds every file of the directory, each confirmed
 * @param stored files read and stored
 * @param unchanged files found unchanged and kept from the previous snapshot
 * @param bytesUploaded the new data the run stored: in an encrypted repository the plain bytes of the
 *     new chunks in the packs uploaded, those of files a stopped run did not finish included (the next
 *     run reuses them), as restic's "Added to the repository"; in a store of the earlier format the
 *     bytes of the objects uploaded
 * @param bytesStored what that new data takes in the store: in an encrypted repository the bytes of the
 *     packs uploaded, compressed and encrypted, as restic's "stored"; in a store of the earlier format
 *     the same as {@code bytesUploaded}
 * @param bytesTotal bytes of all the files found
 * @param skipped paths left out, with why ("special file", say), as the command lists them
 * @param failed files not stored, with the reason
 * @param notAttempted files not tried (the job was cancelled, or the store became unavailable)
 * @param problem why the snapshot is incomplete or missing, or null
 * @param cancelled whether {@link Cancellation#cancel()} stopped the run
 * @param elapsed how long the run took
 */
public record BackupResult(
        @Nullable String snapshotId,
        boolean complete,
        int stored,
        int unchanged,
        long bytesUploaded,
        long bytesStored,
        long bytesTotal,
        List<String> skipped,
        List<FileProblem> failed,
        List<String> notAttempted,
        @Nullable String problem,
        boolean cancelled,
        Duration elapsed) {
    /** Copies the lists. */
    public BackupResult {
        skipped = List.copyOf(skipped);
        failed = List.copyOf(failed);
        notAttempted = List.copyOf(notAttempted);
    }

    /** Whether every file was stored and confirmed and a complete snapshot written. */
    public boolean ok() {
        return snapshotId != null
                && complete
                && failed.isEmpty()
                && notAttempted.isEmpty()
                && !cancelled
                && problem == null;
    }
}
