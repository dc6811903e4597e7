package dev.ballast.it.storage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.storage.PreconditionFailedException;
import dev.ballast.storage.object.Freshness;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.S3MockServer;
import dev.ballast.storage.object.VersionEntry;
import dev.ballast.storage.object.s3.S3Endpoint;
import dev.ballast.storage.object.s3.S3ObjectStore;
import dev.ballast.storage.object.s3.S3StoreConfig;
import dev.ballast.testkit.LeakCheck;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Puts to one key from several threads of one {@link S3ObjectStore}: generations strictly increase
 * in the order the versions land, no acknowledged write is lost, and of two If-Match edits of one
 * version exactly one wins, even on S3Mock, which lets both through when they arrive together.
 * The guarantee is the store's own (one put per key at a time), so one backend shows it.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
@ExtendWith(LeakCheck.class)
class ConcurrentWritesIT {
    private final String bucket = "concurrent-" + UUID.randomUUID().toString().substring(0, 8);

    private S3ObjectStore open(Clock clock) {
        return S3ObjectStore.open(
                S3Endpoint.newBuilder()
                        .endpoint(S3MockServer.endpoint())
                        .region("us-east-1")
                        .credentials("ballast", "ballast-secret")
                        .pathStyle(true)
                        .build(),
                bucket,
                S3StoreConfig.builder()
                        .createBucket(true)
                        .enableVersioning(true)
                        .clock(clock)
                        .build());
    }

    @Test
    void concurrentPutsToOneKeyGetStrictlyIncreasingGenerationsAndLoseNoAcknowledgedWrite() throws Exception {
        // A stopped clock takes away the wall-clock floor: only the order of the puts can separate them.
        Clock stopped = Clock.fixed(Instant.ofEpochMilli(1000), ZoneOffset.UTC);
        int threads = 4;
        int putsEach = 3;
        try (S3ObjectStore shared = open(stopped)) {
            java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(threads);
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
            List<java.util.concurrent.Future<List<ObjectVersion>>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                futures.add(pool.submit(() -> {
                    start.await(30, TimeUnit.SECONDS);
                    List<ObjectVersion> mine = new ArrayList<>();
                    for (int i = 0; i < putsEach; i++) {
                        mine.add(shared.put(
                                "contended",
                                ObjectContent.ofBytes(("t" + id + "-" + i).getBytes(StandardCharsets.UTF_8))));
                    }
                    return mine;
                }));
            }
            List<ObjectVersion> acknowledged = new ArrayList<>();
            for (var f : futures) {
                acknowledged.addAll(f.get(120, TimeUnit.SECONDS));
            }
            pool.shutdown();

            assertThat(acknowledged)
                    .extracting(ObjectVersion::generation)
                    .as("generations")
                    .doesNotHaveDuplicates();
            List<VersionEntry> versions = shared.versions("contended");
            assertThat(versions)
                    .extracting(VersionEntry::versionId)
                    .containsAll(
                            acknowledged.stream().map(ObjectVersion::versionId).toList());
            ObjectVersion highest = acknowledged.stream()
                    .max(java.util.Comparator.comparingLong(ObjectVersion::generation))
                    .orElseThrow();
            assertThat(versions.get(0).versionId())
                    .as("the newest version carries the highest generation")
                    .isEqualTo(highest.versionId());
            try (ObjectRead read = shared.get("contended")) {
                assertThat(read.freshness()).isEqualTo(Freshness.FRESH);
                assertThat(read.version().generation()).isEqualTo(highest.generation());
            }
        }
    }

    @Test
    void twoThreadsEditingTheSameVersionWithIfMatchExactlyOneWins() throws Exception {
        try (S3ObjectStore shared = open(Clock.systemUTC())) {
            ObjectVersion v1 =
                    shared.put("race.json", ObjectContent.ofBytes("{\"n\":1}".getBytes(StandardCharsets.UTF_8)));
            java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(2);
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
            List<java.util.concurrent.Future<Object>> outcomes = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                byte[] edit = ("{\"by\":" + t + "}").getBytes(StandardCharsets.UTF_8);
                outcomes.add(pool.submit(() -> {
                    start.await(30, TimeUnit.SECONDS);
                    try {
                        return shared.putIfMatch("race.json", v1.eTag(), ObjectContent.ofBytes(edit));
                    } catch (PreconditionFailedException e) {
                        return e;
                    }
                }));
            }
            List<Object> results = new ArrayList<>();
            for (var f : outcomes) {
                results.add(f.get(60, TimeUnit.SECONDS));
            }
            pool.shutdown();

            assertThat(results).filteredOn(ObjectVersion.class::isInstance).hasSize(1);
            assertThat(results)
                    .filteredOn(PreconditionFailedException.class::isInstance)
                    .hasSize(1);
            ObjectVersion winner = (ObjectVersion) results.stream()
                    .filter(ObjectVersion.class::isInstance)
                    .findFirst()
                    .orElseThrow();
            assertThat(shared.versions("race.json"))
                    .extracting(VersionEntry::versionId)
                    .containsExactly(winner.versionId(), v1.versionId());
        }
    }
}
