package dev.ballast.backup.pack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.backup.keys.MasterKey;
import dev.ballast.storage.StorageException;
import dev.ballast.test.FakeObjectStore;
import dev.ballast.test.FaultInjectingObjectStore;
import dev.ballast.test.StoreFault;
import dev.ballast.test.StoreOperation;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A pack upload or an index write that fails (BlobRepository's "only after flush returns is a blob
 * durable"): the failure reaches the caller at the next {@code add} or {@code flush} and at every later
 * one, a blob of the failed pack is no longer {@code has} (so nothing deduplicates against it), and no
 * index names it; an index write that failed is written by a later flush.
 */
class UploadFailureTest {
    /** 5,000-byte incompressible blobs are 5,044 bytes sealed: two fill a 10,000-byte pack. */
    private static final PackOptions SMALL_PACKS =
            PackOptions.defaults().withPackSize(10_000).withUploadThreads(1).withPacksInFlight(1);

    private final FaultInjectingObjectStore store = FaultInjectingObjectStore.wrap(new FakeObjectStore());
    private final MasterKey key = MasterKey.generate();

    private static List<byte[]> blobs(int count) {
        List<byte[]> blobs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            blobs.add(BlobRepositoryTest.random(100 + i, 5000));
        }
        return blobs;
    }

    @Test
    void aFailedPackUploadIsThrownByEveryLaterFlushAndItsBlobsAreNeitherKnownNorIndexed() {
        store.inject(StoreFault.outOfSpace())
                .on(StoreOperation.PUT)
                .forKeys(k -> k.startsWith("data/"))
                .times(1);
        List<byte[]> blobs = blobs(6);
        List<RuntimeException> addFailures = new ArrayList<>();
        try (BlobRepository repo = BlobRepository.open(store, key, SMALL_PACKS)) {
            for (byte[] b : blobs) {
                try {
                    repo.add(BlobType.DATA, repo.id(b, 0, b.length), b, 0, b.length);
                } catch (StorageException e) {
                    addFailures.add(e);
                }
            }
            assertThatThrownBy(repo::flush).isInstanceOf(StorageException.class);
            // a later flush does not swallow it, nor index what was uploaded beside it
            assertThatThrownBy(repo::flush).isInstanceOf(StorageException.class);
            byte[] first = blobs.get(0);
            BlobId lost = repo.id(first, 0, first.length);
            assertThat(repo.has(lost))
                    .as("dedup against a blob of the failed pack")
                    .isFalse();
            assertThatThrownBy(() -> repo.add(BlobType.DATA, lost, first, 0, first.length))
                    .isInstanceOf(StorageException.class);
            for (byte[] b : blobs) {
                assertThat(repo.find(repo.id(b, 0, b.length))).isEmpty();
            }
        }
        assertThat(store.delegate().list("index/")).isEmpty();
        try (BlobRepository reopened = BlobRepository.open(store, key, SMALL_PACKS)) {
            byte[] first = blobs.get(0);
            assertThat(reopened.has(reopened.id(first, 0, first.length))).isFalse();
        }
    }

    @Test
    void anIndexWriteThatFailsLeavesTheBlobsUnindexedUntilALaterFlushWritesIt() {
        store.inject(StoreFault.outOfSpace())
                .on(StoreOperation.PUT)
                .forKeys(k -> k.startsWith("index/"))
                .times(1);
        List<byte[]> blobs = blobs(3);
        try (BlobRepository repo = BlobRepository.open(store, key, SMALL_PACKS)) {
            for (byte[] b : blobs) {
                repo.add(BlobType.DATA, repo.id(b, 0, b.length), b, 0, b.length);
            }
            assertThatThrownBy(repo::flush).isInstanceOf(StorageException.class);
            for (byte[] b : blobs) {
                assertThat(repo.find(repo.id(b, 0, b.length))).isEmpty();
            }
            repo.flush();
            for (byte[] b : blobs) {
                assertThat(repo.read(repo.id(b, 0, b.length))).isEqualTo(b);
            }
        }
        assertThat(store.delegate().list("index/")).hasSize(1);
    }
}
