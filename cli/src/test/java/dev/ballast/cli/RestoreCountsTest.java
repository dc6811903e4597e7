package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.backup.restore.RestoreRunner;
import dev.ballast.backup.run.BackupRunner;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.ManifestEntry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The count of what a restore did not restore: files apart from directories and links. */
class RestoreCountsTest {
    private static final Instant T = Instant.parse("2026-12-05T00:00:00Z");
    private static final String SHA = "0".repeat(64);

    private static final Manifest M = new Manifest(
            1,
            "n",
            T,
            true,
            List.of(
                    new ManifestEntry("d/a", 1, SHA, "v1", T),
                    new ManifestEntry("d/b", 1, SHA, "v2", T),
                    new ManifestEntry("c", 1, SHA, "v3", T)),
            List.of());

    private static RestoreRunner.Result failing(String... paths) {
        List<BackupRunner.Failure> failed = java.util.Arrays.stream(paths)
                .map(p -> new BackupRunner.Failure(p, "why"))
                .toList();
        return new RestoreRunner.Result(1, 0, 1, failed, null, 0, false, Duration.ZERO, 0, 0, null, null);
    }

    @Test
    void directoriesAndLinksAreNotCountedAsFiles() {
        // A tester's summary: "1196 files restored ... 9 files not restored" of 1,202 files, the 9 being
        // 6 files and 3 directories.
        assertThat(RestoreCommand.notRestoredCount(failing("d/a", "d/b"), M, Map.of()))
                .isEqualTo("2 files");
        assertThat(RestoreCommand.notRestoredCount(failing("d/a", "d", "d/link"), M, Map.of()))
                .isEqualTo("1 file and 2 directories or links");
        assertThat(RestoreCommand.notRestoredCount(failing("d"), M, Map.of())).isEqualTo("1 directory or link");
    }

    @Test
    void aFileWrittenUnderAnotherNameIsCountedByThatName() {
        assertThat(RestoreCommand.notRestoredCount(failing("elsewhere/c"), M, Map.of("c", "elsewhere/c")))
                .isEqualTo("1 file");
    }
}
