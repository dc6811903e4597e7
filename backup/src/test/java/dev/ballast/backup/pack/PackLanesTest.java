package dev.ballast.backup.pack;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.backup.keys.MasterKey;
import dev.ballast.test.FakeObjectStore;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.Test;

/**
 * Which pack a blob lands in when several threads add blobs at once: a big file's chunks lie side by
 * side, so a restore reads each file's chunks as stretches of their own (a shared pack interleaved the
 * chunks of the files read at the same time, and a restore from S3 fetched 1.6 to 1.7 times the
 * packs' bytes).
 */
class PackLanesTest {
    private static final int LARGE = 300 * 1024;
    private static final int SMALL = 4 * 1024;

    /** Each of {@code threads} threads adds {@code perThread} random blobs of {@code size} bytes, in lockstep. */
    private static List<List<BlobId>> addInLockstep(BlobRepository repo, int threads, int perThread, int size)
            throws Exception {
        CyclicBarrier turn = new CyclicBarrier(threads);
        List<List<BlobId>> added = new ArrayList<>();
        List<Thread> running = new ArrayList<>();
        List<Throwable> failures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            List<BlobId> mine = new ArrayList<>();
            added.add(mine);
            long seed = 1000L * t;
            Thread thread = new Thread(() -> {
                try {
                    for (int i = 0; i < perThread; i++) {
                        byte[] b = BlobRepositoryTest.random(seed + i, size);
                        BlobId id = repo.id(b, 0, b.length);
                        turn.await(); // every thread adds its i-th blob at about the same time
                        assertThat(repo.add(BlobType.DATA, id, b, 0, b.length)).isTrue();
                        mine.add(id);
                    }
                } catch (Throwable e) {
                    synchronized (failures) {
                        failures.add(e);
                    }
                }
            });
            running.add(thread);
            thread.start();
        }
        for (Thread thread : running) {
            thread.join();
        }
        assertThat(failures).isEmpty();
        return added;
    }

    private static Set<String> packsOf(BlobRepository repo, List<BlobId> ids) {
        Set<String> packs = new HashSet<>();
        for (BlobId id : ids) {
            packs.add(repo.find(id).orElseThrow().pack());
        }
        return packs;
    }

    @Test
    void largeBlobsAddedByThreadsAtOnceLieInPacksOfTheirThread() throws Exception {
        FakeObjectStore store = new FakeObjectStore();
        try (BlobRepository repo = BlobRepository.open(store, MasterKey.generate(), PackOptions.defaults())) {
            List<List<BlobId>> added = addInLockstep(repo, 3, 6, LARGE);
            repo.flush();

            List<Set<String>> packs = new ArrayList<>();
            for (List<BlobId> mine : added) {
                packs.add(packsOf(repo, mine));
            }
            for (int t = 0; t < packs.size(); t++) {
                assertThat(packs.get(t)).as("the packs of thread %d", t).hasSize(1);
                for (int other = t + 1; other < packs.size(); other++) {
                    assertThat(packs.get(t)).doesNotContainAnyElementsOf(packs.get(other));
                }
            }
            // and they read back whole
            for (List<BlobId> mine : added) {
                for (BlobId id : mine) {
                    assertThat(repo.read(id)).hasSize(LARGE);
                }
            }
        }
    }

    @Test
    void smallBlobsOfAllThreadsShareOnePack() throws Exception {
        FakeObjectStore store = new FakeObjectStore();
        try (BlobRepository repo = BlobRepository.open(store, MasterKey.generate(), PackOptions.defaults())) {
            List<List<BlobId>> added = addInLockstep(repo, 3, 10, SMALL);
            repo.flush();

            Set<String> packs = new HashSet<>();
            for (List<BlobId> mine : added) {
                packs.addAll(packsOf(repo, mine));
            }
            assertThat(packs).hasSize(1);
            assertThat(store.allKeys().stream().filter(k -> k.startsWith("data/")))
                    .hasSize(1);
        }
    }
}
