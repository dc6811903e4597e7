package dev.ballast.backup.pack;

import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.object.ListEntry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/** {@link BlobRepository#check} and {@link BlobRepository#rebuildIndex}: run under its write lock. */
final class PackCheck {
    /** The last bytes of a pack read first to find its header: most headers fit. */
    private static final int TAIL = 64 * 1024;

    private final BlobRepository repo;

    PackCheck(BlobRepository repo) {
        this.repo = repo;
    }

    private Map<String, ListEntry> listPacks() {
        return repo.listPacks();
    }

    /**
     * Registers, in memory only, the packs of {@code listed} no intact index file names, from their
     * headers: what a damaged index file named is found again without writing anything. Packs whose
     * header does not open are left out (a {@link #rebuild} reports them).
     */
    void indexFromHeaders(Map<String, ListEntry> listed) {
        List<ListEntry> unindexed = new ArrayList<>();
        for (ListEntry e : listed.values()) {
            if (!repo.state.packBlobs.containsKey(e.key())) {
                unindexed.add(e);
            }
        }
        headers(unindexed, null).forEach((pack, blobs) -> {
            repo.state.register(pack, blobs);
            repo.state.fromHeaders.add(pack);
        });
    }

    /**
     * The blobs of each pack of {@code packs} as its header lists them, in key order, read
     * {@link PackOptions#readThreads()} packs at once. A pack deleted since it was listed is left out; so
     * is one whose header does not open, which is added to {@code damaged} when that is not null.
     */
    Map<String, List<BlobLocation>> headers(List<ListEntry> packs, @Nullable List<String> damaged) {
        return headers(packs, damaged, repo.readExecutor);
    }

