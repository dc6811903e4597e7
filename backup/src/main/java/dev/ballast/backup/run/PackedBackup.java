package dev.ballast.backup.run;

import dev.ballast.backup.Advice;
import dev.ballast.backup.Cancellation;
import dev.ballast.backup.Messages;
import dev.ballast.backup.content.PackedBlobs;
import dev.ballast.backup.content.PackedContent;
import dev.ballast.backup.pack.BlobRepository;
import dev.ballast.backup.retention.PackedRepair;
import dev.ballast.backup.run.BackupRunner.SourceFile;
import dev.ballast.backup.snapshot.ManifestEntry;
import dev.ballast.storage.StorageUnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * What a backup into a repository of format 3 does beside a backup of the earlier formats
 * ({@link BackupRunner#packedInto}): the previous manifest's entries are kept only while the
 * repository's index holds every chunk they list, and a file is told stored only once the packs
 * holding its chunks and the index naming them are written ({@link #confirmPacked}).
 *
 * <p>Holds no state: {@link #dropLost} (with {@link #noteDamage}) and {@link #reuseLeftBehind} are
 * called by {@link PreviousManifest#read} on the thread reading the previous manifest; the others by
 * {@link BackupRunner#run} on the run's thread, {@link #confirmPacked} once the walk's transfers were
 * awaited (it takes back from the run's {@link RunTally} what the flush did not make durable).
 */
final class PackedBackup {
    private PackedBackup() {}

    /**
     * Indexes the packs a run of the name killed before its flush left ({@link
     * PackedContent#indexLeftBehind}), with a note when there were some: their chunks are then reused
     * by this run instead of being stored again, as a killed backup of the earlier formats has its
     * stored files reused ({@link LeftBehind}).
     */
    static void reuseLeftBehind(PackedContent packed, String name, Consumer<String> err) {
        int packs = packed.indexLeftBehind();
        if (packs > 0) {
            err.accept("Note: a run of '" + Messages.printable(name) + "' that did not finish left " + packs
                    + " pack(s) no index named; they are indexed and their chunks reused.");
        }
    }

    /**
     * Says what the repository's open found wrong that this backup works around
     * ({@link PackedRepair#damageNotes}).
     */
    static void noteDamage(PackedContent packed, Consumer<String> err) {
        PackedRepair.damageNotes(packed, true).forEach(err);
    }

    /**
     * After the run's packs are indexed: says how many chunks of missing packs it stored again, which
     * makes every older snapshot naming them read again (chunk IDs are content-addressed).
     */
    static void noteStoredAgain(PackedContent packed, Consumer<String> err) {
        if (!(packed.opened() instanceof PackedBlobs blobs)) {
            return;
        }
        BlobRepository repo = blobs.blobs();
        BlobRepository.StoredAgain again = repo.storedAgain();
        if (repo.lostBlobs() == 0) {
            return;
        }
        int lost = repo.lostBlobs();
        int stored = again.blobs();
        int notStored = lost - stored;
        // One count of packs, the lost ones: the chunks stored again come from some of them.
        String of = " chunk(s) of " + repo.lostPacks().size()
                + (repo.missingPacks().size() == repo.lostPacks().size() ? " missing" : " missing or cut")
                + " pack(s)";
        String damaged =
                "the backups that need them stay damaged (" + Advice.VERIFY_NAME.text() + " names their files).";
        if (notStored <= 0) {
            err.accept("Note: " + lost + of + " were stored again from the source; the older backups that use them"
                    + " read again.");
        } else if (stored == 0) {
            err.accept("Note: none of the " + lost + of + " was in this source, so none was stored again: " + damaged);
        } else {
            err.accept("Note: " + stored + " of the " + lost + of + " were stored again from the source, and the older"
                    + " backups that use them read again; the other " + notStored + " were not in this source: "
                    + damaged);
        }
    }

    /**
     * Uploads the run's open packs and writes the index file naming every pack of the run
     * ({@link PackedContent#flush}): after it returns normally, every chunk the run added is durable.
     *
     * @param grace how long to wait, or null to wait as long as the store takes (a run cut short waits
     *     at most the grace period, so a dead endpoint cannot hold the command; the flush then goes on in
     *     the background, and what it writes is only reused by a later run)
     * @return null when the flush returned; else why not: its failure (the first pack upload that
     *     failed, which every later flush throws again, or the index write's), or a
     *     {@link TimeoutException}
     */
    static @Nullable Throwable flush(PackedContent packed, @Nullable Duration grace) {
        if (grace == null) {
            try {
                packed.flush();
                return null;
            } catch (RuntimeException e) {
                return e;
            }
        }
        CompletableFuture<Void> flush = CompletableFuture.runAsync(packed::flush, r -> {
            Thread t = new Thread(r, "ballast-pack-flush");
            t.setDaemon(true);
            t.start();
        });
        try {
            flush.get(grace.toMillis(), TimeUnit.MILLISECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (TimeoutException e) {
            return e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new TimeoutException("interrupted");
        }
    }

    /**
     * What a file whose chunks did not reach the index fails with: the flush's failure, a timeout as the
     * store being unavailable, or (no failure, yet a chunk missing from the index) a state error.
     */
    static Throwable whyNotStored(@Nullable Throwable failure, Duration grace) {
        if (failure instanceof TimeoutException) {
            return new StorageUnavailableException(
                    null, "the store did not finish storing its chunks within " + Messages.duration(grace), failure);
        }
        return failure != null
                ? failure
                : new IllegalStateException("its chunks are not all in the repository's index after the flush");
    }

    /**
     * Has the flush write the index file naming the run's packs only while the run's marker stands
     * ({@link PackedContent#beforeIndexing}): once a prune took the run for dead (its marker removed while
     * it was paused past {@link RunMarker#STALE}, or by {@code unlock --remove-all}) it may have deleted
     * the packs the run had uploaded, and an index file naming them made {@code check} report them missing
     * and every prune refuse until {@code repair index} (a fault tester's, on S3). The flush then indexes
     * nothing and fails, so every file of the run is reported not stored, and no snapshot is written
     * ({@link StoreAgain#storeAgainIfTakenForDead}). The marker is looked at once, right before the index
     * file is written, after the uploads were awaited; a prune between that look and the write is not
     * seen here.
     */
    static void indexOnlyWhileAlive(PackedContent packed, BackupRunner.Guard guard) {
        packed.beforeIndexing(() -> {
            if (guard.refresh() > 0) {
                throw new IllegalStateException(TAKEN_FOR_DEAD);
            }
        });
    }

    /** Why the files of a run taken for dead before its index was written are not stored. */
    static final String TAKEN_FOR_DEAD = "a prune took this run for dead while it was paused and may have deleted the"
            + " packs it had stored, so no index names them";

    /**
     * Format 3: flushes the run's packs and index ({@link PackedBackup#flush}), then takes out of
     * {@code entries} every file whose chunks the index does not all name (a pack upload or the index
     * write failed, or the flush did not return within the grace period of a run cut short) and reports
     * it not stored, with the flush's failure as the reason; the others are told stored now. Rule 5 of
     * the field (a loss is never reported as success) and BlobRepository's "only after flush returns is
     * a blob durable".
     */
    static void confirmPacked(
            PackedContent content,
            List<ManifestEntry> entries,
            RunTally tally,
            Cancellation cancellation,
            Duration manifestGrace,
            BiConsumer<SourceFile, Throwable> fail,
            Consumer<String> onStored) {
        boolean wait = tally.notAttempted.isEmpty() && tally.unavailable.get() == null && !cancellation.cancelled();
        Throwable failure = PackedBackup.flush(content, wait ? null : manifestGrace);
        Map<String, SourceFile> storedNow = new HashMap<>();
        synchronized (tally.uploadedFiles) {
            tally.uploadedFiles.forEach(u -> storedNow.put(u.file().path(), u.file()));
        }
        Map<String, SourceFile> unchanged = new HashMap<>();
        synchronized (tally.keptFromPrevious) {
            tally.keptFromPrevious.forEach(f -> unchanged.put(f.path(), f));
        }
        List<SourceFile> lost = new ArrayList<>();
        synchronized (entries) {
            for (java.util.Iterator<ManifestEntry> it = entries.iterator(); it.hasNext(); ) {
                ManifestEntry e = it.next();
                if (e.chunks() != null && content.indexedAll(e.chunks())) {
                    continue;
                }
                it.remove();
                SourceFile f = storedNow.remove(e.path());
                if (f != null) {
                    tally.stored.decrementAndGet();
                    tally.uploadedFiles.removeIf(u -> u.file().path().equals(e.path()));
                } else {
                    f = unchanged.get(e.path());
                    tally.unchangedCount.decrementAndGet();
                    tally.keptFromPrevious.removeIf(k -> k.path().equals(e.path()));
                }
                if (f != null) {
                    lost.add(f);
                }
            }
        }
        for (SourceFile f : lost) {
            fail.accept(f, PackedBackup.whyNotStored(failure, manifestGrace));
        }
        // In path order: the entries are sorted here once, which the manifest's own sort then finds done.
        synchronized (entries) {
            entries.sort(Comparator.comparing(ManifestEntry::path));
            for (ManifestEntry e : entries) {
                if (storedNow.containsKey(e.path())) {
                    onStored.accept(e.path());
                }
            }
        }
    }

    /**
     * Says what {@link #noteDamage} says, then removes from {@code previous} the entries whose chunks are
     * not all in the index (a prune, a damaged index or a missing pack took them) or that list no chunks at all (not of format 3), with one note saying
     * how many: those files are read and stored again.
     */
    static void dropLost(PackedContent packed, Map<String, ManifestEntry> previous, String name, Consumer<String> err) {
        noteDamage(packed, err);
        int lost = 0;
        for (Iterator<ManifestEntry> it = previous.values().iterator(); it.hasNext(); ) {
            ManifestEntry e = it.next();
            if (!e.packed() || !packed.holdsAll(e.chunks())) {
                it.remove();
                lost++;
            }
        }
        if (lost > 0) {
            err.accept("Note: " + lost + " file(s) of the previous backup of '" + Messages.printable(name)
                    + "' list chunks the repository's index does not hold; they are read and stored again.");
        }
    }
}
