package dev.ballast.backup.retention;

import dev.ballast.backup.Advice;
import dev.ballast.backup.BackupException;
import dev.ballast.backup.Messages;
import dev.ballast.backup.content.PackedBlobs;
import dev.ballast.backup.content.PackedContent;
import dev.ballast.backup.pack.BlobId;
import dev.ballast.backup.pack.BlobRepository;
import dev.ballast.backup.pack.MaxUnused;
import dev.ballast.backup.pack.PruneRefusedException;
import dev.ballast.backup.pack.PruneStats;
import dev.ballast.backup.run.LocalStoreDirectory;
import dev.ballast.backup.run.RestoreLock;
import dev.ballast.backup.run.RunMarker;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.ManifestEntry;
import dev.ballast.backup.snapshot.SealedStore;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.object.VersionEntry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Prune of a repository of format 3: the live chunks are the union of the chunk lists of every
 * manifest version of every backup name; the packs holding only dead chunks are deleted and those
 * holding the most unused space repacked until what is left is within the caller's
 * {@link MaxUnused} ({@link PackedContent#prune}), never a pack or index file written within the
 * grace period (a running backup may be about to index it). As {@link Pruner} keeps a running
 * backup's files, nothing is deleted while a run marker of a live run exists; and since a manifest
 * that cannot be read could reference any chunk, nothing is deleted either while one cannot. The prune
 * keeps a marker of its own ({@link #PRUNE_MARKER}) while it runs, which keeps new backups from starting.
 */
public final class PackedPrune {
    private PackedPrune() {}

    /**
     * What a prune did.
     *
     * @param pruned what the packs' prune freed (all zero when it was not attempted)
     * @param parts the manifest parts no snapshot names that were deleted (none when it was not attempted)
     * @param skipped why nothing was deleted, one sentence each (empty when the prune ran)
     */
    public record Result(PackedContent.Pruned pruned, SealedStore.DeadParts parts, List<String> skipped) {
        public Result {
            skipped = List.copyOf(skipped);
        }

        /** Nothing deleted, for these reasons. */
        static Result nothing(List<String> why) {
            return new Result(PackedContent.Pruned.NONE, new SealedStore.DeadParts(0, 0), why);
        }

        /** The stored bytes given back in all: the packs' and the manifest parts'. */
        public long bytesFreed() {
            return pruned.bytesFreed() + parts.bytes();
        }
    }

    /**
     * The name of the marker a prune of format 3 keeps while it runs (restic's exclusive lock, in the
     * run markers' protocol): no backup name can start with {@code .ballast-}. A backup that finds one
     * live after writing its own marker does not start ({@link #requireNoPrune}); a prune writes its
     * marker before it looks for runs, so of a backup and a prune starting together one sees the other.
     */
    public static final String PRUNE_MARKER = ".ballast-prune";

    /**
     * The name of the marker a restore or verify of format 3 keeps on a store other than a local one
     * while it reads packs (restic's shared lock for a restore; a local store uses an operating system
     * lock, {@link dev.ballast.backup.run.RestoreLock}): a prune or repair that finds one live deletes
     * nothing.
     */
    public static final String READER_MARKER = ".ballast-restore";

    /**
     * Whose run marker {@code m} is, for messages ("Removed the run marker of ..."): its backup's name in
     * quotes ({@code 'NAME'}), or for the markers that are no backup's, what kept them — {@code a restore or verify} for {@link
     * #READER_MARKER}, {@code a prune or repair} for {@link #PRUNE_MARKER} — never their reserved names.
     */
    public static String markerOf(RunMarker.Found m) {
        if (m.holds(PRUNE_MARKER)) {
            return "a prune or repair";
        }
        if (m.holds(READER_MARKER)) {
            return "a restore or verify";
        }
        return "'" + Messages.printable(m.shownName()) + "'";
    }

    /** A sentence for each backup (or other prune) whose run marker says it may be running. */
    static List<String> running(SealedStore view, Instant now, String ownRun) {
        return running(view, now, ownRun, false);
    }

    /**
     * {@link #running(SealedStore, Instant, String)}; with {@code removeDead}, the markers of runs taken
     * for dead (stale, or of a process of this host that is gone) are first deleted, every version, and
     * the markers listed again, as {@link Pruner} does for the earlier formats: a run that was only paused
     * (a laptop asleep past {@link RunMarker#STALE}) then finds its marker gone when it wakes and stores
     * its files again before it writes a snapshot, instead of naming chunks this prune deleted; one that
     * writes its marker again meanwhile is seen live by the second listing. (Before, a prune of format 3
     * only passed over such markers, so the woken run found its marker standing and wrote a snapshot
     * whose chunks were gone, reported complete.)
     */
    static List<String> running(SealedStore view, Instant now, String ownRun, boolean removeDead) {
        if (removeDead) {
            for (RunMarker.Found m : RunMarker.classify(view, view.listVersions(RunMarker.PREFIX), now)) {
                if (!m.live() && !m.runId().equals(ownRun)) {
                    for (VersionEntry v : m.versions()) {
                        view.deleteVersion(m.key(), v.versionId());
                    }
                }
            }
        }
        List<String> out = new ArrayList<>();
        for (RunMarker.Found m : RunMarker.classify(view, view.listVersions(RunMarker.PREFIX), now)) {
            if (!m.live() || m.runId().equals(ownRun)) {
                continue;
            }
            RunMarker.Holder holder = m.holder();
            String name = holder == null ? m.name() : holder.name();
            out.add(
                    m.holds(PRUNE_MARKER)
                            ? "another prune of the repository is running (" + m.describe() + ")"
                            : m.holds(READER_MARKER)
                                    ? "a restore or verify from the repository is running (" + m.describe()
                                            + "); nothing is deleted until it ends, so that it reads every pack it"
                                            + " needs"
                                    : "a backup of '" + Messages.printable(name) + "' is running (" + m.describe()
                                            + "); nothing is pruned until it ends");
        }
        return out;
    }

    /**
     * Refuses to start a backup of format 3 while a prune runs: the prune may be deleting packs whose
     * chunks the backup would reuse. Called after the backup's own marker is written and before the
     * repository's index is read (a prune that starts later sees the backup's marker and waits).
     *
     * @throws BackupException of kind {@link BackupException.Kind#UNAVAILABLE} naming the prune
     */
    public static void requireNoPrune(SealedStore view, Instant now) {
        requireNoPrune(view, now, "back up again once it has ended");
    }

    /**
     * {@link #requireNoPrune(SealedStore, Instant)} with {@code advice} after the prune is named.
     *
     * @throws BackupException of kind {@link BackupException.Kind#UNAVAILABLE} naming the prune
     */
    public static void requireNoPrune(SealedStore view, Instant now, String advice) {
        java.util.Optional<String> prune = runningPrune(view, now);
        if (prune.isPresent()) {
            throw new BackupException(
                    BackupException.Kind.UNAVAILABLE,
                    "A prune of the repository is running (" + prune.get() + "); " + advice + " "
                            + Advice.REMOVE_PRUNE_MARKER.text());
        }
    }

    /**
     * The prune running in the repository, described by its marker ("on host h, pid 12, since ..."), or
     * empty when none is: a marker older than its lease counts as dead.
     */
    public static java.util.Optional<String> runningPrune(SealedStore view, Instant now) {
        // Only the prune markers' versions: every other marker's record (this backup's own, other backups')
        // would be read by classify for nothing, one GET each.
        for (RunMarker.Found m : RunMarker.classify(view, view.listVersions(RunMarker.prefix(PRUNE_MARKER)), now)) {
            if (m.live() && m.holds(PRUNE_MARKER)) {
                return java.util.Optional.of(m.describe());
            }
        }
        return java.util.Optional.empty();
    }

    /**
     * Prunes the repository seen through {@code view}, whose content is {@code packed}, leaving at most
     * {@code maxUnused} of unused space in its packs where the grace period allows.
     *
     * @throws dev.ballast.storage.StorageException if the store fails (nothing further is deleted)
     */
    public static Result run(SealedStore view, PackedContent packed, Clock clock, Duration grace, MaxUnused maxUnused) {
        // Held until the prune has ended: no restore from a local store reads packs this prune deletes.
        try (RestoreLock restores = RestoreLock.exclusive(LocalStoreDirectory.of(view.raw()))) {
            if (restores.refusedBecause() != null) {
                return Result.nothing(List.of(restores.refusedBecause()));
            }
            try (RunMarker own = RunMarker.start(view, PRUNE_MARKER, clock)) {
                return run(view, packed, clock, grace, maxUnused, own.runId(), false);
            }
        }
    }

    /**
     * What {@link #run} would do now, writing nothing (no marker either): the same checks (a backup or
     * prune running, a manifest that cannot be read, a damaged index file: each a reason in
     * {@link Result#skipped()}, as the prune would give), then the packs it would delete and repack
     * ({@link BlobRepository#planPrune}), with the packs it would write and the bytes it would give
     * back estimated from the live chunks' stored lengths (the unused space left is exact).
     *
     * @throws dev.ballast.storage.StorageException if the store fails
     */
    public static Result plan(
            SealedStore view, PackedContent packed, Clock clock, Duration grace, MaxUnused maxUnused) {
        return run(view, packed, clock, grace, maxUnused, "", true);
    }

    private static Result run(
            SealedStore view,
            PackedContent packed,
            Clock clock,
            Duration grace,
            MaxUnused maxUnused,
            String ownRun,
            boolean dryRun) {
        Instant now = clock.instant();
        List<String> skipped = new ArrayList<>(running(view, now, ownRun, !dryRun));
        if (packed.opened() instanceof PackedBlobs blobs
                && blobs.blobs().missingPacks().keySet().stream()
                                .mapToLong(blobs.blobs()::lostBlobsOf)
                                .sum()
                        > 0) {
            // as restic's prune: a tester's prune said "Prune done", exit 0, on a repository whose check
            // failed for a missing pack, and counted its bytes as unused space. Once every chunk of the missing
            // packs is in another pack (a backup stored them again), nothing is lost and the prune goes on.
            Map<String, Integer> missing = blobs.blobs().missingPacks();
            skipped.add("pack " + missing.keySet().iterator().next()
                    + (missing.size() > 1 ? " and " + (missing.size() - 1) + " more" : "")
                    + " the index names " + (missing.size() > 1 ? "are" : "is")
                    + " missing from the store with chunks no other pack holds, so the backups using them are"
                    + " damaged; nothing is pruned"
                    + " until " + Advice.REPAIR_INDEX.text() + " has dropped "
                    + (missing.size() > 1 ? "them" : "it") + " from the index (the next backup then stores"
                    + " their chunks again wherever the source still has them)");
        }
        if (packed.opened() instanceof PackedBlobs blobs) {
            java.util.Set<String> cut = blobs.blobs().lostPacks();
            cut.removeAll(blobs.blobs().missingPacks().keySet());
            if (!cut.isEmpty()) {
                skipped.add("pack " + cut.iterator().next() + " is shorter than the index says (cut), so its chunks"
                        + " cannot all be copied; nothing is pruned until " + Advice.REPAIR_PACKS.text()
                        + " has replaced it");
            }
        }
        if (packed.opened() instanceof PackedBlobs blobs
                && !blobs.blobs().damagedIndexFiles().isEmpty()) {
            // the blobs only a damaged index file names would be taken for unindexed garbage
            skipped.add("the repository's index file "
                    + blobs.blobs().damagedIndexFiles().get(0).key()
                    + " is damaged, so which packs it names is not known for sure; nothing is pruned until 'ballast"
                    + " repair index' has replaced it");
        }
        Set<String> live = new HashSet<>();
        Set<String> liveParts = new HashSet<>();
        for (Map.Entry<String, List<VersionEntry>> snapshot :
                view.allSnapshotVersions().entrySet()) {
            for (VersionEntry v : snapshot.getValue()) {
                try {
                    Manifest m = view.readSnapshot(snapshot.getKey(), v.versionId());
                    liveParts.addAll(view.partsOf(snapshot.getKey(), v.versionId()));
                    for (ManifestEntry e : m.files()) {
                        if (e.packed()) {
                            live.addAll(e.chunks());
                        }
                    }
                } catch (ObjectNotFoundException e) {
                    // forgotten meanwhile: its chunks are no longer live
                } catch (BackupException | IntegrityException e) {
                    IntegrityException.rethrowIfInStoreIndex(e); // the store's index, not what was read
                    skipped.add("the manifest " + snapshot.getKey() + " version " + v.versionId()
                            + " cannot be read ("
                            + Messages.printable(e.getMessage()).replaceAll("[.]+$", "")
                            + "), so the chunks it references are unknown; nothing is pruned until it is"
                            + " forgotten");
                }
            }
        }
        if (skipped.isEmpty()) {
            // Looked at again once the snapshots are read: a backup that started meanwhile may reuse a chunk
            // no snapshot names yet. One starting after this finds this prune's marker and does not start.
            skipped.addAll(running(view, now, ownRun));
        }
        if (!skipped.isEmpty()) {
            return Result.nothing(skipped);
        }
        if (dryRun && packed.opened() instanceof PackedBlobs blobs) {
            Set<BlobId> ids = new HashSet<>();
            live.forEach(c -> ids.add(BlobId.parse(c)));
            Instant cutoff = now.minus(grace);
            PruneStats s;
            try {
                s = blobs.blobs().planPrune(ids, p -> p.lastModified().isAfter(cutoff), maxUnused);
            } catch (PruneRefusedException e) {
                return Result.nothing(List.of(e.getMessage()));
            }
            return new Result(PackedContent.Pruned.of(s), view.deadParts(liveParts, cutoff), List.of());
        }
        try {
            PackedContent.Pruned pruned = packed.prune(live, now.minus(grace), maxUnused);
            // Manifest parts no snapshot names (their snapshots forgotten, or a run that stored them died
            // before its head), after the packs: nothing a kept snapshot reads is deleted.
            return new Result(pruned, view.deleteDeadParts(liveParts, now.minus(grace)), List.of());
        } catch (PruneRefusedException e) {
            return Result.nothing(List.of(e.getMessage()));
        } catch (IntegrityException e) {
            IntegrityException.rethrowIfInStoreIndex(e); // the store's index, not what was read
            // a live chunk to be repacked did not open: the prune stopped before deleting anything
            return Result.nothing(
                    List.of("a chunk it would copy into a new pack is damaged (" + Messages.printable(e.getMessage())
                            + "), so nothing was deleted; run " + Advice.REPAIR_PACKS.text() + ", then prune again"));
        }
    }
}
