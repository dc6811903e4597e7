package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.backup.snapshot.Manifests;
import dev.ballast.storage.object.local.LocalObjectStore;
import dev.ballast.testkit.LeakCheck;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A backup whose only snapshot does not open, so that its name cannot be read: {@code list} shows it
 * by its stored key, DAMAGED, and exits as it does for a damaged version of a named backup;
 * {@code forget} takes that key with the IDs {@code check} names, each version once.
 */
@ExtendWith(LeakCheck.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SnapshotWithoutANameTest extends EncryptedStoreCli {
    private String srcA1;
    private String srcA2;

    /** srcA (two snapshots), srcB and srcC; srcB's only snapshot with a byte flipped; returns its stored key. */
    private String threeBackupsAndSrcBDamaged() throws Exception {
        assertThat(run(at("init"))).as(err()).isZero();
        Path a = Files.createDirectories(home.resolve("srcA"));
        writeFiles(a, 0, 1, 0);
        assertThat(run(at("backup", a.toString()))).as(err()).isZero();
        srcA1 = savedSnapshot();
        writeFiles(a, 1, 2, 0);
        assertThat(run(at("backup", a.toString()))).as(err()).isZero();
        srcA2 = savedSnapshot();
        List<String> before = snapshotKeys();
        Path b = Files.createDirectories(home.resolve("srcB"));
        writeFiles(b, 0, 1, 10);
        assertThat(run(at("backup", b.toString()))).as(err()).isZero();
        List<String> after = snapshotKeys();
        after.removeAll(before);
        assertThat(after).hasSize(1);
        Path c = Files.createDirectories(home.resolve("srcC"));
        writeFiles(c, 0, 1, 20);
        assertThat(run(at("backup", c.toString()))).as(err()).isZero();
        String key = after.get(0);
        Path file = contentFile(key);
        byte[] bytes = Files.readAllBytes(file);
        bytes[60] ^= 0x01;
        Files.write(file, bytes);
        return key;
    }

    private List<String> snapshotKeys() {
        try (LocalObjectStore store = store()) {
            return new ArrayList<>(store.list("snapshots/"));
        }
    }

    private String onlyVersion(String key) {
        try (LocalObjectStore store = store()) {
            return store.versions(key).get(0).versionId();
        }
    }

    @Test
    void aBackupWhoseOnlySnapshotDoesNotOpenIsListedByItsStoredKeyAsDamaged() throws Exception {
        String key = threeBackupsAndSrcBDamaged();
        String version = onlyVersion(key);

        assertThat(run(at("list"))).as(err()).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(out()).contains("srcA\n").contains("srcC\n").contains(key + "\n");
        assertThat(out())
                .containsPattern("\n  " + Manifests.shortId(version) + "  " + version + " +[0-9-]+ [0-9:]+ UTC  - "
                        + " DAMAGED \\(");
        assertThat(err())
                .contains("Warning: no version of the snapshot " + key + " opens, so its backup name cannot be"
                        + " shown; 'ballast check' names it with the command that removes it.")
                .doesNotContain("verify the repository");
    }

    @Test
    void aDamagedVersionOfABackupWithAnIntactOneExitsAsTheUnnamedSnapshotDoes() throws Exception {
        assertThat(run(at("init"))).as(err()).isZero();
        Path a = Files.createDirectories(home.resolve("srcA"));
        writeFiles(a, 0, 1, 0);
        assertThat(run(at("backup", a.toString()))).as(err()).isZero();
        writeFiles(a, 1, 2, 0);
        assertThat(run(at("backup", a.toString()))).as(err()).isZero();
        String newest = savedSnapshot();
        Path file = contentFile(snapshotKeys().get(0));
        byte[] bytes = Files.readAllBytes(file);
        bytes[60] ^= 0x01;
        Files.write(file, bytes);

        assertThat(run(at("list"))).as(err()).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(out()).containsPattern(newest + " .* DAMAGED \\(");
        assertThat(err()).contains("Warning: 1 manifest version(s) are damaged and cannot be restored");
    }

    @Test
    void theStoredKeyFormRefusesLatestAndNamesCheckForAnIdItDoesNotHave() throws Exception {
        String key = threeBackupsAndSrcBDamaged();

        assertThat(run(at("forget", key, "--manifest-version", "latest"))).isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .contains("'latest' is not taken for '" + key + "': no version of that snapshot opens, so none is"
                        + " the newest complete one; pass the IDs 'ballast check' names for it.")
                .doesNotContain("too short");
        assertThat(run(at("forget", key, "--manifest-version", "00000000"))).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(err())
                .contains("The snapshot stored as '" + key + "' has no version '00000000'; 'ballast check' names the"
                        + " IDs of the snapshots that do not open.")
                .doesNotContain("'ballast list'");
        assertThat(run(at("forget", key, "--manifest-version", "0000"))).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("'ballast check'").doesNotContain("'latest'");
        assertThat(snapshotKeys()).contains(key);
    }

    @Test
    void aVersionGivenTwiceIsRemovedAndCountedOnce() throws Exception {
        String key = threeBackupsAndSrcBDamaged();
        String version = onlyVersion(key);
        String shortId = Manifests.shortId(version);

        assertThat(run(at("forget", key, "--manifest-version", shortId, "--manifest-version", version)))
                .as(err())
                .isZero();
        assertThat(out())
                .contains("remove 1 snapshot stored as '" + key + "'")
                .contains("Removed 1 manifest version stored as '" + key + "'");
        assertThat(out().split(version, -1)).hasSize(2);

        String a1 = Manifests.shortId(srcA1);
        assertThat(run(at("forget", "srcA", "--manifest-version", a1, "--manifest-version", srcA1, "--dry-run")))
                .as(err())
                .isZero();
        assertThat(out()).contains("would remove 1 backup of 'srcA':");
        assertThat(out().split(srcA1, -1)).hasSize(2);
        assertThat(run(at("forget", "srcA", "--manifest-version", a1, "--manifest-version", a1)))
                .as(err())
                .isZero();
        assertThat(out()).contains("remove 1 backup of 'srcA':").contains("Removed 1 manifest version of 'srcA'");
        assertThat(out().split(srcA1, -1)).hasSize(2);
        assertThat(run(at("list"))).as(err()).isZero();
        assertThat(out()).contains(srcA2).doesNotContain(srcA1);
    }
}
