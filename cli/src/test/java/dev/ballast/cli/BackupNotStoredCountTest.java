package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.backup.run.BackupRunner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The count of what a backup did not store: directories apart from files. */
class BackupNotStoredCountTest {
    @TempDir
    Path source;

    @Test
    void anUnreadableDirectoryIsNotCountedAsAFile() throws IOException {
        // Field case (a fault tester): "2 file(s) not stored (first: closed, secret)", closed being a directory.
        Files.createDirectories(source.resolve("closed"));
        Files.writeString(source.resolve("secret"), "s");
        List<BackupRunner.Failure> failed =
                List.of(new BackupRunner.Failure("closed", "why"), new BackupRunner.Failure("secret", "why"));

        assertThat(BackupCommand.notStoredCount(failed, source)).isEqualTo("1 file and 1 directory");
        assertThat(BackupCommand.notStoredCount(failed.subList(1, 2), source)).isEqualTo("1 file");
        assertThat(BackupCommand.notStoredCount(failed.subList(0, 1), source)).isEqualTo("1 directory");
        assertThat(BackupCommand.notStoredCount(
                        List.of(new BackupRunner.Failure("gone", "why"), new BackupRunner.Failure("secret", "why")),
                        source))
                .isEqualTo("2 files");
    }
}
