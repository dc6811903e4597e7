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
        this.store = Objects.requireNonNull(store, "store");
        this.key = Objects.requireNonNull(key, "key");
        this.partCache = keepPartsRead ? new PartCache(PART_CACHE_BYTES) : null;
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
     * {@link #PARTS}; a part listed there is stored again when this view has not read it intact (it is
     * read now to see: a damaged part is never reused by a new snapshot). The parts to store are
     * written a few at once ({@link PartWrites}); this returns once every one is stored.
     */
    private void storeParts(List<ManifestParts.Part> parts) {
        java.util.Set<String> stored = new java.util.HashSet<>();
        for (String k : store.list(PARTS)) {
            stored.add(k.substring(PARTS.length()));
        }
        java.util.Set<String> done = new java.util.HashSet<>();
        List<Runnable> writes = new ArrayList<>();
        for (ManifestParts.Part p : parts) {
            if (!done.add(p.id())) {
                continue;
            }
            if (stored.contains(p.id()) && partIntact(p.id())) {
                continue;
            }
            writes.add(() -> {
                store.put(
                        PARTS + p.id(),
                        ObjectContent.ofBytes(key.seal(ManifestCompression.compress(p.plain()), PART_AAD)));
                partsChecked.add(p.id());
            });
        }
        PartWrites.runAll(writes);
    }

    private boolean partIntact(String id) {
        if (partsChecked.contains(id)) {
            return true;
        }
        try {
            readPart(id);
            return true;
        } catch (IntegrityException | dev.ballast.storage.ObjectNotFoundException e) {
            return false;
        }
    }

    /**
     * The plain bytes of part {@code id}: its newest version, opened, decompressed and checked against
     * its ID.
     *
     * @throws IntegrityException naming the part if it is missing, does not open or decompress, or its
     *     bytes do not match its ID
     */
    private byte[] readPart(String id) {
        String k = PARTS + id;
        byte[] plain;
        try (ObjectRead read = store.get(k, ReadOptions.latest().withAllowCache(false))) {
            byte[] sealed = read.readAllBytes();
            try {
                plain = ManifestCompression.decompress(key.open(sealed, PART_AAD));
            } catch (MasterKey.TamperedException e) {
                throw new IntegrityException(k, "the manifest part '" + k + "' does not open: " + e.getMessage());
            } catch (RuntimeException e) {
                throw new IntegrityException(
                        k, "the manifest part '" + k + "' opened but does not decompress: " + e.getMessage());
            }
        } catch (dev.ballast.storage.ObjectNotFoundException e) {
            throw new IntegrityException(k, "the manifest part '" + k + "' is missing from the store");
        }
        if (!key.idHex(plain).equals(id)) {
            throw new IntegrityException(k, "the manifest part '" + k + "' does not match its ID");
        }
        partsChecked.add(id);
        if (partCache != null) {
            partCache.put(id, plain);
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
        if (distinct.size() <= 1) {
            distinct.forEach(id -> out.put(id, readPart(id)));
            return out;
        }
        int threads = Math.min(PART_READS, distinct.size());
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "ballast-manifest-part-read");
            t.setDaemon(true);
            return t;
        });
        try {
            List<java.util.concurrent.Future<byte[]>> reads = new ArrayList<>(distinct.size());
            for (String id : distinct) {
                reads.add(pool.submit(() -> readPart(id)));
            }
            for (int i = 0; i < distinct.size(); i++) {
                out.put(distinct.get(i), await(reads.get(i)));
            }
            return out;
        } finally {
            pool.shutdownNow();
        }
    }

    /** How many manifest parts {@link #readParts} reads at once: 8. */
    static final int PART_READS = 8;

    private static byte[] await(java.util.concurrent.Future<byte[]> read) {
        try {
            return read.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.util.concurrent.CancellationException("interrupted while reading manifest parts");
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
     * Deletes every version of the manifest parts that {@code live} does not name and that were written
     * before {@code cutoff} (a running backup may have stored parts whose head it has not written yet).
     *
     * @return the stored bytes deleted
     */
    public long deleteDeadParts(java.util.Set<String> live, java.time.Instant cutoff) {
        return deadParts(live, cutoff, true);
    }

    /** What {@link #deleteDeadParts} would free, deleting nothing (a prune's dry run). */
    public long deadPartBytes(java.util.Set<String> live, java.time.Instant cutoff) {
        return deadParts(live, cutoff, false);
    }

    private long deadParts(java.util.Set<String> live, java.time.Instant cutoff, boolean delete) {
        long freed = 0;
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
            for (VersionEntry v : e.getValue()) {
                if (!v.deleteMarker() && (!delete || store.deleteVersion(e.getKey(), v.versionId()))) {
                    freed += v.size();
                }
            }
            if (delete) {
                partsChecked.remove(id);
                if (partCache != null) {
                    partCache.remove(id);
                }
            }
        }
        return freed;
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
