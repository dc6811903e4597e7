package dev.ballast.it.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.cli.ExitCodes;
import dev.ballast.it.cli.CliHarness.Run;
import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.S3MockServer;
import dev.ballast.storage.object.VersionEntry;
import dev.ballast.testkit.FakeTime;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A backup's run marker against the field's inputs, on the default local store and on S3Mock: a
 * backup paused past its marker's age while a prune ran (the prune took it for dead and deleted what
 * it had stored); a hole verify found, stored again by the next backup; a backup killed with kill -9
 * (its marker names a process that no longer runs, so prune goes on at once); a marker of another
 * host, removed with {@code unlock --remove-all}; and a first S3 backup killed three times, whose
 * uploads the next runs reuse.
 *
 * <p>Of the earlier format's mechanics (run markers and manifests written and counted as plain objects behind the CLI's back, versions per file; the kill of a child backup timed by its stored objects): every {@code backup} here carries
 * {@link CliHarness#EARLIER_FORMAT}, so the store stays of the earlier, unencrypted format whatever
 * the order the tests run in (issue 22 made a new store encrypted by default). The killed first S3
 * backup is also resumed on format 3, in an encrypted repository in a bucket of its own.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@ExtendWith(LeakCheck.class)
class CliRunMarkerIT {
    @TempDir
    static Path base;

    static final String BUCKET = "cli-run-marker-it";

    static Run ballast(StoreKind store, Clock clock, Consumer<String> onStored, String... args) {
        List<String> all = new ArrayList<>(List.of(CliHarness.inEarlierFormat(args)));
        all.addAll(store.args(base.resolve("data"), BUCKET));
        return CliHarness.run(base.resolve("home"), clock, onStored, all.toArray(String[]::new));
    }

    static Run ballast(StoreKind store, String... args) {
        return ballast(store, Clock.systemUTC(), p -> {}, args);
    }

    static StorageFacade open(StoreKind store) {
        return store.open(base.resolve("data"), BUCKET);
    }

    /** Every version under {@code prefix}, read beside a running command (the local store opened as a reader). */
    static List<VersionEntry> versions(StoreKind store, String prefix) {
        if (store == StoreKind.LOCAL
                && !dev.ballast.storage.object.local.LocalObjectStore.exists(
                        base.resolve("data").resolve("ballast-backups"))) {
            return List.of(); // not created yet
        }
        try (StorageFacade f = store == StoreKind.LOCAL ? CliHarness.localReader(base.resolve("data")) : open(store)) {
            return f.objects().listVersions(prefix);
        }
    }

    /**
     * The field input: a backup stalls after its first stored file for longer than its marker's 30
     * minutes; a prune from another machine (its clock 31 minutes on) takes the marker for dead and
     * deletes the version the backup had just stored. The backup resumes: before it writes its
     * snapshot it finds its marker removed, stores its files again, and then its snapshot verifies and
     * restores. Before, it wrote a "complete" snapshot naming the deleted version and exited 0.
     */
    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void aBackupPausedWhileAPruneTookItForDeadStoresItsFilesAgainBeforeItsSnapshot(StoreKind store) throws Exception {
        String name = "paused-" + store;
        Path source = Files.createDirectories(base.resolve(name));
        for (int i = 0; i < 4; i++) {
            Files.writeString(source.resolve("f" + i), "first " + i);
        }
        assertThat(ballast(store, "backup", source.toString()).exitCode()).isEqualTo(ExitCodes.OK);
        for (int i = 0; i < 4; i++) {
            Files.writeString(source.resolve("f" + i), "second, longer " + i);
        }

        CountDownLatch stored = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean first = new AtomicBoolean(true);
        CompletableFuture<Run> backup = CompletableFuture.supplyAsync(() -> ballast(
                store,
                Clock.systemUTC(),
                path -> {
                    if (first.getAndSet(false)) {
                        stored.countDown();
                        try {
                            release.await(); // the laptop sleeps
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                },
                "backup",
                source.toString(),
                "--transfers",
                "1"));
        Run done;
        try {
            assertThat(stored.await(2, TimeUnit.MINUTES)).isTrue();
            // What the paused run stored so far (the local store commits small files together: all four).
            int paused = versions(store, name + "/f").size() - 4;
            assertThat(paused).isPositive();

            FakeTime later = new FakeTime(Instant.now().plus(Duration.ofMinutes(31)));
            Run prune = ballast(store, later, p -> {}, "prune", name, "--grace", "0s");
            assertThat(prune.exitCode()).isEqualTo(ExitCodes.OK);
            assertThat(prune.out())
                    .contains(
                            "'" + name + "': deleted " + paused + " unreferenced version" + (paused == 1 ? ";" : "s;"))
                    .containsPattern("Removed \\d+ stale run markers? of backups");
            assertThat(versions(store, name + "/f"))
                    .as("the paused backup's uploads are gone")
                    .hasSize(4);
        } finally {
            release.countDown();
            done = backup.get(2, TimeUnit.MINUTES);
        }
        assertThat(done.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(done.err())
                .contains("Note: a prune took this backup of '" + name + "' for dead while it was paused")
                .contains("the 4 file(s) the run stored are stored again");
        assertThat(done.out()).contains("4 files stored");

        assertThat(ballast(store, "verify", name).exitCode()).isEqualTo(ExitCodes.OK);
        Path target = base.resolve(name + "-restored");
        assertThat(ballast(store, "restore", name, target.toString()).exitCode())
                .isEqualTo(ExitCodes.OK);
        assertThat(CliHarness.hashes(target)).isEqualTo(CliHarness.hashes(source));
    }

    /**
     * A version gone from the store (deleted behind its back, as the prune above did): verify calls it
     * damage, not "unreadable", and records it; the next backup does not call the file unchanged but
     * stores it again, and the backup verifies and restores.
     */
    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void aHoleVerifyFoundIsStoredAgainByTheNextBackup(StoreKind store) throws Exception {
        String name = "hole-" + store;
        Path source = Files.createDirectories(base.resolve(name));
        Files.writeString(source.resolve("kept.txt"), "kept");
        Files.writeString(source.resolve("lost.txt"), "lost by a prune");
        assertThat(ballast(store, "backup", source.toString()).exitCode()).isEqualTo(ExitCodes.OK);
        String lost;
        try (StorageFacade f = open(store)) {
            lost = f.objects().versions(name + "/lost.txt").get(0).versionId();
            f.objects().deleteVersion(name + "/lost.txt", lost);
        }

        Run verify = ballast(store, "verify", name);
        assertThat(verify.exitCode()).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(verify.err())
                .contains("Damaged: lost.txt (version " + lost + ": it is missing from the store)")
                .contains("Recorded 1 damaged version(s)");

        Run next = ballast(store, "backup", source.toString());
        assertThat(next.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(next.out()).contains("1 file stored, 1 unchanged").doesNotContain("Nothing to upload");
        assertThat(ballast(store, "verify", name).exitCode()).isEqualTo(ExitCodes.OK);
        Path target = base.resolve(name + "-restored");
        assertThat(ballast(store, "restore", name, target.toString()).exitCode())
                .isEqualTo(ExitCodes.OK);
        assertThat(CliHarness.hashes(target)).isEqualTo(CliHarness.hashes(source));
    }

    /**
     * A marker of a backup on another host: prune leaves the name alone and says how to remove it;
     * {@code unlock} keeps it (it may be running), {@code unlock --remove-all} removes it, and prune
     * then goes on. A marker that went stale is removed by plain {@code unlock}.
     */
    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void unlockRemovesTheMarkersOfRunsThatEndedAndWithRemoveAllEveryOne(StoreKind store) throws Exception {
        String name = "locked-" + store;
        Path source = Files.createDirectories(base.resolve(name));
        Files.writeString(source.resolve("a"), "a");
        assertThat(ballast(store, "backup", source.toString()).exitCode()).isEqualTo(ExitCodes.OK);
        String marker = ".ballast-runs/" + name + "/0123456789abcdef";
        try (StorageFacade f = open(store)) {
            f.objects()
                    .put(
                            marker,
                            ObjectContent.ofBytes(("{\"name\":\"" + name + "\",\"startedAt\":\"" + Instant.now()
                                            + "\",\"host\":\"another-host\",\"pid\":4242}")
                                    .getBytes(StandardCharsets.UTF_8)));
        }

        Run prune = ballast(store, "prune", name);
        assertThat(prune.exitCode()).isEqualTo(ExitCodes.INCOMPLETE);
        assertThat(prune.err())
                .contains("Not pruned: '" + name + "' because a backup of it may be running")
                .contains("on another-host, process 4242")
                .contains("'ballast unlock --remove-all' removes the marker");

        Run unlock = ballast(store, "unlock", name);
        assertThat(unlock.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(unlock.out())
                .contains("Kept the run marker of '" + name + "'")
                .contains("Removed 0 run marker(s), kept 1.");
        assertThat(versions(store, marker)).hasSize(1);

        // Thirty-one minutes later the marker is stale: plain unlock removes it.
        Run stale = ballast(store, new FakeTime(Instant.now().plus(Duration.ofMinutes(31))), p -> {}, "unlock", name);
        assertThat(stale.out())
                .contains("Removed the run marker of '" + name + "'")
                .contains("over 30 minutes ago");
        assertThat(versions(store, marker)).isEmpty();

        try (StorageFacade f = open(store)) {
            f.objects().put(marker, ObjectContent.ofBytes("{}".getBytes(StandardCharsets.UTF_8)));
        }
        Run all = ballast(store, "unlock", "--remove-all");
        assertThat(all.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(all.out())
                .contains("Removed the run marker of '" + name + "'")
                .contains("--remove-all");
        assertThat(ballast(store, "prune", name).exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(ballast(store, "unlock").out()).contains("no backup name is locked");
    }

    /**
     * The field input: a backup killed with kill -9. Its marker names a process of this host that no
     * longer runs, so prune removes it and prunes the name at once instead of refusing it for 30
     * minutes.
     */
    @Test
    void aBackupKilledOnThisHostDoesNotBlockPrune() throws Exception {
        StoreKind store = StoreKind.LOCAL;
        String name = "killed-local";
        Path source = Files.createDirectories(base.resolve(name));
        writeRandomFiles(source, 60, 256 * 1024, 12);
        Process child = child(store, name, source);
        try {
            waitFor(() -> !versions(store, ".ballast-runs/" + name + "/").isEmpty(), child);
        } finally {
            child.destroyForcibly();
            assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(versions(store, ".ballast-runs/" + name + "/"))
                .as("the killed run left its marker")
                .isNotEmpty();

        Run prune = ballast(store, "prune", name);
        assertThat(prune.exitCode()).as(prune.err()).isEqualTo(ExitCodes.OK);
        assertThat(prune.err()).doesNotContain("Not pruned");
        assertThat(prune.out()).contains("Removed 1 stale run marker of backups");
        assertThat(versions(store, ".ballast-runs/" + name + "/")).isEmpty();
    }

    /**
     * The field input: a first backup to S3 killed three times (kill -9) part-way. Each next run
     * reuses what the killed ones stored (the same SHA-256, proven by the store on upload) instead of
     * uploading it again: afterwards every file has exactly one stored version, where before each run
     * started over (3.8 times the data after three kills).
     */
    @Test
    void aKilledFirstBackupToS3IsResumedNotStartedOver() throws Exception {
        StoreKind store = StoreKind.S3;
        String name = "resumed-s3";
        Path source = Files.createDirectories(base.resolve(name));
        writeRandomFiles(source, 40, 256 * 1024, 13);
        for (int stored : new int[] {4, 14, 24}) {
            Process child = child(store, name, source);
            try {
                waitFor(() -> dataVersions(store, name).size() >= stored, child);
            } finally {
                child.destroyForcibly();
                assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
            }
            System.out.printf(
                    "[resume] killed with %d versions stored%n",
                    dataVersions(store, name).size());
        }
        assertThat(dataVersions(store, name).size()).isLessThan(40);

        Run last = ballast(store, "backup", source.toString());
        assertThat(last.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(last.out()).containsPattern("\\d+ already stored by an interrupted run");

        Map<String, Long> perKey = dataVersions(store, name).stream()
                .collect(Collectors.groupingBy(VersionEntry::key, TreeMap::new, Collectors.counting()));
        assertThat(perKey).hasSize(40);
        assertThat(perKey.values()).as("versions stored per file").containsOnly(1L);
        Path target = base.resolve(name + "-restored");
        assertThat(ballast(store, "restore", name, target.toString()).exitCode())
                .isEqualTo(ExitCodes.OK);
        assertThat(CliHarness.hashes(target)).isEqualTo(CliHarness.hashes(source));
    }

    /** The bucket of the encrypted repository of {@link #aKilledFirstBackupOfAnEncryptedRepositoryToS3IsResumedNotStartedOver}. */
    static final String ENCRYPTED_BUCKET = "cli-run-marker-enc";

    /**
     * The same on format 3 (the default): a first backup to S3 killed twice with kill -9 after one and
     * then two of its packs reached the store, before any index file named them. Each next run finds
     * the killed run's marker, indexes those packs from their headers and reuses their chunks: in the
     * end the packs hold about the source's bytes once (started over each time, about twice as
     * much), and the backup restores byte for byte.
     */
    @Test
    void aKilledFirstBackupOfAnEncryptedRepositoryToS3IsResumedNotStartedOver() throws Exception {
        StoreKind store = StoreKind.S3;
        String name = "resumed-enc";
        Path source = Files.createDirectories(base.resolve(name));
        // 48 MiB of random bytes: three 16 MiB packs
        writeRandomFiles(source, 24, 2 * 1024 * 1024, 17);
        long sourceBytes = 24L * 2 * 1024 * 1024;
        List<String> storeArgs = store.args(base.resolve("data"), ENCRYPTED_BUCKET);
        for (int kill = 1; kill <= 2; kill++) {
            // each child is killed once it has uploaded a pack of its own
            int packs = kill == 1 ? 1 : encryptedPacks().size() + 1;
            List<String> args =
                    new ArrayList<>(List.of("backup", source.toString(), "--name", name, "--transfers", "1"));
            args.addAll(storeArgs);
            Process child = CliHarness.start(
                    List.of(), base.resolve(name + "-child-" + kill + ".log"), args.toArray(String[]::new));
            try {
                waitFor(() -> encryptedPacks().size() >= packs, child);
            } finally {
                child.destroyForcibly();
                assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
            }
        }
        assertThat(encryptedPacks()).hasSizeGreaterThanOrEqualTo(2);

        List<String> last = new ArrayList<>(List.of("backup", source.toString(), "--name", name));
        last.addAll(storeArgs);
        Run done = CliHarness.run(base.resolve("home"), p -> {}, last.toArray(String[]::new));
        assertThat(done.exitCode()).as(done.err()).isEqualTo(ExitCodes.OK);
        // Whether a kill lands before the child's index write is a race (a fast child indexes its packs
        // right after the last upload): when packs were left unindexed, the last run says it reused them.
        // Either way the packs hold the source about once; stored over again, they would hold it about
        // twice (the killed children's packs plus the last run's).
        if (done.err().contains("did not finish left")) {
            assertThat(done.err()).contains("reused");
        }
        long packBytes = encryptedPacks().stream().mapToLong(VersionEntry::size).sum();
        assertThat(packBytes)
                .as("bytes in packs for %d source bytes", sourceBytes)
                .isLessThan(sourceBytes * 5 / 4);

        List<String> restore = new ArrayList<>(
                List.of("restore", name, base.resolve(name + "-restored").toString()));
        restore.addAll(storeArgs);
        assertThat(CliHarness.run(base.resolve("home"), p -> {}, restore.toArray(String[]::new))
                        .exitCode())
                .isEqualTo(ExitCodes.OK);
        assertThat(CliHarness.hashes(base.resolve(name + "-restored"))).isEqualTo(CliHarness.hashes(source));
    }

    /** The packs of the encrypted repository's bucket ({@code data/}). */
    static List<VersionEntry> encryptedPacks() {
        try (StorageFacade f = StoreKind.S3.open(base.resolve("data"), ENCRYPTED_BUCKET)) {
            return f.objects().listVersions("data/").stream()
                    .filter(v -> !v.deleteMarker())
                    .toList();
        }
    }

    /** The stored versions of a backup's files (its manifest left out). */
    static List<VersionEntry> dataVersions(StoreKind store, String name) {
        return versions(store, name + "/").stream()
                .filter(v -> !v.deleteMarker() && !v.key().endsWith(".ballast-manifest.json"))
                .toList();
    }

    static void writeRandomFiles(Path dir, int files, int size, long seed) throws IOException {
        Random random = new Random(seed);
        byte[] b = new byte[size];
        for (int i = 0; i < files; i++) {
            random.nextBytes(b);
            Files.write(dir.resolve(String.format("file-%03d.bin", i)), b);
        }
    }

    /** {@code ballast backup} of {@code source} in a JVM of its own, one file at a time, its home under {@code base}. */
    static Process child(StoreKind store, String name, Path source) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                dev.ballast.cli.Ballast.class.getName(),
                "backup",
                source.toString(),
                "--name",
                name,
                "--transfers",
                "1",
                CliHarness.EARLIER_FORMAT));
        command.addAll(store.args(base.resolve("data"), BUCKET));
        if (store == StoreKind.S3) {
            // StoreKind's S3 arguments name the JVM's shared S3Mock; the child reaches the same server.
            assertThat(command).contains(S3MockServer.endpoint().toString());
        }
        ProcessBuilder pb = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(base.resolve(name + "-child.log").toFile());
        pb.environment().put("HOME", base.resolve("home").toString());
        pb.environment().remove("XDG_CACHE_HOME");
        pb.environment().putIfAbsent("BALLAST_PASSWORD", CliHarness.TEST_PASSWORD);
        return pb.start();
    }

    /** Whether {@code condition} holds; false while the store cannot be read yet (the child is creating it). */
    static boolean holds(java.util.function.BooleanSupplier condition) {
        try {
            return condition.getAsBoolean();
        } catch (dev.ballast.storage.StorageException e) {
            return false;
        }
    }

    /** Polls {@code condition} until it holds; fails if {@code child} ends first. */
    static void waitFor(java.util.function.BooleanSupplier condition, Process child) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (!holds(condition)) {
            assertThat(child.isAlive())
                    .as("the backup ended before it could be killed (its output is in " + base + ")")
                    .isTrue();
            assertThat(System.nanoTime()).isLessThan(deadline);
            Thread.sleep(5);
        }
    }
}
