package dev.ballast.backup.pack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.backup.keys.MasterKey;
import dev.ballast.test.FakeObjectStore;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class PruneTest {
    private static final PackOptions OPTIONS = PackOptions.defaults().withPackSize(100_000);
    private static final int BLOB = 10_000;

    /** Three packs of ten incompressible blobs each: A, B, C (each flushed on its own). */
    private static final class Fixture {
        final FakeObjectStore store = new FakeObjectStore();
        final MasterKey key = MasterKey.generate();
        final List<List<BlobId>> groups = new ArrayList<>();
        final Map<BlobId, byte[]> bytes = new LinkedHashMap<>();

        Fixture() {
            try (BlobRepository repo = BlobRepository.open(store, key, OPTIONS)) {
                for (int g = 0; g < 3; g++) {
                    List<BlobId> ids = new ArrayList<>();
                    for (int i = 0; i < 10; i++) {
                        byte[] b = BlobRepositoryTest.random(g * 100 + i, BLOB);
                        BlobId id = repo.id(b, 0, b.length);
                        repo.add(BlobType.DATA, id, b, 0, b.length);
                        ids.add(id);
                        bytes.put(id, b);
                    }
                    repo.flush();
                    groups.add(ids);
                }
                assertThat(repo.stats().packs()).isEqualTo(3);
            }
        }

        /** A dead, half of B dead, one blob of C dead. */
        Set<BlobId> live() {
            Set<BlobId> live = new HashSet<>();
            live.addAll(groups.get(1).subList(0, 5));
            live.addAll(groups.get(2).subList(1, 10));
            return live;
        }

        /**
         * A run that adds {@code count} blobs (seeds from {@code seed}) in packs of two and dies before its
         * flush: its full packs were uploaded, no index names them.
         */
        void runKilledBeforeItsIndex(int seed, int count) {
            try (BlobRepository repo = BlobRepository.open(store, key, OPTIONS.withPackSize(20_000))) {
                for (int i = 0; i < count; i++) {
                    byte[] b = BlobRepositoryTest.random(seed + i, BLOB);
                    repo.add(BlobType.DATA, repo.id(b, 0, b.length), b, 0, b.length);
                }
            }
        }

        List<String> packs() {
            return store.allKeys().stream().filter(k -> k.startsWith("data/")).toList();
        }

        String packOf(int group) {
            try (BlobRepository repo = BlobRepository.open(store, key, OPTIONS)) {
                return repo.find(groups.get(group).get(0)).orElseThrow().pack();
            }
        }

        /** The stored length of {@code id}, as the index names it. */
        long storedLength(BlobId id) {
            return storedLength(Set.of(id));
        }

        /** The stored lengths of {@code ids}, summed. */
        long storedLength(Set<BlobId> ids) {
            try (BlobRepository repo = BlobRepository.open(store, key, OPTIONS)) {
                return ids.stream()
                        .mapToLong(id -> repo.find(id).orElseThrow().length())
                        .sum();
            }
        }

        void assertLiveReadable(Set<BlobId> live) {
            try (BlobRepository repo = BlobRepository.open(store, key, OPTIONS)) {
                for (BlobId id : live) {
                    assertThat(repo.read(id)).as("live blob %s", id).isEqualTo(bytes.get(id));
                }
            }
        }
    }

    /**
     * A, all dead, is deleted; B, half dead, is repacked first; C, one blob in ten dead, is kept: the one
     * unused blob left is 6.7 % of the 15 the packs hold, within 10 %.
     */
    @Test
    void deadPacksAreDeletedAndTheMostUnusedRepackedUntilTheLimitHolds() {
        Fixture f = new Fixture();
        String a = f.packOf(0);
        String b = f.packOf(1);
        String c = f.packOf(2);
        Set<BlobId> live = f.live();
        PruneStats stats;
        try (BlobRepository repo = BlobRepository.open(f.store, f.key, OPTIONS)) {
            stats = repo.prune(live, p -> false, MaxUnused.percent(10));
            for (BlobId id : f.bytes.keySet()) {
                assertThat(repo.has(id))
                        .as("%s", id)
                        .isEqualTo(live.contains(id) || f.groups.get(2).contains(id));
            }
        }
        assertThat(stats.packsDeleted()).isEqualTo(1);
        assertThat(stats.packsRepacked()).isEqualTo(1);
        assertThat(stats.packsWritten()).isEqualTo(1);
        assertThat(stats.packsKept()).isEqualTo(1);
        assertThat(stats.blobsRemoved()).isEqualTo(15);
        assertThat(stats.bytesFreed()).isGreaterThan(14L * BLOB).isLessThan(16L * BLOB);
        assertThat(stats.indexFilesReplaced()).isEqualTo(3);
        assertThat(stats.liveMissing()).isZero();
        assertThat(stats.packsKeptYoung()).isZero();
        assertThat(stats.unusedBytesLeft())
                .isEqualTo(f.storedLength(f.groups.get(2).get(0)));
        assertThat(stats.storedBytesLeft()).isEqualTo(f.storedLength(live) + stats.unusedBytesLeft());
        assertThat(f.packs()).contains(c).doesNotContain(a, b).hasSize(2);
        // every version of a deleted object is gone, not just hidden behind a delete marker
        assertThat(f.store.storedVersions(a)).isEmpty();
        assertThat(f.store.storedVersions(b)).isEmpty();
        assertThat(f.store.allKeys().stream().filter(k -> k.startsWith("index/")))
                .hasSize(1);
        f.assertLiveReadable(live);
        try (BlobRepository repo = BlobRepository.open(f.store, f.key, OPTIONS)) {
            assertThat(repo.check(k -> true).ok()).isTrue();
            // a second prune finds nothing more to do
            PruneStats again = repo.prune(live, p -> false, MaxUnused.percent(10));
            assertThat(again.packsDeleted() + again.packsRepacked()).isZero();
            assertThat(again.unusedBytesLeft()).isEqualTo(stats.unusedBytesLeft());
        }
    }

    /** 5 %: after B, C's one unused blob of 15 (6.7 %) is still too much, so C is repacked too. */
    @Test
    void theDefaultLimitRepacksEveryPackWhoseUnusedBytesItCannotAllow() {
        Fixture f = new Fixture();
        List<String> before = f.packs();
        Set<BlobId> live = f.live();
        try (BlobRepository repo = BlobRepository.open(f.store, f.key, OPTIONS)) {
            PruneStats stats = repo.prune(live, p -> false, MaxUnused.DEFAULT);
            assertThat(stats.packsDeleted()).isEqualTo(1);
            assertThat(stats.packsRepacked()).isEqualTo(2);
            assertThat(stats.blobsRemoved()).isEqualTo(16);
            assertThat(stats.unusedBytesLeft()).isZero();
            assertThat(stats.storedBytesLeft()).isEqualTo(f.storedLength(live));
        }
        assertThat(f.packs()).doesNotContainAnyElementsOf(before);
        f.assertLiveReadable(live);
    }

    @Test
    void unlimitedRepacksNoPackThatHoldsALiveBlob() {
        Fixture f = new Fixture();
        String a = f.packOf(0);
        String b = f.packOf(1);
        String c = f.packOf(2);
        Set<BlobId> live = f.live();
        long unused = f.storedLength(Set.copyOf(f.groups.get(1).subList(5, 10)))
                + f.storedLength(f.groups.get(2).get(0));
        try (BlobRepository repo = BlobRepository.open(f.store, f.key, OPTIONS)) {
            PruneStats planned = repo.planPrune(live, p -> false, MaxUnused.parse("unlimited"));
            PruneStats stats = repo.prune(live, p -> false, MaxUnused.UNLIMITED);
            assertThat(stats.packsDeleted()).isEqualTo(1);
            assertThat(stats.packsRepacked()).isZero();
            assertThat(stats.packsWritten()).isZero();
            assertThat(stats.unusedBytesLeft()).isEqualTo(unused);
            assertThat(stats.storedBytesLeft()).isEqualTo(f.storedLength(live) + unused);
            assertThat(planned.unusedBytesLeft()).isEqualTo(stats.unusedBytesLeft());
            assertThat(planned.storedBytesLeft()).isEqualTo(stats.storedBytesLeft());
        }
        assertThat(f.packs()).containsExactlyInAnyOrder(b, c).doesNotContain(a);
        f.assertLiveReadable(live);
    }

    @Test
    void aLimitOfZeroLeavesNoUnusedBytes() {
        for (String limit : List.of("0", "0%")) {
            Fixture f = new Fixture();
            Set<BlobId> live = f.live();
            try (BlobRepository repo = BlobRepository.open(f.store, f.key, OPTIONS)) {
                PruneStats planned = repo.planPrune(live, p -> false, MaxUnused.parse(limit));
                PruneStats stats = repo.prune(live, p -> false, MaxUnused.parse(limit));
                assertThat(stats.packsRepacked()).as(limit).isEqualTo(2);
                assertThat(stats.unusedBytesLeft()).as(limit).isZero();
                assertThat(stats.storedBytesLeft()).as(limit).isEqualTo(f.storedLength(live));
                assertThat(planned.packsRepacked()).as(limit).isEqualTo(2);
                assertThat(planned.unusedBytesLeft()).as(limit).isZero();
                assertThat(repo.check(k -> true).ok()).as(limit).isTrue();
                PruneStats again = repo.prune(live, p -> false, MaxUnused.parse(limit));
                assertThat(again.packsDeleted() + again.packsRepacked())
                        .as(limit)
                        .isZero();
            }
            // every blob a pack holds is live: the packs' bytes are the live blobs' and their headers'
            long packBytes = f.packs().stream()
                    .mapToLong(k -> f.store.currentBytes(k).orElseThrow().length)
                    .sum();
            assertThat(packBytes - f.storedLength(live)).as(limit).isLessThan(BLOB);
            f.assertLiveReadable(live);
        }
    }

    @Test
    void aLimitInBytesStopsRepackingOnceTheUnusedBytesLeftAreThatFewOrFewer() {
        Fixture f = new Fixture();
        long cUnused = f.storedLength(f.groups.get(2).get(0));
        try (BlobRepository repo = BlobRepository.open(f.store, f.key, OPTIONS)) {
            // C's one unused blob is allowed: B alone is repacked
            PruneStats within = repo.planPrune(f.live(), p -> false, MaxUnused.bytes(cUnused));
            assertThat(within.packsRepacked()).isEqualTo(1);
            assertThat(within.unusedBytesLeft()).isEqualTo(cUnused);
            // a byte less is not
            PruneStats under = repo.planPrune(f.live(), p -> false, MaxUnused.bytes(cUnused - 1));
            assertThat(under.packsRepacked()).isEqualTo(2);
            assertThat(under.unusedBytesLeft()).isZero();
        }
    }

    @Test
    void packsWithEqualUnusedBytesAreRepackedFewestLiveBytesFirstThenInKeyOrder() {
        BlobLocation blob = new BlobLocation(BlobId.of(new byte[32]), BlobType.DATA, "data/00/x", 0, 100, 90, false);
        List<BlobLocation> one = List.of(blob);
        Repack.Usage big = new Repack.Usage("data/00/a", one, 900, 100, 1);
        Repack.Usage small = new Repack.Usage("data/00/b", one, 100, 100, 1);
        Repack.Usage smallToo = new Repack.Usage("data/00/c", one, 100, 100, 1);
        Repack.Usage most = new Repack.Usage("data/00/d", one, 5000, 300, 3);
        List<Repack.Usage> packs = List.of(big, smallToo, most, small);
        // 600 unused of 6,700 bytes (9.0 %); repacking d leaves 300 (4.7 %), then b 200 (3.2 %), then c 100 (1.6 %):
        // of the packs with 100 unused, b and c (100 live) before a (900 live), b before c by key
        assertThat(Repack.toRepack(packs, 600, 6100, MaxUnused.percent(5))).containsExactly(most);
        assertThat(Repack.toRepack(packs, 600, 6100, MaxUnused.percent(3.5))).containsExactly(most, small);
        assertThat(Repack.toRepack(packs, 600, 6100, MaxUnused.percent(2))).containsExactly(most, small, smallToo);
        assertThat(Repack.toRepack(packs, 600, 6100, MaxUnused.bytes(0))).containsExactly(most, small, smallToo, big);
        assertThat(Repack.toRepack(packs, 600, 6100, MaxUnused.UNLIMITED)).isEmpty();
        // within the limit before any is repacked: none
        assertThat(Repack.toRepack(packs, 600, 6100, MaxUnused.percent(10))).isEmpty();
    }

    /**
     * C, one unused blob in ten, written within the caller's grace: untouched, its unused blob counted in
     * what is left (over 5 % then), and counted as kept young because without the grace it would have been
     * repacked.
     */
    @Test
    void aPackTheCallerKeepsCountsTowardTheUnusedBytesLeftButIsNeverRepacked() {
        Fixture f = new Fixture();
        String c = f.packOf(2);
        Set<BlobId> live = f.live();
        byte[] cBefore = f.store.currentBytes(c).orElseThrow();
        try (BlobRepository repo = BlobRepository.open(f.store, f.key, OPTIONS)) {
            PruneStats stats = repo.prune(live, p -> p.key().equals(c), MaxUnused.bytes(0));
            assertThat(stats.packsDeleted()).isEqualTo(1);
            assertThat(stats.packsRepacked()).isEqualTo(1);
            assertThat(stats.packsKeptYoung()).isEqualTo(1);
            assertThat(stats.unusedBytesLeft())
                    .isEqualTo(f.storedLength(f.groups.get(2).get(0)));
            assertThat(MaxUnused.DEFAULT.allows(stats.unusedBytesLeft(), stats.storedBytesLeft()))
                    .isFalse();
        }
        assertThat(f.store.storedVersions(c)).hasSize(1);
        assertThat(f.store.currentBytes(c)).hasValue(cBefore);
        f.assertLiveReadable(live);
    }

    @Test
    void unusedSpaceInPacksTheCallerKeepsDoesNotMakeThePruneRepackOthersWithinTheLimit() {
        // A backup running now writes packs no snapshot names yet (the grace keeps them): their bytes are
        // unused to this prune, but repacking older packs cannot make up for them, and must not be tried.
        Fixture f = new Fixture();
        String young = f.packOf(0); // all ten blobs dead to this prune
        List<String> before = f.packs();
        try (BlobRepository repo = BlobRepository.open(f.store, f.key, OPTIONS)) {
            // the older packs: 6 unused blobs of 20, 30 %; with the young pack, 16 of 30
            PruneStats stats = repo.prune(f.live(), p -> p.key().equals(young), MaxUnused.percent(35));
            assertThat(stats.packsRepacked()).isZero();
            assertThat(stats.packsDeleted()).isZero();
            assertThat(stats.packsKeptYoung()).isEqualTo(1);
            assertThat(MaxUnused.percent(35).allows(stats.unusedBytesLeft(), stats.storedBytesLeft()))
                    .isFalse();
        }
        assertThat(f.packs()).isEqualTo(before);
        f.assertLiveReadable(f.live());
    }

    @Test
    void packsTheCallerKeepsAreNotTouched() {
        Fixture f = new Fixture();
        List<String> before = f.packs();
        try (BlobRepository repo = BlobRepository.open(f.store, f.key, OPTIONS)) {
            PruneStats stats = repo.prune(Set.of(), p -> true, MaxUnused.DEFAULT);
            assertThat(stats.packsDeleted() + stats.packsRepacked()).isZero();
            assertThat(stats.packsKept()).isEqualTo(3);
            // all three hold only dead blobs: the caller's keeping them is what kept them
            assertThat(stats.packsKeptYoung()).isEqualTo(3);
            // every blob live: nothing would go, so nothing was kept because of the caller
            assertThat(repo.prune(Set.copyOf(f.bytes.keySet()), p -> true, MaxUnused.DEFAULT)
                            .packsKeptYoung())
                    .isZero();
        }
        assertThat(f.packs()).isEqualTo(before);
    }

    @Test
    void unindexedPacksGoUnlessKept() {
        Fixture f = new Fixture();
        // a run that died after uploading a pack, before writing its index
        f.runKilledBeforeItsIndex(5000, 3);
        List<String> all = f.packs();
        assertThat(all).hasSize(4);
        try (BlobRepository repo = BlobRepository.open(f.store, f.key, OPTIONS)) {
            assertThat(repo.check(k -> false).unindexedPacks()).hasSize(1);
            PruneStats kept = repo.prune(Set.copyOf(f.bytes.keySet()), p -> !p.indexed(), MaxUnused.DEFAULT);
            assertThat(kept.packsDeleted()).isZero();
            assertThat(f.packs()).hasSize(4);
            PruneStats gone = repo.prune(Set.copyOf(f.bytes.keySet()), p -> false, MaxUnused.DEFAULT);
            assertThat(gone.packsDeleted()).isEqualTo(1);
            assertThat(repo.check(k -> false).unindexedPacks()).isEmpty();
        }
        assertThat(f.packs()).hasSize(3);
        f.assertLiveReadable(f.bytes.keySet());
    }

    @Test
    void liveBlobsNoIndexNamesAreCountedNotHidden() {
        Fixture f = new Fixture();
        Set<BlobId> live = new HashSet<>(f.bytes.keySet());
        live.add(BlobId.of(new byte[32]));
        try (BlobRepository repo = BlobRepository.open(f.store, f.key, OPTIONS)) {
            assertThat(repo.prune(live, p -> false, MaxUnused.DEFAULT).liveMissing())
                    .isEqualTo(1);
        }
    }

    @Test
    void aPackWhoseIndexFileIsMissingStopsThePruneUntilTheIndexIsRebuilt() {
        Fixture f = new Fixture();
        String b = f.packOf(1);
        f.store.delete(indexFileNaming(f, b));
        Set<BlobId> live = f.live();
        List<String> before = f.packs();
        try (BlobRepository repo = BlobRepository.open(f.store, f.key, OPTIONS)) {
            assertThatThrownBy(() -> repo.planPrune(live, p -> false, MaxUnused.DEFAULT))
                    .isInstanceOf(PruneRefusedException.class)
                    .hasMessageContaining(b)
                    .hasMessageContaining("5 chunk(s)")
                    .hasMessageContaining("Backups.repair(false)");
            assertThatThrownBy(() -> repo.prune(live, p -> false, MaxUnused.DEFAULT))
                    .isInstanceOf(PruneRefusedException.class)
                    .hasMessageContaining(b);
            // within the grace period too: the chunks are not lost, an index file is
            assertThatThrownBy(() -> repo.prune(live, p -> true, MaxUnused.DEFAULT))
                    .isInstanceOf(PruneRefusedException.class)
                    .hasMessageContaining(b);
        }
        assertThat(f.packs()).containsExactlyElementsOf(before);
        f.assertLiveReadable(live);
        try (BlobRepository repo = BlobRepository.open(f.store, f.key, OPTIONS)) {
            assertThat(repo.rebuildIndex().ok()).isTrue();
            assertThat(repo.prune(live, p -> false, MaxUnused.DEFAULT).liveMissing())
                    .isZero();
        }
        f.assertLiveReadable(live);
        try (BlobRepository repo = BlobRepository.open(f.store, f.key, OPTIONS)) {
            assertThat(repo.find(f.groups.get(1).get(0))).isPresent();
        }
    }

    @Test
    void everyPackWhoseIndexFileIsMissingIsNamedWhenSeveralHoldLiveChunks() {
        Fixture f = new Fixture();
        String b = f.packOf(1);
        String c = f.packOf(2);
        String indexOfB = indexFileNaming(f, b);
        String indexOfC = indexFileNaming(f, c);
        f.store.delete(indexOfB);
        if (!indexOfC.equals(indexOfB)) {
            f.store.delete(indexOfC);
        }
        Set<BlobId> live = f.live();
        List<String> before = f.packs();
        try (BlobRepository repo = BlobRepository.open(f.store, f.key, OPTIONS)) {
            // 5 live chunks in B, 9 in C
            String both = "packs " + String.join(" and ", new java.util.TreeSet<>(List.of(b, c)))
                    + ", which no index file names, hold 14 chunk(s) that snapshots need";
            assertThatThrownBy(() -> repo.planPrune(live, p -> false, MaxUnused.DEFAULT))
                    .isInstanceOf(PruneRefusedException.class)
                    .hasMessageContaining(both)
                    .hasMessageContaining("run Backups.repair(false) to index them again, then prune");
            assertThatThrownBy(() -> repo.prune(live, p -> false, MaxUnused.DEFAULT))
                    .isInstanceOf(PruneRefusedException.class)
                    .hasMessageContaining(both);
        }
        assertThat(f.packs()).containsExactlyElementsOf(before);
        f.assertLiveReadable(live);
    }

    @Test
    void aRefusalNamesTheFirstFivePacksAndCountsTheRest() {
        assertThat(Repack.unindexedPacks(List.of("data/a", "data/b", "data/c")))
                .isEqualTo("packs data/a, data/b and data/c, which no index file names, hold");
        assertThat(Repack.unindexedPacks(List.of("a", "b", "c", "d", "e", "f", "g")))
                .isEqualTo("7 packs (a, b, c, d, e and 2 more), which no index file names, hold");
    }

    @Test
    void aPackNoIndexNamesHoldingNothingLiveIsDeletedEvenWhileALiveBlobIsMissing() {
        Fixture f = new Fixture();
        f.runKilledBeforeItsIndex(900, 6);
        int leftBehind = f.packs().size() - 3;
        assertThat(leftBehind).isPositive();
        Set<BlobId> live = new HashSet<>(f.bytes.keySet());
        live.add(BlobId.of(new byte[32])); // lost for good
        try (BlobRepository repo = BlobRepository.open(f.store, f.key, OPTIONS)) {
            PruneStats s = repo.prune(live, p -> false, MaxUnused.DEFAULT);
            assertThat(s.liveMissing()).isEqualTo(1);
            assertThat(s.packsDeleted()).isEqualTo(leftBehind);
        }
        assertThat(f.packs()).hasSize(3);
        f.assertLiveReadable(f.bytes.keySet());
    }

    @Test
    void blobsStoredAgainAfterTheirPackWasLostAreKeptNotClaimedByTheMissingPack() {
        Fixture f = new Fixture();
        f.store.delete(f.packOf(1));
        // the next backup stores them again (the open found their pack missing)
        try (BlobRepository repo = BlobRepository.open(f.store, f.key, OPTIONS)) {
            for (BlobId id : f.groups.get(1)) {
                byte[] b = f.bytes.get(id);
                assertThat(repo.add(BlobType.DATA, id, b, 0, b.length)).isTrue();
            }
            repo.flush();
        }
        Set<BlobId> live = f.live();
        try (BlobRepository repo = BlobRepository.open(f.store, f.key, OPTIONS)) {
            PruneStats s = repo.prune(live, p -> false, MaxUnused.DEFAULT);
            assertThat(s.liveMissing()).isZero();
        }
        f.assertLiveReadable(live);
    }

    @Test
    void ofTwoCopiesOfALiveBlobTheOneThatOpensIsReadAndKept() throws Exception {
        Fixture f = new Fixture();
        // a second copy of B's blobs in a pack of its own (as a backup stores them again after an index file
        // was lost, and 'repair index' then indexes the old pack too)
        String b = f.packOf(1); // before the copy: after it, either pack may be the one the index names first
        String again = copyOf(f, f.groups.get(1));
        BlobId read = f.groups.get(1).get(0);
        BlobId pruned = f.groups.get(1).get(1);
        String readFirst;
        try (BlobRepository repo = BlobRepository.open(f.store, f.key, OPTIONS)) {
            readFirst = repo.find(read).orElseThrow().pack();
        }
        // damaged: blob 0 where reads look first, blob 1 in the pack whose key sorts first (where a prune
        // looks first)
        damage(f, readFirst, read);
        damage(f, b.compareTo(again) < 0 ? b : again, pruned);
        Set<BlobId> live = new HashSet<>(f.groups.get(1));
        try (BlobRepository repo = BlobRepository.open(f.store, f.key, OPTIONS)) {
            assertThat(repo.read(read)).isEqualTo(f.bytes.get(read));
            assertThat(repo.read(pruned)).isEqualTo(f.bytes.get(pruned));
            Map<BlobId, byte[]> all = new java.util.concurrent.ConcurrentHashMap<>();
            repo.readAll(live, all::put);
            live.forEach(id -> assertThat(all.get(id)).as("readAll %s", id).isEqualTo(f.bytes.get(id)));
            Map<BlobId, byte[]> borrowed = new java.util.concurrent.ConcurrentHashMap<>();
            repo.readAllBorrowed(live, (id, plain, n) -> borrowed.put(id, java.util.Arrays.copyOf(plain, n)));
            live.forEach(
                    id -> assertThat(borrowed.get(id)).as("borrowed %s", id).isEqualTo(f.bytes.get(id)));
            repo.prune(live, p -> false, MaxUnused.DEFAULT);
        }
        f.assertLiveReadable(live);
        // the damaged copies a kept pack still holds are repair's to drop; the intact ones stay
        try (BlobRepository repo = BlobRepository.open(f.store, f.key, OPTIONS)) {
            repo.repair(k -> true);
            assertThat(repo.check(k -> true).ok()).isTrue();
        }
        f.assertLiveReadable(live);
    }

    @Test
    void aPackNoIndexNamesHoldingTheOnlyCopyThatOpensStopsThePrune() {
        Fixture f = new Fixture();
        String unnamed = copyOf(f, f.groups.get(1));
        f.store.delete(indexFileNaming(f, unnamed)); // its index file lost
        BlobId read = f.groups.get(1).get(0);
        damage(f, f.packOf(1), read); // the copy the index names
        Set<BlobId> live = f.live();
        try (BlobRepository repo = BlobRepository.open(f.store, f.key, OPTIONS)) {
            // a read whose indexed copy does not open takes the copy the unnamed pack's header names
            assertThat(repo.read(read)).isEqualTo(f.bytes.get(read));
            assertThatThrownBy(() -> repo.prune(live, p -> false, MaxUnused.DEFAULT))
                    .isInstanceOf(PruneRefusedException.class)
                    .hasMessageContaining(unnamed)
                    .hasMessageContaining("does not open");
        }
        assertThat(f.packs()).contains(unnamed);
        try (BlobRepository repo = BlobRepository.open(f.store, f.key, OPTIONS)) {
            assertThat(repo.rebuildIndex().ok()).isTrue();
            repo.prune(live, p -> false, MaxUnused.DEFAULT);
        }
        f.assertLiveReadable(live);
    }

    @Test
    void aLiveBlobNoCopyOfWhichOpensIsCountedAsMissingAndItsPacksAreKept() {
        Fixture f = new Fixture();
        String b = f.packOf(1); // before the copy: after it, either pack may be the one the index names first
        String again = copyOf(f, f.groups.get(1));
        BlobId lost = f.groups.get(1).get(0);
        damage(f, b, lost);
        damage(f, again, lost);
        Set<BlobId> live = new HashSet<>(f.groups.get(1));
        try (BlobRepository repo = BlobRepository.open(f.store, f.key, OPTIONS)) {
            assertThat(repo.planPrune(live, p -> false, MaxUnused.DEFAULT).liveMissing())
                    .isEqualTo(1);
            assertThat(repo.prune(live, p -> false, MaxUnused.DEFAULT).liveMissing())
                    .isEqualTo(1);
        }
        live.remove(lost);
        f.assertLiveReadable(live);
    }

    /** The index file that names {@code pack}. */
    private static String indexFileNaming(Fixture f, String pack) {
        try (BlobRepository repo = BlobRepository.open(f.store, f.key, OPTIONS)) {
            return f.store.allKeys().stream()
                    .filter(k -> k.startsWith("index/"))
                    .filter(k -> repo.readIndexFile(k).containsKey(pack))
                    .findFirst()
                    .orElseThrow();
        }
    }

    /** Flips a byte of {@code id}'s stored bytes in {@code pack}, where no store checksum notices. */
    private static void damage(Fixture f, String pack, BlobId id) {
        BlobLocation at;
        try (BlobRepository repo = BlobRepository.open(f.store, f.key, OPTIONS)) {
            at = repo.state.packBlobs.get(pack).stream()
                    .filter(l -> l.id().equals(id))
                    .findFirst()
                    .orElseThrow();
        }
        byte[] bytes = f.store.currentBytes(pack).orElseThrow();
        bytes[(int) at.offset() + 100] ^= 0x01;
        f.store.plant(pack, bytes, null, 0);
    }

    /**
     * A second copy of {@code ids}, in a pack and index file of their own: written through another
     * repository of the same key and copied into the store (this store's repository would deduplicate).
     * Returns the new pack's key.
     */
    private static String copyOf(Fixture f, List<BlobId> ids) {
        FakeObjectStore other = new FakeObjectStore();
        try (BlobRepository repo = BlobRepository.open(other, f.key, OPTIONS)) {
            for (BlobId id : ids) {
                byte[] b = f.bytes.get(id);
                repo.add(BlobType.DATA, id, b, 0, b.length);
            }
            repo.flush();
        }
        String pack = null;
        for (String k : other.allKeys()) {
            f.store.plant(k, other.currentBytes(k).orElseThrow(), null, 0);
            if (k.startsWith("data/")) {
                pack = k;
            }
        }
        return java.util.Objects.requireNonNull(pack);
    }

    /** A crash after any number of the prune's writes and deletes loses no live blob, and a re-run finishes. */
    @Test
    void aCrashAtAnyStepLosesNothingLive() {
        int steps;
        {
            Fixture f = new Fixture();
            AtomicInteger count = new AtomicInteger();
            try (BlobRepository repo =
                    BlobRepository.open(CrashingStore.over(f.store, Integer.MAX_VALUE, count), f.key, OPTIONS)) {
                repo.prune(f.live(), p -> false, MaxUnused.DEFAULT);
            }
            steps = count.get();
        }
        // new packs (B's and C's live blobs), an index, three old index files, three old packs
        assertThat(steps).isGreaterThanOrEqualTo(8);
        for (int allowed = 0; allowed < steps; allowed++) {
            Fixture f = new Fixture();
            Set<BlobId> live = f.live();
            AtomicInteger count = new AtomicInteger();
            try (BlobRepository repo =
                    BlobRepository.open(CrashingStore.over(f.store, allowed, count), f.key, OPTIONS)) {
                assertThatThrownBy(() -> repo.prune(live, p -> false, MaxUnused.DEFAULT))
                        .isInstanceOf(CrashingStore.Crash.class);
            }
            f.assertLiveReadable(live);
            try (BlobRepository repo = BlobRepository.open(f.store, f.key, OPTIONS)) {
                repo.prune(live, p -> false, MaxUnused.DEFAULT);
                assertThat(repo.check(k -> true).ok())
                        .as("after a crash at step %d", allowed)
                        .isTrue();
            }
            f.assertLiveReadable(live);
            assertThat(f.packs()).as("after a crash at step %d", allowed).hasSize(2);
        }
    }

    /** Reads in the same process during a prune (they take no lock) find every live blob at every step. */
    @Test
    void readsDuringAPruneFindEveryLiveBlob() {
        Fixture f = new Fixture();
        Set<BlobId> live = f.live();
        BlobRepository[] self = new BlobRepository[1];
        AtomicInteger checks = new AtomicInteger();
        dev.ballast.storage.object.ObjectStore watching =
                (dev.ballast.storage.object.ObjectStore) java.lang.reflect.Proxy.newProxyInstance(
                        dev.ballast.storage.object.ObjectStore.class.getClassLoader(),
                        new Class<?>[] {dev.ballast.storage.object.ObjectStore.class},
                        (proxy, method, args) -> {
                            boolean mutation = self[0] != null && CrashingStore.MUTATIONS.contains(method.getName());
                            if (mutation) {
                                readAll(self[0], live, f);
                            }
                            Object result;
                            try {
                                result = method.invoke(f.store, args);
                            } catch (java.lang.reflect.InvocationTargetException e) {
                                throw e.getCause();
                            }
                            if (mutation) {
                                readAll(self[0], live, f);
                                checks.incrementAndGet();
                            }
                            return result;
                        });
        try (BlobRepository repo = BlobRepository.open(watching, f.key, OPTIONS)) {
            self[0] = repo;
            PruneStats stats = repo.prune(live, p -> false, MaxUnused.DEFAULT);
            assertThat(stats.packsRepacked()).isEqualTo(2);
            for (BlobId id : live) {
                assertThat(repo.read(id)).isEqualTo(f.bytes.get(id));
            }
        }
        assertThat(checks.get()).isGreaterThanOrEqualTo(6);
    }

    private static void readAll(BlobRepository repo, Set<BlobId> live, Fixture f) {
        for (BlobId id : live) {
            assertThat(repo.read(id)).isEqualTo(f.bytes.get(id));
        }
    }

    @Test
    void aDamagedLiveBlobStopsTheRepackBeforeAnythingIsDeleted() {
        Fixture f = new Fixture();
        String b = f.packOf(1);
        byte[] bytes = f.store.currentBytes(b).orElseThrow();
        bytes[100] ^= 1; // inside the first blob of B, which is live
        f.store.plant(b, bytes, null, 0);
        List<String> before = f.packs();
        try (BlobRepository repo = BlobRepository.open(f.store, f.key, OPTIONS)) {
            assertThatThrownBy(() -> repo.prune(f.live(), p -> false, MaxUnused.DEFAULT))
                    .isInstanceOf(dev.ballast.storage.IntegrityException.class)
                    .hasMessageContaining(b)
                    .hasMessageContaining(f.groups.get(1).get(0).hex());
        }
        assertThat(f.packs()).isEqualTo(before);
        assertThat(f.store.allKeys().stream().filter(k -> k.startsWith("index/")))
                .hasSize(3);
    }
}
