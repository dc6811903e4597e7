package dev.ballast.backup.pack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.backup.keys.MasterKey;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.local.LocalObjectStore;
import dev.ballast.test.FakeObjectStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BlobRepositoryTest {
    static final PackOptions SMALL = PackOptions.defaults().withPackSize(64 * 1024);

    static byte[] random(long seed, int length) {
        byte[] b = new byte[length];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    /** Text-like bytes zstd shrinks a lot. */
    static byte[] compressible(long seed, int length) {
        byte[] b = new byte[length];
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < length; i++) {
            b[i] = (byte) ('a' + r.nextInt(4));
        }
        return b;
    }

    static Map<BlobId, byte[]> addAll(BlobRepository repo, int count, long seed, int size) {
        Map<BlobId, byte[]> out = new HashMap<>();
        for (int i = 0; i < count; i++) {
            byte[] b = i % 2 == 0 ? random(seed + i, size) : compressible(seed + i, size);
            BlobId id = repo.id(b, 0, b.length);
            assertThat(repo.add(BlobType.DATA, id, b, 0, b.length)).isTrue();
            out.put(id, b);
        }
        return out;
    }

    @Test
    void blobsRoundTripAcrossAReopen() {
        FakeObjectStore store = new FakeObjectStore();
        MasterKey key = MasterKey.generate();
        Map<BlobId, byte[]> blobs;
        try (BlobRepository repo = BlobRepository.open(store, key, SMALL)) {
            blobs = addAll(repo, 40, 1, 10_000);
            repo.flush();
            for (Map.Entry<BlobId, byte[]> e : blobs.entrySet()) {
                assertThat(repo.read(e.getKey())).isEqualTo(e.getValue());
            }
        }
        assertThat(store.allKeys())
                .allSatisfy(k -> assertThat(k).matches("(data/([0-9a-f]{2})/\\2[0-9a-f]{62}|index/[0-9a-f]{64})"));
        assertThat(store.allKeys().stream().filter(k -> k.startsWith("index/"))).hasSize(1);
        try (BlobRepository again = BlobRepository.open(store, key, SMALL)) {
            for (Map.Entry<BlobId, byte[]> e : blobs.entrySet()) {
                assertThat(again.has(e.getKey())).isTrue();
                assertThat(again.read(e.getKey())).isEqualTo(e.getValue());
            }
            RepositoryStats stats = again.stats();
            assertThat(stats.blobs()).isEqualTo(40);
            assertThat(stats.plainBytes()).isEqualTo(400_000);
            assertThat(stats.packs()).isGreaterThan(1);
            long stored = store.allKeys().stream()
                    .filter(k -> k.startsWith("data/"))
                    .mapToLong(k -> store.currentBytes(k).orElseThrow().length)
                    .sum();
            assertThat(stats.storedBytes()).isEqualTo(stored);
        }
    }

    @Test
    void roundTripOnTheLocalObjectStore(@TempDir Path dir) throws Exception {
        MasterKey key = MasterKey.generate();
        Map<BlobId, byte[]> blobs;
        try (LocalObjectStore store = LocalObjectStore.open(dir.resolve("store"));
                BlobRepository repo = BlobRepository.open(store, key, SMALL)) {
            blobs = addAll(repo, 30, 2, 20_000);
            repo.flush();
        }
        try (LocalObjectStore store = LocalObjectStore.open(dir.resolve("store"));
                BlobRepository repo = BlobRepository.open(store, key, SMALL)) {
            Map<BlobId, byte[]> got = new ConcurrentHashMap<>();
            repo.readAll(blobs.keySet(), got::put);
            assertThat(got).hasSameSizeAs(blobs);
            blobs.forEach((id, b) -> assertThat(got.get(id)).isEqualTo(b));
            // No unused space allowed: every dead blob goes, however the 30 landed in packs.
            Set<BlobId> live = Set.copyOf(new ArrayList<>(blobs.keySet()).subList(0, 10));
            PruneStats stats = repo.prune(live, p -> false, MaxUnused.bytes(0));
            assertThat(stats.blobsRemoved()).isEqualTo(20);
            assertThat(stats.unusedBytesLeft()).isZero();
            assertThat(repo.stats().blobs()).isEqualTo(10);
            for (BlobId id : live) {
                assertThat(repo.read(id)).isEqualTo(blobs.get(id));
            }
            assertThat(repo.check(k -> true).ok()).isTrue();
            PruneStats rest = repo.prune(Set.of(), p -> false, MaxUnused.DEFAULT);
            assertThat(stats.blobsRemoved() + rest.blobsRemoved()).isEqualTo(30);
            assertThat(repo.stats().blobs()).isZero();
            assertThat(repo.check(k -> true).ok()).isTrue();
        }
    }

    @Test
    void aBlobKnownAlreadyIsNotStoredAgain() {
        FakeObjectStore store = new FakeObjectStore();
        MasterKey key = MasterKey.generate();
        byte[] b = random(3, 5000);
        try (BlobRepository repo = BlobRepository.open(store, key, SMALL)) {
            BlobId id = repo.id(b, 0, b.length);
            assertThat(repo.has(id)).isFalse();
            assertThat(repo.add(BlobType.DATA, id, b, 0, b.length)).isTrue();
            assertThat(repo.has(id)).isTrue();
            assertThat(repo.add(BlobType.DATA, id, b, 0, b.length)).isFalse();
            repo.flush();
            assertThat(repo.add(BlobType.DATA, id, b, 0, b.length)).isFalse();
            repo.flush();
        }
        try (BlobRepository repo = BlobRepository.open(store, key, SMALL)) {
            assertThat(repo.add(BlobType.DATA, repo.id(b, 0, b.length), b, 0, b.length))
                    .isFalse();
            repo.flush();
            assertThat(repo.stats().blobs()).isEqualTo(1);
        }
        assertThat(store.allKeys().stream().filter(k -> k.startsWith("data/"))).hasSize(1);
        assertThat(store.allKeys().stream().filter(k -> k.startsWith("index/"))).hasSize(1);
    }

    @Test
    void threadsAddingTheSameBlobsStoreEachOnce() throws Exception {
        FakeObjectStore store = new FakeObjectStore();
        MasterKey key = MasterKey.generate();
        List<byte[]> blobs = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            blobs.add(random(1000 + i, 3000));
        }
        int threads = 6;
        AtomicInteger added = new AtomicInteger();
        Map<BlobId, AtomicInteger> addedPerId = new ConcurrentHashMap<>();
        CyclicBarrier start = new CyclicBarrier(threads);
        try (BlobRepository repo = BlobRepository.open(store, key, SMALL)) {
            List<Thread> workers = new ArrayList<>();
            List<Throwable> failures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Thread w = new Thread(() -> {
                    try {
                        start.await();
                        for (byte[] b : blobs) {
                            BlobId id = repo.id(b, 0, b.length);
                            if (repo.add(BlobType.DATA, id, b, 0, b.length)) {
                                added.incrementAndGet();
                                addedPerId
                                        .computeIfAbsent(id, x -> new AtomicInteger())
                                        .incrementAndGet();
                            }
                        }
                    } catch (Throwable e) {
                        synchronized (failures) {
                            failures.add(e);
                        }
                    }
                });
                w.start();
                workers.add(w);
            }
            for (Thread w : workers) {
                w.join();
            }
            assertThat(failures).isEmpty();
            repo.flush();
            assertThat(added.get()).isEqualTo(200);
            assertThat(addedPerId.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
            assertThat(repo.stats().blobs()).isEqualTo(200);
            long blobsInPacks =
                    repo.state.packBlobs.values().stream().mapToLong(List::size).sum();
            assertThat(blobsInPacks).isEqualTo(200);
            for (byte[] b : blobs) {
                assertThat(repo.read(repo.id(b, 0, b.length))).isEqualTo(b);
            }
        }
    }

    @Test
    void incompressibleDataIsStoredUncompressedAndTextCompressed() {
        FakeObjectStore store = new FakeObjectStore();
        MasterKey key = MasterKey.generate();
        byte[] noise = random(4, 100_000);
        byte[] text = compressible(5, 100_000);
        try (BlobRepository repo = BlobRepository.open(store, key, SMALL)) {
            BlobId n = repo.id(noise, 0, noise.length);
            BlobId t = repo.id(text, 0, text.length);
            repo.add(BlobType.DATA, n, noise, 0, noise.length);
            repo.add(BlobType.DATA, t, text, 0, text.length);
            repo.flush();
            BlobLocation ln = repo.find(n).orElseThrow();
            BlobLocation lt = repo.find(t).orElseThrow();
            assertThat(ln.compressed()).isFalse();
            assertThat(ln.length()).isEqualTo(noise.length + MasterKey.OVERHEAD);
            assertThat(lt.compressed()).isTrue();
            assertThat(lt.length()).isLessThan(text.length / 3);
            assertThat(repo.read(n)).isEqualTo(noise);
            assertThat(repo.read(t)).isEqualTo(text);
        }
    }

    @Test
    void compressionLevelZeroStoresEverythingAsIs() {
        FakeObjectStore store = new FakeObjectStore();
        byte[] text = compressible(6, 50_000);
        try (BlobRepository repo = BlobRepository.open(store, MasterKey.generate(), SMALL.withCompressionLevel(0))) {
            BlobId t = repo.id(text, 0, text.length);
            repo.add(BlobType.DATA, t, text, 0, text.length);
            repo.flush();
            assertThat(repo.find(t).orElseThrow().compressed()).isFalse();
            assertThat(repo.read(t)).isEqualTo(text);
        }
    }

    @Test
    void theStoreRevealsNeitherContentNorIds() {
        FakeObjectStore store = new FakeObjectStore();
        byte[] marker = "a-known-file-content-marker-0123456789".getBytes(StandardCharsets.US_ASCII);
        byte[] blob = random(7, 4000);
        System.arraycopy(marker, 0, blob, 1000, marker.length);
        BlobId id;
        try (BlobRepository repo = BlobRepository.open(store, MasterKey.generate(), SMALL)) {
            id = repo.id(blob, 0, blob.length);
            repo.add(BlobType.DATA, id, blob, 0, blob.length);
            repo.flush();
        }
        for (String k : store.allKeys()) {
            byte[] stored = store.currentBytes(k).orElseThrow();
            assertThat(indexOf(stored, marker)).as(k).isEqualTo(-1);
            assertThat(indexOf(stored, id.bytes())).as(k).isEqualTo(-1);
            assertThat(indexOf(stored, id.hex().getBytes(StandardCharsets.US_ASCII)))
                    .as(k)
                    .isEqualTo(-1);
            assertThat(k).doesNotContain(id.hex());
        }
    }

    static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    @Test
    void aBlobLargerThanAPackIsAPackOfItsOwn() {
        FakeObjectStore store = new FakeObjectStore();
        byte[] big = random(8, 200_000);
        byte[] small = random(9, 1000);
        try (BlobRepository repo = BlobRepository.open(store, MasterKey.generate(), SMALL)) {
            BlobId s = repo.id(small, 0, small.length);
            BlobId b = repo.id(big, 0, big.length);
            repo.add(BlobType.DATA, s, small, 0, small.length);
            repo.add(BlobType.DATA, b, big, 0, big.length);
            repo.flush();
            assertThat(repo.find(b).orElseThrow().pack())
                    .isNotEqualTo(repo.find(s).orElseThrow().pack());
            assertThat(repo.read(b)).isEqualTo(big);
            assertThat(repo.read(s)).isEqualTo(small);
        }
    }

    @Test
    void readAllDeliversEachDistinctBlobOnceAndRefusesUnknownIds() throws Exception {
        FakeObjectStore store = new FakeObjectStore();
        try (BlobRepository repo = BlobRepository.open(store, MasterKey.generate(), SMALL)) {
            Map<BlobId, byte[]> blobs = addAll(repo, 50, 10, 7000);
            repo.flush();
            List<BlobId> ids = new ArrayList<>(blobs.keySet());
            ids.addAll(ids.subList(0, 5));
            Map<BlobId, AtomicInteger> seen = new ConcurrentHashMap<>();
            repo.readAll(ids, (id, plain) -> {
                assertThat(plain).isEqualTo(blobs.get(id));
                seen.computeIfAbsent(id, x -> new AtomicInteger()).incrementAndGet();
            });
            assertThat(seen).hasSize(50);
            assertThat(seen.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
            BlobId unknown = BlobId.of(new byte[32]);
            int getsBefore = store.gets.get();
            assertThatThrownBy(() -> repo.readAll(List.of(ids.get(0), unknown), (id, p) -> {}))
                    .isInstanceOf(ObjectNotFoundException.class)
                    .hasMessageContaining(unknown.hex());
            assertThat(store.gets.get()).isEqualTo(getsBefore);
            assertThatThrownBy(() -> repo.read(unknown)).isInstanceOf(ObjectNotFoundException.class);
        }
    }

    @Test
    void readAllGroupsBlobsOfAPackIntoFewGets() throws Exception {
        FakeObjectStore store = new FakeObjectStore();
        try (BlobRepository repo = BlobRepository.open(store, MasterKey.generate(), SMALL)) {
            Map<BlobId, byte[]> blobs = addAll(repo, 60, 11, 3000);
            repo.flush();
            int getsBefore = store.gets.get();
            repo.readAll(blobs.keySet(), (id, p) -> {});
            assertThat(store.gets.get() - getsBefore)
                    .isEqualTo((int) repo.stats().packs());
        }
    }

    /** Small files restored one by one, in the order they were stored: one GET per read-ahead window, not per file. */
    @Test
    void smallBlobsReadOneByOneShareReadAheadWindows() throws Exception {
        FakeObjectStore store = new FakeObjectStore();
        MasterKey key = MasterKey.generate();
        List<BlobId> order = new ArrayList<>();
        Map<BlobId, byte[]> blobs = new HashMap<>();
        try (BlobRepository repo = BlobRepository.open(store, key, SMALL)) {
            for (int i = 0; i < 120; i++) {
                byte[] b = random(500 + i, 1000 + i * 20);
                BlobId id = repo.id(b, 0, b.length);
                repo.add(BlobType.DATA, id, b, 0, b.length);
                order.add(id);
                blobs.put(id, b);
            }
            repo.flush();
        }
        try (BlobRepository repo = BlobRepository.open(store, key, SMALL)) {
            long packs = repo.stats().packs();
            assertThat(packs).isGreaterThan(1);
            int before = store.gets.get();
            for (int i = 0; i < order.size(); i++) {
                BlobId id = order.get(i);
                byte[] got = i % 2 == 0 ? repo.read(id) : readOne(repo, id);
                assertThat(got).isEqualTo(blobs.get(id));
            }
            assertThat(store.gets.get() - before).isEqualTo((int) packs);
        }
    }

    private static byte[] readOne(BlobRepository repo, BlobId id) throws Exception {
        byte[][] out = new byte[1][];
        repo.readAll(List.of(id), (i, plain) -> out[0] = plain);
        return out[0];
    }

    @Test
    void aFailedUploadFailsTheFlushAndLaterAdds() {
        FakeObjectStore store = new FakeObjectStore();
        try (BlobRepository repo = BlobRepository.open(store, MasterKey.generate(), SMALL)) {
            byte[] b = random(12, 1000);
            BlobId id = repo.id(b, 0, b.length);
            repo.add(BlobType.DATA, id, b, 0, b.length);
            store.down(true);
            assertThatThrownBy(repo::flush).isInstanceOf(RuntimeException.class);
            store.down(false);
            assertThat(repo.has(id)).isFalse();
            assertThatThrownBy(() -> repo.add(BlobType.DATA, id, b, 0, b.length))
                    .isInstanceOf(RuntimeException.class);
            assertThatThrownBy(repo::flush).isInstanceOf(RuntimeException.class);
        }
        assertThat(store.allKeys()).noneMatch(k -> k.startsWith("index/"));
    }

    @Test
    void anIndexWriteThatFailedIsWrittenByTheNextFlush() {
        FakeObjectStore fake = new FakeObjectStore();
        AtomicInteger indexPuts = new AtomicInteger();
        ObjectStore store = (ObjectStore) java.lang.reflect.Proxy.newProxyInstance(
                ObjectStore.class.getClassLoader(), new Class<?>[] {ObjectStore.class}, (proxy, method, args) -> {
                    if (method.getName().equals("put")
                            && ((String) args[0]).startsWith("index/")
                            && indexPuts.incrementAndGet() == 1) {
                        throw new dev.ballast.storage.StorageUnavailableException(
                                (String) args[0], "the disk is full", null);
                    }
                    try {
                        return method.invoke(fake, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        MasterKey key = MasterKey.generate();
        Map<BlobId, byte[]> blobs;
        try (BlobRepository repo = BlobRepository.open(store, key, SMALL)) {
            blobs = addAll(repo, 10, 30, 9000);
            assertThatThrownBy(repo::flush).hasMessageContaining("the disk is full");
            assertThat(fake.allKeys()).noneMatch(k -> k.startsWith("index/"));
            BlobId first = blobs.keySet().iterator().next();
            assertThat(repo.has(first)).isTrue();
            repo.flush();
        }
        try (BlobRepository repo = BlobRepository.open(fake, key, SMALL)) {
            blobs.forEach((id, b) -> assertThat(repo.read(id)).isEqualTo(b));
        }
    }

    @Test
    void treeBlobsAndDataBlobsKeepTheirTypes() {
        FakeObjectStore store = new FakeObjectStore();
        MasterKey key = MasterKey.generate();
        byte[] t = "{\"tree\":1}".getBytes(StandardCharsets.UTF_8);
        byte[] d = random(13, 3000);
        try (BlobRepository repo = BlobRepository.open(store, key, SMALL)) {
            repo.add(BlobType.TREE, repo.id(t, 0, t.length), t, 0, t.length);
            repo.add(BlobType.DATA, repo.id(d, 0, d.length), d, 0, d.length);
            repo.flush();
        }
        try (BlobRepository repo = BlobRepository.open(store, key, SMALL)) {
            BlobId tid = repo.id(t, 0, t.length);
            assertThat(repo.find(tid).orElseThrow().type()).isEqualTo(BlobType.TREE);
            assertThat(repo.read(tid)).isEqualTo(t);
            assertThat(Arrays.equals(repo.read(repo.id(d, 0, d.length)), d)).isTrue();
        }
    }

    @Test
    void aRepositoryOpenedWithAnotherKeyReadsNothing() {
        FakeObjectStore store = new FakeObjectStore();
        try (BlobRepository repo = BlobRepository.open(store, MasterKey.generate(), SMALL)) {
            addAll(repo, 3, 14, 1000);
            repo.flush();
        }
        assertThatThrownBy(
                        () -> BlobRepository.open(store, MasterKey.generate(), SMALL.withTolerateDamagedIndex(false)))
                .isInstanceOf(dev.ballast.storage.IntegrityException.class)
                .hasMessageContaining("index/");
        // tolerating damaged index files: none opens, and no pack's header either
        try (BlobRepository other = BlobRepository.open(store, MasterKey.generate(), SMALL)) {
            assertThat(other.damagedIndexFiles()).isNotEmpty();
            assertThat(other.stats().blobs()).isZero();
        }
    }

    static ObjectStore unused() {
        return new FakeObjectStore();
    }
}
