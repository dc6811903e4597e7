package dev.ballast.backup.pack;

import dev.ballast.backup.Advice;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.ObjectNotFoundException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a {@link BlobRepository} knows of its index in memory: the blobs and packs the index files name,
 * the index files read or written, those found damaged, the packs the listing of {@code data/} lacked
 * and the blobs lost with them; filled by {@link IndexLoad} at open (and again by a reload), by {@link
 * #register} after a flush, a rebuild or a repair, and changed by {@link Repack} and {@link Salvage}.
 * Also where blobs are to be read ({@link #locate}, {@link #spansOf}) and the figures {@link
 * BlobRepository}'s public queries give ({@link #lostPacks}, {@link #packSizes}, {@link #stats}, ...).
 *
 * <p>Thread-safe as its collections are: concurrent maps and sets, read on any thread; {@link
 * #damagedIndex}, a plain list, only under its own lock. {@link #register} and a reload's clearing and
 * refilling run under the repository's write lock or before the repository is shared; a read running
 * while a repair reloads the index may not find its blob (see {@link BlobRepository}). One instance per
 * repository, made with it.
 */
final class IndexState {
    private final BlobRepository repo;

    /** Flushed blobs: the first location seen of each. */
    final ConcurrentHashMap<BlobId, BlobLocation> index = new ConcurrentHashMap<>();
    /** Every indexed pack and its blobs (as its index entry lists them; immutable lists). */
    final ConcurrentHashMap<String, List<BlobLocation>> packBlobs = new ConcurrentHashMap<>();
    /** Where each pack of {@link #packBlobs} has its header, for reads. */
    private final PackEnds packEnds = new PackEnds();
    /** The index files read or written. */
    final Set<String> indexFiles = ConcurrentHashMap.newKeySet();

    final List<CheckReport.Damage> damagedIndex = new ArrayList<>();

    /**
     * Packs an index file names that the listing of {@code data/} at open did not find (deleted or lost):
     * their blobs are not in {@link #index} unless another pack holds them too.
     */
    final ConcurrentHashMap<String, List<BlobLocation>> missingPacks = new ConcurrentHashMap<>();
    /**
     * Blobs only missing packs held, or held past the end of a pack the listing found cut short, each
     * with that pack: absent, so a backup stores them again.
     */
    final ConcurrentHashMap<BlobId, String> lost = new ConcurrentHashMap<>();
    /** Blobs of {@link #lost} added again since open. */
    final Set<BlobId> storedAgain = ConcurrentHashMap.newKeySet();
    /** Packs in the index from their own headers because no intact index file names them (a damaged one did). */
    final Set<String> fromHeaders = ConcurrentHashMap.newKeySet();

    /** {@code repo}'s {@link BlobRepository#readable} is looked up when used, not here (it is made after this). */
    IndexState(BlobRepository repo) {
        this.repo = repo;
    }

    /**
     * Adds a flushed pack to the in-memory index. A pack already known (named by two index files, as
     * after a prune that died before deleting the older one) keeps its first entry: a pack's name is the
     * hash of its bytes, so both list the same blobs.
     */
    void register(String pack, List<BlobLocation> blobs) {
        if (packBlobs.putIfAbsent(pack, List.copyOf(blobs)) == null) {
            for (BlobLocation loc : blobs) {
                BlobLocation first = index.putIfAbsent(loc.id(), loc);
                if (first != null && !first.pack().equals(pack)) {
                    repo.readable.add(loc);
                }
            }
        }
    }

    /** Where the blobs of an indexed pack end (its header starts); 0 for a pack no index names. */
    long dataEnd(String pack) {
        List<BlobLocation> blobs = packBlobs.get(pack);
        return blobs != null ? packEnds.of(pack, blobs) : repo.readable.unindexed.dataEnd(pack);
    }

    /**
     * Where {@link BlobRepository#read} and {@link BlobRepository#readAll} read the blob: where the index
     * says, or else in a pack no index file names.
     *
     * @throws ObjectNotFoundException naming the blob, or the missing pack that held it
     * @throws IntegrityException naming the pack, if the blob lies past the end of a pack found cut short
     */
    BlobLocation locate(BlobId id) {
        BlobLocation loc = index.get(id);
        if (loc == null) {
            loc = repo.readable.unindexed.find(id);
        }
        if (loc == null) {
            String pack = lost.get(id);
            if (pack != null && !missingPacks.containsKey(pack)) {
                throw new IntegrityException(
                        pack,
                        "Blob " + id + " in pack " + pack + " lies past the pack's end: the pack was cut" + " ("
                                + Advice.REPAIR_INDEX.text()
                                + " keeps its other blobs; a backup stores this one again).");
            }
            if (pack != null) {
                // the pack is what is missing: the key a caller reports
                throw new ObjectNotFoundException(pack, null, false, null);
            }
            throw new ObjectNotFoundException("blob " + id.hex(), null, false, null);
        }
        return loc;
    }

    /** The spans covering {@code ids} (each distinct ID once), grouped by pack; see {@link BlobRepository#readAll}. */
    List<PackReader.Span> spansOf(Collection<BlobId> ids) {
        Map<String, List<BlobLocation>> byPack = new LinkedHashMap<>();
        for (BlobId id : new LinkedHashSet<>(ids)) {
            BlobLocation loc = locate(id);
            byPack.computeIfAbsent(loc.pack(), k -> new ArrayList<>()).add(loc);
        }
        List<PackReader.Span> spans = new ArrayList<>();
        for (List<BlobLocation> blobs : byPack.values()) {
            spans.addAll(PackReader.spans(blobs));
        }
        return spans;
    }

    /** {@link BlobRepository#missingPacks()}: each missing pack with how many blobs it held, in key order. */
    Map<String, Integer> missingPackCounts() {
        Map<String, Integer> out = new java.util.TreeMap<>();
        missingPacks.forEach((k, v) -> out.put(k, v.size()));
        return out;
    }

    /** How many of the {@link #lost} blobs were in {@code pack}. */
    long lostBlobsOf(String pack) {
        return lost.values().stream().filter(pack::equals).count();
    }

    /** The packs the {@link #lost} blobs were in, in key order. */
    Set<String> lostPacks() {
        return new java.util.TreeSet<>(lost.values());
    }

    /** {@link BlobRepository#storedAgain()}: the {@link #storedAgain} blobs and the lost packs they were in. */
    BlobRepository.StoredAgain storedAgainSoFar() {
        Set<String> packs = new java.util.HashSet<>();
        for (BlobId id : storedAgain) {
            packs.add(lost.get(id));
        }
        return new BlobRepository.StoredAgain(storedAgain.size(), packs.size());
    }

    /** A copy of {@link #damagedIndex}. */
    List<CheckReport.Damage> damagedIndexFiles() {
        synchronized (damagedIndex) {
            return List.copyOf(damagedIndex);
        }
    }

    /** Each indexed pack (in key order) with the size its index entry implies. */
    Map<String, Long> packSizes() {
        Map<String, Long> sizes = new java.util.TreeMap<>();
        packBlobs.forEach((pack, blobs) -> sizes.put(
                pack,
                Packs.sizeOf(blobs.stream().mapToLong(BlobLocation::length).sum(), blobs.size())));
        return sizes;
    }

    /** Whether an index file names {@code pack}, also when the store lacks it. */
    boolean indexes(String pack) {
        return packBlobs.containsKey(pack) || missingPacks.containsKey(pack);
    }

    /** The packs and blobs indexed now, their stored and plain bytes. */
    RepositoryStats stats() {
        long stored = 0;
        for (List<BlobLocation> blobs : packBlobs.values()) {
            stored +=
                    Packs.sizeOf(blobs.stream().mapToLong(BlobLocation::length).sum(), blobs.size());
        }
        long plain = 0;
        for (BlobLocation b : index.values()) {
            plain += b.plainLength();
        }
        return new RepositoryStats(packBlobs.size(), index.size(), stored, plain);
    }
}
