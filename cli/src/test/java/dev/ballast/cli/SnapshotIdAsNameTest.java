package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.backup.snapshot.Manifests;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * A snapshot's ID given where a backup's name goes, as restic names a snapshot by its ID alone
 * ({@code restic restore 26c49c6c --target x}, {@code restic forget 38e15ad2}): a README user's
 * {@code restore 26c49c6c /tmp/x} said only "There is no backup named '26c49c6c'".
 */
class SnapshotIdAsNameTest extends InProcessCli {

    @Test
    void restoreLsAndVerifyOfASnapshotIdSayWhichBackupItIsOfAndHowToPassIt() throws Exception {
        Path src = Files.createDirectories(home.resolve("src"));
        Files.writeString(src.resolve("a.txt"), "a");
        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        String version = savedSnapshot();
        String shortId = Manifests.shortId(version);
        String hint = "There is no backup named '" + shortId + "' in ";
        String how = "'" + shortId + "' is a snapshot of the backup 'src': pass 'src' and --manifest-version " + shortId
                + " to use it.";

        assertThat(run(at("restore", shortId, home.resolve("r").toString()))).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(err()).contains(hint).contains(how);
        assertThat(home.resolve("r")).doesNotExist();
        assertThat(run(at("ls", shortId))).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(err()).contains(how);
        assertThat(run(at("verify", version.substring(0, 12)))).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(err()).contains("is a snapshot of the backup 'src'");

        // an ID of no snapshot, and a name that is no ID, keep the plain message
        assertThat(run(at("restore", "0123abcd", home.resolve("r").toString()))).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(err()).contains("There is no backup named '0123abcd'").doesNotContain("is a snapshot");
        assertThat(run(at("ls", "nope"))).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(err()).contains("There is no backup named 'nope'").doesNotContain("is a snapshot");
    }

    /** A tester's: 'ballast restore latest DIR', restic's habit, said only "There is no backup named 'latest'". */
    @Test
    void latestGivenAsANameSaysBackupsAreChosenByNameAndNamesThem() throws Exception {
        Path src = Files.createDirectories(home.resolve("src"));
        Files.writeString(src.resolve("a.txt"), "a");
        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        assertThat(run(at("backup", src.toString(), "--name", "docs")))
                .as(err())
                .isZero();

        assertThat(run(at("restore", "latest", home.resolve("r").toString()))).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(err())
                .isEqualTo("Error: There is no backup named 'latest' in the local store "
                        + data().resolve("ballast-backups")
                        + "; a backup is chosen by its name, and its newest snapshot is the one used (what restic"
                        + " calls 'latest'): pass one of 'docs', 'src' (and --manifest-version ID to use an older"
                        + " snapshot; 'ballast list' shows the backups there).\n");
        assertThat(home.resolve("r")).doesNotExist();
        assertThat(run(at("ls", "latest"))).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(err()).contains("pass one of 'docs', 'src'");
    }

    /** A README-only restic user's 'restore latest:/a/b DIR' and 'restore src:a DIR'. */
    @Test
    void resticsSnapshotColonSubfolderSaysThePartGoesAfterTheTarget() throws Exception {
        Path src = Files.createDirectories(home.resolve("src"));
        Files.createDirectories(src.resolve("a/b"));
        Files.writeString(src.resolve("a/b/f.txt"), "f");
        assertThat(run(at("backup", src.toString()))).as(err()).isZero();

        assertThat(run(at("restore", "latest:/a/b", home.resolve("r").toString())))
                .isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .contains("'latest:/a/b' looks like restic's SNAPSHOT:SUBFOLDER")
                .contains("'ballast restore NAME TARGET-DIR a/b'");
        assertThat(run(at("restore", "src:a", home.resolve("r").toString()))).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("'src:a' looks like restic's SNAPSHOT:SUBFOLDER");
        assertThat(home.resolve("r")).doesNotExist();

        // the way it says works
        assertThat(run(at("restore", "src", home.resolve("r").toString(), "a/b")))
                .as(err())
                .isZero();
        assertThat(home.resolve("r/a/b/f.txt")).hasContent("f");
        // a name with a colon that names no backup keeps the plain message
        assertThat(run(at("restore", "no:such", home.resolve("r2").toString()))).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(err()).contains("There is no backup named 'no:such'");
    }

    @Test
    void forgetOfASnapshotIdWithoutAPolicySaysTheIdGoesAfterTheName() {
        assertThat(run(at("forget", "38e15ad2"))).isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .contains("No policy was given")
                .contains("a snapshot's ID goes after its backup's name: 'ballast forget NAME --manifest-version"
                        + " 38e15ad2'");
        assertThat(run(at("forget", "photos"))).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).doesNotContain("snapshot's ID");
    }
}
