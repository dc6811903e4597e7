package dev.ballast.backup.pack;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.backup.keys.MasterKey;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.test.FakeObjectStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** While uploads cannot keep up, add blocks its caller: packs held in memory stay bounded. */
class BoundedUploadsTest {

    @Test
    void addBlocksOncePacksInFlightAreFull() throws Exception {
        FakeObjectStore fake = new FakeObjectStore();
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger putsRunning = new AtomicInteger();
        AtomicInteger maxPutsRunning = new AtomicInteger();
        ObjectStore slow = (ObjectStore) Proxy.newProxyInstance(
                ObjectStore.class.getClassLoader(), new Class<?>[] {ObjectStore.class}, (proxy, method, args) -> {
                    boolean packPut = method.getName().equals("put") && ((String) args[0]).startsWith("data/");
                    if (packPut) {
                        maxPutsRunning.accumulateAndGet(putsRunning.incrementAndGet(), Math::max);
                        release.await();
                    }
                    try {
                        return method.invoke(fake, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    } finally {
                        if (packPut) {
                            putsRunning.decrementAndGet();
                        }
                    }
                });
        // 5,000-byte incompressible blobs are 5,044 bytes sealed: two fill a 10,000-byte pack
        PackOptions options =
                PackOptions.defaults().withPackSize(10_000).withUploadThreads(1).withPacksInFlight(2);
        MasterKey key = MasterKey.generate();
        List<byte[]> blobs = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            blobs.add(BlobRepositoryTest.random(i, 5000));
        }
        AtomicInteger returned = new AtomicInteger();
        try (BlobRepository repo = BlobRepository.open(slow, key, options)) {
            Thread adder = new Thread(() -> {
                for (byte[] b : blobs) {
                    repo.add(BlobType.DATA, repo.id(b, 0, b.length), b, 0, b.length);
                    returned.incrementAndGet();
                }
            });
            adder.start();
            while (adder.getState() != Thread.State.WAITING || putsRunning.get() == 0) {
                Thread.onSpinWait();
            }
            // two packs in flight (one in its put, one queued), the third closed and waiting for a place
            assertThat(returned.get()).isEqualTo(5);
            assertThat(adder.isAlive()).isTrue();
            release.countDown();
            adder.join();
            repo.flush();
            assertThat(returned.get()).isEqualTo(40);
            assertThat(maxPutsRunning.get()).isEqualTo(1);
            for (byte[] b : blobs) {
                assertThat(repo.read(repo.id(b, 0, b.length))).isEqualTo(b);
            }
        }
    }
}
