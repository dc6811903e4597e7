package dev.ballast.backup.restore;

import dev.ballast.backup.BackupException;
import dev.ballast.backup.Messages;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * When a restore's writes reach the disk ({@link RestoreRunner}). Where {@link RestoreSync} is
 * available for the target, nothing is synced while files are written and renamed into place;
 * {@link #complete} then makes everything durable at once, and a failure there fails the restore.
 * Otherwise each file is synced before its rename on one of {@value #SYNC_THREADS} threads ({@link
 * #fileSyncers}), and each directory at the end, {@value #SYNC_THREADS} at a time: syncs issued
 * together share the journal's commit, one after another they do not (with 2.5 KB files on the
 * project's machine: 390 files/s synced one at a time, over 3,000 with 16 at a time). Not thread-safe
 * but for {@link #eachFile}; one instance per run.
 */
final class RestoreDurability {
    static final int SYNC_THREADS = 32;

    private final RestoreSync sync;
    private final Path target;
    private final boolean atEnd;

    private RestoreDurability(RestoreSync sync, Path target, boolean atEnd) {
        this.sync = sync;
        this.target = target;
        this.atEnd = atEnd;
    }

    /** Asks {@code sync} once whether it serves {@code realTarget} (an existing directory). */
    static RestoreDurability choose(RestoreSync sync, Path realTarget) {
        return new RestoreDurability(sync, realTarget, sync.available(realTarget));
    }

    /** Whether each file must be synced before its rename (the end sync is not available). */
    boolean eachFile() {
        return !atEnd;
    }

    /** Threads that sync and rename written files, or null when the files are renamed by their writer. */
    @Nullable
    ExecutorService fileSyncers() {
        return atEnd ? null : Executors.newFixedThreadPool(SYNC_THREADS, daemonThreads("ballast-sync-"));
    }

    /**
     * Makes the restore's entries in {@code directories} durable: one {@link RestoreSync#syncAll},
     * or each directory synced where each file was. Runs after a cancellation too: the files already
     * renamed into place are said to be complete.
     *
     * @throws BackupException of kind {@link BackupException.Kind#INCOMPLETE} when the end sync failed
     */
    void complete(Collection<Path> directories) {
        if (atEnd) {
            try {
                sync.syncAll(directories);
            } catch (IOException | RuntimeException e) {
                throw new BackupException(
                        BackupException.Kind.INCOMPLETE,
                        "The restore into '" + target + "' did not complete because what it wrote could not be "
                                + "synced to disk (" + Messages.rootMessage(e) + "); run the restore again once "
                                + "the cause is fixed (it checks the files already in place and keeps those that "
                                + "match).",
                        e);
            }
            return;
        }
        ExecutorService syncers = Executors.newFixedThreadPool(SYNC_THREADS, daemonThreads("ballast-directory-sync-"));
        try {
            // each file was synced before its rename; only directory entries may wait for a cancelled run
            directories.forEach(dir -> syncers.execute(() -> RestoreLinks.syncDirectory(dir)));
        } finally {
            syncers.shutdown();
        }
        awaitTermination(syncers);
    }

    /** Waits for {@code threads}, shut down, to finish what was queued. */
    static void awaitTermination(ExecutorService threads) {
        try {
            threads.awaitTermination(1, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static ThreadFactory daemonThreads(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
