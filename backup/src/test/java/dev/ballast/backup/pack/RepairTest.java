package dev.ballast.backup.pack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.backup.keys.MasterKey;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.test.FakeObjectStore;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@link BlobRepository#repair}: a missing pack dropped from the index, a damaged one salvaged, a damaged
 * index file replaced; and a crash after any of its writes and deletes leaves a store that reads.
 */
class RepairTest {
    private static final PackOptions OPTIONS = PackOptions.defaults().withPackSize(100_000);

    /** Three packs of ten blobs, each flushed on its own: A with its fourth blob damaged, B intact, C gone (every version). */
    private static final class Fixture {
        final FakeObjectStore store = new FakeObjectStore();
        final MasterKey key = MasterKey.generate();
        final List<List<BlobId>> groups = new ArrayList<>();
        final Map<BlobId, byte[]> bytes = new LinkedHashMap<>();
        final String a;
        final String b;
        final String c;

        Fixture() {
            try (BlobRepository repo = BlobRepository.open(store, key, OPTIONS)) {
                for (int g = 0; g < 3; g++) {
                    List<BlobId> ids = new ArrayList<>();
                    for (int i = 0; i < 10; i++) {
                        byte[] plain = BlobRepositoryTest.random(g * 100 + i, 10_000);
                        BlobId id = repo.id(plain, 0, plain.length);
                        repo.add(BlobType.DATA, id, plain, 0, plain.length);
                        ids.add(id);
                        bytes.put(id, plain);
                    }
                    repo.flush();
                    groups.add(ids);
                }
                a = repo.find(groups.get(0).get(0)).orElseThrow().pack();
                b = repo.find(groups.get(1).get(0)).orElseThrow().pack();
                c = repo.find(groups.get(2).get(0)).orElseThrow().pack();
                BlobLocation fourth = repo.find(groups.get(0).get(3)).orElseThrow();
                byte[] packBytes = store.currentBytes(a).orElseThrow();
                packBytes[(int) fourth.offset() + 100] ^= 0x10;
                store.plant(a, packBytes, null, 0);
            }
            // every version removed: a pack deleted by a delete marker alone is brought back by repair
            // (Salvage#undelete; PackDamageCliTest), so C is really gone
            for (var v : store.versions(c)) {
                store.deleteVersion(c, v.versionId());
            }
        }

        BlobId damaged() {
            return groups.get(0).get(3);
        }

        /** Every blob of A but the damaged one, and every blob of B. */
        List<BlobId> intact() {
            List<BlobId> ids = new ArrayList<>(groups.get(0));
            ids.remove(damaged());
            ids.addAll(groups.get(1));
            return ids;
        }

        List<String> packs() {
            return store.allKeys().stream()
                    .filter(k -> k.startsWith("data/") && store.currentBytes(k).isPresent())
                    .toList();
        }

        void assertIntactReadable(String when) {
            try (BlobRepository repo = BlobRepository.open(store, key, OPTIONS)) {
                for (BlobId id : intact()) {
                    assertThat(repo.read(id)).as("%s: blob %s", when, id).isEqualTo(bytes.get(id));
                }
            }
        }
    }

    /**
     * A path to the store that changes the middle byte of every read of a pack (a tester's proxy in front
     * of Ceph RGW): the store refuses each whole read (its SHA-256 does not match), and each range comes
     * with one byte changed. Nothing in the store is damaged.
     */
    private static final class AlteringPath extends FakeObjectStore {
        volatile boolean altering;

        @Override
        public dev.ballast.storage.object.ObjectRead get(String key, dev.ballast.storage.object.ReadOptions o) {
            dev.ballast.storage.object.ObjectRead r = super.get(key, o);
            if (!altering || !key.startsWith("data/")) {
                return r;
            }
            if (o.range() == null) {
                r.close();
                throw new IntegrityException(key, "the SHA-256 of '" + key + "' does not match the stored one");
            }
            return AlteredReads.middleByteChanged(r);
        }
    }

    @Test
    void aPackWhoseReadsDisagreeIsNeitherSalvagedNorDeleted() {
        AlteringPath store = new AlteringPath();
        MasterKey key = MasterKey.generate();
        Map<BlobId, byte[]> bytes = new LinkedHashMap<>();
        String pack;
        try (BlobRepository repo = BlobRepository.open(store, key, OPTIONS)) {
            for (int i = 0; i < 10; i++) {
                byte[] plain = BlobRepositoryTest.random(900 + i, 10_000);
                BlobId id = repo.id(plain, 0, plain.length);
                repo.add(BlobType.DATA, id, plain, 0, plain.length);
                bytes.put(id, plain);
            }
            repo.flush();
            pack = repo.find(bytes.keySet().iterator().next()).orElseThrow().pack();
        }
        byte[] stored = store.currentBytes(pack).orElseThrow();
        store.altering = true;
        try (BlobRepository repo = BlobRepository.open(store, key, OPTIONS)) {
            assertThatThrownBy(() -> repo.repair(k -> true))
                    .isInstanceOf(dev.ballast.storage.StorageUnavailableException.class)
                    .hasMessageContaining("reads differently from one read to the next")
                    .hasMessageContaining("nothing was deleted");
        }
        store.altering = false;
        assertThat(store.currentBytes(pack))
                .hasValueSatisfying(b -> assertThat(b).isEqualTo(stored));
        try (BlobRepository repo = BlobRepository.open(store, key, OPTIONS)) {
            bytes.forEach((id, plain) -> assertThat(repo.read(id)).isEqualTo(plain));
        }
    }

