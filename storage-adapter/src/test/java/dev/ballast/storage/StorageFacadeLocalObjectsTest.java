package dev.ballast.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.local.LocalObjectStore;
import dev.ballast.storage.object.local.LocalStoreConfig;
import dev.ballast.testkit.LeakCheck;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
@ExtendWith(LeakCheck.class)
class StorageFacadeLocalObjectsTest {

    @TempDir
    Path dir;

    @Test
    void localObjectsNeedNoServerAndSurviveTheFacade() {
        Clock clock = Clock.fixed(Instant.parse("2026-11-30T10:00:00Z"), ZoneOffset.UTC);
        ObjectVersion written;
        try (StorageFacade facade = StorageFacade.newBuilder()
                .localObjects(dir.resolve("objects"))
                .clock(clock)
                .build()) {
            written = facade.objects().put("reports/2026-11.json", ObjectContent.ofBytes("{}".getBytes(UTF_8)));
            assertThat(facade.objects().confirmsWrites()).isTrue();
            assertThat(facade.capabilities().endpoint())
                    .isEqualTo(dir.resolve("objects").toUri());
        }

        assertThat(written.generation()).isEqualTo(clock.millis());
        try (StorageFacade reader = StorageFacade.newBuilder()
                .localObjects(
                        dir.resolve("objects"),
                        LocalStoreConfig.builder().readOnly(true).build())
                .build()) {
            assertThat(reader.objects().get("reports/2026-11.json").readAllBytes())
                    .isEqualTo("{}".getBytes(UTF_8));
            assertThat(reader.objects().versions("reports/2026-11.json")).hasSize(1);
        }
    }

    @Test
    void closingTheFacadeReleasesTheWriterLock() {
        StorageFacade.newBuilder().localObjects(dir).build().close();

        try (LocalObjectStore again = LocalObjectStore.open(dir)) {
            assertThat(again.list("")).isEmpty();
        }
    }

    @Test
    void oneObjectStoreAtATime() {
        try (LocalObjectStore other = LocalObjectStore.open(dir.resolve("other"))) {
            assertThatThrownBy(() -> StorageFacade.newBuilder()
                            .localObjects(dir.resolve("mine"))
                            .objectStore(other)
                            .build())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("set one of s3(endpoint), localObjects(directory) and objectStore(store)");
        }
    }
}
