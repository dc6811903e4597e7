package dev.ballast.backup.retention;

import dev.ballast.backup.Advice;
import dev.ballast.backup.BackupException;
import dev.ballast.backup.Messages;
import dev.ballast.backup.content.PackedBlobs;
import dev.ballast.backup.content.PackedContent;
import dev.ballast.backup.pack.BlobRepository;
import dev.ballast.backup.pack.CheckReport;
import dev.ballast.backup.pack.RepairReport;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * A repair of a repository of format 3 ({@link BlobRepository#repair}) under the prune's protocol: it
 * deletes index files and damaged packs, so it holds the prune marker ({@link PackedPrune#PRUNE_MARKER})
 * while it runs, which keeps new backups from starting, and does nothing while another backup or prune
 * may be running (a backup may be deduplicating against a pack the repair deletes).
 */
public final class PackedRepair {
    private PackedRepair() {}

    /**
     * What fixes a damaged or cut pack, in the same words wherever one is found (check, restore, verify,
     * backup): a repair reading the packs keeps their intact chunks. (A repair of the index alone also
     * replaced a cut pack, but on the local store it first reported the pack's file as lost content and
     * ended with exit 4 though no chunk was lost.)
     */
    public static final String KEEP_INTACT_CHUNKS = Advice.REPAIR_PACKS.text()
            + " keeps every intact chunk of the damaged packs and drops the others from the index";

    /**
     * What a repair did.
     *
     * @param report what was found and done; null when it was not attempted
     * @param skipped why nothing was done, one sentence each (empty when the repair ran)
     */
    public record Result(@Nullable RepairReport report, List<String> skipped) {
        public Result {
            skipped = List.copyOf(skipped);
        }
    }

    /**
     * What the open of {@code packed} found wrong that a command works around, one warning each, naming
     * the command that fixes it: packs the index names that are missing from the store (their chunks are
     * absent: a backup stores them again from its source) and damaged index files (the packs they named
     * were found from their own headers; prune refuses to run until {@code ballast repair index}
     * replaced them). Empty when all is well, or for content other than {@link PackedBlobs}.
     *
     * @param backup whether the command is a backup (which stores the missing chunks itself)
     */
    public static List<String> damageNotes(PackedContent packed, boolean backup) {
        if (!(packed.opened() instanceof PackedBlobs blobs)) {
            return List.of();
        }
        BlobRepository repo = blobs.blobs();
        List<String> notes = new ArrayList<>();
        Map<String, Integer> missing = repo.missingPacks();
        if (!missing.isEmpty()) {
            String first = missing.keySet().iterator().next();
            long only = missing.keySet().stream().mapToLong(repo::lostBlobsOf).sum();
            notes.add("Warning: " + missing.size() + " pack(s) the repository's index names are missing from the"
                    + " store (" + first + (missing.size() > 1 ? " and " + (missing.size() - 1) + " more" : "")
                    + "); "
                    + (only == 0
                            ? "every chunk they held is in another pack."
                            : "the " + only + " chunk(s) only they held are "
                                    + (backup
                                            ? "stored again by this backup wherever the source still has them."
                                            : "missing until a backup of a source that still has them stores them"
                                                    + " again."))
                    + " Run " + Advice.REPAIR_INDEX.text()
                    + ": it brings back a pack deleted by hand whose earlier version"
                    + " the store still keeps, and drops the others from the index; then " + Advice.VERIFY.text()
                    + " shows which"
                    + " backups still need chunks no source had.");
        }
        java.util.Set<String> cut = repo.lostPacks();
        cut.removeAll(missing.keySet());
        if (!cut.isEmpty()) {
            long past = cut.stream().mapToLong(repo::lostBlobsOf).sum();
            notes.add("Warning: " + cut.size() + " pack(s) in the store are shorter than the index says (cut: "
                    + cut.iterator().next() + (cut.size() > 1 ? " and " + (cut.size() - 1) + " more" : "")
                    + "); the " + past + " chunk(s) past their end are "
                    + (backup
                            ? "stored again by this backup wherever the source still has them."
                            : "missing until a backup of a source that still has them stores them again.")
                    + " " + KEEP_INTACT_CHUNKS + ".");
        }
        List<CheckReport.Damage> damaged = repo.damagedIndexFiles();
        if (!damaged.isEmpty()) {
            notes.add("Warning: " + damaged.size() + " index file(s) of the repository are damaged ("
                    + Messages.printable(damaged.get(0).toString()) + "); the packs they named were found from"
                    + " their own headers. Run " + Advice.REPAIR_INDEX.text()
                    + " to replace them (prune refuses to run until"
                    + " then).");
        }
        return notes;
    }

    /**
     * For {@code verify}: one line naming the packs the index names whose stored bytes the store
     * itself finds short or gone ({@link dev.ballast.backup.pack.PackContents}), with what fixes them;
     * empty when the store holds every one in full, or for content other than {@link PackedBlobs}.
     *
     * @throws dev.ballast.storage.StorageException if the store fails
     */
    public static List<String> storedPackNotes(PackedContent packed) {
        if (!(packed.opened() instanceof PackedBlobs blobs)) {
            return List.of();
        }
        Map<String, String> cut = dev.ballast.backup.pack.PackContents.notHeldInFull(blobs.blobs());
        if (cut.isEmpty()) {
            return List.of();
        }
        Map.Entry<String, String> first = cut.entrySet().iterator().next();
        return List.of("Damaged: " + cut.size() + " pack(s) the index names are not held in full by the store ("
                + first.getKey() + ": " + Messages.printable(first.getValue())
                + (cut.size() > 1 ? "; and " + (cut.size() - 1) + " more" : "")
                + "); the chunks still in them read, but a pack whose header is cut cannot be indexed again"
                + " from its own bytes. " + KEEP_INTACT_CHUNKS + ".");
    }

    /**
     * {@link #damageNotes(PackedContent, boolean)} for a command that reads {@code needed} (a restore or
     * a verify): first looks every chunk it names up ({@link PackedContent#readableAll}), so that chunks
     * held only by packs no index file names are found now from those packs' headers, and then adds
     * {@link #unindexedNote} when some were.
     *
     * @throws dev.ballast.storage.StorageException if the store fails
     */
    public static List<String> damageNotes(PackedContent packed, Manifest needed) {
        boolean unfound = false;
        for (ManifestEntry e : needed.files()) {
            if (e.packed()) {
                unfound |= !packed.readableAll(e.chunks());
            }
        }
        List<String> notes = new ArrayList<>(damageNotes(packed, false));
        unindexedNote(packed).ifPresent(notes::add);
        java.util.Set<String> unreadable = packed.unindexedPacksUnreadable();
        if (unfound && !unreadable.isEmpty()) {
            notes.add("Warning: " + unreadable.size() + " pack(s) in the store that no index file names have a"
                    + " header that does not open (" + unreadable.iterator().next()
                    + (unreadable.size() > 1 ? " and " + (unreadable.size() - 1) + " more" : "")
                    + "): the chunks this backup needs that no index names may be in them, and cannot be found in"
                    + " them without it; a backup of a source that still has those files stores them again.");
        }
        return notes;
    }

    /**
     * The warnings for what a restore or verify met while reading (after {@link #damageNotes(PackedContent,
     * Manifest)} was given at its start): chunks that did not open where the index names them and were read
     * from another copy, and chunks read from packs no index file names that the start had not seen.
     *
     * @param atStart the packs no index file names that the notes at the start named
     */
    public static List<String> readNotes(PackedContent packed, java.util.Set<String> atStart) {
        List<String> notes = new ArrayList<>();
        java.util.Set<String> around = packed.packsReadAround();
        if (!around.isEmpty()) {
            notes.add("Warning: chunks in " + around.size() + " pack(s) did not open ("
                    + around.iterator().next()
                    + (around.size() > 1 ? " and " + (around.size() - 1) + " more" : "")
                    + ") and were read from another copy the store holds; run " + Advice.REPAIR_PACKS.text()
                    + " to drop the"
                    + " damaged copies.");
        }
        if (!atStart.containsAll(packed.unindexedPacksRead())) {
            unindexedNote(packed).ifPresent(notes::add);
        }
        return notes;
    }

    /**
     * The warning for chunks read from packs no index file names ({@link PackedContent#unindexedPacksRead}):
     * an index file is missing; {@code ballast repair index} indexes those packs again. Empty when there
     * were none.
     */
    public static java.util.Optional<String> unindexedNote(PackedContent packed) {
        java.util.Set<String> packs = packed.unindexedPacksRead();
        if (packs.isEmpty()) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of("Warning: " + packs.size() + " pack(s) in the store that no index file names"
                + " hold chunks this backup needs (" + packs.iterator().next()
                + (packs.size() > 1 ? " and " + (packs.size() - 1) + " more" : "")
                + "): an index file is missing (deleted, or left out when the store was copied); their chunks"
                + " were found from the packs' own headers. Run " + Advice.REPAIR_INDEX.text()
                + " to index them again (a"
                + " prune refuses to delete them until then).");
    }

    /**
     * Repairs the repository seen through {@code view} whose blobs are {@code blobs}.
     *
     * @param readData which packs to read whole ({@code k -> false}: the index against the listing alone)
     * @throws dev.ballast.storage.StorageException if the store fails (what was done so far is safe)
     */
    public static Result run(SealedStore view, BlobRepository blobs, Predicate<String> readData, Clock clock) {
        try (RestoreLock restores = RestoreLock.exclusive(LocalStoreDirectory.of(view.raw()));
                RunMarker own = RunMarker.start(view, PackedPrune.PRUNE_MARKER, clock)) {
            if (restores.refusedBecause() != null) {
                return new Result(null, List.of(restores.refusedBecause()));
            }
            List<String> running = PackedPrune.running(view, clock.instant(), own.runId());
            if (!running.isEmpty()) {
                return new Result(null, running);
            }
            return new Result(blobs.repair(readData), List.of());
        }
    }
    /**
     * A snapshot that names chunks the repository's index does not hold (dropped by a repair or verify
     * that found them damaged, or lost with their pack): its files that lack a chunk cannot be restored
     * until a backup of a source that still holds them stores those chunks again.
     *
     * @param name the backup name
     * @param versionId its manifest version ID
     * @param snapshot the snapshot, for its time
     * @param files the paths of its files that lack a chunk, in path order
     */
    public record Lacking(String name, String versionId, Manifest snapshot, List<String> files) {
        public Lacking {
            files = List.copyOf(files);
        }
    }

    /**
     * Every snapshot of every name that names a chunk {@code packed}'s index does not hold, newest first
     * per name: what a repair that found nothing (more) to repair still leaves damaged, as
     * {@code verify} names it. A snapshot that cannot be read is passed over (list and verify name it).
     *
     * @throws dev.ballast.storage.StorageException if the store fails
     */
    public static List<Lacking> lacking(SealedStore view, PackedContent packed) {
        List<Lacking> out = new ArrayList<>();
        for (Map.Entry<String, List<VersionEntry>> snapshot :
                view.allSnapshotVersions().entrySet()) {
            for (VersionEntry v : snapshot.getValue()) {
                Manifest m;
                try {
                    m = view.readSnapshot(snapshot.getKey(), v.versionId());
                } catch (ObjectNotFoundException | BackupException | IntegrityException e) {
                    IntegrityException.rethrowIfInStoreIndex(e); // the store's index, not what was read
                    continue;
                }
                List<String> files = new ArrayList<>();
                for (ManifestEntry e : m.files()) {
                    if (e.packed() && !packed.holdsAll(e.chunks())) {
                        files.add(e.path());
                    }
                }
                if (!files.isEmpty()) {
                    files.sort(null);
                    out.add(new Lacking(m.name(), v.versionId(), m, files));
                }
            }
        }
        out.sort(java.util.Comparator.comparing(Lacking::name)); // stable: newest first within a name
        return out;
    }
}
