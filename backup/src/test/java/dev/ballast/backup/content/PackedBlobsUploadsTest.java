package dev.ballast.backup.content;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.backup.keys.MasterKey;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.test.FakeObjectStore;
import java.io.OutputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A backup's packs go up as many at once as it reads files ({@code --transfers}): on an S3 endpoint
 * each pack is one PUT on one connection, and two at once left the endpoint's other connections idle.
 */
class PackedBlobsUploadsTest {

    @Test
    void asManyPacksGoUpAtOnceAsTheTransfers(@TempDir Path dir) throws Exception {
        // 72 MiB of random bytes: more than four full packs of 16 MiB
        Path file = dir.resolve("big.bin");
        byte[] buffer = new byte[1024 * 1024];
        SplittableRandom random = new SplittableRandom(3);
        try (OutputStream out = Files.newOutputStream(file)) {
            for (int i = 0; i < 72; i++) {
                random.nextBytes(buffer);
                out.write(buffer);
            }
        }
        FakeObjectStore fake = new FakeObjectStore();
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger putsRunning = new AtomicInteger();
        ObjectStore slow = (ObjectStore) Proxy.newProxyInstance(
                ObjectStore.class.getClassLoader(), new Class<?>[] {ObjectStore.class}, (proxy, method, args) -> {
                    boolean packPut = method.getName().equals("put") && ((String) args[0]).startsWith("data/");
                    if (packPut) {
                        putsRunning.incrementAndGet();
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
        try (PackedBlobs blobs = PackedBlobs.open(slow, MasterKey.generate(), 4)) {
            AtomicReference<Throwable> failed = new AtomicReference<>();
            Thread backup = new Thread(() -> {
                try {
                    blobs.store(file, n -> {}, () -> false);
                    blobs.flush();
                } catch (Throwable e) {
                    failed.set(e);
                }
            });
            backup.start();
            // Four packs in their PUT at once; with two upload threads this never happens (and the wait ends
            // at its deadline).
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (putsRunning.get() < 4 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            int atOnce = putsRunning.get();
            release.countDown();
            backup.join();
            assertThat(failed.get()).isNull();
            assertThat(atOnce).isEqualTo(4);
            assertThat(fake.allKeys().stream().filter(k -> k.startsWith("data/")))
                    .hasSizeGreaterThanOrEqualTo(5);
        }
    }
}
