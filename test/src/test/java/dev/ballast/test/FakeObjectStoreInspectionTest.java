package dev.ballast.test;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.VersionEntry;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class FakeObjectStoreInspectionTest {
    private final FakeTime time = new FakeTime(Instant.parse("2026-03-01T00:00:00Z"));
    private final FakeObjectStore store = new FakeObjectStore(FakeObjectStore.CAPABILITIES, time);

    @Test
    void aTestSeesEveryVersionAndDeleteMarkerAsStoredNewestFirst() {
        ObjectVersion v1 = store.put("k", ObjectContent.ofBytes("one".getBytes(UTF_8)));
        time.advance(Duration.ofMinutes(1));
        ObjectVersion v2 = store.put("k", ObjectContent.ofBytes("two".getBytes(UTF_8)));
        VersionEntry marker = store.delete("k");

        assertThat(store.storedVersions("k"))
                .extracting(FakeObjectStore.StoredVersion::versionId)
                .containsExactly(marker.versionId(), v2.versionId(), v1.versionId());
        assertThat(store.storedVersions("k").get(1).text()).isEqualTo("two");
        assertThat(store.storedVersions("k").get(1).sha256()).isEqualTo(v2.sha256());
        assertThat(store.storedVersions("k").get(2).lastModified()).isEqualTo(Instant.parse("2026-03-01T00:00:00Z"));
        assertThat(store.deleteMarkers("k")).containsExactly(marker.versionId());
        assertThat(store.currentBytes("k")).isEmpty();
        assertThat(store.allKeys()).containsExactly("k");
        assertThat(store.keysPut()).containsExactly("k", "k");
        assertThatThrownBy(() -> store.storedVersions("k").get(0).text())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("delete marker");
    }

    @Test
    void inspectingTouchesNothingTheStoreRecords() {
        store.put("k", ObjectContent.ofBytes("one".getBytes(UTF_8)));
        store.silentlyCorruptNextRead();

        assertThat(store.currentBytes("k")).hasValue("one".getBytes(UTF_8));
        assertThat(store.keysRead()).isEmpty();
        assertThat(store.openReads()).isZero();
    }
}
