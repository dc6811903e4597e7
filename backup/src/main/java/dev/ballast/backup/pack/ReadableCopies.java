package dev.ballast.backup.pack;

import dev.ballast.storage.IntegrityException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where a blob can be read from, beyond the one place the index names first ({@link IndexState#index}):
 * the other packs the index names it in, and the packs no index file names ({@link UnindexedPacks}); and
 * the read from one of those when the first copy does not open ({@link #fromOtherCopy}). What is found
 * here serves reads only, never deduplication. It also tells what reads went around: the packs no index
 * file names that they took a blob from or could not open, and the packs whose copy of a blob did not open.
 *
 * <p>Thread-safe: lookups and reads on any number of threads. {@link #add} is called as packs are indexed
 * ({@link IndexState#register}: at open, after a flush, or by a rebuild or a repair, all under the
 * repository's write lock or before it is shared), {@link #clear} when the index is read again.
 *
 * <p>Used by {@link BlobRepository}, which delegates its read-side lookups here ({@link
 * BlobRepository#findReadable}, {@link BlobRepository#locations}, {@link BlobRepository#unindexedPacksRead},
 * {@link BlobRepository#unindexedPacksUnreadable}, {@link BlobRepository#packsReadAround}) and whose
 * {@link BlobRepository#read} falls back to {@link #fromOtherCopy}; by its {@link PackReader}, which
 * falls back to {@link #fromOtherCopy} in a span read; and by {@link IndexLoad} ({@link #clear}).
 */
final class ReadableCopies {
    private final BlobRepository repo;
    /**
     * Blobs the index names in more than one pack (stored again after their pack or index file was lost,
     * the old pack indexed again by a repair): the places after the first. A read whose copy does not open
     * takes the blob from one of these.
     */
    private final ConcurrentHashMap<BlobId, List<BlobLocation>> copies = new ConcurrentHashMap<>();
    /** Packs no index file names, looked at only when a read misses the index; never used to deduplicate. */
    final UnindexedPacks unindexed;
    /** Packs a blob did not open in that was then read from another copy ({@link #fromOtherCopy}). */
    private final Set<String> damagedCopies = ConcurrentHashMap.newKeySet();

    ReadableCopies(BlobRepository repo) {
        this.repo = repo;
        this.unindexed = new UnindexedPacks(repo);
    }

    /** Records {@code loc}, a place of a blob the index already names in another pack first. */
    void add(BlobLocation loc) {
        copies.computeIfAbsent(loc.id(), k -> new java.util.concurrent.CopyOnWriteArrayList<>())
                .add(loc);
    }

    /**
     * Forgets what was found: the index is being read again. The packs read around
     * ({@link #packsReadAround}) are kept.
     */
    void clear() {
        unindexed.clear();
        copies.clear();
    }

    /**
     * The places of {@code id} beyond the first ({@link IndexState#index}): the other packs the index
     * names it in, then a pack no index file names that holds it ({@link UnindexedPacks}: a lost index
     * file's, found from the headers). Asked only after the first copy did not open; empty for most blobs.
     */
    private List<BlobLocation> otherCopies(BlobId id) {
        List<BlobLocation> more = copies.get(id);
        BlobLocation unnamed = unindexed.find(id);
        if (unnamed == null) {
            return more == null ? List.of() : more;
        }
        List<BlobLocation> all = new ArrayList<>(more == null ? List.of() : more);
        all.add(unnamed);
        return all;
    }

    /**
     * {@code loc}'s blob from another pack holding it ({@link #otherCopies}), after its copy at {@code loc}
     * did not open, twice: the first other copy that opens, read exactly and past every cache into an
     * array of its own (so the caller's scratch window stays valid). Throws {@code damaged}, with each
     * other copy's failure suppressed in it, when none opens or there is none.
     */
    byte[] fromOtherCopy(BlobLocation loc, IntegrityException damaged) {
        for (BlobLocation c : otherCopies(loc.id())) {
            if (c.pack().equals(loc.pack())) {
                continue;
            }
            try {
                byte[] plain = repo.reader.open(c, repo.reader.range(c.pack(), c.offset(), c.length()), 0);
                damagedCopies.add(loc.pack());
                return plain;
            } catch (IntegrityException | dev.ballast.storage.ObjectNotFoundException e) {
                IntegrityException.rethrowIfInStoreIndex(e); // the store's index, not what was read
                damaged.addSuppressed(e);
            }
        }
        throw damaged;
    }

    /**
     * {@link BlobRepository#packsReadAround}: the packs in which a blob did not open and was then read from
     * another copy, in key order.
     */
    Set<String> packsReadAround() {
        return new java.util.TreeSet<>(damagedCopies);
    }

    /** {@link BlobRepository#locations}. */
    List<BlobLocation> locations(BlobId id) {
        BlobLocation first = repo.state.index.get(id);
        if (first == null) {
            return List.of();
        }
        List<BlobLocation> more = copies.get(id);
        if (more == null) {
            return List.of(first);
        }
        List<BlobLocation> all = new ArrayList<>(1 + more.size());
        all.add(first);
        all.addAll(more);
        return all;
    }

    /** {@link BlobRepository#findReadable}. */
    Optional<BlobLocation> findReadable(BlobId id) {
        BlobLocation loc = repo.state.index.get(id);
        return Optional.ofNullable(loc != null ? loc : unindexed.find(id));
    }

    /** {@link BlobRepository#unindexedPacksRead}. */
    Set<String> unindexedPacksRead() {
        return unindexed.used();
    }

    /** {@link BlobRepository#unindexedPacksUnreadable}. */
    Set<String> unindexedPacksUnreadable() {
        return unindexed.unreadable();
    }
}
