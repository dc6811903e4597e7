package dev.ballast.it.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.cli.ExitCodes;
import dev.ballast.it.cli.CliHarness.Run;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The local store's index is no single point of failure (issue 20, item 8): with {@code index.db}
 * damaged in each way a disk or a hand damages it, every backup is unreadable until
 * {@code ballast repair index} rebuilds it from the store's journal, after which every backup
 * version lists and restores byte-identical; and losing the pack that holds a backup's small files
 * costs those files only — the manifest is a file of its own, so the others restore.
 *
 * <p>Of the earlier format's mechanics (the local store's packs of file contents and its index of object versions, {@code repair index}): every {@code backup} here carries
 * {@link CliHarness#EARLIER_FORMAT}, so the store stays of the earlier, unencrypted format whatever
 * the order the tests run in (issue 22 made a new store encrypted by default).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
@ExtendWith(LeakCheck.class)
class CliRepairIndexIT {

    @TempDir
    Path base;

    private Path data() {
        return base.resolve("data");
    }

    private Path store() {
        return data().resolve("ballast-backups");
    }

    private Run ballast(String... args) {
        List<String> all = new ArrayList<>(List.of(CliHarness.inEarlierFormat(args)));
        all.addAll(List.of("--data-dir", data().toString()));
        return CliHarness.run(base.resolve("home"), p -> {}, all.toArray(String[]::new));
    }

    private static void randomFile(Path file, int bytes, long seed) throws IOException {
        byte[] b = new byte[bytes];
        new Random(seed).nextBytes(b);
        Files.write(file, b);
    }

    /** Backs up a tree of 8 files (2 small, in a pack; 6 large, files of their own) twice. */
    private Map<String, String> twoBackups(Path source) throws IOException {
        Files.createDirectories(source);
        randomFile(source.resolve("small-1.txt"), 2_000, 1);
        randomFile(source.resolve("small-2.txt"), 3_000, 2);
        for (int i = 0; i < 6; i++) {
            randomFile(source.resolve("large-" + i + ".bin"), 100_000, 10 + i);
        }
        assertThat(ballast("backup", source.toString()).exitCode()).isEqualTo(ExitCodes.OK);
        randomFile(source.resolve("small-1.txt"), 2_500, 3);
        assertThat(ballast("backup", source.toString()).exitCode()).isEqualTo(ExitCodes.OK);
        return CliHarness.hashes(source);
    }

    enum Damage {
        HEADER_BYTE_FLIPPED,
        TRUNCATED,
        DELETED,
        ROWS_MISSING
    }

    private void damage(Damage damage) throws Exception {
        Path index = store().resolve("index.db");
        switch (damage) {
            case HEADER_BYTE_FLIPPED -> {
                try (RandomAccessFile f = new RandomAccessFile(index.toFile(), "rw")) {
                    f.seek(7);
                    int b = f.read();
                    f.seek(7);
                    f.write(b ^ 0x20);
                }
            }
            case TRUNCATED -> {
                try (RandomAccessFile f = new RandomAccessFile(index.toFile(), "rw")) {
                    f.setLength(f.length() / 3);
                }
            }
            case DELETED -> Files.delete(index);
            case ROWS_MISSING -> {
                try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + index);
                        Statement s = c.createStatement()) {
                    s.execute("DELETE FROM versions WHERE seq % 2 = 1");
                    s.execute("PRAGMA wal_checkpoint(TRUNCATE)");
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Damage.class)
    void repairIndexBringsEveryBackupBack(Damage damage) throws Exception {
        Map<String, String> tree = twoBackups(base.resolve("photos"));
        String listed = ballast("list").out();
        damage(damage);
        Run broken = ballast("list");
        assertThat(broken.out()).isNotEqualTo(listed);

        Run repair = ballast("repair", "index");

        assertThat(repair.exitCode()).as(repair.err()).isEqualTo(ExitCodes.OK);
        assertThat(repair.out()).contains("Rebuilt the index of " + store()).doesNotContain("\tat ");
        assertThat(ballast("list").out()).isEqualTo(listed);
        Path target = base.resolve("restored");
        Run restore = ballast("restore", "photos", target.toString());
        assertThat(restore.exitCode()).as(restore.err()).isEqualTo(ExitCodes.OK);
        assertThat(CliHarness.hashes(target)).isEqualTo(tree);
        assertThat(ballast("verify", "photos").exitCode()).isEqualTo(ExitCodes.OK);
    }

    @Test
    void aDamagedIndexPointsToRepairIndex() throws Exception {
        twoBackups(base.resolve("photos"));
        damage(Damage.HEADER_BYTE_FLIPPED);
        Run list = ballast("list");
        assertThat(list.exitCode()).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(list.err()).contains("ballast repair index");
        Files.delete(store().resolve("index.db"));
        assertThat(ballast("list").err()).contains("ballast repair index");
    }

    private Path onlyPack() throws IOException {
        try (Stream<Path> packs = Files.list(store().resolve("packs"))) {
            List<Path> all = packs.toList();
            assertThat(all).hasSize(1);
            return all.get(0);
        }
    }

    @Test
    void losingThePackOfABackupsSmallFilesCostsThoseFilesOnly() throws Exception {
        Path source = base.resolve("photos");
        Map<String, String> tree = twoBackups(source);
        Files.delete(onlyPack());

        Path target = base.resolve("restored");
        Run restore = ballast("restore", "photos", target.toString());

        assertThat(restore.exitCode()).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(restore.err())
                .contains("small-1.txt")
                .contains("small-2.txt")
                .doesNotContain("\tat ");
        Map<String, String> restored = CliHarness.hashes(target);
        Map<String, String> large = new TreeMap<>(tree);
        large.keySet().removeIf(k -> k.startsWith("small-"));
        assertThat(restored).containsAllEntriesOf(large).hasSize(6);
    }

    @Test
    void repairIndexAfterLosingAPackNamesWhatIsLostAndRestoreWritesTheRest() throws Exception {
        Path source = base.resolve("photos");
        Map<String, String> tree = twoBackups(source);
        Files.delete(onlyPack());
        Files.delete(store().resolve("index.db"));

        Run repair = ballast("repair", "index");

        assertThat(repair.exitCode()).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(repair.err())
                .contains("Content lost/damaged: photos/small-1.txt (version ")
                .contains("Content lost/damaged: photos/small-2.txt (version ");
        Path target = base.resolve("restored");
        Run restore = ballast("restore", "photos", target.toString());
        assertThat(restore.exitCode()).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(restore.err()).containsPattern("Not restored: small-1.txt \\(.*its pack file .* is missing");
        Map<String, String> large = new TreeMap<>(tree);
        large.keySet().removeIf(k -> k.startsWith("small-"));
        assertThat(CliHarness.hashes(target)).containsAllEntriesOf(large).hasSize(6);
    }

    @Test
    void aStoreWithoutAJournalIsLeftAsItIsAndSaysSo() throws Exception {
        twoBackups(base.resolve("photos"));
        try (Stream<Path> files = Files.walk(store().resolve("journal"))) {
            for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
        Files.delete(store().resolve("index.db"));

        Run repair = ballast("repair", "index");

        assertThat(repair.exitCode()).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(repair.err()).contains("has no journal").contains("Nothing was changed");
        assertThat(store().resolve("index.db")).doesNotExist();
    }

    @Test
    void repairOfSomethingElseOrOnS3IsAUsageError() {
        assertThat(ballast("repair", "snapshots").exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(ballast("repair", "index", "--endpoint", "http://localhost:1")
                        .exitCode())
                .isEqualTo(ExitCodes.USAGE);
    }

    private Path newestJournalFile() throws IOException {
        try (Stream<Path> logs = Files.list(store().resolve("journal"))) {
            return logs.sorted().reduce((a, b) -> b).orElseThrow();
        }
    }

    @Test
    void aJournalCutShortNeverMakesAnIntactIndexWorse() throws Exception {
        Path source = Files.createDirectories(base.resolve("src"));
        Files.writeString(source.resolve("a.txt"), "v1\n");
        assertThat(ballast("backup", source.toString(), "--name", "r").exitCode())
                .isEqualTo(ExitCodes.OK);
        Files.writeString(source.resolve("a.txt"), "v2\n");
        assertThat(ballast("backup", source.toString(), "--name", "r").exitCode())
                .isEqualTo(ExitCodes.OK);
        String listed = ballast("list").out();
        Path newest = newestJournalFile();
        try (RandomAccessFile f = new RandomAccessFile(newest.toFile(), "rw")) {
            f.setLength(f.length() / 2);
        }

        Run repair = ballast("repair", "index");

        // The index records the journal position it reached: a journal cut short before it is a shorter journal,
        // and the intact index is kept as it is, the journal written anew from it.
        assertThat(repair.exitCode()).as(repair.err()).isEqualTo(ExitCodes.OK);
        assertThat(repair.out()).contains("ended before its index").contains("the index, the newer record, was kept");
        assertThat(ballast("list").out()).isEqualTo(listed);
        Path target = base.resolve("out");
        Run restore = ballast("restore", "r", target.toString());
        assertThat(restore.exitCode()).as(restore.err()).isEqualTo(ExitCodes.OK);
        assertThat(Files.readString(target.resolve("a.txt"))).isEqualTo("v2\n");
    }

    @Test
    void aFlippedJournalByteWithTheIndexLostNamesTheVersionsItCostAndExitsNonZero() throws Exception {
        twoBackups(base.resolve("photos"));
        Path first;
        try (Stream<Path> logs = Files.list(store().resolve("journal"))) {
            first = logs.sorted().findFirst().orElseThrow();
        }
        byte[] bytes = Files.readAllBytes(first);
        // The last byte of the first file's second VERSION frame (after its HEADER and first VERSION).
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(bytes);
        int at = 0;
        int versions = 0;
        while (true) {
            int length = b.getInt(at);
            if (bytes[at + 8] == 1 && ++versions == 2) {
                bytes[at + 8 + length - 1] ^= 0x01;
                break;
            }
            at += 8 + length;
        }
        Files.write(first, bytes);
        Files.delete(store().resolve("index.db"));

        Run repair = ballast("repair", "index");

        assertThat(repair.exitCode()).isEqualTo(ExitCodes.INCOMPLETE);
        assertThat(repair.err())
                .contains("Journal damaged: " + first.getFileName())
                .contains("skipped")
                .containsPattern("Version lost from the index: photos/.* \\(version ")
                .doesNotContain("\tat ");
    }

    @Test
    void aContentFileWithADamagedByteIsNamedAsLostOrDamaged() throws Exception {
        twoBackups(base.resolve("photos"));
        Path damaged;
        try (Stream<Path> files = Files.walk(store().resolve("blobs"))) {
            damaged = files.filter(p -> {
                        try {
                            return Files.isRegularFile(p) && Files.size(p) == 100_000;
                        } catch (IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    })
                    .findFirst()
                    .orElseThrow();
        }
        try (RandomAccessFile f = new RandomAccessFile(damaged.toFile(), "rw")) {
            f.seek(50_000);
            int x = f.read();
            f.seek(50_000);
            f.write(x ^ 0x08);
        }

        Run repair = ballast("repair", "index");

        assertThat(repair.exitCode()).as(repair.out()).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(repair.err()).containsPattern("Content lost/damaged: photos/large-\\d\\.bin \\(version ");
    }

    @Test
    void anEmptiedIndexIsDamageThatPointsToRepairIndex() throws Exception {
        Map<String, String> tree = twoBackups(base.resolve("photos"));
        String listed = ballast("list").out();
        Files.write(store().resolve("index.db"), new byte[0]);

        for (String[] command : List.of(new String[] {"list"}, new String[] {"verify", "photos"}, new String[] {
            "restore", "photos", base.resolve("early").toString()
        })) {
            Run run = ballast(command);
            assertThat(run.exitCode())
                    .as(String.join(" ", command) + ": " + run.err())
                    .isEqualTo(ExitCodes.INTEGRITY);
            assertThat(run.err()).contains("ballast repair index").doesNotContain("\tat ");
        }

        Run repair = ballast("repair", "index");
        assertThat(repair.exitCode()).as(repair.err()).isEqualTo(ExitCodes.OK);
        assertThat(ballast("list").out()).isEqualTo(listed);
        Path target = base.resolve("restored");
        assertThat(ballast("restore", "photos", target.toString()).exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(CliHarness.hashes(target)).isEqualTo(tree);
    }

    @Test
    void aLostIndexLeavesNoOrphanLogFiles() throws Exception {
        twoBackups(base.resolve("photos"));
        Files.delete(store().resolve("index.db"));
        Files.write(store().resolve("index.db-wal"), new byte[64]);
        Files.write(store().resolve("index.db-shm"), new byte[64]);

        assertThat(ballast("repair", "index").exitCode()).isEqualTo(ExitCodes.OK);

        try (Stream<Path> files = Files.list(store())) {
            assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.contains("before-repair"));
        }
    }

    @Test
    void aReadOnlyStoreIsRefusedAsBackupRefusesIt() throws Exception {
        Path disk = Files.createDirectories(base.resolve("disk"));
        org.junit.jupiter.api.Assumptions.assumeTrue(
                sh("mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", disk.toString()),
                "a tmpfs can be mounted (root)");
        try {
            Path source = Files.createDirectories(base.resolve("photos"));
            randomFile(source.resolve("a.bin"), 5_000, 1);
            List<String> data = List.of("--data-dir", disk.toString());
            assertThat(run("backup", source.toString(), data).exitCode()).isEqualTo(ExitCodes.OK);
            assertThat(sh("mount", "-o", "remount,ro", disk.toString())).isTrue();

            Run backup = run("backup", source.toString(), data);
            Run repair = run("repair", "index", data);

            assertThat(backup.exitCode()).isEqualTo(ExitCodes.USAGE);
            assertThat(repair.exitCode()).as(repair.err()).isEqualTo(ExitCodes.USAGE);
            assertThat(repair.err().replaceAll("\\.ballast-probe-\\d+\\.tmp", ""))
                    .isEqualTo(backup.err().replaceAll("\\.ballast-probe-\\d+\\.tmp", ""))
                    .contains("Read-only file system")
                    .doesNotContain("\tat ");
        } finally {
            sh("umount", "-l", disk.toString());
        }
    }

    private Run run(String command, String arg, List<String> data) {
        List<String> all = new ArrayList<>(List.of(CliHarness.inEarlierFormat(command, arg)));
        all.addAll(data);
        return CliHarness.run(base.resolve("home"), p -> {}, all.toArray(String[]::new));
    }

    private static boolean sh(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
    }
}
