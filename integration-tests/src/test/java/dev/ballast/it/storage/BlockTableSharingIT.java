package dev.ballast.it.storage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.it.support.S3Backends;
import dev.ballast.storage.object.ByteRange;
import dev.ballast.storage.object.FaultInjectingHttpClient;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.S3TestBackend;
import dev.ballast.storage.object.s3.S3ObjectStore;
import dev.ballast.storage.object.s3.S3StoreConfig;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Ranged reads of one object started at once share one GET of its block digest table
 * ({@code .ballast/blocks/<SHA-256>}): a restore reads a pack as several ranges in parallel, and each
 * of them fetched the same table. The first table GET's answer is held until every other reader has
 * either parked (waiting for that GET) or finished (having fetched the table itself).
 */
class BlockTableSharingIT {
    private static final int MIB = 1024 * 1024;
    private static final int READERS = 4;

    @Test
    void rangedReadsStartedAtOnceFetchTheBlockTableOnce() throws Exception {
        S3TestBackend backend = S3Backends.s3Mock();
        String bucket = "ballast-tables-" + Long.toHexString(new SplittableRandom().nextLong() & Long.MAX_VALUE);
        S3StoreConfig config = S3StoreConfig.builder()
                .createBucket(true)
                .enableVersioning(true)
                .build();
        byte[] content = new byte[5 * MIB];
        new SplittableRandom(7).nextBytes(content);
        try (S3ObjectStore writer = S3ObjectStore.open(backend.endpoint(backend.newHttpClient()), bucket, config)) {
            writer.put("pack", ObjectContent.ofBytes(content));
        }

        FaultInjectingHttpClient http = backend.newHttpClient();
        try (S3ObjectStore store = S3ObjectStore.open(backend.endpoint(http), bucket, config)) {
            CompletableFuture<Void> release = new CompletableFuture<>();
            http.holdAnswerOnce(
                    r -> r.method().equals("GET") && r.uri().getRawPath().contains("/.ballast/blocks/"), release);
            http.clearExchanges();
            List<Thread> readers = new ArrayList<>();
            ConcurrentHashMap<Integer, byte[]> read = new ConcurrentHashMap<>();
            List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
            for (int i = 0; i < READERS; i++) {
                int at = i * MIB + 100;
                int n = i;
                Thread t = new Thread(() -> {
                    try (ObjectRead r = store.get("pack", ReadOptions.latest().withRange(ByteRange.of(at, 1000)))) {
                        read.put(n, r.stream().readAllBytes());
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                });
                readers.add(t);
                t.start();
            }
            // Let the held answer go once no reader can still be about to ask for the table: each has parked
            // (waiting for an answer) or ended.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!settled(readers, http) && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            release.complete(null);
            for (Thread t : readers) {
                t.join();
            }

            assertThat(failures).isEmpty();
            for (int i = 0; i < READERS; i++) {
                int at = i * MIB + 100;
                assertThat(read.get(i)).isEqualTo(Arrays.copyOfRange(content, at, at + 1000));
            }
            assertThat(http.exchanges().stream()
                            .filter(e -> e.method().equals("GET")
                                    && e.uri().getRawPath().contains("/.ballast/blocks/")))
                    .hasSize(1);
        }
    }

    /** Whether the table's GET was sent and every reader is parked or done. */
    private static boolean settled(List<Thread> readers, FaultInjectingHttpClient http) {
        boolean tableAsked =
                http.exchanges().stream().anyMatch(e -> e.uri().getRawPath().contains("/.ballast/blocks/"));
        if (!tableAsked) {
            return false;
        }
        for (Thread t : readers) {
            Thread.State s = t.getState();
            if (s != Thread.State.WAITING && s != Thread.State.TERMINATED) {
                return false;
            }
        }
        return true;
    }
}
