package dev.ballast.backup.pack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.backup.keys.MasterKey;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.test.FakeObjectStore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Damaged packs and index files: an IntegrityException or a damage report naming the object, never wrong bytes. */
class DamageTest {
    private static final PackOptions OPTIONS = PackOptions.defaults().withPackSize(100_000);

    private final FakeObjectStore store = new FakeObjectStore();
    private final MasterKey key = MasterKey.generate();
    private final Map<BlobId, byte[]> blobs = new LinkedHashMap<>();
    private final List<BlobId> ids = new ArrayList<>();

    /** Ten incompressible 10,000-byte blobs, one pack. */
    private String onePack() {
        return onePack(store);
    }

    private String onePack(FakeObjectStore into) {
        try (BlobRepository repo = BlobRepository.open(into, key, OPTIONS)) {
            for (int i = 0; i < 10; i++) {
                byte[] b = BlobRepositoryTest.random(i, 10_000);
                BlobId id = repo.id(b, 0, b.length);
                repo.add(BlobType.DATA, id, b, 0, b.length);
                blobs.put(id, b);
                ids.add(id);
            }
            repo.flush();
            return repo.find(ids.get(0)).orElseThrow().pack();
        }
    }

    private String indexFile() {
        return store.allKeys().stream()
                .filter(k -> k.startsWith("index/"))
                .findFirst()
                .orElseThrow();
    }

    private BlobRepository open() {
        return BlobRepository.open(store, key, OPTIONS);
    }

    /** Bytes changed where no store checksum notices: only the repository's own checks can. */
    private void replace(String objectKey, byte[] bytes) {
        store.plant(objectKey, bytes, null, 0);
    }

    @Test
    void aFlippedByteInAPackFailsThatBlobNamingPackAndBlob() throws Exception {
        String pack = onePack();
        byte[] bytes = store.currentBytes(pack).orElseThrow();
        try (BlobRepository repo = open()) {
            BlobLocation third = repo.find(ids.get(2)).orElseThrow();
            bytes[(int) third.offset() + 500] ^= 0x20;
            replace(pack, bytes);
            assertThatThrownBy(() -> repo.read(ids.get(2)))
                    .isInstanceOfSatisfying(
                            IntegrityException.class, e -> assertThat(e.key()).isEqualTo(pack))
                    .hasMessageContaining(ids.get(2).hex())
                    .hasMessageContaining(pack);
            assertThat(repo.read(ids.get(3))).isEqualTo(blobs.get(ids.get(3)));
            assertThatThrownBy(() ->
                            repo.readAll(ids, (id, plain) -> assertThat(plain).isEqualTo(blobs.get(id))))
                    .isInstanceOf(IntegrityException.class)
                    .hasMessageContaining(ids.get(2).hex());
            CheckReport report = repo.check(k -> true);
            assertThat(report.ok()).isFalse();
            assertThat(report.damage()).singleElement().satisfies(d -> {
                assertThat(d.key()).isEqualTo(pack);
                assertThat(d.blob()).isEqualTo(ids.get(2));
            });
            assertThat(report.blobsRead()).isEqualTo(10);
            // a listing-only check reads nothing and finds nothing wrong with the pack's size
            assertThat(repo.check(k -> false).ok()).isTrue();
        }
    }

    /** A blob damaged inside a read-ahead window fetched for its neighbour is caught when it is opened from the window. */
    @Test
    void aDamagedBlobInAReadAheadWindowIsStillRefused() {
        String pack = onePack();
        byte[] bytes = store.currentBytes(pack).orElseThrow();
        try (BlobRepository repo = open()) {
            BlobLocation sixth = repo.find(ids.get(6)).orElseThrow();
            bytes[(int) sixth.offset() + 77] ^= 4;
            replace(pack, bytes);
            int before = store.gets.get();
            assertThat(repo.read(ids.get(5))).isEqualTo(blobs.get(ids.get(5)));
            assertThatThrownBy(() -> repo.read(ids.get(6)))
                    .isInstanceOfSatisfying(
                            IntegrityException.class, e -> assertThat(e.key()).isEqualTo(pack))
                    .hasMessageContaining(ids.get(6).hex());
            assertThat(repo.read(ids.get(7))).isEqualTo(blobs.get(ids.get(7)));
            assertThat(store.gets.get() - before)
                    .as("one window served the first, the damaged blob was read once more, checked by the store,"
                            + " and the cache dropped then")
                    .isEqualTo(3);
        }
    }

