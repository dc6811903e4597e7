package dev.ballast.it.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.cli.ExitCodes;
import dev.ballast.it.cli.CliHarness.Run;
import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.VersionEntry;
import dev.ballast.testkit.FakeTime;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Retention and checking on the default local store and on S3Mock: {@code forget} with restic's
 * policy, {@code prune} deleting exactly the versions no manifest references (dry run first),
 * {@code prune} beside a backup held mid-run by a latch (nothing it needs is deleted), and
 * {@code verify --read-data-subset}.
 *
 * <p>Of the earlier format's mechanics (prune deleting unreferenced object versions, the local store's repacking of small files, {@code prune --dry-run}, manifests counted as object versions); format 3's prune is in EncryptedRepositoryCliTest, PackedPrune's tests and, beside a running backup, CliNewStoreIT: every {@code backup} here carries
 * {@link CliHarness#EARLIER_FORMAT}, so the store stays of the earlier, unencrypted format whatever
 * the order the tests run in (issue 22 made a new store encrypted by default).
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@ExtendWith(LeakCheck.class)
class CliRetentionIT {
    @TempDir
    static Path base;

    /** Tomorrow at midnight UTC: every command's time is after the S3 server's own version timestamps. */
    static final Instant DAY0 = Instant.now().truncatedTo(ChronoUnit.DAYS).plus(Duration.ofDays(1));

    static Run ballast(StoreKind store, Clock clock, Consumer<String> onStored, String... args) {
        List<String> all = new ArrayList<>(List.of(CliHarness.inEarlierFormat(args)));
        all.addAll(store.args(base.resolve("data"), "cli-retention-it"));
        return CliHarness.run(base.resolve("home"), clock, onStored, all.toArray(String[]::new));
    }

    static Run ballast(StoreKind store, Clock clock, String... args) {
        return ballast(store, clock, p -> {}, args);
    }

    static StorageFacade open(StoreKind store) {
        return store.open(base.resolve("data"), "cli-retention-it");
    }

    static int count(StoreKind store, String prefix) {
        try (StorageFacade f = open(store)) {
            return f.objects().listVersions(prefix).size();
        }
    }

    static long bytesUnder(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile)
                    .mapToLong(f -> f.toFile().length())
                    .sum();
        }
    }

    /**
     * Small files' contents live in pack files in the local store; after forget drops two of three
     * backups whose every file changed, prune gives their space back by repacking (as restic prune
     * does), and what is kept restores unchanged.
     */
    @org.junit.jupiter.api.Test
    void pruneGivesBackTheSpaceOfSmallFilesInTheLocalStoreByRepacking() throws IOException {
        Path data = base.resolve("data-repack");
        Path source = Files.createDirectories(base.resolve("repack-src"));
        java.util.SplittableRandom random = new java.util.SplittableRandom(3);
        FakeTime clock = new FakeTime(DAY0);
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < 200; i++) {
                byte[] b = new byte[2048];
                random.nextBytes(b);
                Files.write(source.resolve("f" + i + ".bin"), b);
            }
            clock.set(DAY0.plus(Duration.ofMinutes(60 + 10 * round)));
            assertThat(CliHarness.run(
                                    base.resolve("home"),
                                    clock,
                                    p -> {},
                                    "backup",
                                    source.toString(),
                                    "--data-dir",
                                    data.toString(),
                                    CliHarness.EARLIER_FORMAT)
                            .exitCode())
                    .isEqualTo(ExitCodes.OK);
        }
        Path packs = data.resolve("ballast-backups/packs");
        long before = bytesUnder(packs);
        assertThat(before).isGreaterThan(3 * 200 * 2048);

        clock.set(DAY0.plus(Duration.ofMinutes(100)));
        assertThat(CliHarness.run(
                                base.resolve("home"),
                                clock,
                                p -> {},
                                "forget",
                                "repack-src",
                                "--keep-last",
                                "1",
                                "--data-dir",
                                data.toString())
                        .exitCode())
                .isEqualTo(ExitCodes.OK);
        // Within the default grace of an hour, the two older backups' versions are kept, and the output says
        // which option would prune them.
        Run graced = CliHarness.run(base.resolve("home"), clock, p -> {}, "prune", "--data-dir", data.toString());
        assertThat(graced.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(graced.out())
                .contains("deleted 0 unreferenced versions; kept 200 referenced by a manifest and 400 written"
                        + " within the grace period (--grace 1h; --grace 0s prunes them too).")
                .doesNotContain("Repacked");

        Run prune = CliHarness.run(
                base.resolve("home"), clock, p -> {}, "prune", "--grace", "0s", "--data-dir", data.toString());

        assertThat(prune.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(prune.out())
                .contains("deleted 400 unreferenced versions")
                .contains("Repacked small files' contents: 1 pack file removed, ");
        long after = bytesUnder(packs);
        assertThat(after).isLessThan(before / 2).isGreaterThanOrEqualTo(200 * 2048);
        Path target = base.resolve("repack-restored");
        assertThat(CliHarness.run(
                                base.resolve("home"),
                                clock,
                                p -> {},
                                "restore",
                                "repack-src",
                                target.toString(),
                                "--data-dir",
                                data.toString())
                        .exitCode())
                .isEqualTo(ExitCodes.OK);
        for (int i = 0; i < 200; i++) {
            assertThat(Files.readAllBytes(target.resolve("f" + i + ".bin")))
                    .isEqualTo(Files.readAllBytes(source.resolve("f" + i + ".bin")));
        }
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void forgetKeepsWhatThePolicySaysAndPruneDeletesOnlyWhatNoManifestReferences(StoreKind store) throws IOException {
        String name = "ret-" + store;
        Path source = Files.createDirectories(base.resolve(name));
        Files.writeString(source.resolve("stable.txt"), "never changes");
        FakeTime clock = new FakeTime(DAY0);
        // Day 1 10:00, day 2 10:00, day 3 09:00 and 18:00, day 4 10:00: five backups, each with new content.
        long[] hours = {24 + 10, 48 + 10, 72 + 9, 72 + 18, 96 + 10};
        for (long h : hours) {
            clock.set(DAY0.plus(Duration.ofHours(h)));
            Files.writeString(source.resolve("changing.txt"), "content at hour " + h);
            assertThat(ballast(store, clock, "backup", source.toString()).exitCode())
                    .isEqualTo(ExitCodes.OK);
        }
        clock.set(DAY0.plus(Duration.ofDays(6)));
        assertThat(count(store, name + "/changing.txt")).isEqualTo(5);

        Run dry = ballast(store, clock, "forget", name, "--keep-daily", "2", "--dry-run");
        assertThat(dry.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(dry.out())
                .contains("keep 2 backups")
                .contains("would remove 3 backups")
                .contains("daily snapshot")
                .contains("nothing was removed");
        assertThat(count(store, name + "/.ballast-manifest.json")).isEqualTo(5);

        Run forget = ballast(store, clock, "forget", name, "--keep-daily", "2");
        assertThat(forget.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(count(store, name + "/.ballast-manifest.json")).isEqualTo(2);
        Run list = ballast(store, clock, "list");
        assertThat(list.out()).contains(name);

        Run dryPrune = ballast(store, clock, "prune", name, "--dry-run", "--grace", "0s");
        assertThat(dryPrune.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(dryPrune.out())
                .contains("would delete " + name + "/changing.txt version")
                .contains("would delete 3 unreferenced versions")
                .contains("nothing was deleted");
        assertThat(count(store, name + "/changing.txt")).isEqualTo(5);

        Run prune = ballast(store, clock, "prune", name, "--grace", "0s");
        assertThat(prune.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(prune.out()).contains("deleted 3 unreferenced versions; kept 3 referenced by a manifest");
        assertThat(count(store, name + "/changing.txt")).isEqualTo(2);
        assertThat(count(store, name + "/stable.txt")).isEqualTo(1);

        Path target = base.resolve(name + "-restored");
        assertThat(ballast(store, clock, "restore", name, target.toString()).exitCode())
                .isEqualTo(ExitCodes.OK);
        assertThat(target.resolve("changing.txt")).hasContent("content at hour " + hours[4]);
        assertThat(ballast(store, clock, "verify", name).exitCode()).isEqualTo(ExitCodes.OK);

        assertThat(ballast(store, clock, "forget", name).exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(ballast(store, clock, "forget", name, "--keep-daily", "-2").exitCode())
                .isEqualTo(ExitCodes.USAGE);
        assertThat(ballast(store, clock, "forget", "no-such-backup", "--keep-last", "1")
                        .exitCode())
                .isEqualTo(ExitCodes.NOT_FOUND);

        // A manifest version is named by its short ID (list's first column), its ID (the second) or a unique
        // prefix of at least 8 characters, as everywhere.
        List<String> lines = ballast(store, clock, "list").out().lines().toList();
        List<String[]> columns = lines.stream()
                .skip(lines.indexOf(name) + 1L)
                .takeWhile(l -> l.startsWith(" "))
                .map(l -> l.trim().split("\\s+"))
                .toList();
        assertThat(columns).hasSize(2);
        String older = columns.get(1)[1];
        Run byShortId = ballast(store, clock, "forget", name, "--manifest-version", columns.get(1)[0], "--dry-run");
        assertThat(byShortId.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(byShortId.out()).contains(older);
        Run byPrefix = ballast(store, clock, "forget", name, "--manifest-version", older.substring(0, 12), "--dry-run");
        assertThat(byPrefix.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(byPrefix.out()).contains(older);
        // Fewer than 8 characters is too short to name a version: bad input, said as such.
        Run tooShort = ballast(store, clock, "forget", name, "--manifest-version", older.substring(0, 4));
        assertThat(tooShort.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(tooShort.err()).contains("is too short: give the 8-character short ID or at least 8 characters");
    }

    /**
     * A backup is held after its first stored file (a latch in its hook); a prune then runs. The
     * backup's name is left alone (exit 1, said why), another name is pruned, the backup completes,
     * and every version its manifest references is there: restore and verify pass. A prune after it
     * deletes the garbage.
     */
    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void pruneBesideARunningBackupDeletesNothingTheBackupNeeds(StoreKind store) throws Exception {
        String name = "busy-" + store;
        String other = "idle-" + store;
        // The real clock: a run marker is live while its store timestamp is recent, and S3's are the server's.
        Clock clock = Clock.systemUTC();
        Path source = Files.createDirectories(base.resolve(name));
        Path idle = Files.createDirectories(base.resolve(other));
        for (int i = 0; i < 4; i++) {
            Files.writeString(source.resolve("f" + i), "first " + i);
        }
        Files.writeString(idle.resolve("x"), "one");
        assertThat(ballast(store, clock, "backup", source.toString()).exitCode())
                .isEqualTo(ExitCodes.OK);
        assertThat(ballast(store, clock, "backup", idle.toString()).exitCode()).isEqualTo(ExitCodes.OK);
        Files.writeString(idle.resolve("x"), "two");
        assertThat(ballast(store, clock, "backup", idle.toString()).exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(ballast(store, clock, "forget", other, "--keep-last", "1").exitCode())
                .isEqualTo(ExitCodes.OK);
        for (int i = 0; i < 4; i++) {
            Files.writeString(source.resolve("f" + i), "second " + i);
        }
        Files.writeString(source.resolve("new"), "added");

        CountDownLatch stored = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Run> backup = CompletableFuture.supplyAsync(() -> ballast(
                store,
                clock,
                path -> {
                    stored.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "backup",
                source.toString(),
                "--transfers",
                "1"));
        assertThat(stored.await(2, TimeUnit.MINUTES)).isTrue();
        int before = count(store, name + "/");

        Run prune = ballast(store, clock, "prune", "--grace", "0s");
        assertThat(prune.exitCode()).isEqualTo(ExitCodes.INCOMPLETE);
        assertThat(prune.err()).contains("Not pruned: '" + name + "' because a backup of it may be running");
        assertThat(prune.out()).contains("'" + other + "': deleted 1 unreferenced version;");
        assertThat(count(store, name + "/")).isEqualTo(before);

        release.countDown();
        Run done = backup.get(2, TimeUnit.MINUTES);
        assertThat(done.exitCode()).isEqualTo(ExitCodes.OK);
        Path target = base.resolve(name + "-restored");
        assertThat(ballast(store, clock, "restore", name, target.toString()).exitCode())
                .isEqualTo(ExitCodes.OK);
        assertThat(CliHarness.hashes(target)).isEqualTo(CliHarness.hashes(source));
        assertThat(ballast(store, clock, "verify", name).exitCode()).isEqualTo(ExitCodes.OK);
        try (StorageFacade f = open(store)) {
            assertThat(f.objects().listVersions(".ballast-runs/"))
                    .as("the run removed its marker")
                    .isEmpty();
        }
        Run after = ballast(store, clock, "prune", name, "--grace", "0s");
        assertThat(after.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(after.out()).contains("'" + name + "': deleted 0 unreferenced versions");
    }

    /** The group verify's n/t form puts a path in, as documented: SHA-256 of the path, first four bytes, modulo t. */
    static int group(String path, int groups) throws Exception {
        byte[] h = MessageDigest.getInstance("SHA-256").digest(path.getBytes(StandardCharsets.UTF_8));
        long v = ((h[0] & 0xffL) << 24) | ((h[1] & 0xffL) << 16) | ((h[2] & 0xffL) << 8) | (h[3] & 0xffL);
        return (int) (v % groups) + 1;
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void verifyReadsTheSubsetAskedAndChecksTheRestIsPresent(StoreKind store) throws Exception {
        String name = "subset-" + store;
        Path source = Files.createDirectories(base.resolve(name));
        for (int i = 0; i < 10; i++) {
            Files.writeString(source.resolve("file-" + i), "content " + i);
        }
        FakeTime clock = new FakeTime(DAY0.plus(Duration.ofDays(20)));
        assertThat(ballast(store, clock, "backup", source.toString()).exitCode())
                .isEqualTo(ExitCodes.OK);

        Run half = ballast(store, clock, "verify", name, "--read-data-subset", "50%");
        assertThat(half.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(half.out())
                .contains("5 of 10 files read and verified (subset 50%), ")
                .contains("; the other 5 checked present with their size.");
        int read = 0;
        for (int n = 1; n <= 3; n++) {
            Run part = ballast(store, clock, "verify", name, "--read-data-subset", n + "/3");
            assertThat(part.exitCode()).isEqualTo(ExitCodes.OK);
            read += Integer.parseInt(part.out()
                    .replaceAll("(?s).* OK: (\\d+) of 10 files read and verified \\(subset " + n + "/3\\).*", "$1"));
        }
        assertThat(read).as("1/3, 2/3 and 3/3 read every file once").isEqualTo(10);

        // Damage: the manifest now records another SHA-256 for file-3 (same size), as bit rot of the
        // stored copy would look. Only a subset that reads file-3 can see it.
        try (StorageFacade f = open(store)) {
            ObjectStore objects = f.objects();
            String json =
                    new String(objects.get(name + "/.ballast-manifest.json").readAllBytes(), StandardCharsets.UTF_8);
            String sha =
                    CliHarness.sha256(new java.io.ByteArrayInputStream("content 3".getBytes(StandardCharsets.UTF_8)));
            objects.put(
                    name + "/.ballast-manifest.json",
                    ObjectContent.ofBytes(json.replace(sha, "0".repeat(64)).getBytes(StandardCharsets.UTF_8)));
            VersionEntry four = objects.versions(name + "/file-4").get(0);
            objects.deleteVersion(name + "/file-4", four.versionId());
        }
        int g3 = group("file-3", 2);
        int g4 = group("file-4", 2);
        Run reads3 = ballast(store, clock, "verify", name, "--read-data-subset", g3 + "/2");
        assertThat(reads3.exitCode()).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(reads3.err())
                .contains("Damaged: file-3 (version")
                .contains("but the manifest records " + "0".repeat(64));
        if (g3 != g4) {
            assertThat(reads3.err()).contains("Damaged: file-4 (version").contains("is missing from the store");
        }
        Run all = ballast(store, clock, "verify", name, "--read-data-subset", "100%");
        assertThat(all.exitCode()).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(ballast(store, clock, "verify", name, "--read-data-subset", "0%")
                        .exitCode())
                .isEqualTo(ExitCodes.USAGE);
    }

    /**
     * The field input: one large file's content file deleted from the local store. Every one of the
     * seven groups of {@code --read-data-subset n/7} finds it, the group that reads it by reading, the
     * six others by checking the store itself (the index still lists the version); before, 6 of 7
     * exited 0.
     */
    @org.junit.jupiter.api.Test
    void verifySubsetChecksTheUnreadFilesArePresentInTheStoreNotOnlyInItsIndex() throws Exception {
        StoreKind store = StoreKind.LOCAL;
        String name = "subset-presence";
        Path source = Files.createDirectories(base.resolve(name));
        for (int i = 0; i < 12; i++) {
            Files.writeString(source.resolve("small-" + i), "small content " + i);
        }
        byte[] large = new byte[300_000];
        new java.util.Random(5).nextBytes(large);
        Files.write(source.resolve("large.bin"), large);
        FakeTime clock = new FakeTime(DAY0.plus(Duration.ofDays(30)));
        assertThat(ballast(store, clock, "backup", source.toString()).exitCode())
                .isEqualTo(ExitCodes.OK);
        for (int n = 1; n <= 7; n++) {
            assertThat(ballast(store, clock, "verify", name, "--read-data-subset", n + "/7")
                            .exitCode())
                    .isEqualTo(ExitCodes.OK);
        }
        String version;
        try (StorageFacade f = open(store)) {
            version = f.objects().versions(name + "/large.bin").get(0).versionId();
        }
        Path deleted = StoredCopies.deleteLocalContentFile(base.resolve("data").resolve("ballast-backups"), version);

        int failed = 0;
        for (int n = 1; n <= 7; n++) {
            Run part = ballast(store, clock, "verify", name, "--read-data-subset", n + "/7");
            assertThat(part.err()).contains("Damaged: large.bin (version " + version);
            if (n != group("large.bin", 7)) {
                // the local store no longer lists a version whose content file is gone (as S3 lists
                // nothing deleted by hand), so the presence check finds it missing from the store
                assertThat(deleted).doesNotExist();
                assertThat(part.err()).contains("version " + version + ": it is missing from the store");
            }
            failed += part.exitCode() == ExitCodes.INTEGRITY ? 1 : 0;
        }
        assertThat(failed).as("verify runs of the 7 groups that exit 4").isEqualTo(7);
    }
}
