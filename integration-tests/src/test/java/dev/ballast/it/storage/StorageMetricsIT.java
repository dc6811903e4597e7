package dev.ballast.it.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.http.DependencyConfig;
import dev.ballast.http.ResilientHttpClient;
import dev.ballast.http.breaker.BreakerConfig;
import dev.ballast.http.retry.RetryConfig;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.micrometer.StorageMetricNames;
import dev.ballast.storage.micrometer.StorageMetrics;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.S3MockServer;
import dev.ballast.storage.object.s3.S3Endpoint;
import dev.ballast.storage.object.s3.S3StoreConfig;
import dev.ballast.testkit.FakeTime;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The storage meters an operator graphs and alerts on, read from a registry while S3Mock is stopped
 * in the middle of a run: the degraded reads, by reason, with the age of what they served; the
 * reads that had nothing to fall back on; an integrity failure from bytes damaged on the server.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class StorageMetricsIT {

    private static final byte[] SETTINGS = "{\"v\":1}".getBytes(UTF_8);

    @TempDir
    Path dir;

    @Test
    void anEndpointStoppedMidRunShowsDegradedReadsByReasonWithTheirAgeAndAnIntegrityFailureIsCounted()
            throws Exception {
        FakeTime time = new FakeTime(Instant.parse("2026-06-01T00:00:00Z"));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        StorageMetrics metrics = StorageMetrics.create(Tags.of("storage", "it"));
        Path s3Root = dir.resolve("s3");
        S3MockServer s3 = S3MockServer.start(s3Root);
        try (ResilientHttpClient http = ResilientHttpClient.newBuilder()
                        .ticker(time)
                        .retry(RetryConfig.builder().maxAttempts(1).build())
                        .defaultDependency(DependencyConfig.builder()
                                .breaker(BreakerConfig.builder()
                                        .consecutiveFailureThreshold(2)
                                        .waitDurationInOpenState(Duration.ofMinutes(10))
                                        .build())
                                .build())
                        .build();
                StorageFacade facade = StorageFacade.newBuilder()
                        .s3(S3Endpoint.newBuilder()
                                .endpoint(s3.uri())
                                .region("us-east-1")
                                .credentials("ballast", "ballast-secret")
                                .pathStyle(true)
                                .httpClient(http)
                                .build())
                        .bucket("meters")
                        .s3Config(S3StoreConfig.builder()
                                .createBucket(true)
                                .enableVersioning(true)
                                .build())
                        .clock(time)
                        .ticker(time)
                        .listener(metrics)
                        .build()) {
            metrics.bindTo(registry);
            ObjectStore objects = facade.objects();
            objects.put("settings.json", ObjectContent.ofBytes(SETTINGS));
            ObjectVersion damaged = objects.put("damaged.bin", ObjectContent.ofBytes(new byte[4096]));
            try (ObjectRead read = objects.get("settings.json")) {
                assertThat(read.readAllBytes()).isEqualTo(SETTINGS); // kept as the last-known-good copy
            }

            // a byte of damaged.bin flipped on the server's disk: the read refuses to hand it over
            damageS3Mock(s3Root, damaged.versionId());
            try (ObjectRead read = objects.get("damaged.bin")) {
                assertThatThrownBy(read::readAllBytes).isInstanceOf(IntegrityException.class);
            }

            time.advance(Duration.ofSeconds(90));
            s3.close(); // the endpoint stops mid-run
            for (int i = 0; i < 4; i++) {
                try (ObjectRead read = objects.get("settings.json")) {
                    assertThat(read.degraded()).isTrue();
                    assertThat(read.age()).isEqualTo(Duration.ofSeconds(90));
                    assertThat(read.readAllBytes()).isEqualTo(SETTINGS);
                }
            }
            assertThatThrownBy(() -> objects.get("never-read.json"))
                    .isInstanceOf(dev.ballast.storage.StorageUnavailableException.class);

            // two refused connections open the breaker; the reads after it are refused without one
            Map<String, Long> degradedByReason = new TreeMap<>();
            for (Timer timer : registry.get(StorageMetricNames.DEGRADED_READS).timers()) {
                assertThat(timer.getId().getTag("store")).isEqualTo("s3");
                assertThat(timer.getId().getTag("storage")).isEqualTo("it");
                assertThat(timer.max(TimeUnit.SECONDS)).as("age served").isEqualTo(90);
                assertThat(timer.totalTime(TimeUnit.SECONDS)).isEqualTo(90.0 * timer.count());
                degradedByReason.put(timer.getId().getTag("reason"), timer.count());
            }
            assertThat(degradedByReason).isEqualTo(Map.of("unreachable", 2L, "circuit_open", 2L));
            assertThat(registry.get(StorageMetricNames.UNAVAILABLE_READS)
                            .tags("reason", "circuit_open", "cached", "none")
                            .counter()
                            .count())
                    .isEqualTo(1);
            assertThat(registry.get(StorageMetricNames.INTEGRITY_FAILURES)
                            .tag("store", "s3")
                            .counter()
                            .count())
                    .isEqualTo(1);
            assertThat(registry.get(StorageMetricNames.OPERATIONS)
                            .tags("operation", "get", "outcome", "integrity_failure")
                            .timer()
                            .count())
                    .isEqualTo(1);
            assertThat(registry.get(StorageMetricNames.OPERATIONS)
                            .tags("operation", "get", "outcome", "unavailable")
                            .timer()
                            .count())
                    .isEqualTo(5);
            assertThat(registry.get(StorageMetricNames.BYTES)
                            .tags("operation", "put")
                            .summary()
                            .totalAmount())
                    .isEqualTo(SETTINGS.length + 4096);
            assertThat(registry.get(StorageMetricNames.CAPABILITY)
                            .tag("capability", "versioning")
                            .gauge()
                            .value())
                    .isEqualTo(1);
            assertThat(facade.stats().degradedReads()).isEqualTo(4);
        } finally {
            metrics.close();
        }
    }

    /** Flips a byte of the file in which S3Mock, with its store under {@code s3Root}, keeps {@code versionId}. */
    private static void damageS3Mock(Path s3Root, String versionId) {
        try (Stream<Path> files = Files.walk(s3Root)) {
            List<Path> matches = files.filter(Files::isRegularFile)
                    .filter(p -> p.getFileName().toString().startsWith(versionId)
                            && p.getFileName().toString().endsWith("binaryData"))
                    .toList();
            assertThat(matches).as("the data file of version %s", versionId).hasSize(1);
            byte[] bytes = Files.readAllBytes(matches.get(0));
            bytes[bytes.length / 2] ^= 0x01;
            Files.write(matches.get(0), bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