    /**
     * Field case: a proxy changed one byte of a pack's ranged GET on its way; the store was intact. A
     * pack is read as stored (its blobs are authenticated here), so the blob did not open, and the
     * restore said the store was damaged (exit 4) and advised a repair. A blob that does not open is
     * read again, checked by the store, and only then called damaged.
     */
    @Test
    void aByteChangedOnItsWayIsReadAgainAndNeverCalledDamage() throws Exception {
        java.util.concurrent.atomic.AtomicInteger flips = new java.util.concurrent.atomic.AtomicInteger();
        FakeObjectStore onTheWay = new FakeObjectStore() {
            @Override
            public dev.ballast.storage.object.ObjectRead get(String key, dev.ballast.storage.object.ReadOptions o) {
                dev.ballast.storage.object.ObjectRead r = super.get(key, o);
                if (!key.startsWith("data/") || o.range() == null || o.verifyRange() || flips.get() == 0) {
                    return r;
                }
                byte[] bytes;
                try (r) {
                    bytes = r.stream().readAllBytes();
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
                flips.decrementAndGet();
                bytes[bytes.length / 2] ^= 0x10;
                return AlteredReads.withStream(r, new java.io.ByteArrayInputStream(bytes));
            }
        };
        onePack(onTheWay);
        flips.set(1);
        try (BlobRepository repo = BlobRepository.open(onTheWay, key, OPTIONS)) {
            assertThat(repo.read(ids.get(4))).isEqualTo(blobs.get(ids.get(4)));
        }
        assertThat(flips.get())
                .as("the changed read was served, and read again")
                .isZero();
        flips.set(1);
        try (BlobRepository repo = BlobRepository.open(onTheWay, key, OPTIONS)) {
            Map<BlobId, byte[]> read = new LinkedHashMap<>();
            repo.readAll(ids, (id, plain) -> read.put(id, plain.clone()));
            assertThat(read).containsOnlyKeys(ids);
            ids.forEach(id -> assertThat(read.get(id)).isEqualTo(blobs.get(id)));
        }
        assertThat(flips.get())
                .as("the changed read was served, and read again")
                .isZero();
    }

    /**
     * Field case: a proxy cut every answer for a pack halfway, and each resume too; the restore named
     * every file "could not be written (EOF reached while reading)", exit 1, and check called it a local
     * file operation. A read of the store that breaks off is the store's failure.
     */
    @Test
    void aReadOfThePackThatBreaksOffIsTheStoresFailureNotALocalOne() {
        java.util.concurrent.atomic.AtomicBoolean cutting = new java.util.concurrent.atomic.AtomicBoolean();
        FakeObjectStore cut = new FakeObjectStore() {
            @Override
            public dev.ballast.storage.object.ObjectRead get(String key, dev.ballast.storage.object.ReadOptions o) {
                dev.ballast.storage.object.ObjectRead r = super.get(key, o);
                if (!cutting.get() || !key.startsWith("data/")) {
                    return r;
                }
                java.io.InputStream in = new java.io.InputStream() {
                    @Override
                    public int read() throws java.io.IOException {
                        throw new java.io.EOFException("EOF reached while reading");
                    }
                };
                return AlteredReads.withStream(r, in);
            }
        };
        onePack(cut);
        cutting.set(true);
        try (BlobRepository repo = BlobRepository.open(cut, key, OPTIONS)) {
            assertThatThrownBy(() -> repo.read(ids.get(3)))
                    .isInstanceOf(dev.ballast.storage.StorageUnavailableException.class)
                    .hasMessageContaining("broke off (EOF reached while reading)");
        }
    }

    @Test
    void bitRotTheStoreNoticesStillNamesTheBlob() {
        String pack = onePack();
        try (BlobRepository repo = open()) {
            BlobLocation first = repo.find(ids.get(0)).orElseThrow();
            store.rotByte(pack, first.offset() + 10);
            assertThatThrownBy(() -> repo.read(ids.get(0)))
                    .isInstanceOfSatisfying(
                            IntegrityException.class, e -> assertThat(e.key()).isEqualTo(pack))
                    .hasMessageContaining(ids.get(0).hex());
            assertThat(repo.check(k -> true).damage())
                    .extracting(CheckReport.Damage::key)
                    .contains(pack);
        }
    }

    @Test
    void aTruncatedPackIsDamageNotShortBytes() {
        String pack = onePack();
        byte[] bytes = store.currentBytes(pack).orElseThrow();
        replace(pack, Arrays.copyOf(bytes, 45_000));
        try (BlobRepository repo = open()) {
            assertThat(repo.read(ids.get(1))).isEqualTo(blobs.get(ids.get(1)));
            for (int i : new int[] {4, 9}) {
                assertThatThrownBy(() -> repo.read(ids.get(i)))
                        .isInstanceOfSatisfying(
                                IntegrityException.class,
                                e -> assertThat(e.key()).isEqualTo(pack))
                        .hasMessageContaining(ids.get(i).hex())
                        .hasMessageContaining("cut");
            }
            // the listing alone names the pack's size and, from the index, the blobs past its end
            CheckReport listing = repo.check(k -> false);
            assertThat(listing.damage()).extracting(CheckReport.Damage::key).containsOnly(pack);
            assertThat(listing.damage())
                    .filteredOn(d -> d.blob() == null)
                    .singleElement()
                    .satisfies(d -> assertThat(d.reason()).contains("45000 bytes"));
            assertThat(listing.damage()).extracting(CheckReport.Damage::blob).contains(ids.get(4), ids.get(9));
            assertThat(listing.damage())
                    .extracting(CheckReport.Damage::blob)
                    .doesNotContain(ids.get(0), ids.get(1), ids.get(3));
            CheckReport read = repo.check(k -> true);
            assertThat(read.damage()).extracting(CheckReport.Damage::key).containsOnly(pack);
            assertThat(read.damage()).extracting(CheckReport.Damage::blob).contains(ids.get(4), ids.get(9));
            assertThat(read.damage()).extracting(CheckReport.Damage::blob).doesNotContain(ids.get(0), ids.get(3));
        }
    }

    @Test
    void swappedBlobsDoNotOpenInEachOthersPlace() {
        String pack = onePack();
        byte[] bytes = store.currentBytes(pack).orElseThrow();
        try (BlobRepository repo = open()) {
            BlobLocation a = repo.find(ids.get(1)).orElseThrow();
            BlobLocation b = repo.find(ids.get(5)).orElseThrow();
            assertThat(a.length()).isEqualTo(b.length());
            byte[] swapped = bytes.clone();
            System.arraycopy(bytes, (int) a.offset(), swapped, (int) b.offset(), a.length());
            System.arraycopy(bytes, (int) b.offset(), swapped, (int) a.offset(), b.length());
            replace(pack, swapped);
            assertThatThrownBy(() -> repo.read(ids.get(1)))
                    .isInstanceOf(IntegrityException.class)
                    .hasMessageContaining(ids.get(1).hex())
                    .hasMessageContaining(pack);
            assertThatThrownBy(() -> repo.read(ids.get(5))).isInstanceOf(IntegrityException.class);
            assertThat(repo.check(k -> true).damage())
                    .extracting(CheckReport.Damage::blob)
                    .containsExactlyInAnyOrder(ids.get(1), ids.get(5));
        }
    }

    @Test
    void aBlobInAnotherPackAtTheIndexedPlaceIsRefused() {
        // the same blob bytes sealed for another ID: what a forged or mixed-up index would point at
        String pack = onePack();
        byte[] bytes = store.currentBytes(pack).orElseThrow();
        try (BlobRepository repo = open()) {
            BlobLocation a = repo.find(ids.get(0)).orElseThrow();
            byte[] other = BlobRepositoryTest.random(999, 10_000);
            BlobCodec.Sealed forged = BlobCodec.encode(key, 3, BlobType.DATA, ids.get(0), other, 0, other.length);
            assertThat(forged.bytes().length).isEqualTo(a.length());
            System.arraycopy(forged.bytes(), 0, bytes, (int) a.offset(), a.length());
            replace(pack, bytes);
            assertThatThrownBy(() -> repo.read(ids.get(0)))
                    .isInstanceOf(IntegrityException.class)
                    .hasMessageContaining("holds other bytes than its ID names");
        }
    }

    @Test
    void aDamagedIndexFileIsNamedAndTheIndexCanBeRebuilt() {
        String pack = onePack();
        String index = indexFile();
        byte[] bytes = store.currentBytes(index).orElseThrow();
        bytes[bytes.length / 2] ^= 1;
        replace(index, bytes);
        assertThatThrownBy(() -> BlobRepository.open(store, key, OPTIONS.withTolerateDamagedIndex(false)))
                .isInstanceOfSatisfying(
                        IntegrityException.class, e -> assertThat(e.key()).isEqualTo(index))
                .hasMessageContaining(index);
        // By default the damaged file is skipped and the pack it named found from its own header.
        try (BlobRepository repo = open()) {
            assertThat(repo.damagedIndexFiles())
                    .singleElement()
                    .satisfies(d -> assertThat(d.key()).isEqualTo(index));
            assertThat(repo.has(ids.get(0))).isTrue();
            assertThat(repo.read(ids.get(3))).isEqualTo(blobs.get(ids.get(3)));
            CheckReport report = repo.check(k -> true);
            assertThat(report.damage()).extracting(CheckReport.Damage::key).containsExactly(index);
            assertThatThrownBy(() -> repo.prune(Set.of(), p -> false, MaxUnused.DEFAULT))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(index);
            assertThat(store.currentBytes(pack)).isPresent();
            CheckReport rebuilt = repo.rebuildIndex();
            assertThat(rebuilt.ok()).isTrue();
            assertThat(repo.read(ids.get(7))).isEqualTo(blobs.get(ids.get(7)));
        }
        assertThat(store.currentBytes(index)).isEmpty();
        try (BlobRepository repo = BlobRepository.open(store, key, OPTIONS.withTolerateDamagedIndex(false))) {
            for (BlobId id : ids) {
                assertThat(repo.read(id)).isEqualTo(blobs.get(id));
            }
        }
    }

    @Test
    void aPackWhoseIndexFileIsGoneIsReadFromItsHeaderButNeverDeduplicatedAgainst() throws Exception {
        String pack = onePack();
        store.delete(indexFile());
        try (BlobRepository repo = open()) {
            // strict for a backup: a blob only a pack no index names holds is not there to reuse
            assertThat(repo.has(ids.get(0))).isFalse();
            assertThat(repo.find(ids.get(0))).isEmpty();
            assertThat(repo.unindexedPacksRead()).isEmpty();
            // a read finds it from the pack's own header, and says which pack that was
            assertThat(repo.read(ids.get(4))).isEqualTo(blobs.get(ids.get(4)));
            Map<BlobId, byte[]> read = new java.util.concurrent.ConcurrentHashMap<>();
            repo.readAll(ids, (id, plain) -> read.put(id, plain));
            assertThat(read).hasSize(ids.size());
            ids.forEach(id -> assertThat(read.get(id)).isEqualTo(blobs.get(id)));
            assertThat(repo.findReadable(ids.get(9)).orElseThrow().pack()).isEqualTo(pack);
            assertThat(repo.unindexedPacksRead()).containsExactly(pack);
            assertThat(repo.has(ids.get(0))).isFalse();
            // a blob no pack holds is still not found
            BlobId none = BlobId.of(new byte[32]);
            assertThatThrownBy(() -> repo.read(none)).isInstanceOf(ObjectNotFoundException.class);
            assertThat(repo.findReadable(none)).isEmpty();
        }
    }

    @Test
    void aPackNoIndexNamesWhoseHeaderDoesNotOpenIsNamedWhenALookupMissesTheIndex() {
        String pack = onePack();
        store.delete(indexFile());
        byte[] bytes = store.currentBytes(pack).orElseThrow();
        bytes[bytes.length - 30] ^= 0x01; // in the sealed header
        replace(pack, bytes);
        try (BlobRepository repo = open()) {
            assertThat(repo.unindexedPacksUnreadable()).isEmpty();
            assertThat(repo.findReadable(ids.get(0))).isEmpty();
            assertThat(repo.unindexedPacksUnreadable()).containsExactly(pack);
            assertThat(repo.unindexedPacksRead()).isEmpty();
        }
    }

    /**
     * A span read on the only read thread whose blob does not open falls back to a pack no index names:
     * the headers of such packs must not be read on the read pool, which that thread is the whole of (it
     * would wait for itself).
     */
    @Test
    @org.junit.jupiter.api.Timeout(value = 60, unit = java.util.concurrent.TimeUnit.SECONDS)
    void aSpanReadOnTheOnlyReadThreadFallsBackToAPackNoIndexNames() throws Exception {
        String pack = onePack();
        // the same blobs again in a pack no index names (its index file lost)
        FakeObjectStore other = new FakeObjectStore();
        try (BlobRepository repo = BlobRepository.open(other, key, OPTIONS)) {
            for (BlobId id : ids) {
                byte[] b = blobs.get(id);
                repo.add(BlobType.DATA, id, b, 0, b.length);
            }
            repo.flush();
        }
        for (String k : other.allKeys()) {
            if (k.startsWith("data/")) {
                store.plant(k, other.currentBytes(k).orElseThrow(), null, 0);
            }
        }
        byte[] bytes = store.currentBytes(pack).orElseThrow();
        BlobLocation third;
        try (BlobRepository repo = open()) {
            third = repo.find(ids.get(2)).orElseThrow();
        }
        bytes[(int) third.offset() + 50] ^= 0x01;
        replace(pack, bytes);
        try (BlobRepository repo = BlobRepository.open(store, key, OPTIONS.withReadThreads(1))) {
            Map<BlobId, byte[]> read = new java.util.concurrent.ConcurrentHashMap<>();
            repo.readAllBorrowed(ids, (id, plain, n) -> read.put(id, Arrays.copyOf(plain, n)));
            ids.forEach(id -> assertThat(read.get(id)).isEqualTo(blobs.get(id)));
            assertThat(repo.packsReadAround()).containsExactly(pack);
        }
    }

    @Test
    void anIndexFileWhoseBytesDoNotHashToItsNameIsDamaged() {
        onePack();
        String index = indexFile();
        String other = "index/" + "0".repeat(64);
        store.plant(other, store.currentBytes(index).orElseThrow(), null, 0);
        assertThatThrownBy(() -> BlobRepository.open(store, key, OPTIONS.withTolerateDamagedIndex(false)))
                .isInstanceOf(IntegrityException.class)
                .hasMessageContaining(other)
                .hasMessageContaining("does not hash to its name");
    }

    @Test
    void aMissingPackIsReportedAndItsBlobsNotFound() {
        String pack = onePack();
        store.delete(pack);
        try (BlobRepository repo = open()) {
            assertThatThrownBy(() -> repo.read(ids.get(0)))
                    .isInstanceOfSatisfying(
                            ObjectNotFoundException.class,
                            e -> assertThat(e.key()).isEqualTo(pack));
            assertThat(repo.check(k -> true).damage()).singleElement().satisfies(d -> {
                assertThat(d.key()).isEqualTo(pack);
                assertThat(d.reason()).contains("missing");
            });
        }
    }

    @Test
    void packsOfARunThatNeverWroteItsIndexAreIndexedByARebuild() {
        try (BlobRepository repo = BlobRepository.open(store, key, OPTIONS.withPackSize(20_000))) {
            for (int i = 0; i < 6; i++) {
                byte[] b = BlobRepositoryTest.random(100 + i, 10_000);
                BlobId id = repo.id(b, 0, b.length);
                repo.add(BlobType.DATA, id, b, 0, b.length);
                blobs.put(id, b);
                ids.add(id);
            }
            // killed before flush: three full packs were uploaded, no index names them
        }
        assertThat(store.allKeys()).noneMatch(k -> k.startsWith("index/"));
        try (BlobRepository repo = open()) {
            assertThat(repo.has(ids.get(0))).isFalse();
            CheckReport rebuilt = repo.rebuildIndex();
            assertThat(rebuilt.packsChecked()).isEqualTo(3);
            assertThat(rebuilt.ok()).isTrue();
            for (BlobId id : ids) {
                assertThat(repo.read(id)).isEqualTo(blobs.get(id));
            }
        }
        try (BlobRepository repo = open()) {
            assertThat(repo.stats().blobs()).isEqualTo(6);
            assertThat(repo.check(k -> true).ok()).isTrue();
        }
    }

    @Test
    void aPackWhoseHeaderDoesNotOpenIsLeftAndReportedByARebuild() {
        String pack = onePack();
        store.delete(indexFile());
        byte[] bytes = store.currentBytes(pack).orElseThrow();
        bytes[bytes.length - 10] ^= 1; // inside the sealed header
        replace(pack, bytes);
        try (BlobRepository repo = open()) {
            CheckReport rebuilt = repo.rebuildIndex();
            assertThat(rebuilt.damage()).singleElement().satisfies(d -> {
                assertThat(d.key()).isEqualTo(pack);
                assertThat(d.reason()).contains("header");
            });
            assertThat(rebuilt.unindexedPacks()).containsExactly(pack);
            assertThat(repo.has(ids.get(0))).isFalse();
        }
    }
}
