package dev.ballast.storage.micrometer;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.storage.AlreadyExistsException;
import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.testkit.FakeTime;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The meters of {@link StorageMetrics} over a real local object store, on a ticker the test moves.
 * (The degraded, unavailable and integrity meters over S3Mock are in integration-tests'
 * StorageMetricsIT.)
 */
@Timeout(60)
class StorageMetricsTest {

    @TempDir
    Path dir;

    private final FakeTime time = new FakeTime();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private StorageFacade facade(StorageMetrics metrics) {
        return StorageFacade.newBuilder()
                .localObjects(dir.resolve("objects"))
                .listener(metrics)
                .ticker(time)
                .build();
    }

    @Test
    void operationsBytesRefusalsAndCapabilitiesOfALocalStore() throws Exception {
        StorageMetrics metrics = StorageMetrics.create(Tags.of("storage", "backups"));
        try (StorageFacade facade = facade(metrics)) {
            metrics.bindTo(registry); // after build: the capability gauges appear now
            ObjectStore objects = facade.objects();
            objects.put("a", ObjectContent.ofBytes("12345".getBytes(UTF_8)));
            try (ObjectRead read = objects.get("a")) {
                time.advance(Duration.ofMillis(3));
                assertThat(read.readAllBytes()).hasSize(5);
            }
            assertThatThrownBy(() -> objects.putIfAbsent("a", ObjectContent.ofBytes(new byte[1])))
                    .isInstanceOf(AlreadyExistsException.class);

            assertThat(registry.get(StorageMetricNames.OPERATIONS)
                            .tags("storage", "backups", "store", "local", "operation", "get", "outcome", "success")
                            .timer()
                            .totalTime(TimeUnit.MILLISECONDS))
                    .isEqualTo(3);
            assertThat(registry.get(StorageMetricNames.OPERATIONS)
                            .tags("operation", "put_if_absent", "outcome", "precondition_failed")
                            .timer()
                            .count())
                    .isEqualTo(1);
            assertThat(registry.get(StorageMetricNames.BYTES)
                            .tags("operation", "get")
                            .summary()
                            .totalAmount())
                    .isEqualTo(5);
            assertThat(registry.get(StorageMetricNames.CONDITIONAL_WRITE_REFUSALS)
                            .tags("operation", "put_if_absent", "reason", "exists")
                            .counter()
                            .count())
                    .isEqualTo(1);
            assertThat(registry.get(StorageMetricNames.CAPABILITY)
                            .tags("store", "local", "capability", "put_if_match")
                            .gauge()
                            .value())
                    .isEqualTo(1);
        }
        metrics.close();
        assertThat(registry.getMeters()).isEmpty();
    }

    @Test
    void eventsBeforeBindingAreNotCounted() {
        StorageMetrics metrics = StorageMetrics.create();
        try (StorageFacade facade = facade(metrics)) {
            facade.objects().put("a", ObjectContent.ofBytes(new byte[1]));
            metrics.bindTo(registry);
            assertThat(registry.find(StorageMetricNames.OPERATIONS).timers()).isEmpty();
            facade.objects().put("b", ObjectContent.ofBytes(new byte[1]));
            assertThat(registry.get(StorageMetricNames.OPERATIONS).timer().count())
                    .isEqualTo(1);
        } finally {
            metrics.close();
        }
    }

    @Test
    void twoInstancesWithTheSameTagsAreRefusedOnOneRegistry() {
        StorageMetrics first = StorageMetrics.create(Tags.of("storage", "a"));
        StorageMetrics second = StorageMetrics.create(Tags.of("storage", "a"));
        first.bindTo(registry);

        assertThatThrownBy(() -> second.bindTo(registry))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("same tags")
                .hasMessageContaining("Tags.of(\"storage\"");
        StorageMetrics.create(Tags.of("storage", "b")).bindTo(registry); // a tag of its own: accepted
        first.close();
        second.bindTo(registry); // the first is closed: its tags are free
        assertThatThrownBy(() -> StorageMetrics.create(Tags.of("store", "x")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'store'");
    }
}
