package dev.ballast.test;

import dev.ballast.storage.AlreadyExistsException;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.PreconditionFailedException;
import dev.ballast.storage.StaleReadException;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.UnsupportedCapabilityException;
import dev.ballast.storage.internal.BlockDigests;
import dev.ballast.storage.internal.ObjectKeys;
import dev.ballast.storage.internal.Payload;
import dev.ballast.storage.internal.RangeInputStream;
import dev.ballast.storage.internal.Sha256;
import dev.ballast.storage.internal.VerifyingInputStream;
import dev.ballast.storage.object.ByteRange;
import dev.ballast.storage.object.Freshness;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectMetadata;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.PutOptions;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.ServerSideEncryption;
import dev.ballast.storage.object.Source;
import dev.ballast.storage.object.StoreCapabilities;
import dev.ballast.storage.object.VersionEntry;
import java.io.ByteArrayInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * An in-memory versioned store that keeps the {@link ObjectStoreContract} (Ballast's build runs
 * the contract against it, so it cannot drift from the real stores), with failures a test
 * switches on: down (every call throws {@link StorageUnavailableException}, connection refused, so
 * nothing was sent), a write whose answer is lost after it landed (outcome unknown), a corrupt next read (the
 * stream raises {@link IntegrityException} before its last byte, as the real store does), a silently
 * corrupt next read (a broken store that does not notice), or a stale next read.
 *
 * <p>It records the keys written and read ({@link #keysPut()}, {@link #keysRead()}) and counts the
 * read streams handed out and not yet closed ({@link #openReads()}; {@link #leaks()} names them in one sentence, for
 * a leak check to fail a test that leaves one open). A test may subclass it to step in at one call (a file changed while it is
 * stored, a store that dies after N writes).
 *
 * <p>Several instances made with {@link #anotherWriter(Clock)} share one storage, as several
 * processes share a bucket; each keeps its own generations seen. Thread-safe.
 */
public class FakeObjectStore implements ObjectStore {
    /** What the fake offers besides versioned objects: ranged reads verified by block, and metadata (no encryption). */
    public static final java.util.Set<StoreCapabilities.Feature> FEATURES = java.util.EnumSet.of(
            StoreCapabilities.Feature.RANGED_READS,
            StoreCapabilities.Feature.BLOCK_DIGESTS,
            StoreCapabilities.Feature.METADATA);

    public static final StoreCapabilities CAPABILITIES = new StoreCapabilities(
                    URI.create("http://fake-s3.test:9000"), "bucket", true, true, true)
            .withFeatures(FEATURES);
    /** {@link #CAPABILITIES} without additional checksums: a caller must read an object back to check it. */
    public static final StoreCapabilities WITHOUT_ADDITIONAL_CHECKSUMS = new StoreCapabilities(
                    URI.create("http://fake-s3.test:9000"), "bucket", true, true, false)
            .withFeatures(FEATURES);

    /** One stored version or delete marker; {@code bytes} is null for a delete marker. */
    private record Stored(
            String versionId,
            String eTag,
            byte[] bytes,
            String sha256,
            long generation,
            Instant lastModified,
            ObjectMetadata metadata,
            byte @Nullable [] blockTable) {
        Stored(String versionId, String eTag, byte[] bytes, String sha256, long generation, Instant lastModified) {
            this(versionId, eTag, bytes, sha256, generation, lastModified, ObjectMetadata.NONE, null);
        }

        boolean deleteMarker() {
            return bytes == null;
        }
    }

    /** What writers share: every key's history, newest first. */
    private static final class Storage {
        final Map<String, List<Stored>> histories = new HashMap<>();
        final AtomicInteger ids = new AtomicInteger();
    }

    private final Storage storage;
    private final Clock clock;
    private final StoreCapabilities capabilities;
    private final Map<String, Long> knownGenerations = new ConcurrentHashMap<>();
    public final AtomicInteger gets = new AtomicInteger();
    private final List<String> keysPut = new CopyOnWriteArrayList<>();
    private final List<String> keysRead = new CopyOnWriteArrayList<>();
    private final AtomicInteger openReads = new AtomicInteger();
    private volatile boolean down;
    private volatile boolean corruptNextRead;
    private volatile boolean staleNextRead;
    private volatile boolean staleExceptionNextRead;
    private volatile boolean silentlyCorruptNextRead;
    private volatile boolean loseNextWriteAnswer;

    /** An empty store with the system clock that honours both conditional writes ({@link #CAPABILITIES}). */
    public FakeObjectStore() {
        this(CAPABILITIES);
    }

    /**
     * An empty store with the system clock and {@code capabilities}: a conditional write they do not
     * list is refused with {@link UnsupportedCapabilityException}, as the S3 store does.
     */
    public FakeObjectStore(StoreCapabilities capabilities) {
        this(new Storage(), Clock.systemUTC(), capabilities);
    }

    /** An empty store with {@code capabilities} whose versions are stamped by {@code clock}. */
    public FakeObjectStore(StoreCapabilities capabilities, Clock clock) {
        this(new Storage(), clock, capabilities);
    }

    private FakeObjectStore(Storage storage, Clock clock, StoreCapabilities capabilities) {
        this.storage = storage;
        this.clock = Objects.requireNonNull(clock, "clock");
        this.capabilities = Objects.requireNonNull(capabilities, "capabilities");
        for (Listener listener : LISTENERS) {
            listener.created(this);
        }
    }

    /**
     * Told of every {@link FakeObjectStore} made, for a test suite's own checks (a leak check that
     * fails a test leaving a read stream open: see {@link #leaks()}). Implementations are found with
     * {@link ServiceLoader} ({@code META-INF/services/dev.ballast.test.FakeObjectStore$Listener} on the
     * test class path) once, when this class is loaded; they must be thread-safe.
     */
    public interface Listener {
        /** {@code store} was just made (its constructor is running: do not call it back yet). */
        void created(FakeObjectStore store);
    }

    private static final List<Listener> LISTENERS = ServiceLoader.load(Listener.class).stream()
            .map(ServiceLoader.Provider::get)
            .toList();

    /** A second writer over this store's storage, with its own generations seen and {@code clock}. */
    public FakeObjectStore anotherWriter(Clock clock) {
        return new FakeObjectStore(storage, clock, capabilities);
    }

    /**
     * Stores {@code bytes} under {@code key} as another program or a damaged disk would leave them:
     * with {@code recordedSha256Hex} (null: none, as an object written without Ballast metadata) and
     * {@code generation} (0: none).
     */
    public void plant(String key, byte[] bytes, @Nullable String recordedSha256Hex, long generation) {
        synchronized (storage) {
            history(key)
                    .add(
                            0,
                            new Stored(
                                    newVersionId(),
                                    eTagOf(bytes),
                                    bytes.clone(),
                                    recordedSha256Hex,
                                    generation,
                                    clock.instant()));
        }
    }

    /**
     * Flips a byte of {@code key}'s current version where it is stored and keeps its recorded SHA-256,
     * as bit rot on the server's disk would: every later read of it fails its check.
     */
    public void rot(String key) {
        synchronized (storage) {
            Stored s = current(key);
            if (s == null) {
                throw new IllegalArgumentException("no current version of " + key + " to damage");
            }
            history(key)
                    .set(
                            0,
                            new Stored(
                                    s.versionId(),
                                    s.eTag(),
                                    flipFirstByte(s.bytes()),
                                    s.sha256(),
                                    s.generation(),
                                    s.lastModified(),
                                    s.metadata(),
                                    s.blockTable()));
        }
    }

    /**
     * Flips the byte at {@code offset} of {@code key}'s current version where it is stored, keeping
     * its recorded SHA-256 and block digests, as bit rot in one block would.
     */
    public void rotByte(String key, long offset) {
        synchronized (storage) {
            Stored s = current(key);
            if (s == null) {
                throw new IllegalArgumentException("no current version of " + key + " to damage");
            }
            byte[] damaged = s.bytes().clone();
            damaged[Math.toIntExact(offset)] ^= 1;
            history(key)
                    .set(
                            0,
                            new Stored(
                                    s.versionId(),
                                    s.eTag(),
                                    damaged,
                                    s.sha256(),
                                    s.generation(),
                                    s.lastModified(),
                                    s.metadata(),
                                    s.blockTable()));
        }
    }

    /**
     * One version of a key as the store holds it, for a test to inspect: the bytes as stored (a copy;
     * null for a delete marker), the recorded SHA-256 in hex (null when none was recorded, as for an
     * object written by another program), the generation (0: none) and when it was written by the
     * store's clock.
     */
    public record StoredVersion(
            String key,
            String versionId,
            byte @Nullable [] bytes,
            @Nullable String sha256,
            long generation,
            Instant lastModified) {
        /** Whether this version is a delete marker. */
        public boolean deleteMarker() {
            return bytes == null;
        }

        /** The bytes as UTF-8 text; throws {@link IllegalStateException} for a delete marker. */
        public String text() {
            if (bytes == null) {
                throw new IllegalStateException(versionId + " of " + key + " is a delete marker and has no bytes");
            }
            return new String(bytes, StandardCharsets.UTF_8);
        }
    }

    /**
     * Every version and delete marker of {@code key}, newest first, as stored (no failure switched on
     * applies, nothing is recorded as read); empty for a key never written.
     */
    public List<StoredVersion> storedVersions(String key) {
        synchronized (storage) {
            return storage.histories.getOrDefault(key, List.of()).stream()
                    .map(s -> new StoredVersion(
                            key,
                            s.versionId(),
                            s.bytes() == null ? null : s.bytes().clone(),
                            s.sha256(),
                            s.generation(),
                            s.lastModified()))
                    .toList();
        }
    }

    /**
     * The bytes of {@code key}'s current version, or empty when the key was never written or its
     * newest entry is a delete marker. Reads nothing through the store's API (no failure applies).
     */
    public Optional<byte[]> currentBytes(String key) {
        List<StoredVersion> versions = storedVersions(key);
        return versions.isEmpty() || versions.get(0).deleteMarker()
                ? Optional.empty()
                : Optional.of(versions.get(0).bytes());
    }

    /** The version IDs of {@code key}'s delete markers, newest first. */
    public List<String> deleteMarkers(String key) {
        return storedVersions(key).stream()
                .filter(StoredVersion::deleteMarker)
                .map(StoredVersion::versionId)
                .toList();
    }

    /** Every key that has any version or delete marker, in UTF-8 byte order. */
    public List<String> allKeys() {
        synchronized (storage) {
            return storage.histories.keySet().stream()
                    .sorted((a, b) -> Arrays.compareUnsigned(
                            a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8)))
                    .toList();
        }
    }

    /** The keys written so far, in order (conditional writes only when they landed). */
    public List<String> keysPut() {
        return List.copyOf(keysPut);
    }

    /** The keys read so far, in order. */
    public List<String> keysRead() {
        return List.copyOf(keysRead);
    }

    /** Forgets the keys recorded so far, so that a test checks what one step writes and reads. */
    public void forgetRecordedKeys() {
        keysPut.clear();
        keysRead.clear();
    }

    /** How many read streams this store handed out and the caller has not closed yet. */
    public int openReads() {
        return openReads.get();
    }

    /** One sentence naming the read streams still open, or {@code null} when none is. */
    public String leaks() {
        int open = openReads.get();
        return open == 0 ? null : open + " read stream(s) of " + this + " not closed";
    }

    /** The next read hands out a flipped byte without noticing, as a broken store would. */
    public void silentlyCorruptNextRead() {
        silentlyCorruptNextRead = true;
    }

    public void down(boolean down) {
        this.down = down;
    }

    /**
     * The next put or delete lands, then throws {@link StorageUnavailableException} with an unknown
     * outcome, as a timeout after the request was sent does.
     */
    public void loseNextWriteAnswer() {
        loseNextWriteAnswer = true;
    }

    public void corruptNextRead() {
        corruptNextRead = true;
    }

    public void staleNextRead() {
        staleNextRead = true;
    }

    public void staleExceptionNextRead() {
        staleExceptionNextRead = true;
    }

    @Override
    public StoreCapabilities capabilities() {
        return capabilities;
    }

    @Override
    public ObjectVersion put(String key, ObjectContent content) {
        return write(key, content, null, ObjectMetadata.NONE);
    }

    @Override
    public ObjectVersion putIfAbsent(String key, ObjectContent content) {
        return write(key, content, "*", ObjectMetadata.NONE);
    }

    @Override
    public ObjectVersion putIfMatch(String key, String eTag, ObjectContent content) {
        Objects.requireNonNull(eTag, "eTag");
        return write(key, content, eTag, ObjectMetadata.NONE);
    }

    /** Keeps the metadata; server-side encryption is refused (the fake has none). */
    @Override
    public ObjectVersion put(String key, ObjectContent content, PutOptions options) {
        options.requireSupportedBy(capabilities, "FakeObjectStore");
        return write(key, content, null, options.metadata());
    }

    @Override
    public ObjectVersion putIfAbsent(String key, ObjectContent content, PutOptions options) {
        options.requireSupportedBy(capabilities, "FakeObjectStore");
        return write(key, content, "*", options.metadata());
    }

    @Override
    public ObjectVersion putIfMatch(String key, String eTag, ObjectContent content, PutOptions options) {
        Objects.requireNonNull(eTag, "eTag");
        options.requireSupportedBy(capabilities, "FakeObjectStore");
        return write(key, content, eTag, options.metadata());
    }

    /** {@code condition}: null for none, {@code "*"} for If-None-Match: *, else the ETag to match. */
    private ObjectVersion write(String key, ObjectContent content, String condition, ObjectMetadata metadata) {
        ObjectKeys.validate(key, false);
        Objects.requireNonNull(content, "content");
        if ("*".equals(condition) ? !capabilities.putIfAbsent() : condition != null && !capabilities.putIfMatch()) {
            throw new UnsupportedCapabilityException("Conditional writes ("
                    + ("*".equals(condition) ? "If-None-Match: *" : "If-Match") + ") are not supported by this store");
        }
        checkUp(key);
        byte[] bytes = bytesOf(content);
        synchronized (storage) {
            Stored current = current(key);
            if ("*".equals(condition) && current != null) {
                throw new AlreadyExistsException(key, null);
            }
            if (condition != null && !"*".equals(condition)) {
                if (current == null) {
                    throw new ObjectNotFoundException(key, null, latestIsDeleteMarker(key), null);
                }
                if (!current.eTag().equals(condition)) {
                    throw new PreconditionFailedException(
                            key, "Object '" + key + "' no longer has ETag " + condition, null);
                }
            }
            long newest =
                    history(key).stream().mapToLong(Stored::generation).max().orElse(0);
            long generation = Math.max(Math.max(knownGenerations.getOrDefault(key, 0L), newest) + 1, clock.millis());
            byte[] table = null;
            if (BlockDigests.needsTable(bytes.length)) {
                BlockDigests.Builder blocks = new BlockDigests.Builder();
                blocks.update(bytes, 0, bytes.length);
                table = blocks.build().table();
            }
            Stored stored = new Stored(
                    newVersionId(),
                    eTagOf(bytes),
                    bytes,
                    Sha256.hex(Sha256.of(bytes)),
                    generation,
                    clock.instant(),
                    metadata,
                    table);
            history(key).add(0, stored);
            keysPut.add(key);
            knownGenerations.merge(key, generation, Math::max);
            answerLost(key);
            return toVersion(key, stored);
        }
    }

    @Override
    public ObjectRead get(String key) {
        return get(key, ReadOptions.latest());
    }

    @Override
    public ObjectRead get(String key, ReadOptions options) {
        ObjectKeys.validate(key, false);
        Objects.requireNonNull(options, "options");
        gets.incrementAndGet();
        keysRead.add(key);
        checkUp(key);
        Stored stored;
        synchronized (storage) {
            List<Stored> history = storage.histories.getOrDefault(key, List.of());
            if (options.versionId() == null) {
                stored = history.isEmpty() ? null : history.get(0);
            } else {
                stored = history.stream()
                        .filter(s -> s.versionId().equals(options.versionId()))
                        .findFirst()
                        .orElse(null);
            }
            if (stored == null || stored.deleteMarker()) {
                throw new ObjectNotFoundException(key, options.versionId(), stored != null, null);
            }
        }
        if (staleExceptionNextRead) {
            staleExceptionNextRead = false;
            throw new StaleReadException(key, stored.generation() + 1, stored.generation());
        }
        Freshness freshness = stored.generation() == 0 ? Freshness.UNKNOWN : Freshness.FRESH;
        if (staleNextRead) {
            staleNextRead = false;
            freshness = Freshness.STALE;
        }
        if (stored.generation() > 0 && options.versionId() == null) {
            knownGenerations.merge(key, stored.generation(), Math::max);
        }
        byte[] bytes = stored.bytes();
        if (options.range() != null) {
            return rangeOf(key, stored, options.range(), freshness);
        }
        InputStream stream;
        if (silentlyCorruptNextRead) {
            silentlyCorruptNextRead = false;
            stream = new ByteArrayInputStream(flipFirstByte(bytes));
        } else if (corruptNextRead) {
            corruptNextRead = false;
            stream = new VerifyingInputStream(
                    key,
                    new ByteArrayInputStream(flipFirstByte(bytes)),
                    bytes.length,
                    stored.sha256() == null ? Sha256.hex(Sha256.of(bytes)) : stored.sha256());
        } else {
            stream = new VerifyingInputStream(key, new ByteArrayInputStream(bytes), bytes.length, stored.sha256());
        }
        openReads.incrementAndGet();
        return new ObjectRead(
                toVersion(key, stored), new CountedStream(stream), Source.LIVE, freshness, Duration.ZERO, null);
    }

    /** A ranged read, checked block by block where digests were recorded, as the real stores do. */
    private ObjectRead rangeOf(String key, Stored stored, ByteRange asked, Freshness freshness) {
        byte[] bytes = stored.bytes();
        ByteRange range = asked.resolve(key, bytes.length);
        BlockDigests digests = stored.blockTable() != null
                ? BlockDigests.of(bytes.length, stored.blockTable())
                : stored.sha256() != null && !BlockDigests.needsTable(bytes.length)
                        ? BlockDigests.single(bytes.length, stored.sha256())
                        : null;
        long from = digests == null ? range.offset() : RangeInputStream.alignedStart(range);
        long to = digests == null ? range.offset() + range.length() : RangeInputStream.alignedEnd(range, bytes.length);
        InputStream stored0 = new ByteArrayInputStream(bytes, (int) from, (int) (to - from));
        openReads.incrementAndGet();
        return new ObjectRead(
                toVersion(key, stored),
                new CountedStream(RangeInputStream.of(key, stored.versionId(), stored0, digests, range)),
                Source.LIVE,
                freshness,
                Duration.ZERO,
                null,
                range,
                digests != null);
    }

    @Override
    public List<VersionEntry> versions(String key) {
        ObjectKeys.validate(key, false);
        checkUp(key);
        synchronized (storage) {
            List<Stored> history = storage.histories.getOrDefault(key, List.of());
            List<VersionEntry> entries = new ArrayList<>(history.size());
            for (int i = 0; i < history.size(); i++) {
                Stored s = history.get(i);
                entries.add(new VersionEntry(
                        key,
                        s.versionId(),
                        s.deleteMarker() ? null : s.eTag(),
                        s.deleteMarker() ? 0 : s.bytes().length,
                        s.lastModified(),
                        i == 0,
                        s.deleteMarker(),
                        s.deleteMarker() ? ObjectMetadata.NONE : s.metadata()));
            }
            return List.copyOf(entries);
        }
    }

    @Override
    public VersionEntry delete(String key) {
        ObjectKeys.validate(key, false);
        checkUp(key);
        synchronized (storage) {
            Stored marker = new Stored(newVersionId(), null, null, null, 0, clock.instant());
            history(key).add(0, marker);
            answerLost(key);
            return new VersionEntry(key, marker.versionId(), null, 0, marker.lastModified(), true, true);
        }
    }

    /**
     * Pages through the keys as the local store does (a page of {@link dev.ballast.storage.object.ListRequest#pageSize()}
     * keys at a time, each page read under the store's lock when the stream needs it, a store that is
     * {@linkplain #down(boolean) down} failing the next page).
     */
    @Override
    public java.util.stream.Stream<dev.ballast.storage.object.ListEntry> listing(
            dev.ballast.storage.object.ListRequest request) {
        Objects.requireNonNull(request, "request");
        return dev.ballast.storage.internal.Listings.byKey(request, (from, to, limit) -> {
            checkUp(null);
            synchronized (storage) {
                List<Map.Entry<byte[], Map.Entry<String, Stored>>> page = new ArrayList<>();
                for (Map.Entry<String, List<Stored>> e : storage.histories.entrySet()) {
                    if (e.getValue().isEmpty() || e.getValue().get(0).deleteMarker()) {
                        continue;
                    }
                    byte[] k = e.getKey().getBytes(StandardCharsets.UTF_8);
                    if (Arrays.compareUnsigned(k, from) >= 0 && (to == null || Arrays.compareUnsigned(k, to) < 0)) {
                        page.add(Map.entry(k, Map.entry(e.getKey(), e.getValue().get(0))));
                    }
                }
                page.sort((a, b) -> Arrays.compareUnsigned(a.getKey(), b.getKey()));
                List<dev.ballast.storage.object.ListEntry> out = new ArrayList<>(Math.min(limit, page.size()));
                for (int i = 0; i < page.size() && i < limit; i++) {
                    String key = page.get(i).getValue().getKey();
                    Stored current = page.get(i).getValue().getValue();
                    out.add(dev.ballast.storage.object.ListEntry.object(
                            key, current.bytes().length, current.eTag(), current.lastModified()));
                }
                return out;
            }
        });
    }

    @Override
    public List<String> list(String prefix) {
        Objects.requireNonNull(prefix, "prefix");
        checkUp(null);
        synchronized (storage) {
            return storage.histories.entrySet().stream()
                    .filter(e -> e.getKey().startsWith(prefix)
                            && !e.getValue().isEmpty()
                            && !e.getValue().get(0).deleteMarker())
                    .map(Map.Entry::getKey)
                    .sorted((a, b) -> Arrays.compareUnsigned(
                            a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8)))
                    .toList();
        }
    }

    @Override
    public List<VersionEntry> listVersions(String prefix) {
        Objects.requireNonNull(prefix, "prefix");
        checkUp(null);
        synchronized (storage) {
            List<VersionEntry> all = new ArrayList<>();
            storage.histories.keySet().stream()
                    .filter(k -> k.startsWith(prefix))
                    .sorted((a, b) -> Arrays.compareUnsigned(
                            a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8)))
                    .forEach(k -> all.addAll(versions(k)));
            return List.copyOf(all);
        }
    }

    @Override
    public boolean deleteVersion(String key, String versionId) {
        ObjectKeys.validate(key, false);
        checkUp(key);
        synchronized (storage) {
            List<Stored> history = storage.histories.getOrDefault(key, new ArrayList<>());
            boolean removed = history.removeIf(s -> s.versionId().equals(versionId));
            if (history.isEmpty()) {
                storage.histories.remove(key);
            }
            return removed;
        }
    }

    /** Counts itself out of {@link #openReads} on its first close. */
    private final class CountedStream extends FilterInputStream {
        private final AtomicBoolean closed = new AtomicBoolean();

        CountedStream(InputStream in) {
            super(in);
        }

        @Override
        public void close() throws IOException {
            if (closed.compareAndSet(false, true)) {
                openReads.decrementAndGet();
            }
            super.close();
        }
    }

    private List<Stored> history(String key) {
        return storage.histories.computeIfAbsent(key, k -> new ArrayList<>());
    }

    /** The current version, null when the key has none or its latest entry is a delete marker. */
    private Stored current(String key) {
        List<Stored> history = storage.histories.getOrDefault(key, List.of());
        return history.isEmpty() || history.get(0).deleteMarker() ? null : history.get(0);
    }

    private boolean latestIsDeleteMarker(String key) {
        List<Stored> history = storage.histories.getOrDefault(key, List.of());
        return !history.isEmpty() && history.get(0).deleteMarker();
    }

    private String newVersionId() {
        return "v" + storage.ids.incrementAndGet();
    }

    private static ObjectVersion toVersion(String key, Stored s) {
        return new ObjectVersion(
                key,
                s.versionId(),
                s.eTag(),
                s.bytes().length,
                s.sha256() == null ? "" : s.sha256(),
                s.generation(),
                s.lastModified(),
                s.metadata(),
                ServerSideEncryption.NONE);
    }

    private void checkUp(String key) {
        if (down) {
            throw new StorageUnavailableException(
                    key,
                    "object store fake-s3.test:9000 is unreachable (connection refused)",
                    new java.net.ConnectException("Connection refused"),
                    false);
        }
    }

    private void answerLost(String key) {
        if (loseNextWriteAnswer) {
            loseNextWriteAnswer = false;
            throw new StorageUnavailableException(
                    key,
                    "object store fake-s3.test:9000 sent no answer within the timeout",
                    new java.net.http.HttpTimeoutException("request timed out"),
                    true);
        }
    }

    private static byte[] bytesOf(ObjectContent content) {
        if (content instanceof ObjectContent.Bytes b) {
            return b.bytes().clone();
        }
        try (Payload payload = Payload.prepare(content, Path.of(System.getProperty("java.io.tmpdir")));
                InputStream in = payload.open(0, payload.length())) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] flipFirstByte(byte[] bytes) {
        byte[] flipped = bytes.clone();
        if (flipped.length > 0) {
            flipped[0] ^= 0x01;
        }
        return flipped;
    }

    /** An S3-style ETag: the quoted hex MD5 of the content. */
    private static String eTagOf(byte[] bytes) {
        try {
            return "\""
                    + HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(bytes)) + "\"";
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