    /** {@link #headers(List, List)} on {@code executor}. */
    Map<String, List<BlobLocation>> headers(
            List<ListEntry> packs, @Nullable List<String> damaged, java.util.concurrent.Executor executor) {
        Map<String, List<BlobLocation>> found = new java.util.concurrent.ConcurrentHashMap<>();
        try {
            Parallel.run(executor, repo.options.readThreads(), packs, e -> {
                try {
                    found.put(e.key(), header(e.key(), e.size()));
                } catch (IntegrityException skipped) {
                    IntegrityException.rethrowIfInStoreIndex(skipped); // the store's index, not what was read
                    if (damaged != null) {
                        synchronized (damaged) {
                            damaged.add(e.key());
                        }
                    }
                } catch (ObjectNotFoundException gone) {
                    // deleted since the listing: nothing to find in it
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new TreeMap<>(found);
    }

    CheckReport check(Predicate<String> readData) {
        List<CheckReport.Damage> damage = new ArrayList<>(repo.damagedIndexFiles());
        Map<String, ListEntry> listed = listPacks();
        Map<String, List<BlobLocation>> indexed = new TreeMap<>(repo.state.packBlobs);
        // packs found missing at open are still named by the index: checked (and reported) as the others
        repo.state.missingPacks.forEach(indexed::putIfAbsent);
        List<String> toRead = new ArrayList<>();
        for (Map.Entry<String, List<BlobLocation>> p : indexed.entrySet()) {
            ListEntry entry = listed.get(p.getKey());
            if (entry == null) {
                long elsewhere = p.getValue().stream()
                        .filter(b -> {
                            BlobLocation at = repo.state.index.get(b.id());
                            return at != null && !at.pack().equals(p.getKey());
                        })
                        .count();
                damage.add(new CheckReport.Damage(
                        p.getKey(),
                        null,
                        "it is missing; the index names " + p.getValue().size() + " blobs in it"
                                + (elsewhere > 0 ? ", " + elsewhere + " of them stored again in other packs" : "")));
                continue;
            }
            long expected = Packs.sizeOf(
                    p.getValue().stream().mapToLong(BlobLocation::length).sum(),
                    p.getValue().size());
            if (entry.size() != expected) {
                damage.add(CheckReport.Damage.wrongSize(p.getKey(), entry.size(), expected));
                if (entry.size() < expected && !readData.test(p.getKey())) {
                    // cut short: the blobs past its end are lost, those before it still read (a read names
                    // them as it finds them)
                    for (BlobLocation b : p.getValue()) {
                        if (b.end() > entry.size()) {
                            damage.add(new CheckReport.Damage(
                                    p.getKey(), b.id(), "it runs past the pack's end: the pack was cut"));
                        }
                    }
                }
            }
            if (readData.test(p.getKey())) {
                toRead.add(p.getKey());
            }
        }
        AtomicLong blobsRead = new AtomicLong();
        AtomicInteger packsRead = new AtomicInteger();
        List<CheckReport.Damage> found = new ArrayList<>();
        try {
            Parallel.run(repo.readExecutor, repo.options.readThreads(), toRead, pack -> {
                List<CheckReport.Damage> d = readPack(pack, indexed.get(pack), blobsRead);
                packsRead.incrementAndGet();
                synchronized (found) {
                    found.addAll(d);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        damage.addAll(found);
        damage.sort(Comparator.comparing(CheckReport.Damage::key)
                .thenComparing(d -> d.blob() == null ? "" : d.blob().hex()));
        List<String> unindexed = new ArrayList<>();
        for (String key : listed.keySet()) {
            if (!indexed.containsKey(key)) {
                unindexed.add(key);
            }
        }
        return new CheckReport(indexed.size(), packsRead.get(), blobsRead.get(), damage, unindexed);
    }

    /** Reads one pack whole; every blob of its header and of its index entry opened and checked. */
    private List<CheckReport.Damage> readPack(String pack, List<BlobLocation> indexedBlobs, AtomicLong blobsRead) {
        List<CheckReport.Damage> damage = new ArrayList<>();
        byte[] bytes;
        try {
            bytes = repo.reader.whole(pack);
        } catch (IntegrityException e) {
            IntegrityException.rethrowIfInStoreIndex(e); // the store's index, not what was read
            damage.add(new CheckReport.Damage(pack, null, CheckReport.Damage.BYTES_DAMAGED + e.getMessage()));
            // The store's check of the whole object failed; which chunks are damaged, each read by itself
            // (as a restore reads them), says which files are.
            for (BlobLocation b : indexedBlobs) {
                try {
                    repo.reader.read(b);
                    blobsRead.incrementAndGet();
                } catch (IntegrityException | ObjectNotFoundException one) {
                    IntegrityException.rethrowIfInStoreIndex(one); // the store's index, not what was read
                    damage.add(new CheckReport.Damage(pack, b.id(), one.getMessage()));
                    blobsRead.incrementAndGet();
                }
            }
            return damage;
        } catch (ObjectNotFoundException e) {
            damage.add(new CheckReport.Damage(pack, null, "it is missing"));
            return damage;
        }
        Map<Long, BlobLocation> byOffset = new LinkedHashMap<>();
        try {
            List<BlobLocation> header = Packs.parseHeader(repo.key, pack, bytes.length, bytes);
            Map<Long, BlobLocation> headerAt = new HashMap<>();
            for (BlobLocation h : header) {
                headerAt.put(h.offset(), h);
                byOffset.put(h.offset(), h);
            }
            for (BlobLocation i : indexedBlobs) {
                BlobLocation h = headerAt.get(i.offset());
                if (h == null || !h.equals(i)) {
                    damage.add(new CheckReport.Damage(pack, i.id(), "the index and the pack's header disagree on it"));
                }
            }
        } catch (IntegrityException e) {
            IntegrityException.rethrowIfInStoreIndex(e); // the store's index, not what was read
            damage.add(new CheckReport.Damage(pack, null, e.getMessage()));
        }
        for (BlobLocation i : indexedBlobs) {
            byOffset.putIfAbsent(i.offset(), i);
        }
        for (BlobLocation b : byOffset.values()) {
            if (b.end() > bytes.length) {
                damage.add(new CheckReport.Damage(pack, b.id(), "it runs past the pack's end: the pack was cut"));
                continue;
            }
            try {
                repo.reader.open(b, bytes, (int) b.offset());
            } catch (IntegrityException e) {
                IntegrityException.rethrowIfInStoreIndex(e); // the store's index, not what was read
                damage.add(new CheckReport.Damage(pack, b.id(), e.getMessage()));
            }
            blobsRead.incrementAndGet();
        }
        return damage;
    }

    CheckReport rebuild() {
        Map<String, ListEntry> listed = listPacks();
        List<CheckReport.Damage> damage = new ArrayList<>();
        Map<String, List<BlobLocation>> found = new LinkedHashMap<>();
        List<String> unindexed = new ArrayList<>();
        int read = 0;
        for (String pack : repo.state.fromHeaders) {
            found.put(pack, repo.state.packBlobs.get(pack)); // found from its header at open: now written down
        }
        for (ListEntry e : listed.values()) {
            if (repo.state.packBlobs.containsKey(e.key())) {
                continue;
            }
            read++;
            try {
                found.put(e.key(), header(e.key(), e.size()));
            } catch (IntegrityException ex) {
                IntegrityException.rethrowIfInStoreIndex(ex); // the store's index, not what was read
                damage.add(new CheckReport.Damage(e.key(), null, ex.getMessage()));
                unindexed.add(e.key());
            } catch (ObjectNotFoundException gone) {
                read--;
            }
        }
        if (!found.isEmpty()) {
            IndexWrite.write(repo, found);
            found.forEach(repo.state::register);
            repo.state.fromHeaders.clear();
        }
        for (CheckReport.Damage d : repo.damagedIndexFiles()) {
            Repack.deleteAllVersions(repo, d.key());
        }
        synchronized (repo.state.damagedIndex) {
            repo.state.damagedIndex.clear();
        }
        return new CheckReport(read, 0, 0, damage, unindexed);
    }

    /** A pack's blob locations from its header, read with one or two ranged GETs of its end. */
    List<BlobLocation> header(String pack, long size) {
        long tailLength = Math.min(size, TAIL);
        byte[] tail = tailLength == 0 ? new byte[0] : repo.reader.range(pack, size - tailLength, tailLength);
        if (tail.length >= 4) {
            long hlen = Packs.getInt(tail, tail.length - 4) & 0xFFFFFFFFL;
            if (hlen + 4 > tail.length && hlen + 4 <= size) {
                tail = repo.reader.range(pack, size - hlen - 4, hlen + 4);
            }
        }
        return Packs.parseHeader(repo.key, pack, size, tail);
    }
}
