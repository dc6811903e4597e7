package dev.ballast.backup.retention;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.backup.run.RunMarker;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link PackedPrune#markerOf}: a backup's marker by its name, the reader's and the prune's by what kept them. */
class MarkerOfTest {
    private static RunMarker.Found marker(String name) {
        Instant t = Instant.parse("2026-06-01T12:00:00Z");
        return new RunMarker.Found(
                RunMarker.PREFIX + name + "/run-1",
                List.of(),
                t,
                new RunMarker.Holder(name, t, "h", 123, null, null, null),
                "process 123 no longer runs");
    }

    @Test
    void aRestoresMarkerIsNamedAsARestoreOrVerifyNotByItsReservedName() {
        assertThat(PackedPrune.markerOf(marker(PackedPrune.READER_MARKER)))
                .isEqualTo("a restore or verify")
                .doesNotContain(".ballast");
    }

    @Test
    void aPrunesMarkerIsNamedAsAPruneOrRepair() {
        assertThat(PackedPrune.markerOf(marker(PackedPrune.PRUNE_MARKER))).isEqualTo("a prune or repair");
    }

    @Test
    void aBackupsMarkerIsNamedByItsBackupName() {
        assertThat(PackedPrune.markerOf(marker("photos"))).isEqualTo("'photos'");
    }
}
