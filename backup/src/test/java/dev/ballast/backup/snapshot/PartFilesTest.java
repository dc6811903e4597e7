package dev.ballast.backup.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.backup.keys.MasterKey;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.test.FakeObjectStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The local copies of manifest parts ({@link PartFiles}) through {@link SealedStore}: what a command
 * then reads and writes in the store, and that a damaged, foreign or unreadable copy is never used.
 */
class PartFilesTest {
    static final String NAME = SealedStoreTest.NAME;

    @TempDir
    Path tmp;

    private final FakeObjectStore raw = new FakeObjectStore();
    private final MasterKey key = MasterKey.generate();

    private static Manifest manyFiles(int n) {
        return SealedStoreTest.manyFiles(n);
    }

    private PartFiles files() {
        return new PartFiles(tmp.resolve("cache"));
    }

    private List<String> partsRead() {
        return raw.keysRead().stream()
                .filter(k -> k.startsWith(SealedStore.PARTS))
                .toList();
    }

    private List<String> partsPut() {
        return raw.keysPut().stream()
                .filter(k -> k.startsWith(SealedStore.PARTS))
                .toList();
    }

    /** The IDs of the parts in the store. */
    private List<String> storedPartIds() {
        return raw.list(SealedStore.PARTS).stream()
                .map(k -> k.substring(SealedStore.PARTS.length()))
                .toList();
    }

    /** Stores {@code part} again with its last byte flipped; returns the new version's ETag. */
    private String damageStored(String part) {
        byte[] bytes = raw.currentBytes(part).orElseThrow();
        bytes[bytes.length - 1] ^= 0x01;
        return raw.put(part, ObjectContent.ofBytes(bytes)).eTag();
    }

    private String backup(ObjectStore store, Manifest m) {
        return store.put(Manifest.key(NAME), ObjectContent.ofBytes(m.toJson())).versionId();
    }

    @Test
    void partsStoredOrReadOnceAreReadFromTheCopiesByTheNextCommandsAndAnUnchangedBackupStoresNone() {
        Manifest big = manyFiles(5_000);
        String first = backup(new SealedStore(raw, key, true, files()), big);
        List<String> stored = raw.list(SealedStore.PARTS);
        assertThat(stored.size()).isGreaterThan(SealedParts.PART_READS);
        assertThat(partsPut()).hasSize(stored.size());

        // The next command (an unchanged backup) reads the manifest from the copies and stores no part.
        raw.forgetRecordedKeys();
        SealedStore next = new SealedStore(raw, key, true, files());
        assertThat(Manifests.read(next, NAME, first)).isEqualTo(big);
        String second = backup(next, big);
        assertThat(partsRead()).isEmpty();
        assertThat(partsPut()).isEmpty();

        // A restore on this machine reads none either, a view without copies reads them all.
        raw.forgetRecordedKeys();
        assertThat(Manifests.read(new SealedStore(raw, key, true, files()), NAME, second))
                .isEqualTo(big);
        assertThat(partsRead()).isEmpty();
        assertThat(Manifests.read(new SealedStore(raw, key, true), NAME, second))
                .isEqualTo(big);
        assertThat(partsRead()).hasSize(stored.size());
    }

    @Test
    void aBackupOfAnotherNameReusesTheStoredPartsOnTheirCopiesWithoutReadingThem() throws IOException {
        Manifest big = manyFiles(5_000);
        backup(new SealedStore(raw, key, true, files()), big);
        List<String> ids = storedPartIds();
        String replaced = SealedStore.PARTS + ids.get(0);
        damageStored(replaced); // a new version since the copy was taken: its ETag is not the copy's
        Path damagedCopy = files().directory().resolve(ids.get(1));
        byte[] bytes = Files.readAllBytes(damagedCopy);
        bytes[bytes.length - 1] ^= 0x01; // the copy of the current version, damaged on this disk
        Files.write(damagedCopy, bytes);

        // A first backup of another name with the same entries (a fresh view: it read no manifest).
        raw.forgetRecordedKeys();
        Manifest otherName = new Manifest(
                big.formatVersion(), "other", big.createdAt(), big.complete(), big.files(), big.notStored());
        String other = new SealedStore(raw, key, true, files())
                .put(Manifest.key("other"), ObjectContent.ofBytes(otherName.toJson()))
                .versionId();

        // Only the two parts whose copy does not prove the stored version are read; the replaced one is
        // found damaged and stored again, the other is intact in the store and kept.
        assertThat(partsRead()).containsExactlyInAnyOrder(replaced, SealedStore.PARTS + ids.get(1));
        assertThat(partsPut()).containsExactly(replaced);
        assertThat(Manifests.read(new SealedStore(raw, key, true), "other", other))
                .isEqualTo(otherName);
    }

