package dev.ballast.it.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.cli.ExitCodes;
import dev.ballast.it.cli.CliHarness.Run;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
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
 * Damage in the store costs one restore point or one file, never a whole backup name, and is
 * repaired from the source: on the default local store and on an S3 endpoint (S3Mock, its files on
 * disk damaged behind its back). Each command must end promptly: the timeout guards against a
 * command that waits for bytes that will never come.
 *
 * <p>Of the earlier format's mechanics (stored copies of one object per file and plain manifests damaged by version ID; {@code verify --repair}); a damaged newest snapshot of format 3 is CliDamagedSnapshotIT, the rest of format 3's damage docs/backup-format.md's damage rules: every {@code backup} here carries
 * {@link CliHarness#EARLIER_FORMAT}, so the store stays of the earlier, unencrypted format whatever
 * the order the tests run in (issue 22 made a new store encrypted by default).
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class CliDamagedStoreIT extends CliOnBothStores {
    /** As {@link CliOnBothStores#ballast}, every backup in the earlier format ({@link CliHarness#EARLIER_FORMAT}). */
    static Run ballast(Store store, String... args) {
        return CliOnBothStores.ballast(store, CliHarness.inEarlierFormat(args));
    }

    /** How a stored copy is damaged. */
    enum Damage {
        FLIPPED_BYTE(StoredCopies::flipOneByte),
        TRUNCATED_TO_HALF(StoredCopies::truncateToHalf),
        TEN_BYTES_LONGER(StoredCopies::appendTen);

        final UnaryOperator<byte[]> how;

        Damage(UnaryOperator<byte[]> how) {
            this.how = how;
        }
    }

    /**
     * Back up twice, damage the newest manifest: list shows both versions with the newest marked
     * DAMAGED, restore falls back to the first and says so, backup warns and goes on.
     */
    @ParameterizedTest
    @EnumSource(Store.class)
    void aDamagedNewestManifestCostsOneRestorePoint(Store store) throws IOException {
        for (Damage damage : List.of(Damage.FLIPPED_BYTE, Damage.TRUNCATED_TO_HALF)) {
            String name = "manifest-" + damage.name().toLowerCase() + "-"
                    + store.name().toLowerCase();
            Path source = Files.createDirectories(base.resolve(name));
            Files.writeString(source.resolve("a.txt"), "first a");
            Files.writeString(source.resolve("b.txt"), "b stays");
            assertThat(ballast(store, "backup", source.toString()).exitCode()).isEqualTo(ExitCodes.OK);
            Map<String, String> first = CliHarness.hashes(source);
            String firstVersion = store.latestVersion(name + "/.ballast-manifest.json");
            Files.writeString(source.resolve("a.txt"), "second a, longer");
            assertThat(ballast(store, "backup", source.toString()).exitCode()).isEqualTo(ExitCodes.OK);
            String secondVersion = store.latestVersion(name + "/.ballast-manifest.json");

            store.damage(secondVersion, damage.how);

            Run list = ballast(store, "list");
            assertThat(list.exitCode()).isEqualTo(ExitCodes.INTEGRITY);
            assertThat(list.out()).contains(firstVersion).containsPattern(secondVersion + ".*DAMAGED");
            assertThat(list.out()
                            .lines()
                            .filter(l -> l.contains(firstVersion))
                            .findFirst()
                            .orElseThrow())
                    .contains("2 files")
                    .doesNotContain("DAMAGED");

            // Restore falls back to the newest intact backup, but a script must see that a restore point was lost:
            // a documented exit code, not 0, and one line saying so.
            Path target = base.resolve(name + "-restored");
            Run restore = ballast(store, "restore", name, target.toString());
            assertThat(restore.exitCode())
                    .isEqualTo(ExitCodes.OLDER_BACKUP_USED)
                    .isEqualTo(7);
            assertThat(restore.err())
                    .contains("manifest version " + CliHarness.label(secondVersion) + " of '" + name + "' is damaged")
                    .contains("using the newest intact backup of '" + name + "', manifest version "
                            + CliHarness.label(firstVersion))
                    .contains("Restored an older backup of '" + name + "' (manifest version "
                            + CliHarness.label(firstVersion))
                    .contains("because the newest, manifest version " + CliHarness.label(secondVersion)
                            + ", is damaged (exit 7)")
                    .doesNotContain("\tat ");
            assertThat(CliHarness.hashes(target)).isEqualTo(first);
            Run verify = ballast(store, "verify", name);
            assertThat(verify.exitCode()).isEqualTo(ExitCodes.OLDER_BACKUP_USED);
            assertThat(verify.err())
                    .contains("Verified an older backup of '" + name + "' (manifest version "
                            + CliHarness.label(firstVersion));
            assertThat(ballast(store, "verify", name, "--manifest-version", firstVersion)
                            .exitCode())
                    .as("the older backup itself, asked for by ID, is intact")
                    .isEqualTo(ExitCodes.OK);

            Files.writeString(source.resolve("a.txt"), "third a");
            Run backup = ballast(store, "backup", source.toString());
            assertThat(backup.exitCode()).isEqualTo(ExitCodes.OK);
            assertThat(backup.err())
                    .contains("Warning: the newest manifest of '" + name + "'")
                    .contains("is damaged");
            // It goes on from the newest intact manifest: b.txt is unchanged since then and not uploaded.
            assertThat(backup.out()).contains("1 file stored, 1 unchanged");
            Path again = base.resolve(name + "-restored-again");
            assertThat(ballast(store, "restore", name, again.toString()).exitCode())
                    .isEqualTo(ExitCodes.OK);
            assertThat(CliHarness.hashes(again)).isEqualTo(CliHarness.hashes(source));
        }
    }

    /**
     * A stored body shorter or longer than its recorded size is an integrity failure as soon as the
     * stream ends (S3Mock keeps the connection open after the bytes it has, until its 60 s keep-alive
     * ends; the read asks the store whether the next byte exists, and the class timeout catches a
     * wait for the keep-alive): verify exits 4 naming the file, restore says the stored copy is
     * damaged, never that it failed to write.
     */
    @ParameterizedTest
    @EnumSource(Store.class)
    void aStoredCopyOfTheWrongLengthIsDamageNamedPerFile(Store store) throws IOException {
        // S3Mock announces and sends the recorded length, so bytes appended to its file never reach a
        // client; the local store reads its file to the end.
        List<Damage> damages = store == Store.LOCAL
                ? List.of(Damage.TRUNCATED_TO_HALF, Damage.TEN_BYTES_LONGER)
                : List.of(Damage.TRUNCATED_TO_HALF);
        for (Damage damage : damages) {
            String name =
                    "length-" + damage.name().toLowerCase() + "-" + store.name().toLowerCase();
            // Above the local store's inline threshold: a content file of its own.
            Path source = sourceWith(name, "big.bin", 300 * 1024, 3);
            Files.writeString(source.resolve("small.txt"), "small and intact");
            assertThat(ballast(store, "backup", source.toString()).exitCode()).isEqualTo(ExitCodes.OK);

            store.damage(store.latestVersion(name + "/big.bin"), damage.how);

            Run verify = ballast(store, "verify", name);
            assertThat(verify.exitCode()).isEqualTo(ExitCodes.INTEGRITY);
            assertThat(verify.err())
                    .contains("Damaged: big.bin")
                    .doesNotContain("Damaged: small.txt")
                    .doesNotContain("Not verified")
                    .doesNotContain("\tat ");
            assertThat(verify.out()).contains("1 of 2 files verified");

            Path target = base.resolve(name + "-restored");
            Run restore = ballast(store, "restore", name, target.toString());
            assertThat(restore.exitCode()).isEqualTo(ExitCodes.INTEGRITY);
            assertThat(restore.err())
                    .contains("Not restored: big.bin")
                    .doesNotContain("could not be written")
                    .doesNotContain("\tat ");
            assertThat(target.resolve("small.txt")).hasContent("small and intact");
            assertThat(target.resolve("big.bin")).doesNotExist();
        }
    }

    /**
     * Back up a 1 KiB file, flip a byte of its stored copy: verify finds it and records it, the next
     * backup does not reuse it but uploads the unchanged source again, and every backup naming the
     * damaged version restores from the good copy.
     */
    @ParameterizedTest
    @EnumSource(Store.class)
    void theNextBackupStoresAGoodCopyOfAVersionVerifyFoundDamaged(Store store) throws IOException {
        String name = "redo-" + store.name().toLowerCase();
        Path source = sourceWith(name, "one-kib.bin", 1024, 5);
        assertThat(ballast(store, "backup", source.toString()).exitCode()).isEqualTo(ExitCodes.OK);
        String firstManifest = store.latestVersion(name + "/.ballast-manifest.json");
        store.damage(store.latestVersion(name + "/one-kib.bin"), StoredCopies::flipOneByte);

        Run verify = ballast(store, "verify", name);
        assertThat(verify.exitCode()).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(verify.err()).contains("Damaged: one-kib.bin").contains("no backup reuses them");

        Run backup = ballast(store, "backup", source.toString());
        assertThat(backup.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(backup.out()).contains("1 file stored, 0 unchanged").doesNotContain("Nothing to upload");

        assertThat(ballast(store, "verify", name).exitCode()).isEqualTo(ExitCodes.OK);
        Path target = base.resolve(name + "-first");
        Run restoreFirst = ballast(store, "restore", name, target.toString(), "--manifest-version", firstManifest);
        assertThat(restoreFirst.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(CliHarness.hashes(target)).isEqualTo(CliHarness.hashes(source));
    }

    /** verify --repair SOURCE-DIR stores a good copy at once from the unchanged source. */
    @ParameterizedTest
    @EnumSource(Store.class)
    void verifyRepairStoresAGoodCopyFromTheUnchangedSource(Store store) throws IOException {
        String name = "repair-" + store.name().toLowerCase();
        Path source = sourceWith(name, "one-kib.bin", 1024, 6);
        Files.writeString(source.resolve("other.txt"), "other", StandardCharsets.UTF_8);
        assertThat(ballast(store, "backup", source.toString()).exitCode()).isEqualTo(ExitCodes.OK);
        String damagedVersion = store.latestVersion(name + "/one-kib.bin");
        store.damage(damagedVersion, StoredCopies::flipOneByte);

        Run repair = ballast(store, "verify", name, "--repair", source.toString());
        assertThat(repair.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(repair.err()).contains("Damaged: one-kib.bin").contains("Repaired: one-kib.bin");
        assertThat(repair.out()).contains("1 damaged file(s) repaired");
        assertThat(store.versions(name + "/one-kib.bin")).hasSize(2);

        assertThat(ballast(store, "verify", name).exitCode()).isEqualTo(ExitCodes.OK);
        Path target = base.resolve(name + "-restored");
        assertThat(ballast(store, "restore", name, target.toString()).exitCode())
                .isEqualTo(ExitCodes.OK);
        assertThat(CliHarness.hashes(target)).isEqualTo(CliHarness.hashes(source));
        Run again = ballast(store, "backup", source.toString());
        assertThat(again.out()).contains("Nothing to upload");
    }
}
