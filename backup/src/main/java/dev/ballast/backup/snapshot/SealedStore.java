package dev.ballast.backup.snapshot;

import dev.ballast.backup.keys.MasterKey;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.StoreCapabilities;
import dev.ballast.storage.object.VersionEntry;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The view of a repository of format 3 (docs/backup-format.md) through which the engine's existing
 * code reads and writes manifests, run markers and the record of damaged versions as it does in a
 * store of the earlier formats, under the same logical keys, while the store holds them under keys
 * that do not reveal the backup name, with contents sealed by the {@link MasterKey}:
 *
 * <table>
 *   <caption>Logical key and where it is stored</caption>
 *   <tr><th>logical key</th><th>stored under</th><th>stored bytes</th></tr>
 *   <tr><td>{@code NAME/.ballast-manifest.json}</td><td>{@code snapshots/<id(NAME)>}</td>
 *       <td>{@code seal(zstd(head), "manifest")}; the head is the JSON with its arrays of entries
 *       replaced by the IDs of their parts ({@link ManifestParts}), each part stored once as
 *       {@code manifest-parts/<part ID>}, {@code seal(zstd(part), "manifest part")}, before the head</td></tr>
 *   <tr><td>{@code .ballast-runs/NAME/RUN}</td><td>{@code .ballast-runs/<id(NAME)>/RUN}</td>
 *       <td>{@code seal(json, "marker")}</td></tr>
 *   <tr><td>{@code .ballast-damaged/NAME.json}</td><td>{@code .ballast-damaged/<id(NAME)>.json}</td>
 *       <td>{@code seal(json, "damaged")}</td></tr>
 * </table>
 *
 * where {@code id(NAME)} is {@link MasterKey#idHex} of the name's UTF-8 bytes. Versions, listings and
 * deletions of those keys are the store's own, with keys shown under their logical names (a run
 * marker of a name this view has not met yet is shown as {@code .ballast-runs/id/<id>/RUN}). Any other
 * key is refused for writing ({@link IllegalStateException}): file contents go into packs
 * ({@code dev.ballast.backup.pack}), never into objects named after the file. A sealed object that
 * does not open reads as an {@link IntegrityException} naming its stored key.
 *
 * <p>Thread-safe if the store is.
 */
public final class SealedStore implements ObjectStore {
    /** Where format 3 keeps manifests. */
    public static final String SNAPSHOTS = "snapshots/";

    /** Where format 3 keeps the parts of manifests ({@link ManifestParts}): {@code manifest-parts/<id>}. */
    public static final String PARTS = "manifest-parts/";

    private static final String RUNS = ".ballast-runs/";
    private static final String DAMAGED = ".ballast-damaged/";
    private static final String UNKNOWN = "id/";
    private static final String MANIFEST_SUFFIX = "/" + Manifest.FILE_NAME;

    private final ObjectStore store;
    private final MasterKey key;
    private final Map<String, String> namesById = new ConcurrentHashMap<>();
    /** Parts read by this view whose stored bytes opened and matched their ID. */
    private final java.util.Set<String> partsChecked = ConcurrentHashMap.newKeySet();
    /** The local copies of parts, or null. */
    private final @Nullable PartFiles partFiles;
    /**
     * Parts this view read from {@link #partFiles} or stored that opened and matched their ID, with the
     * ETag (unquoted) of the stored version each was copied from.
     */
    private final Map<String, String> partsCopied = new ConcurrentHashMap<>();

    public SealedStore(ObjectStore store, MasterKey key) {
        this(store, key, false);
    }

    /**
     * A view that, with {@code keepPartsRead}, keeps the manifest parts it has read (checked against
     * their IDs, up to {@link #PART_CACHE_BYTES}) and reads each part once however many manifest versions
     * name it: for a view that lives for one command ({@code list} reads every version, and consecutive
     * versions share most parts). Not for a long-lived view: a part another process deleted meanwhile
     * would still be read from memory, and the manifest not reported damaged.
     */
    public SealedStore(ObjectStore store, MasterKey key, boolean keepPartsRead) {
        this(store, key, keepPartsRead, null);
    }

