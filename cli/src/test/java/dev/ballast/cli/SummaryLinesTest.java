package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** What a command's last lines say it did, in the cases their usual wording does not fit. */
class SummaryLinesTest extends InProcessCli {

    @Test
    void aBackupOfLinksAndDirectoriesAloneSaysWhatTheRestoreMadeNotJustNoFiles() throws Exception {
        // A README user's: a backup of a folder of symbolic links restored them all and said "0 files restored".
        Path src = Files.createDirectories(home.resolve("links/empty"));
        Files.createSymbolicLink(src.getParent().resolve("to-etc"), Path.of("/etc"));
        Files.createSymbolicLink(src.getParent().resolve("dangling"), Path.of("nowhere"));
        assertThat(run(at("backup", src.getParent().toString()))).as(err()).isZero();

        Path target = home.resolve("r");
        assertThat(run(at("restore", "links", target.toString()))).as(err()).isZero();

        assertThat(out())
                .contains("Restore of 'links' complete: 0 files restored, 0 already present (and 2 symbolic links in"
                        + " place),");
        assertThat(Files.readSymbolicLink(target.resolve("to-etc"))).isEqualTo(Path.of("/etc"));
        assertThat(Files.readSymbolicLink(target.resolve("dangling"))).isEqualTo(Path.of("nowhere"));
        assertThat(target.resolve("empty")).isEmptyDirectory();

        // run again, the links found in place: not counted among what was restored (a README user's)
        assertThat(run(at("restore", "links", target.toString()))).as(err()).isZero();
        assertThat(out())
                .contains("Restore of 'links' complete: 0 files restored, 0 already present (and 2 symbolic links in"
                        + " place),");
    }

    @Test
    void anUnchangedBackupOfOneFileSaysSoInTheSingular() throws Exception {
        // A README user's: "Nothing to upload: all 1 files are unchanged since the last backup."
        Path src = Files.createDirectories(home.resolve("one"));
        Files.writeString(src.resolve("a.txt"), "a");
        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        assertThat(out()).contains("Nothing to upload: the one file is unchanged since the last backup.");

        Files.writeString(src.resolve("b.txt"), "b");
        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        assertThat(out()).contains("Nothing to upload: all 2 files are unchanged since the last backup.");
    }

    /** A tester's: an incomplete restore said "files already restored are complete" when none were. */
    @Test
    void anIncompleteRestoreSaysWhatItRestoredOrThatNothingWas() {
        assertThat(RestoreCommand.restoredClause(0)).isEqualTo("nothing was restored");
        assertThat(RestoreCommand.restoredClause(1)).isEqualTo("the 1 file restored is complete and verified");
        assertThat(RestoreCommand.restoredClause(12)).isEqualTo("the 12 files restored are complete and verified");
    }
}
