package dev.ballast.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.ballast.storage.AlreadyExistsException;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.PreconditionFailedException;
import dev.ballast.storage.UnsupportedCapabilityException;
import dev.ballast.storage.internal.Sha256;
import dev.ballast.storage.object.Freshness;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.Source;
import dev.ballast.storage.object.StoreCapabilities;
import dev.ballast.storage.object.VersionEntry;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The behaviour every {@link ObjectStore} must show, as a public JUnit 5 suite: Ballast runs it
 * against the in-memory {@link FakeObjectStore}, the last-known-good cache wrapper, the local store
 * and every S3 server it supports (S3Mock, s3proxy, MinIO, Ceph RGW); a user extends it to run the
 * same guarantees against their own endpoint (their MinIO, their Ceph, their cloud bucket), for
 * example an {@code S3ObjectStore} opened with {@code StorageFacade.newBuilder().s3(...)} on a test
 * bucket. Each case writes under its own keys; a store that is not reachable should abort (skip)
 * in {@link #newStore()} with {@code Assumptions.abort(reason)}, and {@link SkipReasons} prints one
 * line per skipped case with its reason.
 *
 * <p>The cases of one capability live in an interface of their own, which this class implements:
 * {@link ListingContract} (streaming listings), {@link PresignContract} (presigned URLs).
 *
 * <h2>Plugging a store in</h2>
 * <ol>
 *   <li>Extend this class and implement {@link #newStore()}: a fresh, empty store for each test.
 *   <li>Override {@link #closeStore(ObjectStore)} if closing needs more than {@link AutoCloseable}.
 *   <li>Override {@link #has(Behaviour)} to declare a {@link Behaviour} the store lacks (the
 *       cases needing it are skipped with the reason).
 *   <li>Override the staging hooks the store can stage ({@link #plantObject},
 *       {@link #plantForeignObject}, {@link #openAnotherWriter}); each case that needs a hook the store
 *       does not override is skipped with the reason, never passed.
 *   <li>The cases of the features a store may lack (ranged reads, block digests, metadata,
 *       server-side encryption: {@link ObjectStoreFeatureCases}) run by the store's
 *       {@code capabilities().features()}, each skip naming the feature; override
 *       {@link #damageStoredByte} to run the damaged-block case and {@link #kmsKeyId} for SSE-KMS.
 *   <li>Cases only one kind of store can stage (fault injection on the wire, multipart uploads) go in
 *       that store's own subclass, as Ballast's S3 contract adds the S3 wire faults.
 * </ol>
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
@ExtendWith(SkipReasons.class)
public abstract class ObjectStoreContract extends ObjectStoreFeatureCases implements ListingContract, PresignContract {

    protected static final long MIB = 1024L * 1024;

    /** Store behaviours some stores lack; a case needing one a store lacks is skipped with the reason. */
    public enum Behaviour {
        /**
         * Keys are taken verbatim: {@code a//b} and {@code a/b} are different keys and {@code dir/} is an
         * ordinary object, not a directory marker.
         */
        PATH_FAITHFUL_KEYS,
        /**
         * Delete markers behave as in S3: {@code delete} returns the marker's own version ID, reading that
         * version ID reports "deleted", {@code list} omits deleted keys, and an aborted or refused upload
         * leaves the key's existing object alone.
         */
        FAITHFUL_DELETE_MARKERS,
        /** Stored objects live outside this JVM's heap, so heap growth during an upload is the client's own. */
        OBJECTS_OUTSIDE_TEST_HEAP,
        /**
         * A delimited listing is paged as S3 pages it: each page holds the keys and common prefixes of its
         * own stretch of the key space (S3Mock 5.2 answers every common prefix on every page, so keys
         * between them cannot be told from keys already listed).
         */
        PAGED_DELIMITER_LISTINGS,
        /**
         * A version's SHA-256 (from {@code put}, {@code get} and {@code head}) is that of the bytes put (so
         * the same bytes put twice have the same one), and version listings and listings report their
         * size. Client-side encryption lacks it by design: it reports the SHA-256 and the listed sizes of
         * the stored ciphertext, so that no digest of the plaintext is stored for whoever runs the store to
         * confirm a guessed file with. For a store without it, the cases leave out their assertions on
         * those values and check the rest (round trips, versions, listings).
         */
        CONTENT_DIGESTS_AND_SIZES
    }

    /** A fresh, empty store; called once before each test. */
    protected abstract ObjectStore newStore();

    /** A short name for test output and skip reasons; the test class's name unless overridden. */
    @Override
    protected String storeName() {
        return getClass().getSimpleName();
    }

    /** The store under test, {@link #store}: for the contract's parts kept in interfaces. */
    @Override
    public final ObjectStore storeUnderTest() {
        return store;
    }

    /** {@link #has(Behaviour)}, for the contract's parts kept in interfaces. */
    @Override
    public final boolean storeHas(Behaviour behaviour) {
        return has(behaviour);
    }

    /** {@link #storeName()}, for the contract's parts kept in interfaces. */
    @Override
    public final String nameOfStoreUnderTest() {
        return storeName();
    }

    /** Whether the store has {@code behaviour}; all of them unless overridden. */
    protected boolean has(Behaviour behaviour) {
        return true;
    }

    /** Releases {@code store} after each test; closes it when it is {@link AutoCloseable}. */
    protected void closeStore(ObjectStore store) throws Exception {
        if (store instanceof AutoCloseable closeable) {
            closeable.close();
        }
    }

    /**
     * Stages an object as if written by this store but damaged at rest: {@code bytes} stored under
     * {@code key} with {@code recordedSha256Hex} as its recorded SHA-256 and a generation of 1.
     * Skips the calling case unless overridden.
     */
    protected void plantObject(String key, byte[] bytes, String recordedSha256Hex) {
        Assumptions.abort(storeName() + " cannot stage an object whose bytes differ from its recorded SHA-256");
    }

    /**
     * Stages an object written by another program, without any of this store's metadata (no SHA-256,
     * no generation). Skips the calling case unless overridden.
     */
    @Override
    protected void plantForeignObject(String key, byte[] bytes) {
        Assumptions.abort(storeName() + " cannot stage an object written without Ballast metadata");
    }

    /**
     * A second, independent writer over the same storage as {@link #store}, with its own state and
     * {@code clock} as its wall clock; the caller closes it. Skips the calling case unless overridden.
     */
    protected ObjectStore openAnotherWriter(Clock clock) {
        Assumptions.abort(storeName() + " cannot open a second writer over the same storage");
        throw new AssertionError("unreachable");
    }

    /**
     * Called with a checkpoint to run every few MiB a large write moves to the store (so heap use is
     * measured while the bytes travel, not only before and after), and with null when it is over. By
     * default nothing is observed and heap is measured at the write's start and end.
     */
    protected void observeLargeWrite(Runnable checkpointEveryFewMiB) {}

    /**
     * Asserts that no partly written object remains in the store's own staging (an incomplete
     * multipart upload, a temporary file). The default does nothing, for stores that stage nowhere.
     */
    protected void assertNoIncompleteWrites() {}

    @BeforeEach
    void openStore() {
        store = newStore();
    }

    @AfterEach
    void releaseStore() throws Exception {
        if (store != null) {
            closeStore(store);
        }
    }

    // ---------------------------------------------------------------- put and get

    @Test
    void putRecordsSha256AndGenerationAndReadsBackVerified() {
        byte[] content = "hello, versioned world\n".getBytes(StandardCharsets.UTF_8);

        ObjectVersion v = store.put("docs/hello.txt", ObjectContent.ofBytes(content));

        assertThat(v.key()).isEqualTo("docs/hello.txt");
        assertThat(v.versionId()).isNotBlank().isNotEqualTo("null");
        assertThat(v.eTag()).isNotBlank();
        assertThat(v.size()).isEqualTo(content.length);
        if (has(Behaviour.CONTENT_DIGESTS_AND_SIZES)) {
            assertThat(v.sha256()).isEqualTo(Sha256.hex(Sha256.of(content)));
        }
        assertThat(v.generation()).isPositive();
        try (ObjectRead read = store.get("docs/hello.txt")) {
            assertThat(read.readAllBytes()).isEqualTo(content);
            assertThat(read.version().versionId()).isEqualTo(v.versionId());
            assertThat(read.version().eTag()).isEqualTo(v.eTag());
            assertThat(read.version().sha256()).isEqualTo(v.sha256());
            assertThat(read.version().generation()).isEqualTo(v.generation());
            assertThat(read.freshness()).isEqualTo(Freshness.FRESH);
            assertThat(read.source()).isEqualTo(Source.LIVE);
            assertThat(read.degraded()).isFalse();
        }
    }

    @Test
    void zeroByteObjectRoundTrips() {
        ObjectVersion v = store.put("empty", ObjectContent.ofBytes(new byte[0]));

        assertThat(v.size()).isZero();
        if (has(Behaviour.CONTENT_DIGESTS_AND_SIZES)) {
            assertThat(v.sha256()).isEqualTo("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        }
        try (ObjectRead read = store.get("empty")) {
            assertThat(read.readAllBytes()).isEmpty();
            assertThat(read.version().size()).isZero();
            assertThat(read.version().versionId()).isEqualTo(v.versionId());
        }
    }

    @Test
    void putFromFileAndFromStreamsOfEverySize(@TempDir Path dir) throws IOException {
        byte[] small = pseudoRandom(1, 100_000);
        byte[] spooled = pseudoRandom(2, (int) (2 * MIB + 17));
        Path file = dir.resolve("in.bin");
        Files.write(file, small);

        ObjectVersion fromFile = store.put("from-file", ObjectContent.ofFile(file));
        ObjectVersion fromSmallStream =
                store.put("from-stream", ObjectContent.ofStream(new ByteArrayInputStream(small), small.length));
        ObjectVersion fromSpooledStream =
                store.put("spooled", ObjectContent.ofStream(new ByteArrayInputStream(spooled), spooled.length));

        if (has(Behaviour.CONTENT_DIGESTS_AND_SIZES)) {
            assertThat(fromFile.sha256()).isEqualTo(fromSmallStream.sha256()).isEqualTo(Sha256.hex(Sha256.of(small)));
            assertThat(fromSpooledStream.sha256()).isEqualTo(Sha256.hex(Sha256.of(spooled)));
        }
        assertThat(store.get("from-file").readAllBytes()).isEqualTo(small);
        assertThat(store.get("from-stream").readAllBytes()).isEqualTo(small);
        assertThat(store.get("spooled").readAllBytes()).isEqualTo(spooled);
        assertThatThrownBy(() ->
                        store.put("short", ObjectContent.ofStream(new ByteArrayInputStream(small), small.length + 1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("declared length");
        assertThat(store.versions("short")).isEmpty();
    }

    @Test
    void largeObjectStreamsUpAndDownWithHeapFarBelowItsSize() throws IOException {
        long size = 64 * MIB;
        HeapProbe heap = new HeapProbe();
        long started = System.nanoTime();
        heap.baseline();
        GeneratedStream source = new GeneratedStream(42, size, heap);
        observeLargeWrite(heap::checkpoint);

        ObjectVersion v;
        try {
            v = store.put("big/64mib.bin", ObjectContent.ofStream(source, size));
        } finally {
            observeLargeWrite(null);
        }
        heap.checkpoint();
        long uploadGrowth = heap.peakGrowth();
        long uploadMillis = (System.nanoTime() - started) / 1_000_000;
        started = System.nanoTime();

        assertThat(v.size()).isEqualTo(size);
        if (has(Behaviour.CONTENT_DIGESTS_AND_SIZES)) {
            assertThat(v.sha256()).isEqualTo(source.sha256Hex());
        }

        heap.baseline();
        MessageDigest digest = Sha256.newDigest();
        long read = 0;
        try (ObjectRead r = store.get("big/64mib.bin");
                InputStream in = r.stream()) {
            byte[] buf = new byte[64 * 1024];
            int n;
            long nextCheckpoint = 8 * MIB;
            while ((n = in.read(buf)) != -1) {
                digest.update(buf, 0, n);
                read += n;
                if (read >= nextCheckpoint) {
                    heap.checkpoint();
                    nextCheckpoint += 8 * MIB;
                }
            }
        }
        long downloadGrowth = heap.peakGrowth();
        long downloadMillis = (System.nanoTime() - started) / 1_000_000;
        System.out.printf(
                Locale.ROOT,
                "[%s] 64 MiB object: peak heap growth %.1f MiB during upload (%d ms), %.1f MiB"
                        + " during download (%d ms)%n",
                storeName(),
                uploadGrowth / (double) MIB,
                uploadMillis,
                downloadGrowth / (double) MIB,
                downloadMillis);

        assertThat(read).isEqualTo(size);
        assertThat(Sha256.hex(digest.digest())).isEqualTo(source.sha256Hex());
        assertThat(downloadGrowth).as("heap growth while downloading 64 MiB").isLessThan(size / 4);
        assumeHas(
                Behaviour.OBJECTS_OUTSIDE_TEST_HEAP,
                "keeps stored objects in this JVM's heap, so upload heap growth" + " includes the store's copy");
        assertThat(uploadGrowth).as("heap growth while uploading 64 MiB").isLessThan(size / 4);
    }

    // ---------------------------------------------------------------- keys

    @Test
    void awkwardKeysRoundTripByteExactlyAndStayDistinct() {
        String nfc = "caf\u00e9";
        String nfd = "cafe\u0301";
        List<String> keys = List.of(
                "a/b",
                "x y+z",
                "x%20y",
                nfc,
                nfd,
                "\u65e5\u672c/\u00fcn\u00efc\u00f6d\u00e9",
                "emoji-\ud83d\ude00",
                "sp ace/tab~and!*'()&$@=;:,?",
                "k".repeat(1024));
        for (int i = 0; i < keys.size(); i++) {
            store.put(keys.get(i), ObjectContent.ofBytes(("value " + i).getBytes(StandardCharsets.UTF_8)));
        }
        for (int i = 0; i < keys.size(); i++) {
            try (ObjectRead read = store.get(keys.get(i))) {
                assertThat(new String(read.readAllBytes(), StandardCharsets.UTF_8))
                        .as(keys.get(i))
                        .isEqualTo("value " + i);
                assertThat(read.version().key()).isEqualTo(keys.get(i));
            }
        }
        assertThat(store.list("")).containsExactlyInAnyOrderElementsOf(keys);
        assertThat(store.versions(nfc)).hasSize(1);
        assertThat(store.versions(nfd)).hasSize(1);
    }

    @Test
    void pathLikeKeysAreOrdinaryKeys() {
        assumeHas(Behaviour.PATH_FAITHFUL_KEYS, "treats '//' or a trailing '/' in keys as path syntax");
        store.put("dir/", ObjectContent.ofBytes("not a directory".getBytes(StandardCharsets.UTF_8)));
        store.put("a//b", ObjectContent.ofBytes("double".getBytes(StandardCharsets.UTF_8)));
        store.put("a/b", ObjectContent.ofBytes("single".getBytes(StandardCharsets.UTF_8)));

        assertThat(store.get("a//b").readAllBytes()).isEqualTo("double".getBytes(StandardCharsets.UTF_8));
        assertThat(store.get("a/b").readAllBytes()).isEqualTo("single".getBytes(StandardCharsets.UTF_8));
        assertThat(store.list("a/")).containsExactly("a//b", "a/b");
        assertThat(store.get("dir/").readAllBytes()).isEqualTo("not a directory".getBytes(StandardCharsets.UTF_8));
        assertThat(store.versions("a/b")).hasSize(1);
    }

    /** Every key {@link #invalidKeysAreRejected} tries, with a word of the rule its message must name. */
    protected static final Map<String, String> INVALID_KEYS = Map.of(
            "",
            "empty",
            "k".repeat(1025),
            "at most 1024",
            "\u00e9".repeat(513),
            "at most 1024",
            "bell\u0007",
            "control characters",
            "new\nline",
            "control characters",
            "../etc/passwd",
            "'..' segment",
            "a/../b",
            "'..' segment",
            "/abs",
            "start with '/'",
            "bad\ud800surrogate",
            "unpaired surrogates",
            ".ballast/probe/x",
            "reserved prefix");

    @Test
    void invalidKeysAreRejected() {
        INVALID_KEYS.forEach((key, rule) -> {
            assertThatThrownBy(() -> store.put(key, ObjectContent.ofBytes(new byte[1])))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(rule);
            assertThatThrownBy(() -> store.get(key)).isInstanceOf(IllegalArgumentException.class);
        });
        assertThatThrownBy(() -> store.put(null, ObjectContent.ofBytes(new byte[1])))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("key");
        assertThat(store.list("")).isEmpty();
    }

    // ---------------------------------------------------------------- conditional writes

    @Test
    void putIfAbsentCreatesOnceThenRefuses() {
        assumePutIfAbsent();
        ObjectVersion first = store.putIfAbsent("lock", ObjectContent.ofBytes("one".getBytes(StandardCharsets.UTF_8)));

        assertThatThrownBy(
                        () -> store.putIfAbsent("lock", ObjectContent.ofBytes("two".getBytes(StandardCharsets.UTF_8))))
                .isInstanceOf(AlreadyExistsException.class)
                .hasMessageContaining("lock");
        assertThat(store.versions("lock")).extracting(VersionEntry::versionId).containsExactly(first.versionId());
        assertThat(store.get("lock").readAllBytes()).isEqualTo("one".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void putIfMatchReplacesOnlyTheVersionThatWasRead() {
        assumePutIfMatch();
        ObjectVersion v1 =
                store.put("config.json", ObjectContent.ofBytes("{\"n\":1}".getBytes(StandardCharsets.UTF_8)));

        ObjectVersion v2 = store.putIfMatch(
                "config.json", v1.eTag(), ObjectContent.ofBytes("{\"n\":2}".getBytes(StandardCharsets.UTF_8)));

        assertThatThrownBy(() -> store.putIfMatch(
                        "config.json", v1.eTag(), ObjectContent.ofBytes("{\"n\":3}".getBytes(StandardCharsets.UTF_8))))
                .isInstanceOf(PreconditionFailedException.class)
                .isNotInstanceOf(AlreadyExistsException.class)
                .hasMessageContaining("config.json");
        assertThatThrownBy(() -> store.putIfMatch("missing.json", v1.eTag(), ObjectContent.ofBytes(new byte[1])))
                .isInstanceOfSatisfying(
                        ObjectNotFoundException.class,
                        e -> assertThat(e.deleted()).isFalse());
        assertThat(store.versions("config.json"))
                .extracting(VersionEntry::versionId)
                .containsExactly(v2.versionId(), v1.versionId());
        assertThat(store.get("config.json").readAllBytes()).isEqualTo("{\"n\":2}".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aLargeConditionalWriteIsRefusedWhenTheKeyExists() {
        assumePutIfAbsent();
        store.put("big-lock", ObjectContent.ofBytes(new byte[] {1}));
        byte[] big = pseudoRandom(3, (int) (17 * MIB));

        assertThatThrownBy(() -> store.putIfAbsent("big-lock", ObjectContent.ofBytes(big)))
                .isInstanceOf(AlreadyExistsException.class);
        assertNoIncompleteWrites();
        assumeHas(Behaviour.FAITHFUL_DELETE_MARKERS, "does not keep a key's versions when an upload to it is aborted");
        assertThat(store.get("big-lock").readAllBytes()).containsExactly(1);
        assertThat(store.versions("big-lock")).hasSize(1);
    }

    /**
     * Every store, with or without conditional writes: a store that honours them refuses a write its
     * condition forbids (and writes the one it allows); a store without them refuses the conditional
     * write before anything is written, never downgrading it to an unconditional one that could
     * overwrite a concurrent update unseen.
     */
    @Test
    void aConditionalWriteIsEitherHonouredOrRefusedAndNeverWritesWhatItsConditionForbids() {
        StoreCapabilities caps = store.capabilities();
        ObjectVersion v1 = store.put("guarded", ObjectContent.ofBytes("1".getBytes(StandardCharsets.UTF_8)));

        if (caps.putIfAbsent()) {
            assertThatThrownBy(() -> store.putIfAbsent("guarded", ObjectContent.ofBytes(new byte[] {2})))
                    .isInstanceOf(AlreadyExistsException.class);
            store.putIfAbsent("fresh", ObjectContent.ofBytes(new byte[] {2}));
            assertThat(store.versions("fresh")).hasSize(1);
        } else {
            assertThatThrownBy(() -> store.putIfAbsent("guarded", ObjectContent.ofBytes(new byte[] {2})))
                    .isInstanceOf(UnsupportedCapabilityException.class)
                    .hasMessageContaining("If-None-Match");
            assertThatThrownBy(() -> store.putIfAbsent("fresh", ObjectContent.ofBytes(new byte[] {2})))
                    .isInstanceOf(UnsupportedCapabilityException.class);
            assertThat(store.versions("fresh")).isEmpty();
        }
        if (caps.putIfMatch()) {
            assertThatThrownBy(() ->
                            store.putIfMatch("guarded", "\"not-its-etag\"", ObjectContent.ofBytes(new byte[] {3})))
                    .isInstanceOf(PreconditionFailedException.class);
        } else {
            assertThatThrownBy(() -> store.putIfMatch("guarded", v1.eTag(), ObjectContent.ofBytes(new byte[] {3})))
                    .isInstanceOf(UnsupportedCapabilityException.class)
                    .hasMessageContaining("If-Match");
        }

        assertThat(store.versions("guarded"))
                .extracting(VersionEntry::versionId)
                .containsExactly(v1.versionId());
    }

    /**
     * The guarantee that holds with or without conditional writes: concurrent writers of one key lose
     * no acknowledged update. The latest version is one writer's, and every version a put returned
     * stays in the history and reads back byte for byte by its version ID.
     */
    @Test
    void concurrentWritersOfOneKeyLoseNoAcknowledgedUpdate() throws Exception {
        int writers = 3;
        int putsEach = 4;
        List<ObjectStore> stores = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            stores.add(openAnotherWriter(Clock.systemUTC()));
        }
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Map<String, byte[]>>> results = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                ObjectStore writer = stores.get(w);
                int id = w;
                results.add(pool.submit(() -> {
                    start.await();
                    Map<String, byte[]> written = new HashMap<>();
                    for (int i = 0; i < putsEach; i++) {
                        byte[] bytes = ("writer " + id + " update " + i).getBytes(StandardCharsets.UTF_8);
                        written.put(
                                writer.put("contended", ObjectContent.ofBytes(bytes))
                                        .versionId(),
                                bytes);
                    }
                    return written;
                }));
            }
            start.countDown();
            Map<String, byte[]> acknowledged = new HashMap<>();
            for (Future<Map<String, byte[]>> r : results) {
                acknowledged.putAll(r.get(120, TimeUnit.SECONDS));
            }

            assertThat(acknowledged).hasSize(writers * putsEach);
            assertThat(store.versions("contended"))
                    .extracting(VersionEntry::versionId)
                    .containsExactlyInAnyOrderElementsOf(acknowledged.keySet());
            for (Map.Entry<String, byte[]> e : acknowledged.entrySet()) {
                try (ObjectRead read = store.get("contended", ReadOptions.version(e.getKey()))) {
                    assertThat(read.readAllBytes()).as("version %s", e.getKey()).isEqualTo(e.getValue());
                }
            }
            try (ObjectRead latest = store.get("contended")) {
                assertThat(acknowledged).containsKey(latest.version().versionId());
            }
        } finally {
            pool.shutdownNow();
            for (ObjectStore s : stores) {
                closeStore(s);
            }
        }
    }

    // ---------------------------------------------------------------- versions and deletes

    @Test
    void versionsListEveryVersionAndDeleteMarkerNewestFirst() {
        ObjectVersion v1 = store.put("history", ObjectContent.ofBytes("1".getBytes(StandardCharsets.UTF_8)));
        ObjectVersion v2 = store.put("history", ObjectContent.ofBytes("2".getBytes(StandardCharsets.UTF_8)));
        VersionEntry marker = store.delete("history");
        ObjectVersion v3 = store.put("history", ObjectContent.ofBytes("3".getBytes(StandardCharsets.UTF_8)));
        store.put("history-other", ObjectContent.ofBytes("x".getBytes(StandardCharsets.UTF_8)));

        List<VersionEntry> versions = store.versions("history");

        assertThat(marker.deleteMarker()).isTrue();
        assertThat(versions).extracting(VersionEntry::key).containsOnly("history");
        assertThat(versions).hasSize(4);
        assertThat(versions.get(0).versionId()).isEqualTo(v3.versionId());
        assertThat(versions.get(0).latest()).isTrue();
        assertThat(versions).filteredOn(VersionEntry::latest).hasSize(1);
        assertThat(versions).filteredOn(VersionEntry::deleteMarker).hasSize(1);
        assertThat(versions)
                .filteredOn(e -> !e.deleteMarker())
                .extracting(VersionEntry::versionId)
                .containsExactly(v3.versionId(), v2.versionId(), v1.versionId());
        assertThat(versions)
                .filteredOn(e -> e.versionId().equals(v1.versionId()))
                .first()
                .satisfies(
                        e -> assertThat(e.size()).isEqualTo(has(Behaviour.CONTENT_DIGESTS_AND_SIZES) ? 1 : e.size()));
        assumeFaithfulDeleteMarkers();
        assertThat(versions)
                .filteredOn(VersionEntry::deleteMarker)
                .extracting(VersionEntry::versionId)
                .containsExactly(marker.versionId());
    }

    @Test
    void deletedKeyIsReportedDistinctlyFromOneThatNeverExisted() {
        store.put("gone", ObjectContent.ofBytes("bye".getBytes(StandardCharsets.UTF_8)));
        store.delete("gone");

        assertThatThrownBy(() -> store.get("gone"))
                .isInstanceOfSatisfying(ObjectNotFoundException.class, e -> {
                    assertThat(e.deleted()).isTrue();
                    assertThat(e.key()).isEqualTo("gone");
                })
                .hasMessageContaining("was deleted");
        assertThatThrownBy(() -> store.get("never"))
                .isInstanceOfSatisfying(
                        ObjectNotFoundException.class,
                        e -> assertThat(e.deleted()).isFalse())
                .hasMessageContaining("does not exist");
        assertThat(store.versions("never")).isEmpty();
        assumeFaithfulDeleteMarkers();
        assertThat(store.list("")).doesNotContain("gone");
    }

    @Test
    void olderVersionIsReadableAndRestorableByVersionId() {
        ObjectVersion v1 =
                store.put("report.csv", ObjectContent.ofBytes("a,b\n1,2\n".getBytes(StandardCharsets.UTF_8)));
        store.put("report.csv", ObjectContent.ofBytes("a,b\n9,9\n".getBytes(StandardCharsets.UTF_8)));
        store.delete("report.csv");

        byte[] old;
        try (ObjectRead read = store.get("report.csv", ReadOptions.version(v1.versionId()))) {
            old = read.readAllBytes();
            assertThat(read.version().versionId()).isEqualTo(v1.versionId());
            assertThat(read.freshness())
                    .as("history asked for by version ID is not a stale read")
                    .isEqualTo(Freshness.FRESH);
        }
        ObjectVersion restored = store.put("report.csv", ObjectContent.ofBytes(old));

        assertThat(old).isEqualTo("a,b\n1,2\n".getBytes(StandardCharsets.UTF_8));
        if (has(Behaviour.CONTENT_DIGESTS_AND_SIZES)) {
            assertThat(restored.sha256()).isEqualTo(v1.sha256());
        }
        assertThat(restored.generation()).isGreaterThan(v1.generation());
        assertThat(store.get("report.csv").readAllBytes()).isEqualTo(old);
        assertThat(store.versions("report.csv")).hasSize(4);
    }

    @Test
    void readingTheVersionIdOfADeleteMarkerReportsDeleted() {
        assumeFaithfulDeleteMarkers();
        store.put("marked", ObjectContent.ofBytes(new byte[] {7}));
        VersionEntry marker = store.delete("marked");

        assertThatThrownBy(() -> store.get("marked", ReadOptions.version(marker.versionId())))
                .isInstanceOfSatisfying(ObjectNotFoundException.class, e -> {
                    assertThat(e.deleted()).isTrue();
                    assertThat(e.versionId()).contains(marker.versionId());
                });
    }

    @Test
    void listReturnsCurrentKeysUnderAPrefixInUtf8Order() {
        assumeFaithfulDeleteMarkers();
        for (String k : List.of("logs/b", "logs/a", "logs/\u00e9", "logs/Z", "other/a")) {
            store.put(k, ObjectContent.ofBytes(new byte[] {1}));
        }
        store.delete("logs/b");

        assertThat(store.list("logs/")).containsExactly("logs/Z", "logs/a", "logs/\u00e9");
    }

    @Test
    void listVersionsReturnsEveryVersionUnderAPrefixAndDeleteVersionRemovesOneForGood() {
        assumeFaithfulDeleteMarkers();
        ObjectVersion a1 = store.put("lv/a", ObjectContent.ofBytes(new byte[] {1}));
        ObjectVersion a2 = store.put("lv/a", ObjectContent.ofBytes(new byte[] {2, 2}));
        store.put("lv/b", ObjectContent.ofBytes(new byte[] {3}));
        VersionEntry bGone = store.delete("lv/b");
        store.put("lw/c", ObjectContent.ofBytes(new byte[] {4}));

        List<VersionEntry> all = store.listVersions("lv/");
        assertThat(all).extracting(VersionEntry::key).containsExactly("lv/a", "lv/a", "lv/b", "lv/b");
        assertThat(all.subList(0, 2))
                .extracting(VersionEntry::versionId)
                .containsExactly(a2.versionId(), a1.versionId());
        assertThat(all.get(2).versionId())
                .as("a key whose current version is a delete marker is listed too")
                .isEqualTo(bGone.versionId());

        assertThat(store.deleteVersion("lv/a", a2.versionId())).isTrue();
        assertThat(store.get("lv/a").readAllBytes())
                .as("the newest remaining version is current")
                .containsExactly(1);
        assertThatThrownBy(() -> store.get("lv/a", ReadOptions.version(a2.versionId())))
                .isInstanceOf(ObjectNotFoundException.class);
        assertThat(store.head("lv/a", a1.versionId()).size()).isEqualTo(1);
        assertThatThrownBy(() -> store.head("lv/a", a2.versionId()))
                .as("a HEAD of a version deleted for good: not found (how a run sees its marker removed by a prune)")
                .isInstanceOf(ObjectNotFoundException.class);
        store.deleteVersion("lv/b", bGone.versionId());
        assertThat(store.get("lv/b").readAllBytes())
                .as("removing the delete marker brings the object back")
                .containsExactly(3);
        assertThat(store.versions("lv/a")).extracting(VersionEntry::versionId).containsExactly(a1.versionId());
    }

    // ---------------------------------------------------------------- integrity

    @Test
    void bytesThatDoNotMatchTheRecordedSha256NeverReachTheCallerWhole() throws IOException {
        byte[] content = pseudoRandom(5, 200_000);
        byte[] other = content.clone();
        other[100] ^= 1;
        plantObject("tampered", content, Sha256.hex(Sha256.of(other)));

        try (ObjectRead read = store.get("tampered");
                InputStream in = read.stream()) {
            if (storeHas(Behaviour.CONTENT_DIGESTS_AND_SIZES)) {
                // The store's own check: the bytes are streamed up to all but the last, which fails the read.
                byte[] head = in.readNBytes(content.length - 1);
                assertThat(head).isEqualTo(Arrays.copyOf(content, content.length - 1));
                assertThatThrownBy(in::read)
                        .isInstanceOf(IntegrityException.class)
                        .hasMessageContaining("tampered");
                return;
            }
            // A decorator that hands bytes over in authenticated segments stops before the last segment:
            // a proper prefix is streamed, never the whole content.
            java.io.ByteArrayOutputStream handedOver = new java.io.ByteArrayOutputStream();
            byte[] buf = new byte[8192];
            assertThatThrownBy(() -> {
                        int n;
                        while ((n = in.read(buf)) >= 0) {
                            handedOver.write(buf, 0, n);
                        }
                    })
                    .isInstanceOf(IntegrityException.class)
                    .hasMessageContaining("tampered");
            assertThat(handedOver.size()).isLessThan(content.length);
            assertThat(handedOver.toByteArray()).isEqualTo(Arrays.copyOf(content, handedOver.size()));
        }
    }

    @Test
    void objectsWrittenWithoutBallastMetadataReadWithUnknownFreshness() {
        plantForeignObject("foreign", "plain".getBytes(StandardCharsets.UTF_8));

        try (ObjectRead read = store.get("foreign")) {
            assertThat(read.readAllBytes()).isEqualTo("plain".getBytes(StandardCharsets.UTF_8));
            assertThat(read.freshness()).isEqualTo(Freshness.UNKNOWN);
            assertThat(read.version().generation()).isZero();
        }
    }

    // ---------------------------------------------------------------- generations

    @Test
    void generationsNeverGoBackwardsAcrossWritersEvenWithAStoppedClock() throws Exception {
        Clock stopped = Clock.fixed(Instant.ofEpochMilli(1000), ZoneOffset.UTC);
        ObjectStore a = openAnotherWriter(stopped);
        ObjectStore b = openAnotherWriter(stopped);
        try {
            long g1 = a.put("shared", ObjectContent.ofBytes(new byte[] {1})).generation();
            long g2 = b.put("shared", ObjectContent.ofBytes(new byte[] {2})).generation();
            long g3 = a.put("shared", ObjectContent.ofBytes(new byte[] {3})).generation();

            assertThat(g2).isGreaterThan(g1);
            assertThat(g3).isGreaterThan(g2);
            try (ObjectRead read = b.get("shared")) {
                assertThat(read.version().generation()).isEqualTo(g3);
                assertThat(read.freshness()).isEqualTo(Freshness.FRESH);
            }
        } finally {
            closeStore(a);
            closeStore(b);
        }
    }

    // ---------------------------------------------------------------- helpers

    /** Skips the calling case, naming what the store lacks, unless it has {@code behaviour}. */
    protected void assumeHas(Behaviour behaviour, String lackingItDoes) {
        assumeThat(has(behaviour)).as("%s %s", storeName(), lackingItDoes).isTrue();
    }

    protected void assumeFaithfulDeleteMarkers() {
        assumeHas(Behaviour.FAITHFUL_DELETE_MARKERS, "does not keep delete markers as S3 does");
    }

    /** Skips the calling case unless the store found it honours {@code If-None-Match: *} ({@code putIfAbsent}). */
    protected void assumePutIfAbsent() {
        assumeThat(store.capabilities().putIfAbsent())
                .as(
                        "%s does not honour If-None-Match: * on PUT (capability probe), so putIfAbsent is refused",
                        storeName())
                .isTrue();
    }

    /** Skips the calling case unless the store found it honours {@code If-Match} ({@code putIfMatch}). */
    protected void assumePutIfMatch() {
        assumeThat(store.capabilities().putIfMatch())
                .as("%s does not honour If-Match on PUT (capability probe), so putIfMatch is refused", storeName())
                .isTrue();
    }

    protected static byte[] pseudoRandom(long seed, int size) {
        byte[] b = new byte[size];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    /** Deterministic pseudo-random bytes of a given length, hashed as they are produced. */
    protected static final class GeneratedStream extends InputStream {
        private final SplittableRandom random;
        private final long size;
        private final HeapProbe heap;
        private final MessageDigest digest = Sha256.newDigest();
        private long produced;
        private long nextCheckpoint = 8 * MIB;
        private String hex;

        public GeneratedStream(long seed, long size, HeapProbe heap) {
            this.random = new SplittableRandom(seed);
            this.size = size;
            this.heap = heap;
        }

        @Override
        public int read() {
            byte[] one = new byte[1];
            return read(one, 0, 1) == -1 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (produced >= size) {
                return -1;
            }
            int n = (int) Math.min(len, size - produced);
            byte[] chunk = new byte[n];
            random.nextBytes(chunk);
            System.arraycopy(chunk, 0, b, off, n);
            digest.update(chunk);
            produced += n;
            if (produced >= nextCheckpoint) {
                heap.checkpoint();
                nextCheckpoint += 8 * MIB;
            }
            return n;
        }

        /** The SHA-256 of everything produced; call after the stream was read to its end. */
        public String sha256Hex() {
            if (hex == null) {
                hex = Sha256.hex(digest.digest());
            }
            return hex;
        }
    }
}