    /**
     * As {@link #SealedStore(ObjectStore, MasterKey, boolean)}, with the manifest parts also kept in
     * {@code partFiles} (null for none): a part found there is opened and checked against its ID before
     * it is used, and read from the store when it is missing there or does not check ({@link PartFiles}).
     */
    public SealedStore(ObjectStore store, MasterKey key, boolean keepPartsRead, @Nullable PartFiles partFiles) {
        this.store = Objects.requireNonNull(store, "store");
        this.key = Objects.requireNonNull(key, "key");
        this.partCache = keepPartsRead ? new PartCache(PART_CACHE_BYTES) : null;
        this.partFiles = partFiles;
    }

    /** The store underneath, where packs and index files are written. */
    public ObjectStore raw() {
        return store;
    }

    /** The master key sealing what this view stores. */
    public MasterKey masterKey() {
        return key;
    }

    /** The stored key of the manifest versions of backup {@code name}: {@code snapshots/<id(name)>}. */
    public String snapshotKey(String name) {
        return SNAPSHOTS + id(name);
    }

    /**
     * Every manifest version in the repository, of every backup name, newest first per name: what
     * prune takes the live chunks from.
     *
     * @return by stored key ({@code snapshots/<id>}), its versions (delete markers left out)
     */
    public Map<String, List<VersionEntry>> allSnapshotVersions() {
        Map<String, List<VersionEntry>> out = new java.util.TreeMap<>();
        for (VersionEntry v : store.listVersions(SNAPSHOTS)) {
            if (!v.deleteMarker()) {
                out.computeIfAbsent(v.key(), k -> new ArrayList<>()).add(v);
            }
        }
        return out;
    }

    /**
     * The backup names in the repository, sorted: each {@code snapshots/<id>} holds its name in its
     * manifests (sealed), so one manifest version of each is opened, the newest that opens.
     *
     * @return the names, and by stored key the snapshots none of whose versions opens
     */
    public Names names() {
        java.util.TreeSet<String> names = new java.util.TreeSet<>();
        List<String> unreadable = new ArrayList<>();
        for (Map.Entry<String, List<VersionEntry>> e : allSnapshotVersions().entrySet()) {
            List<VersionEntry> newestFirst = new ArrayList<>(e.getValue());
            newestFirst.sort(
                    java.util.Comparator.comparing(VersionEntry::lastModified).reversed());
            String name = null;
            for (VersionEntry v : newestFirst) {
                try {
                    name = readSnapshot(e.getKey(), v.versionId()).name();
                    break;
                } catch (dev.ballast.backup.BackupException | dev.ballast.storage.ObjectNotFoundException ex) {
                    // damaged or removed meanwhile: an older version may tell the name
                }
            }
            if (name == null) {
                unreadable.add(e.getKey());
            } else {
                names.add(name);
            }
        }
        return new Names(List.copyOf(names), unreadable);
    }

    /**
     * What {@link #names()} found.
     *
     * @param names the backup names, sorted
     * @param unreadable stored keys of snapshots of which no version opens
     */
    public record Names(List<String> names, List<String> unreadable) {}

    /**
     * One manifest version by its stored key, opened and parsed; the name it holds is remembered, so
     * this view shows that snapshot's keys under the name afterwards.
     *
     * @throws dev.ballast.backup.BackupException with {@code INTEGRITY} if it does not open or parse
     * @throws dev.ballast.storage.ObjectNotFoundException if there is no such version
     */
    public Manifest readSnapshot(String storedKey, String versionId) {
        Stored s = new Stored(storedKey, MANIFEST, true);
        String where = "'" + storedKey + "' version " + versionId;
        try (ObjectRead read = openStored(s, ReadOptions.version(versionId).withAllowCache(false))) {
            Manifest m = Manifest.parse(read.readAllBytes(), where);
            namesById.putIfAbsent(storedKey.substring(SNAPSHOTS.length()), m.name());
            return m;
        } catch (IntegrityException e) {
            throw new dev.ballast.backup.BackupException(
                    dev.ballast.backup.BackupException.Kind.INTEGRITY,
                    "The manifest " + where + " is damaged (" + e.getMessage() + ").",
                    e);
        }
    }

    private String id(String name) {
        String id = key.idHex(name.getBytes(StandardCharsets.UTF_8));
        namesById.putIfAbsent(id, name);
        return id;
    }

    /** A stored key with its associated data, or null for a key this view does not translate. */
    private record Stored(String key, byte[] aad, boolean compressed) {}

