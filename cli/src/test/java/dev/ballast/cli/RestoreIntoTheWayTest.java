package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A directory standing where the backup has a link (tester's finding): the messages name the user's
 * path, never the temporary name ({@code .ballast-TOKEN-N}) the link is made under.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
@ExtendWith(LeakCheck.class)
class RestoreIntoTheWayTest extends InProcessCli {
    Path target;

    @BeforeEach
    void backUpALinkAndPutADirectoryWhereItGoes() throws IOException {
        Path src = Files.createDirectories(home.resolve("s/d"));
        Files.writeString(src.resolve("f.txt"), "f");
        Files.createSymbolicLink(src.getParent().resolve("link"), Path.of("d"));
        assertThat(run("backup", src.getParent().toString(), "--data-dir", data().toString()))
                .as(err())
                .isZero();
        target = Files.createDirectories(home.resolve("r/link/inside"));
        target = target.getParent().getParent();
    }

    @Test
    void withoutOverwriteTheRefusalNamesTheDirectoriesInTheWayAndDoesNotAdviseOverwrite() {
        assertThat(run("restore", "s", target.toString(), "--data-dir", data().toString()))
                .isEqualTo(ExitCodes.CONFLICT);

        assertThat(err().lines().toList())
                .containsExactly(
                        "In the way: link (a directory stands where the backup has a link)",
                        "Error: Restore into '" + target + "' refused: 1 existing entry is in the way (1"
                                + " directory where the backup has a link); nothing was written. Restore into an"
                                + " empty directory, or remove the directories listed yourself (--overwrite never"
                                + " replaces a directory).");
    }

    @Test
    void withOverwriteEachDirectoryIsLeftAndReportedByTheUsersPathOnly() {
        assertThat(run("restore", "s", target.toString(), "--overwrite", "--data-dir", data().toString()))
                .isEqualTo(ExitCodes.INCOMPLETE);

        String why = "a directory stands where the backup has this link; it was left as it is (--overwrite never"
                + " replaces a directory): remove it and run the restore again";
        assertThat(err().lines().filter(l -> l.startsWith("Not restored")).toList())
                .containsExactly("Not restored: link (" + why + ")");
        assertThat(err()).doesNotContain(".ballast-");
        assertThat(target.resolve("link/inside")).isDirectory();
        assertThat(target.resolve("d/f.txt")).hasContent("f");
    }
}
