package dev.ballast.backup.restore;

import dev.ballast.backup.BackupException;
import dev.ballast.backup.Messages;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

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

    /** How often a wait for {@link RestoreSync} looks at the cancellation, in milliseconds. */
    private static final long CANCEL_POLL_MILLIS = 100;

    /**
     * How many files written since the last sync start one in the background ({@link #written}): a third
     * of a restore of 20,000 small files.
     */
    static final int WRITE_BACK_FILES = 7000;

    /** How many bytes of files written since the last sync start one in the background ({@link #written}). */
    static final long WRITE_BACK_BYTES = 64L << 20;

    private final RestoreSync sync;
    /** The directory the run writes into, its links resolved: what a sync in the background is given. */
    private final Path written;
    /** The target as the user gave it, as messages name it. */
    private final Path target;

    private final boolean atEnd;
    private final BooleanSupplier cancelled;

    private final AtomicInteger filesSinceSync = new AtomicInteger();
    private final AtomicLong bytesSinceSync = new AtomicLong();
    /** Whether a sync started by {@link #written} is running. */
    private final AtomicBoolean syncing = new AtomicBoolean();
    /** The thread of the last sync {@link #written} started, or null. */
    private volatile @org.jspecify.annotations.Nullable Thread writeBack;

    private RestoreDurability(RestoreSync sync, Path written, Path target, boolean atEnd, BooleanSupplier cancelled) {
        this.sync = sync;
        this.written = written;
        this.target = target;
        this.atEnd = atEnd;
        this.cancelled = cancelled;
    }

    /**
     * Asks {@code sync} once whether it serves {@code realTarget} (an existing directory: the target,
     * or the hidden directory a new target's tree is written into), whose messages name {@code shown}
     * (the target as the user gave it). A wait for
     * {@code sync}, here and in {@link #complete}, ends as soon as {@code cancelled} turns true (Ctrl-C):
     * a sync that hangs holds the run no longer than that.
     */
    static RestoreDurability choose(RestoreSync sync, Path realTarget, Path shown, BooleanSupplier cancelled) {
        boolean[] available = new boolean[1];
        try {
            untilCancelled(() -> available[0] = sync.available(realTarget), cancelled);
        } catch (IOException e) {
            available[0] = false;
        }
        return new RestoreDurability(sync, realTarget, shown, available[0], cancelled);
    }

    /** Whether each file must be synced before its rename (the end sync is not available). */
    boolean eachFile() {
        return !atEnd;
    }

    /**
     * Files of at least this many bytes, 1 MiB, are synced before their rename even where the run syncs
     * at its end: their sync's cost is writing their bytes, which the end sync would do too, and done as
     * they are written those writes overlap with the restore's reading and decrypting instead of all
     * waiting for the end (a 560 MiB tree restored with one end sync spent its last seconds in it).
     */
    static final long SYNC_AS_WRITTEN_BYTES = 1 << 20;

    /** Whether a written file of {@code size} bytes is synced before its rename (on a {@link #fileSyncers} thread). */
    boolean syncBeforeRename(long size) {
        return !atEnd || size >= SYNC_AS_WRITTEN_BYTES;
    }

    /**
     * Counts a file of {@code size} bytes written without a sync of its own; once {@value
     * #WRITE_BACK_FILES} files or {@value #WRITE_BACK_BYTES} bytes have been since the last, starts the
     * end sync's {@link RestoreSync#syncAll} on what the run wrote on a thread of its own, unless one is
     * running, and returns at once. Its outcome is not waited for (the end sync still runs and is what
     * reports a failure): it only starts the writing of those files while the restore goes on, so the end
     * sync has a third as much left to write (a restore of 20,000 small files from Ceph RGW to a fresh
     * ext4: the end sync 41–56 ms instead of 216–259 ms, the restore 2.45 s instead of 2.52 s, medians of
     * ten alternating runs). Thread-safe.
     */
    void written(long size) {
        if (!atEnd || size >= SYNC_AS_WRITTEN_BYTES) {
            return;
        }
        int files = filesSinceSync.incrementAndGet();
        long bytes = bytesSinceSync.addAndGet(size);
        if ((files < WRITE_BACK_FILES && bytes < WRITE_BACK_BYTES) || !syncing.compareAndSet(false, true)) {
            return;
        }
        filesSinceSync.set(0);
        bytesSinceSync.set(0);
        Thread t = new Thread(
                () -> {
                    try {
                        sync.syncAll(List.of(written));
                    } catch (IOException | RuntimeException e) {
                        // the end sync reports what fails
                    } finally {
                        syncing.set(false);
                    }
                },
                "ballast-write-back");
        t.setDaemon(true);
        writeBack = t;
        t.start();
    }

    /**
     * Stops the sync {@link #written} started, if it still runs: its command is killed ({@link
     * FileSystemSync} does on an interrupt), so none outlives the restore (a tester's Ctrl-C left one
     * running against a hung disk). The end sync writes all it would have.
     */
    void stopWriteBack() {
        Thread t = writeBack;
        if (t != null) {
            t.interrupt();
        }
    }

    /** Threads that sync and rename the written files {@link #syncBeforeRename} picks (started as needed). */
    ExecutorService fileSyncers() {
        return Executors.newFixedThreadPool(SYNC_THREADS, daemonThreads("ballast-sync-"));
    }

    /**
     * Makes the restore's entries in {@code directories} durable: one {@link RestoreSync#syncAll},
     * or each directory synced where each file was. A run cancelled (Ctrl-C) before or while the end sync
     * runs stops waiting for it and is reported as cancelled, not as a failed sync: the files it renamed
     * into place are checked again by the next run.
     *
     * @throws BackupException of kind {@link BackupException.Kind#INCOMPLETE} when the end sync failed
     */
    void complete(Collection<Path> directories) {
        stopWriteBack();
        if (atEnd) {
            try {
                untilCancelled(() -> sync.syncAll(directories), cancelled);
            } catch (IOException | RuntimeException e) {
                if (cancelled.getAsBoolean()) {
                    return; // a sync killed by the same Ctrl-C (exit 130) is the interruption, not a failure
                }
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

    /** An action on the file system that may block (a sync). */
    private interface Blocking {
        void run() throws IOException;
    }

    /**
     * Runs {@code action} on a thread of its own and waits for it, looking at {@code cancelled} every
     * {@value #CANCEL_POLL_MILLIS} ms; once it is true, the action's thread is interrupted and this
     * returns without waiting longer.
     *
     * @throws IOException or RuntimeException as {@code action} threw it
     */
    private static void untilCancelled(Blocking action, BooleanSupplier cancelled) throws IOException {
        java.util.concurrent.CompletableFuture<Void> done = new java.util.concurrent.CompletableFuture<>();
        Thread t = new Thread(
                () -> {
                    try {
                        action.run();
                        done.complete(null);
                    } catch (IOException | RuntimeException | Error e) {
                        done.completeExceptionally(e);
                    }
                },
                "ballast-restore-sync");
        t.setDaemon(true);
        t.start();
        while (true) {
            if (cancelled.getAsBoolean()) {
                t.interrupt();
                return;
            }
            try {
                done.get(CANCEL_POLL_MILLIS, TimeUnit.MILLISECONDS);
                return;
            } catch (java.util.concurrent.TimeoutException e) {
                // look at the cancellation again
            } catch (InterruptedException e) {
                t.interrupt();
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("interrupted while waiting for the sync");
            } catch (java.util.concurrent.ExecutionException e) {
                if (e.getCause() instanceof IOException io) {
                    throw io;
                }
                if (e.getCause() instanceof RuntimeException r) {
                    throw r;
                }
                throw (Error) e.getCause();
            }
        }
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
