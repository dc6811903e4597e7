package dev.ballast.backup.snapshot;

import dev.ballast.backup.keys.MasterKey;
import dev.ballast.backup.snapshot.SealedStore.DeadParts;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.VersionEntry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The manifest parts ({@link ManifestParts}) of one {@link SealedStore}, under
 * {@link SealedStore#PARTS}: stores the parts of a manifest being written before its head
 * ({@link #storeParts}), reads and checks against their IDs the parts a head names ({@link #readParts}),
 * from the local copies ({@link PartFiles}), the in-memory cache or the store, and deletes the parts no
 * manifest names ({@link #deadParts}). It remembers which parts it has seen intact, so a part is read
 * or checked once per view.
 *
 * <p>Called only by {@link SealedStore}, which writes and reads a manifest's head and delegates its
 * parts here; one instance per view, living as long as it.
 *
 * <p>Thread-safe if the store is: what it remembers is in concurrent collections (the cache is
 * synchronized), and {@link #storeParts} and {@link #readParts} run up to {@link #PART_READS} requests
 * at once on threads of their own.
 */
final class SealedParts {
    /** {@link SealedStore#PARTS}: {@code manifest-parts/<id>}. */
    private static final String PARTS = SealedStore.PARTS;

    private static final byte[] PART_AAD = "manifest part".getBytes(StandardCharsets.US_ASCII);

    private final ObjectStore store;
    private final MasterKey key;
    /** Parts read by this view whose stored bytes opened and matched their ID. */
    private final java.util.Set<String> partsChecked = ConcurrentHashMap.newKeySet();
    /** The local copies of parts, or null. */
    private final @Nullable PartFiles partFiles;
    /**
     * Parts this view read from {@link #partFiles} or stored that opened and matched their ID, with the
     * ETag (unquoted) of the stored version each was copied from.
     */
    private final Map<String, String> partsCopied = new ConcurrentHashMap<>();

    /**
     * The plain bytes of parts this view read, by ID, up to {@link #PART_CACHE_BYTES}, when it keeps them
     * (null otherwise): consecutive manifest versions share most of their parts (a part is named by its
     * bytes), so {@code list}, which reads every version, reads each part once. A cached part was checked
     * against its ID when read, and bytes with that ID are those bytes.
     */
    private final @Nullable PartCache partCache;

    /**
     * The parts of the view over {@code store} sealed by {@code key}; with {@code keepPartsRead}, the parts
     * read are kept in memory ({@link #PART_CACHE_BYTES}); with {@code partFiles} (null for none), in
     * local copies too.
     */
    SealedParts(ObjectStore store, MasterKey key, boolean keepPartsRead, @Nullable PartFiles partFiles) {
        this.store = store;
        this.key = key;
        this.partCache = keepPartsRead ? new PartCache(PART_CACHE_BYTES) : null;
        this.partFiles = partFiles;
    }

    /**
     * Stores each of {@code parts} not yet stored, before the head naming them: one listing of
     * {@link SealedStore#PARTS}; a part listed there is stored again when neither this view nor a local copy of the
     * listed version shows it intact (it is read now to see, up to {@link #PART_READS} at once: a damaged
     * part is never reused by a new snapshot). The parts go up {@link #PART_READS} at once, and all of them have landed (or one failure is thrown after every
     * put ended) when this returns. When more parts are new than the listing had pages, the store is
     * told they are new ({@link ObjectStore#prepareWrites}): a store that reads a key's version before
     * each put (S3 without conditional writes: a HEAD per part) lists the prefix once instead.
     */
    void storeParts(List<ManifestParts.Part> parts) {
        Map<String, String> stored = new java.util.HashMap<>(); // ID -> ETag of its current version ("" unknown)
        try (var listed = store.listing(dev.ballast.storage.object.ListRequest.prefix(PARTS))) {
            listed.forEach(
                    e -> stored.put(e.key().substring(PARTS.length()), e.eTag() == null ? "" : unquoted(e.eTag())));
        }
        if (partFiles != null) {
            partFiles.retainOnly(stored.keySet());
        }
        java.util.Set<String> done = new java.util.HashSet<>();
        List<ManifestParts.Part> listed = new ArrayList<>();
        List<ManifestParts.Part> fresh = new ArrayList<>();
        for (ManifestParts.Part p : parts) {
            if (done.add(p.id())) {
                (stored.containsKey(p.id()) ? listed : fresh).add(p);
            }
        }
        List<Boolean> intact = inParallel(listed, p -> partIntact(p.id(), stored.get(p.id())));
        for (int i = 0; i < listed.size(); i++) {
            if (!intact.get(i)) {
                fresh.add(listed.get(i));
            }
        }
        if (fresh.size() > stored.size() / LISTING_PAGE + 1) {
            store.prepareWrites(PARTS);
        }
        inParallel(fresh, p -> {
            byte[] sealed = key.seal(ManifestCompression.compress(p.plain()), PART_AAD);
            ObjectVersion v = store.put(PARTS + p.id(), ObjectContent.ofBytes(sealed));
            partsChecked.add(p.id());
            copied(p.id(), v.eTag(), sealed);
            return p.id();
        });
    }

    /** Keeps {@code sealed}, just stored or read as the version with {@code eTag} of part {@code id}, in {@link #partFiles}. */
    private void copied(String id, String eTag, byte[] sealed) {
        if (partFiles != null) {
            partFiles.write(id, eTag, sealed);
            partsCopied.put(id, unquoted(eTag));
        }
    }

    /** An ETag without its quotes: stores quote it in some answers and not in others. */
    private static String unquoted(String eTag) {
        return eTag.length() >= 2 && eTag.startsWith("\"") && eTag.endsWith("\"")
                ? eTag.substring(1, eTag.length() - 1)
                : eTag;
    }

    /** Keys per page of a listing (S3's ListObjectsV2 default and most). */
    private static final int LISTING_PAGE = 1000;

    /**
     * Whether the stored part {@code id}, whose current version has ETag {@code listedETag} ("" when the
     * listing does not say), opens and matches its ID: this view read it from the store, or stored it, or
     * read a local copy of that very version (same ETag), or finds such a copy in {@link #partFiles} now
     * that opens and matches its ID (a backup of another name, or the first backup of a name on a machine
     * whose earlier commands copied the parts: no GET), or reads it from the store now to see. Called for
     * up to {@link #PART_READS} parts at once.
     */
    private boolean partIntact(String id, String listedETag) {
        if (partsChecked.contains(id) || (!listedETag.isEmpty() && listedETag.equals(partsCopied.get(id)))) {
            return true;
        }
        if (!listedETag.isEmpty() && copyOfVersionOpens(id, listedETag)) {
            return true;
        }
        try {
            readStoredPart(id);
            return true;
        } catch (IntegrityException | dev.ballast.storage.ObjectNotFoundException e) {
            IntegrityException.rethrowIfInStoreIndex(e); // the store's index, not what was read
            return false;
        }
    }

    /**
     * Whether {@link #partFiles} holds a copy of part {@code id} taken from the stored version with ETag
     * {@code eTag} that opens and matches its ID: the stored version is then those very bytes, as when
     * {@link #readPart} read the copy (a copy that does not open is removed; the caller reads the store).
     */
    private boolean copyOfVersionOpens(String id, String eTag) {
        PartFiles.Copy copy = partFiles == null ? null : partFiles.read(id);
        if (copy == null || !eTag.equals(unquoted(copy.eTag()))) {
            return false;
        }
        byte[] plain;
        try {
            plain = plainPart(id, copy.sealed());
        } catch (IntegrityException e) {
            IntegrityException.rethrowIfInStoreIndex(e); // the store's index, not what was read
            partFiles.remove(id);
            return false;
        }
        partsCopied.put(id, eTag);
        if (partCache != null) {
            partCache.put(id, plain);
        }
        return true;
    }

    /**
     * The plain bytes of part {@code id}: its local copy ({@link PartFiles}) when there is one that opens
     * and matches its ID (a copy that does not is removed), otherwise its newest stored version
     * ({@link #readStoredPart}).
     *
     * @throws IntegrityException as {@link #readStoredPart}
     */
    private byte[] readPart(String id) {
        PartFiles.Copy copy = partFiles == null ? null : partFiles.read(id);
        if (copy != null) {
            byte[] plain;
            try {
                plain = plainPart(id, copy.sealed());
            } catch (IntegrityException e) {
                IntegrityException.rethrowIfInStoreIndex(e); // the store's index, not what was read
                partFiles.remove(id);
                return readStoredPart(id);
            }
            partsCopied.put(id, unquoted(copy.eTag()));
            if (partCache != null) {
                partCache.put(id, plain);
            }
            return plain;
        }
        return readStoredPart(id);
    }

    /**
     * The plain bytes of part {@code id}: its newest stored version, opened, decompressed and checked
     * against its ID; then kept in {@link #partFiles} when there are some.
     *
     * @throws IntegrityException naming the part if it is missing, does not open or decompress, or its
     *     bytes do not match its ID
     */
    private byte[] readStoredPart(String id) {
        String k = PARTS + id;
        byte[] plain;
        try (ObjectRead read = store.get(k, ReadOptions.latest().withAllowCache(false))) {
            byte[] sealed = read.readAllBytes();
            plain = plainPart(id, sealed);
            copied(id, read.version().eTag(), sealed);
        } catch (dev.ballast.storage.ObjectNotFoundException e) {
            forgetCopy(id);
            throw new IntegrityException(k, "the manifest part '" + k + "' is missing from the store");
        } catch (IntegrityException e) {
            IntegrityException.rethrowIfInStoreIndex(e); // the store's index, not what was read
            forgetCopy(id);
            throw e;
        }
        partsChecked.add(id);
        if (partCache != null) {
            partCache.put(id, plain);
        }
        return plain;
    }

    /**
     * Drops what this view and the local cache know of part {@code id}, found missing or damaged in the
     * store: a copy of an earlier version (or one whose ETag line was changed) must not let a later backup
     * reuse the stored part unread.
     */
    private void forgetCopy(String id) {
        partsCopied.remove(id);
        if (partFiles != null) {
            partFiles.remove(id);
        }
    }

    /**
     * The plain bytes of the sealed part {@code sealed}, which must be part {@code id}.
     *
     * @throws IntegrityException if it does not open or decompress, or its bytes do not match {@code id}
     */
    private byte[] plainPart(String id, byte[] sealed) {
        String k = PARTS + id;
        byte[] plain;
        try {
            plain = ManifestCompression.decompress(key.open(sealed, PART_AAD));
        } catch (MasterKey.TamperedException e) {
            throw new IntegrityException(k, "the manifest part '" + k + "' does not open: " + e.getMessage());
        } catch (RuntimeException e) {
            throw new IntegrityException(
                    k, "the manifest part '" + k + "' opened but does not decompress: " + e.getMessage());
        }
        if (!key.idHex(plain).equals(id)) {
            throw new IntegrityException(k, "the manifest part '" + k + "' does not match its ID");
        }
        return plain;
    }

    /** How many bytes of plain parts {@link #partCache} keeps: 64 MiB (a manifest of about 300,000 files). */
    static final long PART_CACHE_BYTES = 64L * 1024 * 1024;

    /** Parts by ID, least recently used dropped first beyond a byte budget. Thread-safe. */
    private static final class PartCache {
        private final long budget;
        private final java.util.LinkedHashMap<String, byte[]> parts = new java.util.LinkedHashMap<>(16, 0.75f, true);
        private long bytes;

        PartCache(long budget) {
            this.budget = budget;
        }

        synchronized byte @Nullable [] get(String id) {
            return parts.get(id);
        }

        synchronized void put(String id, byte[] plain) {
            if (plain.length > budget) {
                return;
            }
            byte[] before = parts.put(id, plain);
            bytes += plain.length - (before == null ? 0 : before.length);
            var oldest = parts.entrySet().iterator();
            while (bytes > budget && oldest.hasNext()) {
                bytes -= oldest.next().getValue().length;
                oldest.remove();
            }
        }

        synchronized void remove(String id) {
            byte[] before = parts.remove(id);
            if (before != null) {
                bytes -= before.length;
            }
        }
    }

    /**
     * The plain bytes of each of {@code ids} ({@link #readPart}), read up to {@link #PART_READS} at once:
     * read one after the other, each request's round trip added up (on Ceph RGW about 45 ms per part,
     * most of it the server's body waiting for the client's delayed acknowledgement), and a manifest of
     * 20,000 files names about 40 parts.
     *
     * @return by ID, every one of {@code ids}
     * @throws IntegrityException as {@link #readPart}, for the first of {@code ids} (in their order) that
     *     failed; any other failure of a read likewise
     */
    Map<String, byte[]> readParts(List<String> ids) {
        Map<String, byte[]> out = new java.util.HashMap<>();
        List<String> distinct = new ArrayList<>();
        for (String id : new java.util.LinkedHashSet<>(ids)) {
            byte[] known = partCache == null ? null : partCache.get(id);
            if (known != null) {
                out.put(id, known);
            } else {
                distinct.add(id);
            }
        }
        List<byte[]> read = inParallel(distinct, this::readPart);
        for (int i = 0; i < distinct.size(); i++) {
            out.put(distinct.get(i), read.get(i));
        }
        return out;
    }

    /**
     * {@code task} applied to each of {@code items}, up to {@link #PART_READS} at once (in the calling
     * thread for one item); every task has ended when this returns or throws.
     *
     * @return the results, in the order of {@code items}
     * @throws RuntimeException the failure of the first of {@code items} (in their order) that failed
     */
    private static <T, R> List<R> inParallel(List<T> items, java.util.function.Function<T, R> task) {
        if (items.size() <= 1) {
            return items.stream().map(task).toList();
        }
        int threads = Math.min(PART_READS, items.size());
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "ballast-manifest-parts");
            t.setDaemon(true);
            return t;
        });
        try {
            List<java.util.concurrent.Future<R>> running = new ArrayList<>(items.size());
            for (T item : items) {
                running.add(pool.submit(() -> task.apply(item)));
            }
            List<R> out = new ArrayList<>(items.size());
            RuntimeException first = null;
            for (java.util.concurrent.Future<R> f : running) {
                try {
                    out.add(await(f));
                } catch (RuntimeException e) {
                    if (first == null) {
                        first = e;
                    }
                }
            }
            if (first != null) {
                throw first;
            }
            return out;
        } finally {
            pool.shutdownNow();
        }
    }

    /** How many manifest parts {@link #readParts} reads at once: 8. */
    static final int PART_READS = 8;

    private static <R> R await(java.util.concurrent.Future<R> task) {
        try {
            return task.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.util.concurrent.CancellationException("interrupted while reading or storing manifest parts");
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    DeadParts deadParts(java.util.Set<String> live, java.time.Instant cutoff, boolean delete) {
        long freed = 0;
        int parts = 0;
        int keptYoung = 0;
        Map<String, List<VersionEntry>> byKey = new java.util.HashMap<>();
        for (VersionEntry v : store.listVersions(PARTS)) {
            byKey.computeIfAbsent(v.key(), k -> new ArrayList<>()).add(v);
        }
        for (Map.Entry<String, List<VersionEntry>> e : byKey.entrySet()) {
            String id = e.getKey().substring(PARTS.length());
            boolean young =
                    e.getValue().stream().anyMatch(v -> !v.lastModified().isBefore(cutoff));
            if (live.contains(id)) {
                continue;
            }
            if (young) {
                keptYoung++;
                continue;
            }
            boolean removed = false;
            for (VersionEntry v : e.getValue()) {
                if (!v.deleteMarker() && (!delete || store.deleteVersion(e.getKey(), v.versionId()))) {
                    freed += v.size();
                    removed = true;
                }
            }
            if (removed) {
                parts++;
            }
            if (delete) {
                partsChecked.remove(id);
                partsCopied.remove(id);
                if (partFiles != null) {
                    partFiles.remove(id);
                }
                if (partCache != null) {
                    partCache.remove(id);
                }
            }
        }
        return new DeadParts(parts, freed, keptYoung);
    }
}