    private static final byte[] MANIFEST = "manifest".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] MARKER = "marker".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DAMAGED_AAD = "damaged".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] PART_AAD = "manifest part".getBytes(StandardCharsets.US_ASCII);

    private @Nullable Stored stored(String logical) {
        if (logical.endsWith(MANIFEST_SUFFIX)) {
            String name = logical.substring(0, logical.length() - MANIFEST_SUFFIX.length());
            if (!name.isEmpty() && name.indexOf('/') < 0) {
                return new Stored(snapshotKey(name), MANIFEST, true);
            }
        }
        if (logical.startsWith(RUNS)) {
            String rest = logical.substring(RUNS.length());
            return new Stored(RUNS + storedRunPart(rest), MARKER, false);
        }
        if (logical.startsWith(DAMAGED) && logical.endsWith(".json")) {
            String name = logical.substring(DAMAGED.length(), logical.length() - ".json".length());
            return new Stored(DAMAGED + id(name) + ".json", DAMAGED_AAD, false);
        }
        return null;
    }

    /** {@code NAME/RUN} (or {@code NAME/}, {@code id/<id>/RUN}) with the name replaced by its ID. */
    private String storedRunPart(String rest) {
        if (rest.isEmpty()) {
            return rest;
        }
        if (rest.startsWith(UNKNOWN)) {
            return rest.substring(UNKNOWN.length());
        }
        int slash = rest.indexOf('/');
        String name = slash < 0 ? rest : rest.substring(0, slash);
        return id(name) + (slash < 0 ? "" : rest.substring(slash));
    }

    /** The logical key of a stored key (the inverse of {@link #stored}); other keys as they are. */
    private String logical(String storedKey) {
        if (storedKey.startsWith(SNAPSHOTS)) {
            String name = namesById.get(storedKey.substring(SNAPSHOTS.length()));
            return name == null ? storedKey : Manifest.key(name);
        }
        if (storedKey.startsWith(RUNS)) {
            String rest = storedKey.substring(RUNS.length());
            int slash = rest.indexOf('/');
            String id = slash < 0 ? rest : rest.substring(0, slash);
            String name = namesById.get(id);
            return RUNS + (name == null ? UNKNOWN + id : name) + (slash < 0 ? "" : rest.substring(slash));
        }
        if (storedKey.startsWith(DAMAGED) && storedKey.endsWith(".json")) {
            String name = namesById.get(storedKey.substring(DAMAGED.length(), storedKey.length() - ".json".length()));
            return name == null ? storedKey : DAMAGED + name + ".json";
        }
        return storedKey;
    }

    private Stored require(String logical) {
        Stored s = stored(logical);
        if (s == null) {
            throw new IllegalStateException("A repository of format 3 stores no object under '" + logical
                    + "': file contents go into packs; this is a bug in the caller.");
        }
        return s;
    }

    private ObjectContent sealed(Stored s, ObjectContent content) {
        byte[] plain = ObjectContents.bytes(content);
        if (s.aad() == MANIFEST) {
            ManifestParts.Split split = ManifestParts.split(plain, key::idHex);
            if (split != null) {
                storeParts(split.parts());
                plain = split.head();
            }
        }
        byte[] body = s.compressed() ? ManifestCompression.compress(plain) : plain;
        return ObjectContent.ofBytes(key.seal(body, s.aad()));
    }

    /**
     * Stores each of {@code parts} not yet stored, before the head naming them: one listing of
     * {@link #PARTS}; a part listed there is stored again when neither this view nor a local copy of the
     * listed version shows it intact (it is read now to see, up to {@link #PART_READS} at once: a damaged
     * part is never reused by a new snapshot). The parts go up {@link #PART_READS} at once, and all of them have landed (or one failure is thrown after every
     * put ended) when this returns. When more parts are new than the listing had pages, the store is
     * told they are new ({@link ObjectStore#prepareWrites}): a store that reads a key's version before
     * each put (S3 without conditional writes: a HEAD per part) lists the prefix once instead.
     */
    private void storeParts(List<ManifestParts.Part> parts) {
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

    /**
     * The plain bytes of parts this view read, by ID, up to {@link #PART_CACHE_BYTES}, when it keeps them
     * (null otherwise): consecutive manifest versions share most of their parts (a part is named by its
     * bytes), so {@code list}, which reads every version, reads each part once. A cached part was checked
     * against its ID when read, and bytes with that ID are those bytes.
     */
    private final @Nullable PartCache partCache;

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
    private Map<String, byte[]> readParts(List<String> ids) {
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

    /**
     * The IDs of the manifest parts ({@link ManifestParts}) one manifest version names, reading only its
     * head: what prune keeps of {@link #PARTS}. Empty for a manifest stored whole.
     *
     * @throws IntegrityException if the version does not open, decompress or parse
     * @throws dev.ballast.storage.ObjectNotFoundException if there is no such version
     */
    public List<String> partsOf(String storedKey, String versionId) {
        byte[] head;
        try (ObjectRead read =
                store.get(storedKey, ReadOptions.version(versionId).withAllowCache(false))) {
            head = openBody(new Stored(storedKey, MANIFEST, true), read);
        }
        try {
            return ManifestParts.partIds(head);
        } catch (IllegalArgumentException e) {
            throw new IntegrityException(
                    storedKey, "'" + storedKey + "' version " + versionId + " does not parse: " + e.getMessage());
        }
    }

    /**
     * Manifest parts a prune deleted, or would delete.
     *
     * @param parts how many parts (every version of each deleted)
     * @param bytes their versions' stored bytes
     */
    public record DeadParts(int parts, long bytes) {}

    /**
     * Deletes every version of the manifest parts that {@code live} does not name and that were written
     * before {@code cutoff} (a running backup may have stored parts whose head it has not written yet).
     *
     * @return the parts deleted and their stored bytes
     */
    public DeadParts deleteDeadParts(java.util.Set<String> live, java.time.Instant cutoff) {
        return deadParts(live, cutoff, true);
    }

    /** What {@link #deleteDeadParts} would delete, deleting nothing (a prune's dry run). */
    public DeadParts deadParts(java.util.Set<String> live, java.time.Instant cutoff) {
        return deadParts(live, cutoff, false);
    }

    private DeadParts deadParts(java.util.Set<String> live, java.time.Instant cutoff, boolean delete) {
        long freed = 0;
        int parts = 0;
        Map<String, List<VersionEntry>> byKey = new java.util.HashMap<>();
        for (VersionEntry v : store.listVersions(PARTS)) {
            byKey.computeIfAbsent(v.key(), k -> new ArrayList<>()).add(v);
        }
        for (Map.Entry<String, List<VersionEntry>> e : byKey.entrySet()) {
            String id = e.getKey().substring(PARTS.length());
            boolean young =
                    e.getValue().stream().anyMatch(v -> !v.lastModified().isBefore(cutoff));
            if (live.contains(id) || young) {
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
        return new DeadParts(parts, freed);
    }

    private ObjectVersion shown(ObjectVersion v, String logical) {
        return new ObjectVersion(
                logical,
                v.versionId(),
                v.eTag(),
                v.size(),
                v.sha256(),
                v.generation(),
                v.lastModified(),
                v.metadata(),
                v.encryption());
    }

    private VersionEntry shown(VersionEntry v) {
        return new VersionEntry(
                logical(v.key()),
                v.versionId(),
                v.eTag(),
                v.size(),
                v.lastModified(),
                v.latest(),
                v.deleteMarker(),
                v.metadata());
    }

    private List<VersionEntry> shown(List<VersionEntry> versions) {
        List<VersionEntry> out = new ArrayList<>(versions.size());
        versions.forEach(v -> out.add(shown(v)));
        return out;
    }

    @Override
    public StoreCapabilities capabilities() {
        return store.capabilities();
    }

    @Override
    public boolean confirmsWrites() {
        return store.confirmsWrites();
    }

    @Override
    public ObjectVersion put(String logical, ObjectContent content) {
        Stored s = require(logical);
        return shown(store.put(s.key(), sealed(s, content)), logical);
    }

    @Override
    public ObjectVersion putIfAbsent(String logical, ObjectContent content) {
        Stored s = require(logical);
        return shown(store.putIfAbsent(s.key(), sealed(s, content)), logical);
    }

    @Override
    public ObjectVersion putIfMatch(String logical, String eTag, ObjectContent content) {
        Stored s = require(logical);
        return shown(store.putIfMatch(s.key(), eTag, sealed(s, content)), logical);
    }

    @Override
    public ObjectRead get(String logical) {
        return get(logical, ReadOptions.latest());
    }

    @Override
    public ObjectRead get(String logical, ReadOptions options) {
        return openStored(require(logical), options);
    }

    private ObjectRead openStored(Stored s, ReadOptions options) {
        try (ObjectRead read = store.get(s.key(), options)) {
            byte[] plain = openBody(s, read);
            if (s.aad() == MANIFEST) {
                try {
                    Map<String, byte[]> parts = readParts(ManifestParts.partIds(plain));
                    plain = ManifestParts.join(plain, parts::get);
                } catch (IllegalArgumentException e) {
                    throw new IntegrityException(
                            s.key(),
                            "'" + s.key() + "' version " + read.version().versionId() + " does not parse: "
                                    + e.getMessage());
                }
            }
            return read.withStream(new ByteArrayInputStream(plain));
        }
    }

    /**
     * The plain JSON of a manifest's head as stored (see {@link ManifestParts}): its fields, with the
     * arrays of entries that went into parts named by their part IDs and not read. What a caller that
     * needs a manifest's own fields ({@code source}, {@code createdAt}, {@code complete}) reads instead
     * of the whole manifest; a manifest stored whole is returned whole.
     *
     * @throws IllegalArgumentException if {@code logical} is not a manifest's key
     * @throws dev.ballast.storage.ObjectNotFoundException if there is no such manifest
     * @throws IntegrityException if the stored head does not open (damaged, or sealed by another key)
     */
    public byte[] manifestHead(String logical, ReadOptions options) {
        Stored s = require(logical);
        if (s.aad() != MANIFEST) {
            throw new IllegalArgumentException("'" + logical + "' is not a manifest");
        }
        try (ObjectRead read = store.get(s.key(), options)) {
            return openBody(s, read);
        }
    }

    /** The stored bytes of {@code read} opened and, for a compressed key, decompressed. */
    private byte[] openBody(Stored s, ObjectRead read) {
        byte[] sealed = read.readAllBytes();
        try {
            byte[] plain = key.open(sealed, s.aad());
            return s.compressed() ? ManifestCompression.decompress(plain) : plain;
        } catch (MasterKey.TamperedException e) {
            throw new IntegrityException(
                    s.key(),
                    "'" + s.key() + "' version " + read.version().versionId() + " does not open: " + e.getMessage());
        } catch (RuntimeException e) {
            throw new IntegrityException(
                    s.key(),
                    "'" + s.key() + "' version " + read.version().versionId() + " opened but does not decompress: "
                            + e.getMessage());
        }
    }

    @Override
    public List<VersionEntry> versions(String logical) {
        return shown(store.versions(require(logical).key()));
    }

    @Override
    public VersionEntry delete(String logical) {
        return shown(store.delete(require(logical).key()));
    }

    @Override
    public boolean deleteVersion(String logical, String versionId) {
        return store.deleteVersion(require(logical).key(), versionId);
    }

    @Override
    public ObjectVersion head(String logical, String versionId) {
        return shown(store.head(require(logical).key(), versionId), logical);
    }

    @Override
    public List<String> list(String prefix) {
        List<String> out = new ArrayList<>();
        store.list(storedPrefix(prefix)).forEach(k -> out.add(logical(k)));
        return out;
    }

    @Override
    public List<VersionEntry> listVersions(String prefix) {
        return shown(store.listVersions(storedPrefix(prefix)));
    }

    @Override
    public Map<VersionEntry, String> missingContent(java.util.Collection<VersionEntry> listed) {
        return Map.of(); // nothing of a file is an object of its own here
    }

    /** The stored prefix of a logical one: a run-marker prefix has the name replaced; others as they are. */
    private String storedPrefix(String prefix) {
        if (prefix.startsWith(RUNS)) {
            String rest = prefix.substring(RUNS.length());
            return RUNS + (rest.contains("/") ? storedRunPart(rest) : rest);
        }
        return prefix;
    }

    /** The bytes of small contents (manifests, markers, records) this view seals. */
    private static final class ObjectContents {
        static byte[] bytes(ObjectContent content) {
            if (content instanceof ObjectContent.Bytes b) {
                return b.bytes();
            }
            throw new IllegalArgumentException("only byte contents are sealed, not " + content.getClass());
        }
    }
}
