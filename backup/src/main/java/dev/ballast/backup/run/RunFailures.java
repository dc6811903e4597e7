package dev.ballast.backup.run;

import dev.ballast.backup.Cancellation;
import dev.ballast.backup.Messages;
import dev.ballast.backup.run.BackupRunner.Failure;
import dev.ballast.backup.run.BackupRunner.SourceFile;
import dev.ballast.backup.tree.FileStat;
import dev.ballast.backup.tree.TreeWalk;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.RequestRefusedException;
import dev.ballast.storage.StorageException;
import dev.ballast.storage.StorageUnavailableException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.LinkOption;
import java.util.Objects;
import java.util.concurrent.CompletionException;

/**
 * How a backup run ({@link BackupRunner}) records a file it did not store: the reason told to the
 * user, and what the failure says of the run. A store that went away stops the run
 * ({@link RunTally#unavailable}); a store that refused or failed a write it was given makes the run's
 * snapshot incomplete ({@link RunTally#storeFailed}); a file that could not be read, or changed while
 * it was read, is only that file's failure (the snapshot keeps an earlier version of it, stale).
 * Thread-safe: it writes only {@link RunTally}'s atomics and synchronized lists.
 */
final class RunFailures {
    private final RunTally tally;
    private final Cancellation cancellation;
    private final boolean followSymlinks;

    RunFailures(RunTally tally, Cancellation cancellation, boolean followSymlinks) {
        this.tally = tally;
        this.cancellation = cancellation;
        this.followSymlinks = followSymlinks;
    }

    /**
     * Whether {@code f} is no longer what the walk saw: its size, mtime, identity or, where the
     * platform has it, its ctime differ. The ctime tells a file rewritten in place whose mtime was set
     * back afterwards ({@code rsync --inplace -t}, {@code touch -r}), whose bytes read may be part old,
     * part new; the unchanged-file test compares it for the same reason.
     */
    boolean changed(SourceFile f) throws IOException {
        LinkOption[] options = followSymlinks ? new LinkOption[0] : new LinkOption[] {LinkOption.NOFOLLOW_LINKS};
        TreeWalk.Attributes now = TreeWalk.read(f.file(), options);
        FileStat was = f.stat();
        if (was.size() == 0 && now.size() == 0) {
            // A file of /proc or /sys (GeneratedContent): some take the time of each stat as their mtime and
            // ctime (/proc/net/*), so only another file in its place is a change.
            return !Objects.equals(now.fileKey(), f.fileKey());
        }
        return now.size() != f.size()
                || !now.stat().mtime().equals(was.mtime())
                || !Objects.equals(now.fileKey(), f.fileKey())
                || (was.ctime() != null && !was.ctime().equals(now.stat().ctime()));
    }

    /** Whether {@code f} changed since the walk, or can no longer be looked at (removed, say). */
    private boolean changedNow(SourceFile f) {
        try {
            return changed(f);
        } catch (IOException e) {
            return true;
        }
    }

    /**
     * A file the store did not make durable though it was read whole (its pack or the index naming it
     * was not written): not stored, and the run is cut short by the store ({@link RunTally#storeFailed}).
     */
    void failedByStore(SourceFile f, Throwable failure) {
        fail(f, failure);
        if (!cancellation.cancelled() && tally.unavailable.get() == null) {
            tally.storeFailed.compareAndSet(null, Messages.rootMessage(failure));
        }
    }

    /** Records {@code f} as not stored, with the reason {@code failure} gives, on any thread of the run. */
    void fail(SourceFile f, Throwable failure) {
        if (cancellation.cancelled()) {
            // Ctrl-C interrupted it (or it failed meanwhile): not stored, reported with the unattempted files.
            tally.notAttempted.add(f.path());
            return;
        }
        Throwable e =
                failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        String reason;
        if (e instanceof StorageUnavailableException su) {
            tally.unavailable.compareAndSet(null, su);
            reason = Messages.unavailableReason(su, "the store became unavailable");
        } else if (e instanceof ChangedWhileReading
                || (e instanceof IllegalArgumentException
                        && String.valueOf(e.getMessage()).contains("must still be"))
                || ((e instanceof IntegrityException || e instanceof RequestRefusedException) && changedNow(f))) {
            // A store refuses or disowns bytes that do not match the digests computed from the first read
            // (a SHA-256 or MD5 mismatch, a multipart ETag other than the parts sent): when the file changed
            // meanwhile, that change is the cause to report.
            reason = "it changed while it was being backed up; run the backup again";
        } else if (e instanceof IntegrityException) {
            reason = "its stored copy did not match its SHA-256 (" + e.getMessage() + ")";
            tally.storeFailed.compareAndSet(null, reason);
        } else if (e instanceof IOException || e instanceof UncheckedIOException) {
            reason = "it could not be read (" + Messages.describeIo(e) + ")";
        } else if (e instanceof StorageException) {
            // The store refused or failed the write: not a fault of this file, and no later file fares better.
            reason = e.getMessage();
            tally.storeFailed.compareAndSet(null, String.valueOf(reason));
        } else if (e instanceof IllegalArgumentException) {
            reason = e.getMessage();
        } else {
            reason = "it could not be stored (" + Messages.rootMessage(e) + ")";
        }
        tally.failed.add(new Failure(f.path(), reason));
    }

    /** The file's stat changed while its bytes were read. */
    static final class ChangedWhileReading extends IOException {
        private static final long serialVersionUID = 1L;

        public ChangedWhileReading() {
            super("it changed while it was being backed up", null);
        }
    }
}
