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
    /** The manifest parts: stored, read and deleted there. */
    private final SealedParts sealedParts;

    public SealedStore(ObjectStore store, MasterKey key) {
        this(store, key, false);
    }

    /**
     * A view that, with {@code keepPartsRead}, keeps the manifest parts it has read (checked against
     * their IDs, up to {@link SealedParts#PART_CACHE_BYTES}) and reads each part once however many manifest versions
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
        this.sealedParts = new SealedParts(this.store, this.key, keepPartsRead, partFiles);
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
            String storedId = storedKey.substring(SNAPSHOTS.length());
            String itsId = key.idHex(m.name().getBytes(StandardCharsets.UTF_8));
            if (!itsId.equals(storedId)) {
                // Sealed with this key but not stored under its name's ID: moved or copied there by hand.
                // Taken as it is, it would hide the snapshots of the name the key belongs to.
                throw new IntegrityException(
                        storedKey,
                        "it holds a snapshot of '" + dev.ballast.backup.Messages.printable(m.name())
                                + "', whose snapshots are stored as '" + SNAPSHOTS + itsId
                                + "': it was moved or copied here");
            }
            namesById.putIfAbsent(storedId, m.name());
            return m;
        } catch (IntegrityException e) {
            IntegrityException.rethrowIfInStoreIndex(e); // the store's index, not what was read
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
                sealedParts.storeParts(split.parts());
                plain = split.head();
            }
        }
        byte[] body = s.compressed() ? ManifestCompression.compress(plain) : plain;
        return ObjectContent.ofBytes(key.seal(body, s.aad()));
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
     * @param keptYoung how many parts no snapshot names were kept because a version of each was written
     *     within the grace period (a running backup may be about to write the snapshot that names it)
     */
    public record DeadParts(int parts, long bytes, int keptYoung) {
        /** Parts deleted, none kept for their age. */
        public DeadParts(int parts, long bytes) {
            this(parts, bytes, 0);
        }
    }

    /**
     * Deletes every version of the manifest parts that {@code live} does not name and that were written
     * before {@code cutoff} (a running backup may have stored parts whose head it has not written yet).
     *
     * @return the parts deleted and their stored bytes
     */
    public DeadParts deleteDeadParts(java.util.Set<String> live, java.time.Instant cutoff) {
        return sealedParts.deadParts(live, cutoff, true);
    }

    /** What {@link #deleteDeadParts} would delete, deleting nothing (a prune's dry run). */
    public DeadParts deadParts(java.util.Set<String> live, java.time.Instant cutoff) {
        return sealedParts.deadParts(live, cutoff, false);
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
                    Map<String, byte[]> parts = sealedParts.readParts(ManifestParts.partIds(plain));
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
