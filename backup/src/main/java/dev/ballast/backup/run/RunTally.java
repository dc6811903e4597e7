package dev.ballast.backup.run;

import dev.ballast.backup.run.BackupRunner.Failure;
import dev.ballast.backup.run.BackupRunner.SourceFile;
import dev.ballast.storage.StorageUnavailableException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What a backup run has done so far: the files stored, found unchanged, reused, failed or not
 * attempted, the bytes read and uploaded, and the store's unavailability when it went away. {@link
 * BackupRunner#run} turns it into the run's {@link BackupRunner.Result}; the store-again logic
 * ({@link StoreAgain}) and the format-3 confirmation ({@link PackedBackup#confirmPacked}) take back
 * what they find not stored.
 *
 * <p>Thread-safety: every field is final, made with the runner before any thread of the run starts,
 * and holds an atomic, a synchronized list or a concurrent map, so each write is seen by later reads on
 * any thread without further locking; whoever iterates a synchronized list holds its lock or copies it
 * (a copy constructor goes through the list's synchronized {@code toArray}). Who writes what:
 *
 * <ul>
 *   <li>{@link #stored}, {@link #uploaded} (the earlier format only), {@link #uploadedFiles}: added to by
 *       the transfer threads (format 3; {@link #uploadedFiles} also for a reused version) and by the
 *       thread that completes a file's upload ({@code whenComplete} of {@code putAsync}: a store's
 *       thread, or the transfer thread when the upload had already completed); taken back by the run's
 *       thread in {@code confirmPacked} and {@code storeAgain}, after the transfers were awaited.
 *   <li>{@link #unchangedCount}, {@link #keptFromPrevious}: added to by the run's thread (a file whose
 *       stat equals its previous entry's, as the walk finds it) and by the transfer threads (same
 *       SHA-256); taken back by the run's thread in {@code confirmPacked} and {@code storeAgain}.
 *   <li>{@link #read}: added to by the transfer threads as they read files.
 *   <li>{@link #reused}: added to by the transfer threads; taken back by the run's thread in {@code
 *       storeAgain}.
 *   <li>{@link #repaired}: added to by the thread that completes an upload ({@code recordReplacement}).
 *   <li>{@link #notAttempted}, {@link #failed}, {@link #unavailable}, {@link #storeFailed}: added to by {@code fail} on
 *       whichever thread records a file's outcome (a transfer thread, an upload's completing thread,
 *       the run's thread in {@code confirmPacked}); {@link #notAttempted} also by the run's thread and
 *       the transfer threads when stopping, {@link #failed} also by the walk ({@link SourceWalk}, on the
 *       run's thread), {@link #unavailable} also by the run's thread when the marker cannot be written
 *       ({@code storeAgainIfTakenForDead}). {@link #unavailable} is read on every thread to know whether
 *       to stop.
 * </ul>
 *
 * The totals are read by the run's thread once the transfers were awaited. The previous-manifest
 * thread, the marker's refresher and the manifest and pack-flush threads write none of it. One instance
 * per run, made by {@link BackupRunner} and used by it and the classes it hands it to.
 */
final class RunTally {

    final AtomicInteger stored = new AtomicInteger();
    final AtomicInteger unchangedCount = new AtomicInteger();
    /**
     * The earlier format: bytes of the files stored. Format 3 reports what its packs' uploads sent
     * instead ({@link dev.ballast.backup.content.PackedContent#bytesUploaded}), chunks of files not done
     * included.
     */
    final AtomicLong uploaded = new AtomicLong();

    final AtomicLong read = new AtomicLong();
    final List<String> notAttempted = Collections.synchronizedList(new ArrayList<>());
    final AtomicReference<StorageUnavailableException> unavailable = new AtomicReference<>();
    /**
     * Why the store failed a write it was given (a refused upload, a pack or index that could not be
     * written, a copy that did not match), the first such reason; null while none did. Such a run is
     * cut short by the store, not by its source: its snapshot is written marked incomplete.
     */
    final AtomicReference<String> storeFailed = new AtomicReference<>();

    final List<Failure> failed = Collections.synchronizedList(new ArrayList<>());
    final AtomicInteger repaired = new AtomicInteger();
    /** Files whose entries name a version no manifest references yet: stored by this run, or reused. */
    final List<Uploaded> uploadedFiles = Collections.synchronizedList(new ArrayList<>());
    /** Files found unchanged, whose entries name a version of a previous manifest. */
    final List<SourceFile> keptFromPrevious = Collections.synchronizedList(new ArrayList<>());
    /** Files whose version a killed run of the name had stored, reused instead of uploaded again. */
    final AtomicInteger reused = new AtomicInteger();

    /**
     * A file whose entry names a version this run stored, reused from a killed run, or (kept) took from
     * a previous manifest.
     */
    record Uploaded(SourceFile file, boolean reused, boolean kept) {
        public Uploaded(SourceFile file, boolean reused) {
            this(file, reused, false);
        }
    }
}
