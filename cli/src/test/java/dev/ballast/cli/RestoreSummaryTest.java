package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** What a restore's last line says it made, when that is not only files with content. */
class RestoreSummaryTest extends InProcessCli {

    @Test
    void aBackupOfLinksAndDirectoriesAloneSaysWhatTheRestoreMadeNotJustNoFiles() throws Exception {
        // A README user's: a backup of a folder of symbolic links restored them all and said "0 files restored".
        Path src = Files.createDirectories(home.resolve("links/empty"));
        Files.createSymbolicLink(src.getParent().resolve("to-etc"), Path.of("/etc"));
        Files.createSymbolicLink(src.getParent().resolve("dangling"), Path.of("nowhere"));
        assertThat(run(at("backup", src.getParent().toString()))).as(err()).isZero();

        Path target = home.resolve("r");
        assertThat(run(at("restore", "links", target.toString()))).as(err()).isZero();

        assertThat(out()).contains("Restore of 'links' complete: 0 files restored (and 2 symbolic links),");
        assertThat(Files.readSymbolicLink(target.resolve("to-etc"))).isEqualTo(Path.of("/etc"));
        assertThat(Files.readSymbolicLink(target.resolve("dangling"))).isEqualTo(Path.of("nowhere"));
        assertThat(target.resolve("empty")).isEmptyDirectory();
    }
}