    @Test
    void aDamagedTruncatedOrSwappedCopyIsPassedOverReadFromTheStoreAndReplaced() throws IOException {
        Manifest big = manyFiles(5_000);
        String version = backup(new SealedStore(raw, key, true, files()), big);
        List<String> ids = storedPartIds();
        Path dir = files().directory();
        Path flipped = dir.resolve(ids.get(0));
        byte[] bytes = Files.readAllBytes(flipped);
        bytes[bytes.length - 3] ^= 0x01;
        Files.write(flipped, bytes);
        Path truncated = dir.resolve(ids.get(1));
        Files.write(truncated, java.util.Arrays.copyOf(Files.readAllBytes(truncated), 20));
        Path swapped = dir.resolve(ids.get(2));
        Files.copy(dir.resolve(ids.get(3)), swapped, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Files.write(dir.resolve(ids.get(4)), new byte[0]);

        raw.forgetRecordedKeys();
        assertThat(Manifests.read(new SealedStore(raw, key, true, files()), NAME, version))
                .isEqualTo(big);

        assertThat(partsRead())
                .containsExactlyInAnyOrder(
                        SealedStore.PARTS + ids.get(0),
                        SealedStore.PARTS + ids.get(1),
                        SealedStore.PARTS + ids.get(2),
                        SealedStore.PARTS + ids.get(4));
        // Each copy is whole again: the next read uses them all.
        raw.forgetRecordedKeys();
        assertThat(Manifests.read(new SealedStore(raw, key, true, files()), NAME, version))
                .isEqualTo(big);
        assertThat(partsRead()).isEmpty();
    }

    @Test
    void copiesOfAnotherRepositorysKeyAreNeverUsed() {
        Manifest big = manyFiles(2_000);
        FakeObjectStore other = new FakeObjectStore();
        MasterKey otherKey = MasterKey.generate();
        // Another repository's parts in the same directory (a copy under the wrong repository ID).
        backup(new SealedStore(other, otherKey, true, files()), big);
        String version = backup(new SealedStore(raw, key, true), big);
        int stored = raw.list(SealedStore.PARTS).size();

        raw.forgetRecordedKeys();
        assertThat(Manifests.read(new SealedStore(raw, key, true, files()), NAME, version))
                .isEqualTo(big);
        // Parts are named by a keyed hash: the other key's parts have other names, none is taken for ours.
        assertThat(partsRead()).hasSize(stored);
    }

    @Test
    void aStoredPartReplacedSinceItWasCopiedIsCheckedInTheStoreAndStoredAgainWhenDamaged() {
        Manifest big = manyFiles(5_000);
        String version = backup(new SealedStore(raw, key, true, files()), big);
        String part = raw.list(SealedStore.PARTS).get(0);
        damageStored(part); // a new version: a new ETag

        raw.forgetRecordedKeys();
        SealedStore next = new SealedStore(raw, key, true, files());
        assertThat(Manifests.read(next, NAME, version)).isEqualTo(big); // from the intact copy
        backup(next, big);

        // The listing's ETag is not the copy's: the stored part is read, found damaged and stored again.
        assertThat(partsRead()).containsExactly(part);
        assertThat(partsPut()).containsExactly(part);
        assertThat(Manifests.read(new SealedStore(raw, key, true), NAME, version))
                .isEqualTo(big);
    }

    @Test
    void aPartVerifyFindsDamagedInTheStoreLosesItsCopySoTheNextBackupStoresItAgain() throws IOException {
        Manifest big = manyFiles(5_000);
        String version = backup(new SealedStore(raw, key, true, files()), big);
        String part = raw.list(SealedStore.PARTS).get(0);
        Path copy = files().directory().resolve(part.substring(SealedStore.PARTS.length()));
        String eTag = damageStored(part);
        // A server that damaged the part and kept its ETag: the copy names the damaged version's ETag.
        byte[] copied = Files.readAllBytes(copy);
        int nl = new String(copied, java.nio.charset.StandardCharsets.ISO_8859_1).indexOf('\n');
        Files.write(copy, concat((eTag + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8), copied, nl + 1));

        // verify reads the store, never the copy, and finds the part damaged.
        SealedStore verify = new SealedStore(raw, key, true, files().storeOnly());
        assertThatThrownBy(() -> Manifests.read(verify, NAME, version))
                .hasMessageContaining("is damaged")
                .hasMessageContaining(part);
        assertThat(copy).doesNotExist();

        // The next backup on this machine reads the stored part, finds it damaged and stores it again.
        raw.forgetRecordedKeys();
        SealedStore next = new SealedStore(raw, key, true, files());
        backup(next, big);
        assertThat(partsPut()).containsExactly(part);
        assertThat(Manifests.read(new SealedStore(raw, key, true), NAME, version))
                .isEqualTo(big);
    }

    @Test
    void aCopyThatIsNoRegularFileOrOverTheLimitIsAMissNotAHangOrAnExhaustedHeap() throws Exception {
        Manifest big = manyFiles(5_000);
        String version = backup(new SealedStore(raw, key, true, files()), big);
        List<String> ids = storedPartIds();
        Path dir = files().directory();
        // A sparse file past the limit (read whole, it would not fit in an array).
        Files.delete(dir.resolve(ids.get(0)));
        try (var sparse = new java.io.RandomAccessFile(dir.resolve(ids.get(0)).toFile(), "rw")) {
            sparse.setLength(3L << 30); // 3 GiB, sparse: more than an array can hold
        }
        // A link to a copy that is intact (never followed) and, where there is mkfifo, a FIFO (never opened).
        Files.delete(dir.resolve(ids.get(1)));
        Files.createSymbolicLink(dir.resolve(ids.get(1)), dir.resolve(ids.get(2)));
        Files.delete(dir.resolve(ids.get(3)));
        boolean fifo = new ProcessBuilder("mkfifo", dir.resolve(ids.get(3)).toString())
                        .start()
                        .waitFor()
                == 0;

        raw.forgetRecordedKeys();
        assertThat(Manifests.read(new SealedStore(raw, key, true, files()), NAME, version))
                .isEqualTo(big);

        List<String> expected =
                new java.util.ArrayList<>(List.of(SealedStore.PARTS + ids.get(0), SealedStore.PARTS + ids.get(1)));
        if (fifo) {
            expected.add(SealedStore.PARTS + ids.get(3));
        }
        assertThat(partsRead()).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(Files.size(dir.resolve(ids.get(0)))).isLessThan(PartFiles.MAX_COPY_BYTES);
        assertThat(dir.resolve(ids.get(1))).isRegularFile();
    }

    private static byte[] concat(byte[] head, byte[] rest, int from) {
        byte[] out = java.util.Arrays.copyOf(head, head.length + rest.length - from);
        System.arraycopy(rest, from, out, head.length, rest.length - from);
        return out;
    }

    @Test
    void aBackupRemovesTheCopiesOfPartsNoLongerInTheStore() throws IOException {
        backup(new SealedStore(raw, key, true, files()), manyFiles(2_000));
        Path dir = files().directory();
        String pruned = "f".repeat(64); // a part pruned by another machine, still copied here
        Files.write(dir.resolve(pruned), "\"e\"\nsealed".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        Path notAPart = dir.resolve("notes.txt");
        Files.writeString(notAPart, "left alone");
        List<String> kept;
        try (var listed = Files.list(dir)) {
            kept = listed.map(f -> f.getFileName().toString())
                    .filter(ManifestParts::isId)
                    .filter(n -> !n.equals(pruned))
                    .toList();
        }

        backup(new SealedStore(raw, key, true, files()), manyFiles(2_000));

        assertThat(dir.resolve(pruned)).doesNotExist();
        assertThat(notAPart).exists();
        assertThat(kept).isNotEmpty().allSatisfy(n -> assertThat(dir.resolve(n)).exists());
    }

    @Test
    void aCacheThatCannotBeWrittenFailsNothing() throws IOException {
        Path blocked = tmp.resolve("not-a-directory");
        Files.writeString(blocked, "a file where the cache directory would go");
        PartFiles unusable = new PartFiles(blocked.resolve("manifest-parts"));
        Manifest big = manyFiles(2_000);

        String version = backup(new SealedStore(raw, key, true, unusable), big);

        assertThat(Manifests.read(new SealedStore(raw, key, true, unusable), NAME, version))
                .isEqualTo(big);
        assertThat(Files.readString(blocked)).startsWith("a file");
    }

    @Test
    void manyNewPartsAreAnnouncedToTheStoreAndStoredConcurrently() throws Exception {
        Set<String> prepared = ConcurrentHashMap.newKeySet();
        java.util.concurrent.atomic.AtomicInteger inFlight = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger most = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.CountDownLatch twoAtOnce = new java.util.concurrent.CountDownLatch(2);
        ObjectStore watching = (ObjectStore) java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {ObjectStore.class}, (proxy, method, args) -> {
                    if (method.getName().equals("prepareWrites")) {
                        prepared.add((String) args[0]);
                    }
                    boolean partPut =
                            method.getName().equals("put") && ((String) args[0]).startsWith(SealedStore.PARTS);
                    if (partPut) {
                        most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                        twoAtOnce.countDown();
                        // Waits (bounded) until a second part is being stored beside this one.
                        twoAtOnce.await(10, java.util.concurrent.TimeUnit.SECONDS);
                    }
                    try {
                        return method.invoke(raw, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    } finally {
                        if (partPut) {
                            inFlight.decrementAndGet();
                        }
                    }
                });

        backup(new SealedStore(watching, key, true), manyFiles(5_000));

        assertThat(prepared).containsExactly(SealedStore.PARTS);
        assertThat(most.get()).isBetween(2, SealedParts.PART_READS);
    }
}
