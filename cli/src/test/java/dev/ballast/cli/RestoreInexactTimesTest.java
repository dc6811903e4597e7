package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.ManifestEntry;
import dev.ballast.backup.snapshot.ManifestTree;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The note a restore prints for modification times the JVM cannot set exactly. Field case (a fault
 * tester): files of 2400-01-01 and 1969-12-31 23:59:59.5 came back as 2262-04-11 23:47:16.854775807 and
 * 1969-12-31 23:59:59, and the restore said complete without a word.
 */
class RestoreInexactTimesTest {
    private static final String SHA = "0".repeat(64);

    private static Manifest of(List<Instant> files, List<Instant> dirs) {
        List<ManifestEntry> entries = new java.util.ArrayList<>();
        for (int i = 0; i < files.size(); i++) {
            entries.add(new ManifestEntry("f" + i, 1, SHA, "v" + i, files.get(i)));
        }
        List<ManifestTree.Directory> directories = new java.util.ArrayList<>();
        for (int i = 0; i < dirs.size(); i++) {
            directories.add(new ManifestTree.Directory("d" + i, dirs.get(i), null));
        }
        return new Manifest(
                1,
                "n",
                Instant.parse("2026-12-05T00:00:00Z"),
                true,
                entries,
                List.of(),
                new ManifestTree(directories, List.of(), List.of()));
    }

    @Test
    void theFieldCaseIsNoted() {
        String note = RestoreCommand.inexactTimes(
                of(List.of(Instant.parse("2400-01-01T00:00:00Z"), Instant.parse("1969-12-31T23:59:59.5Z")), List.of()));
        assertThat(note)
                .isEqualTo("Note: 2 files of the backup have a modification time the JVM cannot set exactly (a fraction"
                        + " of a second before 1970, or a time after 2262-04-11 23:47:16 UTC): each was given the"
                        + " nearest one it can set, the whole second before 1970 and 2262-04-11 23:47:16 UTC after"
                        + " that.");
    }

    @Test
    void directoriesAreCountedApart() {
        assertThat(RestoreCommand.inexactTimes(of(
                        List.of(Instant.parse("1900-01-01T00:00:00.25Z")),
                        List.of(Instant.parse("3000-01-01T00:00:00Z")))))
                .startsWith("Note: 1 file and 1 directory of the backup have a modification time");
        assertThat(RestoreCommand.inexactTimes(of(List.of(), List.of(Instant.parse("3000-01-01T00:00:00Z")))))
                .startsWith("Note: 1 directory of the backup has a modification time");
    }

    @Test
    void timesTheJvmSetsExactlyAreNotNoted() {
        assertThat(RestoreCommand.inexactTimes(of(
                        List.of(
                                Instant.parse("1969-12-31T23:59:59Z"),
                                Instant.parse("1901-12-13T20:45:52Z"),
                                Instant.parse("2262-04-11T23:47:16.854775807Z"),
                                Instant.parse("2026-12-05T04:00:00.123456789Z")),
                        List.of(Instant.parse("1970-01-01T00:00:00Z")))))
                .isNull();
    }
}
