package dev.ballast.it.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.backup.keys.KeyFiles;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.cli.ExitCodes;
import dev.ballast.it.cli.CliHarness.Run;
import dev.ballast.storage.StorageFacade;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * CliDamagedStoreIT's damaged newest manifest on the encrypted repository a new store now is
 * (format 3), on the local store and on S3Mock: the newest snapshot's stored bytes (a sealed object
 * under {@code snapshots/}) flipped or cut, {@code list} marks it DAMAGED, {@code restore} and
 * {@code verify} fall back to the one before with exit 7, {@code check} names it (exit 4), and the next
 * backup warns and goes on.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CliDamagedSnapshotIT extends CliOnBothStores {
    /** The version ID of the newest snapshot of {@code name}, read through the repository's key. */
    static String latestSnapshot(Store store, String name) {
        try (StorageFacade f = store.open()) {
            assertThat(KeyFiles.isRepository(f.objects()))
                    .as("a new store is an encrypted repository")
                    .isTrue();
            return CliHarness.asCommandsSeeIt(f.objects())
                    .versions(Manifest.key(name))
                    .get(0)
                    .versionId();
        }
    }

    @ParameterizedTest
    @EnumSource(Store.class)
    void aDamagedNewestSnapshotCostsOneRestorePoint(Store store) throws IOException {
        Map<String, UnaryOperator<byte[]>> damages =
                Map.of("flipped", StoredCopies::flipOneByte, "cut", StoredCopies::truncateToHalf);
        for (String how : List.of("flipped", "cut")) {
            UnaryOperator<byte[]> damage = damages.get(how);
            String name = "snapshot-" + how + "-" + store.name().toLowerCase();
            Path source = Files.createDirectories(base.resolve(name));
            Files.writeString(source.resolve("a.txt"), "first a");
            Files.writeString(source.resolve("b.txt"), "b stays");
            assertThat(ballast(store, "backup", source.toString()).exitCode()).isEqualTo(ExitCodes.OK);
            Map<String, String> first = CliHarness.hashes(source);
            String firstVersion = latestSnapshot(store, name);
            Files.writeString(source.resolve("a.txt"), "second a, longer");
            assertThat(ballast(store, "backup", source.toString()).exitCode()).isEqualTo(ExitCodes.OK);
            String secondVersion = latestSnapshot(store, name);

            store.damage(secondVersion, damage);

            Run list = ballast(store, "list");
            assertThat(list.exitCode()).isEqualTo(ExitCodes.INTEGRITY);
            assertThat(list.out()).contains(firstVersion).containsPattern(secondVersion + ".*DAMAGED");

            // check names the damaged version under its name (told by the version that opens), reads
            // every pack, and finds nothing else wrong
            Run check = ballast(store, "check", "--read-data");
            assertThat(check.exitCode()).as(check.err()).isEqualTo(ExitCodes.INTEGRITY);
            assertThat(check.err())
                    .contains("Damaged snapshot: " + name + " "
                            + dev.ballast.backup.snapshot.Manifests.shortId(secondVersion) + " (")
                    .contains("its manifest does not open")
                    .doesNotContain("Damaged: data/")
                    .doesNotContain("\tat ");
            assertThat(check.out()).startsWith("Check FAILED: ").contains(" whole, ");

            Path target = base.resolve(name + "-restored");
            Run restore = ballast(store, "restore", name, target.toString());
            assertThat(restore.exitCode()).as(restore.err()).isEqualTo(ExitCodes.OLDER_BACKUP_USED);
            assertThat(restore.err())
                    .contains("Restored an older backup of '" + name + "' (manifest version "
                            + CliHarness.label(firstVersion))
                    .contains("because the newest, manifest version " + CliHarness.label(secondVersion)
                            + ", is damaged (exit 7)")
                    .doesNotContain("\tat ");
            assertThat(CliHarness.hashes(target)).isEqualTo(first);
            assertThat(ballast(store, "verify", name).exitCode()).isEqualTo(ExitCodes.OLDER_BACKUP_USED);

            Files.writeString(source.resolve("a.txt"), "third a");
            Run backup = ballast(store, "backup", source.toString());
            assertThat(backup.exitCode()).as(backup.err()).isEqualTo(ExitCodes.OK);
            assertThat(backup.err()).contains("Warning: the newest manifest of '" + name + "'");
            Path again = base.resolve(name + "-restored-again");
            assertThat(ballast(store, "restore", name, again.toString()).exitCode())
                    .isEqualTo(ExitCodes.OK);
            assertThat(CliHarness.hashes(again)).isEqualTo(CliHarness.hashes(source));
        }
    }
}
