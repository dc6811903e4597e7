package dev.ballast.backup.pack;

import dev.ballast.storage.object.ListEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The packs in the store that no index file names, found from their own headers when a read misses the
 * index: what a lost index file (deleted by hand or by a lifecycle rule, left out by a copy or sync of
 * the store) leaves readable, where restic's restore would say the blob is not found. A pack a backup
 * killed before writing its index is one too.
 *
 * <p>The first miss lists {@code data/} and reads the header of every pack no index file names (one or
 * two ranged GETs each, {@link PackOptions#readThreads()} at once); later misses look only at what that
 * found. A pack whose header does not open is left out, and named ({@link #unreadable()}). What is found here serves reads only: it is
 * never used to deduplicate ({@link BlobRepository#has} and {@link BlobRepository#find} do not see it),
 * because a prune deletes a pack no index names once it is older than its grace period, and a snapshot
 * must never come to depend on one. {@link #used()} names the packs a read took a blob from, for the
 * command's warning ({@code ballast repair index} writes them into the index).
 *
 * <p>Thread-safe: reads on any number of threads; the one search runs under this object's lock.
 */
final class UnindexedPacks {
    private final BlobRepository repo;
    private final ConcurrentHashMap<BlobId, BlobLocation> blobs = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, List<BlobLocation>> packs = new ConcurrentHashMap<>();
    private final Set<String> used = ConcurrentHashMap.newKeySet();
    private final PackEnds ends = new PackEnds();
    /** Packs no index file names whose header did not open at the search. */
    private final List<String> unreadable = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** Whether the search ran since open or the last {@link #clear()}; guarded by {@code this}. */
    private boolean searched;

    UnindexedPacks(BlobRepository repo) {
        this.repo = repo;
    }

    /** Where {@code id} is in a pack no index file names; null if in none (or not yet searched and not found). */
    @Nullable
    BlobLocation find(BlobId id) {
        BlobLocation at = blobs.get(id);
        if (at == null && search()) {
            at = blobs.get(id);
        }
        if (at != null) {
            used.add(at.pack());
        }
        return at;
    }

    /** Where the blobs of a pack found here end (its header starts); 0 for a pack not found here. */
    long dataEnd(String pack) {
        List<BlobLocation> in = packs.get(pack);
        return in == null ? 0 : ends.of(pack, in);
    }

    /** Where {@code blobs}, the blobs of one pack, end: where its header starts. */
    static long end(List<BlobLocation> blobs) {
        long end = 0;
        for (BlobLocation b : blobs) {
            end = Math.max(end, b.end());
        }
        return end;
    }

    /** The packs no index file names that a read took a blob from, in key order. */
    Set<String> used() {
        return new TreeSet<>(used);
    }

    /** The packs no index file names whose header did not open when they were searched, in key order. */
    Set<String> unreadable() {
        return new TreeSet<>(unreadable);
    }

    /** Forgets what was found: the index was read again (a repair may have indexed these packs). */
    synchronized void clear() {
        blobs.clear();
        packs.clear();
        used.clear();
        unreadable.clear();
        searched = false;
    }

    /** Runs {@code task} on a new daemon thread (at most {@link PackOptions#readThreads()} at once here). */
    private static void daemon(Runnable task) {
        Thread t = new Thread(task, "ballast-unindexed-headers");
        t.setDaemon(true);
        t.start();
    }

    /** Reads the headers of the packs no index file names, once; whether that found any. */
    private synchronized boolean search() {
        if (searched) {
            return false;
        }
        searched = true;
        List<ListEntry> unindexed = new ArrayList<>();
        for (ListEntry e : repo.listPacks().values()) {
            if (!repo.state.packBlobs.containsKey(e.key())) {
                unindexed.add(e);
            }
        }
        if (unindexed.isEmpty()) {
            return false;
        }
        List<String> damaged = new ArrayList<>();
        // On threads of its own, not the read pool's: a read of a span, on a pool thread, that falls back to
        // these packs would wait here for pool threads that may all be waiting for this search.
        Map<String, List<BlobLocation>> found = new PackCheck(repo).headers(unindexed, damaged, UnindexedPacks::daemon);
        unreadable.addAll(damaged);
        found.forEach((pack, in) -> {
            packs.put(pack, List.copyOf(in));
            for (BlobLocation b : in) {
                blobs.putIfAbsent(b.id(), b);
            }
        });
        return !found.isEmpty();
    }
}
