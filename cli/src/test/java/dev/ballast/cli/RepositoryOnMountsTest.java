package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.testkit.LeakCheck;
import dev.ballast.testkit.TmpfsDisks;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code -r DIR} where the store's directory and the one holding it are on different disks (a mount
 * point, a bind mount in a container), and {@code -r} naming a file: what can be written is the store's
 * own directory, and the advice names {@code --repo}.
 */
@ExtendWith(LeakCheck.class)
class RepositoryOnMountsTest extends InProcessCli {
    private final TmpfsDisks disks = new TmpfsDisks();

    @AfterEach
    void unmount() throws Exception {
        disks.close();
    }

    @Test
    void aWritableStoreInsideAReadOnlyDirectoryIsUsedAndAReadOnlyOneIsRefusedNamingIt() throws Exception {
        // A tester's: -r /mnt/ro/r, a writable tmpfs mounted inside a read-only one, was refused with "The
        // data directory '/mnt/ro' cannot be used (...Read-only file system); pass a writable directory with
        // --data-dir": the check wrote into the folder holding the store, not the store.
        Path ro = disks.mount(home.resolve("ro"), "1m");
        Path repo = Files.createDirectories(ro.resolve("r"));
        disks.readOnly(ro);
        disks.mount(repo, "8m");
        Path src = Files.createDirectories(home.resolve("src"));
        Files.writeString(src.resolve("a.txt"), "a");

        assertThat(run("-r", repo.toString(), "init")).as(err()).isZero();
        assertThat(run("-r", repo.toString(), "backup", src.toString()))
                .as(err())
                .isZero();
        assertThat(run(
                        "-r",
                        repo.toString(),
                        "restore",
                        "src",
                        home.resolve("t").toString()))
                .as(err())
                .isZero();
        assertThat(home.resolve("t/a.txt")).hasContent("a");
        assertThat(run("-r", repo.toString(), "repair", "index")).as(err()).isZero();

        disks.readOnly(repo);
        assertThat(run("-r", repo.toString(), "backup", src.toString())).isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .contains("The local store " + repo + " cannot be written (Read-only file system); only commands"
                        + " that read");
        assertThat(run("-r", repo.toString(), "list")).as(err()).isZero();
        assertThat(run("-r", repo.toString(), "repair", "index")).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("The local store " + repo + " cannot be written (Read-only file system)");

        // a new store whose directory does not exist yet inside the read-only one: the advice names --repo
        assertThat(run("-r", ro.resolve("new").toString(), "init")).isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .contains("The directory '" + ro + "' that would hold the store --repo names cannot be written")
                .contains("give --repo a store's directory that can be written");
    }

    @Test
    void aFileGivenAsTheRepositoryIsRefusedInOneSentence() throws Exception {
        Path file = Files.writeString(home.resolve("passwd"), "root:x:0:0\n");
        Path src = Files.createDirectories(home.resolve("src"));
        for (String[] args : new String[][] {
            {"-r", file.toString(), "backup", src.toString()},
            {"-r", file.toString(), "list"},
            {"-r", "/dev/null", "list"}
        }) {
            assertThat(run(args)).as(String.join(" ", args)).isEqualTo(ExitCodes.USAGE);
            assertThat(err()).contains("--repo " + args[1] + " is a file, not a directory; give the store's directory");
        }
        assertThat(file).hasContent("root:x:0:0\n");

        Path dangling = Files.createSymbolicLink(home.resolve("dangling"), home.resolve("not-yet"));
        assertThat(run("-r", dangling.toString(), "init")).isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .contains("--repo " + dangling + " is a symbolic link to " + home.resolve("not-yet")
                        + ", which does not exist");
        assertThat(home.resolve("not-yet")).doesNotExist();
    }

    @Test
    void optionsWithoutACommandOrBeforeHelpAreNoUnknownOptions() {
        // a tester's: 'ballast -r R' said "Unknown options: '-r', 'R'", and 'ballast -r R help key' "Unknown
        // subcommand 'R'"
        assertThat(run("-r", home.resolve("r").toString())).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("Missing command: pass one of init, backup");
        assertThat(run("-r", home.resolve("r").toString(), "help", "key")).isZero();
        assertThat(out()).contains("Usage: ballast key");
    }
}
