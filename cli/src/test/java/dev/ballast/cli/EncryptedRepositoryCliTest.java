package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.VersionEntry;
import dev.ballast.storage.object.local.LocalObjectStore;
import dev.ballast.testkit.LeakCheck;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The commands on a repository of format 3 made by {@code ballast init}: backup, list, ls, restore,
 * verify, versions (refused), forget --prune and unlock, as a user runs them; and nothing of a name
 * or content readable in the store.
 */
@ExtendWith(LeakCheck.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EncryptedRepositoryCliTest extends InProcessCli {
    @Test
    void theCommandsWorkOnAnEncryptedRepository() throws Exception {
        Path src = Files.createDirectories(home.resolve("src"));
        Files.writeString(src.resolve("payroll-2026.csv"), "alice;90210\n".repeat(500));
        byte[] big = new byte[3 * 1024 * 1024];
        new Random(1).nextBytes(big);
        Files.write(src.resolve("big.bin"), big);

        assertThat(run(at("init"))).as(err()).isZero();
        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        assertThat(run(at("list"))).as(err()).isZero();
        assertThat(out()).contains("src");
        assertThat(run(at("ls", "src"))).as(err()).isZero();
        assertThat(out()).contains("payroll-2026.csv");

        Path target = home.resolve("restored");
        assertThat(run(at("restore", "src", target.toString()))).as(err()).isZero();
        assertThat(Files.readAllBytes(target.resolve("big.bin"))).isEqualTo(big);
        assertThat(Files.readString(target.resolve("payroll-2026.csv"))).isEqualTo("alice;90210\n".repeat(500));

        assertThat(run(at("verify", "src"))).as(err()).isZero();
        assertThat(run(at("versions", "src/big.bin"))).isEqualTo(ExitCodes.USAGE);
        assertThat(err())
                .isEqualTo("Error: 'versions' does not apply to an encrypted repository, whose files are chunks in"
                        + " packs rather than objects with versions: 'ballast list' shows the snapshots of each name,"
                        + " 'ballast ls src --manifest-version ID' the files of one of them with their sizes and times,"
                        + " and 'ballast restore src TARGET-DIR big.bin --manifest-version ID' restores the file as"
                        + " that snapshot holds it.\n");
        // what the message suggests works as it says
        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        String id = savedSnapshot();
        assertThat(run(at("ls", "src", "--manifest-version", id))).as(err()).isZero();
        assertThat(out()).contains("big.bin");
        Path one = home.resolve("one");
        assertThat(run(at("restore", "src", one.toString(), "big.bin", "--manifest-version", id)))
                .as(err())
                .isZero();
        assertThat(Files.readAllBytes(one.resolve("big.bin"))).isEqualTo(big);
        assertThat(one.resolve("payroll-2026.csv")).doesNotExist();

        try (LocalObjectStore store = LocalObjectStore.open(data().resolve("ballast-backups"))) {
            for (VersionEntry v : store.listVersions("")) {
                assertThat(v.key()).doesNotContain("payroll").doesNotContain("src/");
                if (!v.deleteMarker()) {
                    try (ObjectRead r = store.get(v.key(), ReadOptions.version(v.versionId()))) {
                        String bytes = new String(r.readAllBytes(), StandardCharsets.ISO_8859_1);
                        assertThat(bytes).doesNotContain("payroll").doesNotContain("alice;90210");
                    }
                }
            }
        }

        new Random(2).nextBytes(big);
        Files.write(src.resolve("big.bin"), big);
        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        assertThat(run(at("forget", "src", "--keep-last", "1", "--prune", "--grace", "0s")))
                .as(err() + out())
                .isZero();
        assertThat(out()).contains("Prune done");
        Path again = home.resolve("again");
        assertThat(run(at("restore", "src", again.toString()))).as(err()).isZero();
        assertThat(Files.readAllBytes(again.resolve("big.bin"))).isEqualTo(big);
        assertThat(run(at("unlock"))).as(err()).isZero();
    }

    @Test
    void aRepositoryWhoseSnapshotsAreAllDamagedOrWhoseConfigIsGoneIsNeverShownAsEmpty() throws Exception {
        Path src = Files.createDirectories(home.resolve("src"));
        Files.writeString(src.resolve("payroll-2026.csv"), "alice;90210\n".repeat(50));
        assertThat(run(at("init"))).as(err()).isZero();
        assertThat(run(at("backup", src.toString()))).as(err()).isZero();

        try (LocalObjectStore store = LocalObjectStore.open(data().resolve("ballast-backups"))) {
            for (String key : store.list("snapshots/")) {
                for (VersionEntry v : store.versions(key)) {
                    store.deleteVersion(key, v.versionId());
                }
                store.put(key, dev.ballast.storage.object.ObjectContent.ofBytes(new byte[100]));
            }
        }
        assertThat(run(at("list"))).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(out()).contains(" DAMAGED (").doesNotContain("No backups in");
        assertThat(err()).contains("1 manifest version(s) are damaged");

        try (LocalObjectStore store = LocalObjectStore.open(data().resolve("ballast-backups"))) {
            for (VersionEntry v : store.versions("config")) {
                store.deleteVersion("config", v.versionId());
            }
        }
        assertThat(run(at("list"))).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(err()).contains("holds objects of an encrypted repository").contains("but no 'config'");
        assertThat(run(at("backup", src.toString()))).isEqualTo(ExitCodes.INTEGRITY);
        try (LocalObjectStore store = LocalObjectStore.open(data().resolve("ballast-backups"))) {
            assertThat(store.list("src/")).as("nothing written in clear").isEmpty();
        }
    }
}
