package dev.ballast.backup.pack;

import dev.ballast.backup.Futures;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.object.ListEntry;
import dev.ballast.storage.object.ListRequest;
import dev.ballast.storage.object.ObjectRead;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;

/**
 * Reading a {@link BlobRepository}'s index at open: every index file, and one listing of
 * {@code data/} made while they are read. Only packs the listing holds are registered; the others are the repository's missing
 * packs, whose blobs (where no other pack holds them) are lost and absent. With a damaged index file
 * tolerated, the packs no intact index file names are found from their headers, in memory.
 */
final class IndexLoad {
    private IndexLoad() {}

    static void load(BlobRepository r, boolean tolerateDamaged) {
        List<String> files = new ArrayList<>(r.store.list(BlobRepository.INDEX_PREFIX));
        files.removeIf(r.state.indexFiles::contains);
        // data/ is listed while the index files are read: every file of that listing was written before the
        // listing answered, and every pack a file names was uploaded before the file, so before this listing
        // of data/ starts; a pack it lacks is gone (lost, deleted by hand, or pruned meanwhile). On S3 one
        // listing's round trip fewer before a backup or restore starts its work.
        CompletableFuture<Map<String, ListEntry>> packListing = new CompletableFuture<>();
        try {
            r.readExecutor.execute(() -> {
                try {
                    packListing.complete(listPacks(r));
                } catch (RuntimeException | Error e) {
                    packListing.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException e) {
            packListing.completeExceptionally(e);
        }
        Map<String, Map<String, List<BlobLocation>>> read = new ConcurrentHashMap<>();
        try {
            // read readThreads files at once; registered below in key order, whatever order they arrive in
            Parallel.run(r.readExecutor, r.options.readThreads(), files, file -> {
                try {
                    read.put(file, readIndexFile(r, file));
                } catch (ObjectNotFoundException gone) {
                    // deleted since the listing: a prune replaced it, and the file replacing it is listed too
                } catch (IntegrityException e) {
                    IntegrityException.rethrowIfInStoreIndex(e); // the store's index, not what was read
                    if (!tolerateDamaged) {
                        throw e;
                    }
                    synchronized (r.state.damagedIndex) {
                        r.state.damagedIndex.add(new CheckReport.Damage(file, null, e.getMessage()));
                    }
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, ListEntry> listed = Futures.join(packListing);
        Map<String, List<BlobLocation>> cut = new java.util.TreeMap<>();
        for (String file : files) {
            Map<String, List<BlobLocation>> packs = read.get(file);
            if (packs != null) {
                packs.forEach((pack, blobs) -> {
                    ListEntry entry = listed.get(pack);
                    if (entry == null) {
                        r.state.missingPacks.putIfAbsent(pack, List.copyOf(blobs));
                    } else if (entry.size() < expectedSize(blobs)) {
                        cut.putIfAbsent(pack, blobs); // registered last: a whole copy elsewhere comes first
                    } else {
                        r.state.register(pack, blobs);
                    }
                });
                r.state.indexFiles.add(file);
            }
        }
        // A pack shorter than its index entry implies was cut: the blobs past its end are lost, the others
        // still read (each is checked when read).
        cut.forEach((pack, blobs) -> {
            long size = listed.get(pack).size();
            if (r.state.packBlobs.putIfAbsent(pack, List.copyOf(blobs)) == null) {
                for (BlobLocation b : blobs) {
                    if (b.end() <= size) {
                        r.state.index.putIfAbsent(b.id(), b);
                    }
                }
                for (BlobLocation b : blobs) {
                    if (b.end() > size && !r.state.index.containsKey(b.id())) {
                        r.state.lost.putIfAbsent(b.id(), pack);
                    }
                }
            }
        });
        synchronized (r.state.damagedIndex) {
            r.state.damagedIndex.sort(java.util.Comparator.comparing(CheckReport.Damage::key));
            if (!r.state.damagedIndex.isEmpty()) {
                // The packs a damaged index file named are still found, from their own headers (not written).
                new PackCheck(r).indexFromHeaders(listed);
            }
        }
        for (Map.Entry<String, List<BlobLocation>> p : r.state.missingPacks.entrySet()) {
            for (BlobLocation b : p.getValue()) {
                if (!r.state.index.containsKey(b.id())) {
                    r.state.lost.putIfAbsent(b.id(), p.getKey());
                }
            }
        }
    }

    /** The size of a pack holding {@code blobs}, as its index entry implies it. */
    static long expectedSize(List<BlobLocation> blobs) {
        return Packs.sizeOf(blobs.stream().mapToLong(BlobLocation::length).sum(), blobs.size());
    }

    /** Clears what was read at open and reads the index files and the listing again. */
    static void reload(BlobRepository r, boolean tolerateDamaged) {
        r.state.packBlobs.keySet().forEach(r.reader::forget);
        r.state.index.clear();
        r.state.packBlobs.clear();
        r.state.indexFiles.clear();
        r.state.missingPacks.clear();
        r.state.lost.clear();
        r.state.storedAgain.clear();
        r.state.fromHeaders.clear();
        r.readable.clear();
        synchronized (r.state.damagedIndex) {
            r.state.damagedIndex.clear();
        }
        load(r, tolerateDamaged);
    }

    /**
     * The packs in the store ({@code data/}), by key: one listing. A pack listed at 0 bytes holds nothing
     * (every pack has a header) and is left out, as a missing one: the local store lists a pack whose file
     * was deleted by hand at the 0 bytes its files hold, since its index still records it.
     */
    static Map<String, ListEntry> listPacks(BlobRepository r) {
        Map<String, ListEntry> listed = new java.util.TreeMap<>();
        try (java.util.stream.Stream<ListEntry> s = r.store.listing(ListRequest.prefix(BlobRepository.DATA_PREFIX))) {
            s.filter(e -> !e.commonPrefix() && e.size() > 0 && Packs.isPackKey(e.key()))
                    .forEach(e -> listed.put(e.key(), e));
        }
        return listed;
    }

    /** The blobs an index file names, checked: its name, its seal, its JSON. */
    static Map<String, List<BlobLocation>> readIndexFile(BlobRepository r, String file) {
        byte[] stored;
        try (ObjectRead read = r.store.get(file)) {
            stored = read.stream().readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("Reading " + file + " failed: " + e.getMessage(), e);
        }
        String name = file.substring(BlobRepository.INDEX_PREFIX.length());
        if (!name.equals(HexFormat.of().formatHex(Packs.sha256().digest(stored)))) {
            throw new IntegrityException(
                    file, "Index file " + file + " does not hash to its name: it was changed or cut.");
        }
        return IndexFiles.decode(r.key, file, stored);
    }
}
