package dev.ballast.storage;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.storage.block.BlockVolume;
import dev.ballast.storage.cache.LastKnownGoodConfig;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.test.FakeObjectStore;
import dev.ballast.testkit.FakeTime;
import dev.ballast.testkit.LeakCheck;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@Timeout(30)
@ExtendWith(LeakCheck.class)
class StorageFacadeTest {

    @TempDir
    Path root;

    private final FakeObjectStore store = new FakeObjectStore();
    private final FakeTime clock = new FakeTime(Instant.parse("2026-01-01T00:00:00Z"));

    @Test
    void offsetWritesGoToBlockVolumes() {
        try (StorageFacade facade = StorageFacade.newBuilder().localRoot(root).build()) {
            BlockVolume disk = facade.block("disk");
            disk.write(0, ByteBuffer.wrap("ABCDEF".getBytes(US_ASCII)));
            disk.write(2, ByteBuffer.wrap("XX".getBytes(US_ASCII)));
            ByteBuffer all = disk.read(0, 6);
            assertThat(US_ASCII.decode(all).toString()).isEqualTo("ABXXEF");
            assertThat(facade.stats().openVolumes()).isEqualTo(1);
            assertThatThrownBy(() -> facade.block("disk")).isInstanceOf(VolumeInUseException.class);
        }
    }

    @Test
    void closingTheFacadeReleasesItsVolumes() {
        StorageFacade facade = StorageFacade.newBuilder().localRoot(root).build();
        BlockVolume disk = facade.block("disk");
        facade.close();
        assertThat(disk.isOpen()).isFalse();
        assertThatThrownBy(() -> facade.block("disk")).hasMessage("This StorageFacade is closed");
        try (BlockVolume again = BlockVolume.open(root, "disk")) {
            assertThat(again.isOpen()).isTrue();
        }
    }

    @Test
    void missingSettingsAreExplained() {
        try (StorageFacade objectsOnly =
                StorageFacade.newBuilder().objectStore(store).build()) {
            assertThatThrownBy(() -> objectsOnly.block("disk"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage(
                            "localRoot is required to open block volumes; set StorageFacade.newBuilder().localRoot(dir)");
        }
        try (StorageFacade blockOnly =
                StorageFacade.newBuilder().localRoot(root).build()) {
            assertThatThrownBy(blockOnly::objects)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(
                            "an object store is required to use objects(); set StorageFacade.newBuilder().s3(endpoint).bucket(name)");
            assertThat(blockOnly.stats().degradedReads()).isZero();
        }
        assertThatThrownBy(() -> StorageFacade.newBuilder().build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("set localRoot(dir)");
        assertThatThrownBy(() -> StorageFacade.newBuilder().localRoot(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("localRoot");
    }

    @Test
    void objectReadsDegradeVisiblyAndAreCounted() {
        try (StorageFacade facade = StorageFacade.newBuilder()
                .objectStore(store)
                .clock(clock)
                .lastKnownGood(LastKnownGoodConfig.ofDefaults())
                .build()) {
            facade.objects().put("report", ObjectContent.ofBytes("v1".getBytes(US_ASCII)));
            facade.objects().get("report").readAllBytes();
            clock.advance(Duration.ofSeconds(30));
            store.down(true);

            try (ObjectRead read = facade.objects().get("report")) {
                assertThat(read.degraded()).isTrue();
                assertThat(read.age()).isEqualTo(Duration.ofSeconds(30));
                assertThat(read.readAllBytes()).isEqualTo("v1".getBytes(US_ASCII));
            }
            assertThatThrownBy(() -> facade.objects().get("unread")).isInstanceOf(StorageUnavailableException.class);

            StorageFacade.Stats stats = facade.stats();
            assertThat(stats.degradedReads()).isEqualTo(1);
            assertThat(stats.unavailableReads()).isEqualTo(1);
            assertThat(stats.cachedObjects()).isEqualTo(1);
            assertThat(facade.capabilities()).isEqualTo(FakeObjectStore.CAPABILITIES);
        }
    }

    @Test
    void aPutThatNeverLeftTheProcessKeepsTheDegradedCopy() {
        try (StorageFacade facade = StorageFacade.newBuilder()
                .objectStore(store)
                .clock(clock)
                .lastKnownGood(LastKnownGoodConfig.ofDefaults())
                .build()) {
            facade.objects().put("report", ObjectContent.ofBytes("v1".getBytes(US_ASCII)));
            facade.objects().get("report").readAllBytes();
            store.down(true);
            assertThat(facade.objects().get("report").degraded()).isTrue();

            assertThatThrownBy(() -> facade.objects().put("report", ObjectContent.ofBytes("v2".getBytes(US_ASCII))))
                    .isInstanceOfSatisfying(
                            StorageUnavailableException.class,
                            e -> assertThat(e.outcomeUnknown()).isFalse());

            try (ObjectRead read = facade.objects().get("report")) {
                assertThat(read.degraded()).isTrue();
                assertThat(read.readAllBytes()).isEqualTo("v1".getBytes(US_ASCII));
            }
            assertThat(facade.stats().degradedReads()).isEqualTo(2);
        }
    }

    @Test
    void theDocumentedReadModifyWriteReplacesTheWholeObjectConditionally() {
        try (StorageFacade facade =
                StorageFacade.newBuilder().objectStore(store).build()) {
            facade.objects().put("state", ObjectContent.ofBytes("ABCDEF".getBytes(US_ASCII)));
            try (ObjectRead read = facade.objects().get("state")) {
                byte[] edited = read.readAllBytes();
                edited[2] = 'X';
                edited[3] = 'X';
                facade.objects().putIfMatch("state", read.version().eTag(), ObjectContent.ofBytes(edited));
            }
            assertThat(facade.objects().get("state").readAllBytes()).isEqualTo("ABXXEF".getBytes(US_ASCII));
        }
    }
}
