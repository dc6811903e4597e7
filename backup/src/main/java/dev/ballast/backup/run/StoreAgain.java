package dev.ballast.backup.run;

import dev.ballast.backup.content.PackedContent;
import dev.ballast.backup.run.BackupRunner.Guard;
import dev.ballast.backup.run.BackupRunner.SourceFile;
import dev.ballast.backup.run.RunTally.Uploaded;
import dev.ballast.backup.snapshot.ManifestEntry;
import dev.ballast.backup.snapshot.Manifests;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.VersionEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * What a backup run does when a prune took it for dead: a prune removes the marker of a run paused
 * past {@link RunMarker#STALE} and may delete what that run stored, which no manifest references yet.
 * Before the manifest is written, {@link #storeAgainIfTakenForDead} writes the marker again and, if a
 * prune removed it meanwhile, stores again every file whose entry names a version this run stored or
 * reused (and the unchanged files too when their previous manifest was removed meanwhile), or tells
 * the run to write no manifest; after the manifest is written, {@link #takenForDeadSince} tells
 * whether a prune removed the marker meanwhile, so that the run withdraws its manifest. A run without
 * a marker ({@link BackupRunner#guardedBy} not called, or given null) is never taken for dead.
 *
 * <p>Not thread-safe: made and called by {@link BackupRunner#run} on the run's thread only, once the
 * transfers of the walk were awaited. {@link #storeAgain} takes the files back out of the run's {@link
 * RunTally} and hands them to the runner, which stores them on transfer threads of their own and
 * waits for them before it returns. One instance per run.
 */
final class StoreAgain {
    private final ObjectStore store;
    private final String name;
    /** The run's marker; null when unguarded (tests). */
    private final @Nullable Guard guard;

    private final PreviousManifest previousManifest;
    private final RunTally tally;
    private final Consumer<String> err;
    /** Where file contents go in a repository of format 3, or null in a store of the earlier formats. */
    private final @Nullable PackedContent packed;
    /** Whether no further file should be started: the store went away, or Ctrl-C. */
    private final BooleanSupplier stopping;
    /** Stores the files given again on transfer threads, replacing their entries, and waits for them. */
    private final BiConsumer<List<Uploaded>, List<ManifestEntry>> backUpAgain;

    StoreAgain(
            ObjectStore store,
            String name,
            @Nullable Guard guard,
            PreviousManifest previousManifest,
            RunTally tally,
            Consumer<String> err,
            @Nullable PackedContent packed,
            BooleanSupplier stopping,
            BiConsumer<List<Uploaded>, List<ManifestEntry>> backUpAgain) {
        this.store = store;
        this.name = name;
        this.guard = guard;
        this.previousManifest = previousManifest;
        this.tally = tally;
        this.err = err;
        this.packed = packed;
        this.stopping = stopping;
        this.backUpAgain = backUpAgain;
    }

    /**
     * Writes the run's marker again before the manifest is written; when a prune removed it meanwhile,
     * stores again every file whose entry names a version this run stored or reused (the prune may have
     * deleted it: they were referenced by no manifest), up to three rounds.
     *
     * @return the marker's losses handled, or -1 when the run was taken for dead and is not complete (its
     *     manifest must not be written)
     */
    int storeAgainIfTakenForDead(List<ManifestEntry> entries) {
        if (guard == null) {
            return 0;
        }
        int handled = 0;
        for (int round = 0; ; round++) {
            int losses;
            try {
                losses = guard.refresh();
            } catch (StorageUnavailableException e) {
                tally.unavailable.compareAndSet(null, e);
                return handled;
            }
            if (losses == handled) {
                return handled;
            }
            if (round == 3 || stopping.getAsBoolean() || !tally.notAttempted.isEmpty() || packed != null) {
                // Format 3: the run's view of the index may name packs the prune deleted, so storing the
                // files again could reuse chunks that are gone; no snapshot is written, the next run stores them.
                return -1;
            }
            handled = losses;
            List<Uploaded> again = new ArrayList<>(tally.uploadedFiles);
            // The unchanged files keep versions a manifest references, which prune keeps while that manifest
            // exists; if one of those manifests was forgotten meanwhile, they are stored again too.
            boolean previousGone = !previousManifest.versions().isEmpty()
                    && !Manifests.versions(store, name).stream()
                            .map(VersionEntry::versionId)
                            .collect(java.util.stream.Collectors.toSet())
                            .containsAll(previousManifest.versions());
            List<SourceFile> kept = previousGone ? new ArrayList<>(tally.keptFromPrevious) : List.of();
            kept.forEach(f -> again.add(new Uploaded(f, false, true)));
            err.accept("Note: a prune took this backup of '" + name + "' for dead while it was paused and removed its"
                    + " run marker, so it may have deleted what the run stored: the " + (again.size() - kept.size())
                    + " file(s) the run stored"
                    + (kept.isEmpty()
                            ? ""
                            : " and the " + kept.size()
                                    + " unchanged one(s), whose previous manifest was removed meanwhile,")
                    + " are stored again before its snapshot is written.");
            storeAgain(again, entries);
        }
    }

    /** Whether the marker, written again now, finds that a prune removed it since {@code handled} losses. */
    boolean takenForDeadSince(int handled) {
        if (guard == null) {
            return false;
        }
        try {
            return guard.refresh() > handled;
        } catch (RuntimeException e) {
            return false; // the manifest is written; the marker goes with the run
        }
    }

    /** Stores {@code files} again, fresh (no version of an earlier run reused), replacing their entries. */
    private void storeAgain(List<Uploaded> files, List<ManifestEntry> entries) {
        previousManifest.forgetLeftBehind();
        Set<String> paths = new java.util.HashSet<>();
        for (Uploaded u : files) {
            paths.add(u.file().path());
            if (u.kept()) {
                tally.unchangedCount.decrementAndGet();
                tally.keptFromPrevious.remove(u.file());
            } else if (u.reused()) {
                tally.reused.decrementAndGet();
            } else {
                tally.stored.decrementAndGet();
                tally.uploaded.addAndGet(-u.file().size());
            }
        }
        entries.removeIf(e -> paths.contains(e.path()));
        tally.uploadedFiles.removeAll(files);
        backUpAgain.accept(files, entries);
    }
}