    @Test
    void aMissingPackIsDroppedAndADamagedOneSalvagedSoTheirBlobsAreAbsent() {
        Fixture f = new Fixture();
        try (BlobRepository repo = BlobRepository.open(f.store, f.key, OPTIONS)) {
            // the open's listing already found C missing: its blobs are absent, reads name the pack
            assertThat(repo.missingPacks()).containsExactly(Map.entry(f.c, 10));
            assertThat(repo.lostBlobs()).isEqualTo(10);
            assertThat(repo.has(f.groups.get(2).get(0))).isFalse();
            assertThatThrownBy(() -> repo.read(f.groups.get(2).get(0)))
                    .isInstanceOfSatisfying(
                            ObjectNotFoundException.class,
                            e -> assertThat(e.key()).isEqualTo(f.c));
            // the damaged blob is still named: only reading the pack finds it
            assertThat(repo.has(f.damaged())).isTrue();

            RepairReport indexOnly = repo.repair(k -> false);
            assertThat(indexOnly.missingPacks()).containsExactly(f.c);
            assertThat(indexOnly.salvagedPacks()).isEmpty();
            assertThat(indexOnly.blobsLost()).isEqualTo(10);

            RepairReport read = repo.repair(k -> true);
            assertThat(read.packsRead()).isEqualTo(2);
            assertThat(read.salvagedPacks()).containsExactly(f.a);
            assertThat(read.missingPacks()).isEmpty();
            assertThat(read.blobsLost()).isEqualTo(1);
            assertThat(read.damage()).extracting(CheckReport.Damage::blob).containsExactly(f.damaged());
            assertThat(repo.has(f.damaged())).isFalse();
            assertThat(repo.missingPacks()).isEmpty();
        }
        assertThat(f.packs()).hasSize(2).contains(f.b).doesNotContain(f.a, f.c);
        f.assertIntactReadable("after the repair");
        try (BlobRepository repo = BlobRepository.open(f.store, f.key, OPTIONS.withTolerateDamagedIndex(false))) {
            assertThat(repo.check(k -> true).ok()).isTrue();
            assertThat(repo.has(f.damaged())).isFalse();
            // nothing left to repair: nothing is written
            int puts = f.store.keysPut().size();
            RepairReport again = repo.repair(k -> true);
            assertThat(again.changed()).isFalse();
            assertThat(f.store.keysPut()).hasSize(puts);
            // the blob stored again (a backup of a source that still has it) is found and read
            byte[] plain = f.bytes.get(f.damaged());
            assertThat(repo.add(BlobType.DATA, f.damaged(), plain, 0, plain.length))
                    .isTrue();
            repo.flush();
            assertThat(repo.read(f.damaged())).isEqualTo(plain);
        }
    }

    @Test
    void aDamagedIndexFileIsReplacedFromThePacksHeaders() {
        Fixture f = new Fixture();
        String index = f.store.allKeys().stream()
                .filter(k -> k.startsWith("index/"))
                .sorted()
                .findFirst()
                .orElseThrow();
        byte[] damaged = f.store.currentBytes(index).orElseThrow();
        damaged[damaged.length / 2] ^= 1;
        f.store.plant(index, damaged, null, 0);
        try (BlobRepository repo = BlobRepository.open(f.store, f.key, OPTIONS)) {
            assertThat(repo.damagedIndexFiles())
                    .extracting(CheckReport.Damage::key)
                    .containsExactly(index);
            RepairReport r = repo.repair(k -> false);
            assertThat(r.indexFilesReplaced()).containsExactly(index);
        }
        assertThat(f.store.currentBytes(index)).isEmpty();
        f.assertIntactReadable("after the index was replaced");
        try (BlobRepository repo = BlobRepository.open(f.store, f.key, OPTIONS.withTolerateDamagedIndex(false))) {
            assertThat(repo.damagedIndexFiles()).isEmpty();
            assertThat(repo.has(f.groups.get(1).get(9))).isTrue();
        }
    }

    /** A crash after any number of the repair's writes and deletes leaves a store that reads; a re-run finishes. */
    @Test
    void aCrashAtAnyStepOfARepairLeavesAReadableStore() {
        int steps;
        {
            Fixture f = new Fixture();
            AtomicInteger count = new AtomicInteger();
            try (BlobRepository repo =
                    BlobRepository.open(CrashingStore.over(f.store, Integer.MAX_VALUE, count), f.key, OPTIONS)) {
                repo.repair(k -> true);
            }
            steps = count.get();
        }
        // a new pack, an index file, three old index files, the damaged pack
        assertThat(steps).isGreaterThanOrEqualTo(6);
        for (int allowed = 0; allowed < steps; allowed++) {
            Fixture f = new Fixture();
            AtomicInteger count = new AtomicInteger();
            try (BlobRepository repo =
                    BlobRepository.open(CrashingStore.over(f.store, allowed, count), f.key, OPTIONS)) {
                assertThatThrownBy(() -> repo.repair(k -> true)).isInstanceOf(CrashingStore.Crash.class);
            }
            f.assertIntactReadable("after a crash at step " + allowed);
            try (BlobRepository repo = BlobRepository.open(f.store, f.key, OPTIONS)) {
                if (repo.has(f.damaged())) {
                    assertThatThrownBy(() -> repo.read(f.damaged())).isInstanceOf(IntegrityException.class);
                }
                repo.repair(k -> true);
                assertThat(repo.check(k -> true).ok())
                        .as("after a crash at step %d", allowed)
                        .isTrue();
                if (repo.has(f.damaged())) {
                    // a crash between deleting the damaged pack's versions left its older, intact version
                    assertThat(repo.read(f.damaged())).isEqualTo(f.bytes.get(f.damaged()));
                }
            }
            f.assertIntactReadable("after a re-run following a crash at step " + allowed);
            assertThat(f.packs())
                    .as("after a crash at step %d", allowed)
                    .contains(f.b)
                    .doesNotContain(f.c);
        }
    }
}
