package dev.ballast.it.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ballast.backup.keys.KeyFiles;
import dev.ballast.cli.ExitCodes;
import dev.ballast.it.cli.CliHarness.Run;
import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.object.VersionEntry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 22 item 2 on the local store and on S3 (S3Mock), each command in a JVM of its own as a user
 * runs it: the first backup into an empty store makes it an encrypted repository; two first backups
 * started at once into one empty store make one repository (one {@code config}, one master key),
 * never two; without a password and without a terminal the first backup is exit 2 and writes nothing
 * (not even the bucket).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class CliNewStoreIT extends CliOnBothStores {
    /** The options naming a store of its own per test and kind. */
    static List<String> storeArgs(Store store, String name) {
        return store == Store.LOCAL
                ? List.of("--data-dir", base.resolve("new-" + name).toString())
                : List.of(
                        "--endpoint",
                        s3.uri().toString(),
                        "--bucket",
                        "new-" + name,
                        "--access-key",
                        "ballast",
                        "--secret-key",
                        "ballast",
                        "--timeout",
                        "20s");
    }

    static StorageFacade open(Store store, String name) {
        return store == Store.LOCAL
                ? CliHarness.localReader(base.resolve("new-" + name))
                : CliHarness.facade(s3.uri(), "new-" + name);
    }

    static String[] args(Store store, String name, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(storeArgs(store, name));
        return all.toArray(String[]::new);
    }

    /** Starts {@code ballast args} in a JVM of its own with exactly {@code env}, its output to {@code log}. */
    static Process start(Map<String, String> env, Path log, String... args) throws Exception {
        return CliHarness.startInEnvironment(CliNamesIT.LAUNCHER_OPTIONS, env, log, args);
    }

    @ParameterizedTest
    @EnumSource(Store.class)
    void twoFirstBackupsAtOnceMakeOneRepositoryWithOneMasterKey(Store store) throws Exception {
        String name = "race-" + store.name().toLowerCase();
        Path a = sourceWith("race-a-" + store.name(), "a.bin", 200_000, 1);
        Path b = sourceWith("race-b-" + store.name(), "b.bin", 200_000, 2);
        Map<String, String> env = Map.of(
                "BALLAST_PASSWORD",
                CliHarness.TEST_PASSWORD,
                "HOME",
                base.resolve("home").toString());
        Path logA = base.resolve("race-a-" + name + ".log");
        Path logB = base.resolve("race-b-" + name + ".log");
        Process pa = start(env, logA, args(store, name, "backup", a.toString(), "--name", "a"));
        Process pb = start(env, logB, args(store, name, "backup", b.toString(), "--name", "b"));
        assertThat(pa.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(pb.waitFor(120, TimeUnit.SECONDS)).isTrue();
        String outA = Files.readString(logA);
        String outB = Files.readString(logB);
        System.out.println(
                "[race a] exit " + pa.exitValue() + "\n" + outA + "[race b] exit " + pb.exitValue() + "\n" + outB);

        List<String> made = new ArrayList<>();
        for (var r : List.of(new Object[] {pa.exitValue(), outA, "a"}, new Object[] {pb.exitValue(), outB, "b"})) {
            int code = (Integer) r[0];
            String out = (String) r[1];
            if (code == ExitCodes.OK) {
                made.add((String) r[2]);
            } else {
                // the one that lost: one sentence, no stack trace, nothing half made
                assertThat(code).as(out).isEqualTo(ExitCodes.UNAVAILABLE);
                assertThat(out)
                        .containsAnyOf(
                                "Another ballast command is writing to", "another init is running at the same time")
                        .doesNotContain("Exception", "\tat ");
            }
        }
        assertThat(made).as("at least one of two first backups ends well").isNotEmpty();

        try (StorageFacade f = open(store, name)) {
            List<VersionEntry> all = f.objects().listVersions("");
            assertThat(all.stream().filter(v -> v.key().equals(KeyFiles.CONFIG) && !v.deleteMarker()))
                    .as("one config, ever")
                    .hasSize(1);
            assertThat(f.objects().list(KeyFiles.KEYS_PREFIX))
                    .as("one key file, one master key")
                    .hasSize(1);
            assertThat(KeyFiles.create()
                            .open(f.objects(), CliHarness.TEST_PASSWORD.toCharArray())
                            .masterKey())
                    .isNotNull();
        }
        // every backup that said it ended well restores, with the one password
        for (String n : made) {
            Path into = base.resolve("race-restored-" + n + "-" + name);
            Run restore =
                    CliHarness.run(base.resolve("home"), p -> {}, args(store, name, "restore", n, into.toString()));
            assertThat(restore.exitCode()).as(restore.err()).isZero();
            Path src = n.equals("a") ? a : b;
            assertThat(CliHarness.hashes(into)).isEqualTo(CliHarness.hashes(src));
        }
    }

    /**
     * A first backup into an empty store killed (kill -9) once it has made the repository and written
     * its run marker: prune is not blocked by the marker of a process of this host that is gone, the
     * next backup completes, and its snapshot restores.
     */
    @org.junit.jupiter.api.Test
    void aFirstBackupKilledOnThisHostBlocksNeitherPruneNorTheNextBackup() throws Exception {
        String name = "killed";
        Path source = Files.createDirectories(base.resolve("killed-src"));
        java.util.Random random = new java.util.Random(14);
        byte[] b = new byte[256 * 1024];
        for (int i = 0; i < 200; i++) {
            random.nextBytes(b);
            Files.write(source.resolve("f" + i + ".bin"), b);
        }
        Path log = base.resolve("killed.log");
        Process child = start(
                Map.of(
                        "BALLAST_PASSWORD",
                        CliHarness.TEST_PASSWORD,
                        "HOME",
                        base.resolve("home").toString()),
                log,
                args(Store.LOCAL, name, "backup", source.toString(), "--transfers", "1"));
        try {
            await().atMost(Duration.ofMinutes(2))
                    .pollInterval(Duration.ofMillis(5))
                    .until(() -> {
                        assertThat(child.isAlive())
                                .as("the backup ended before it could be killed: " + Files.readString(log))
                                .isTrue();
                        return markerWritten(name);
                    });
        } finally {
            child.destroyForcibly();
            assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(markerWritten(name)).as("the killed run left its marker").isTrue();

        Run prune = CliHarness.run(base.resolve("home"), p -> {}, args(Store.LOCAL, name, "prune"));
        assertThat(prune.exitCode()).as(prune.out() + prune.err()).isEqualTo(ExitCodes.OK);
        assertThat(prune.err()).doesNotContain("Not pruned");

        Run next = CliHarness.run(base.resolve("home"), p -> {}, args(Store.LOCAL, name, "backup", source.toString()));
        assertThat(next.exitCode()).as(next.err()).isEqualTo(ExitCodes.OK);
        assertThat(next.err()).doesNotContain("Created the encrypted repository");
        Path into = base.resolve("killed-restored");
        Run restore = CliHarness.run(
                base.resolve("home"), p -> {}, args(Store.LOCAL, name, "restore", "killed-src", into.toString()));
        assertThat(restore.exitCode()).as(restore.err()).isEqualTo(ExitCodes.OK);
        assertThat(CliHarness.hashes(into)).isEqualTo(CliHarness.hashes(source));
    }

    /**
     * CliRetentionIT's prune beside a running backup, on the encrypted repository a new store is: a
     * repository's chunks are shared by every name, so prune deletes nothing while any backup runs
     * (exit 1, one line naming it, no pack touched); the backup then completes and restores, its
     * marker gone, and the next prune runs.
     */
    @ParameterizedTest
    @EnumSource(Store.class)
    void pruneBesideARunningBackupOfTheRepositoryDeletesNothing(Store store) throws Exception {
        String name = "busy-" + store.name().toLowerCase();
        Path source = sourceWith("busy-src-" + store.name(), "f0.bin", 300_000, 5);
        Files.writeString(source.resolve("small.txt"), "one");
        String backupName = source.getFileName().toString();
        assertThat(CliHarness.run(base.resolve("home"), p -> {}, args(store, name, "backup", source.toString()))
                        .exitCode())
                .isEqualTo(ExitCodes.OK);
        Files.write(source.resolve("f0.bin"), new byte[300_000]);
        assertThat(CliHarness.run(base.resolve("home"), p -> {}, args(store, name, "backup", source.toString()))
                        .exitCode())
                .isEqualTo(ExitCodes.OK);
        assertThat(CliHarness.run(
                                base.resolve("home"),
                                p -> {},
                                args(store, name, "forget", backupName, "--keep-last", "1"))
                        .exitCode())
                .isEqualTo(ExitCodes.OK);
        Files.writeString(source.resolve("small.txt"), "two");
        Files.writeString(source.resolve("new.txt"), "added");

        java.util.concurrent.CountDownLatch stored = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CompletableFuture<Run> backup =
                java.util.concurrent.CompletableFuture.supplyAsync(() -> CliHarness.run(
                        base.resolve("home"),
                        path -> {
                            stored.countDown();
                            try {
                                release.await();
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        },
                        args(store, name, "backup", source.toString(), "--transfers", "1")));
        Run done;
        try {
            assertThat(stored.await(2, TimeUnit.MINUTES)).isTrue();
            List<String> packsBefore;
            try (StorageFacade f = open(store, name)) {
                packsBefore = f.objects().list("data/");
            }

            Run prune = CliHarness.run(base.resolve("home"), p -> {}, args(store, name, "prune", "--grace", "0s"));
            assertThat(prune.exitCode()).as(prune.out() + prune.err()).isEqualTo(ExitCodes.INCOMPLETE);
            assertThat(prune.err())
                    .contains("Not pruned: a backup of '" + backupName + "' is running")
                    .contains("deleted nothing")
                    .doesNotContain("\tat ");
            try (StorageFacade f = open(store, name)) {
                assertThat(f.objects().list("data/"))
                        .as("no pack deleted or written")
                        .isEqualTo(packsBefore);
            }
        } finally {
            release.countDown();
            done = backup.get(2, TimeUnit.MINUTES);
        }
        assertThat(done.exitCode()).as(done.err()).isEqualTo(ExitCodes.OK);
        Path target = base.resolve(name + "-restored");
        assertThat(CliHarness.run(
                                base.resolve("home"),
                                p -> {},
                                args(store, name, "restore", backupName, target.toString()))
                        .exitCode())
                .isEqualTo(ExitCodes.OK);
        assertThat(CliHarness.hashes(target)).isEqualTo(CliHarness.hashes(source));
        try (StorageFacade f = open(store, name)) {
            assertThat(f.objects().list(".ballast-runs/"))
                    .as("the run removed its marker")
                    .isEmpty();
        }
        Run after = CliHarness.run(base.resolve("home"), p -> {}, args(store, name, "prune", "--grace", "0s"));
        assertThat(after.exitCode()).as(after.out() + after.err()).isEqualTo(ExitCodes.OK);
        assertThat(after.out()).contains("Prune done: deleted ");
        Path again = base.resolve(name + "-restored-after-prune");
        assertThat(CliHarness.run(
                                base.resolve("home"),
                                p -> {},
                                args(store, name, "restore", backupName, again.toString()))
                        .exitCode())
                .isEqualTo(ExitCodes.OK);
        assertThat(CliHarness.hashes(again)).isEqualTo(CliHarness.hashes(source));
    }

    /** Whether the local store {@code new-NAME} is a repository holding a run marker (it may not exist yet). */
    static boolean markerWritten(String name) {
        Path dir = base.resolve("new-" + name).resolve("ballast-backups");
        if (!Files.exists(dir.resolve("index.db"))) {
            return false;
        }
        try (StorageFacade f = CliHarness.localReader(base.resolve("new-" + name))) {
            return KeyFiles.isRepository(f.objects())
                    && !f.objects().list(".ballast-runs/").isEmpty();
        } catch (RuntimeException e) {
            return false; // the store is being created
        }
    }

    @org.junit.jupiter.api.Test
    void aHeapTooSmallForThePasswordsKeyDerivationIsOneSentenceNotAStackTrace() throws Exception {
        Path src = sourceWith("small-heap", "f.bin", 1000, 4);
        Path log = base.resolve("small-heap.log");
        List<String> jvm = new ArrayList<>(CliNamesIT.LAUNCHER_OPTIONS);
        jvm.add("-Xmx64m"); // Argon2id's 64 MiB do not fit beside everything else
        Process p = CliHarness.start(
                jvm,
                log,
                "backup",
                src.toString(),
                "--data-dir",
                base.resolve("new-small-heap").toString());
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String out = Files.readString(log);
        assertThat(p.exitValue()).as(out).isEqualTo(ExitCodes.USAGE);
        assertThat(out)
                .contains("Error: The Java heap is too small to derive the key from the password (Argon2id takes 64"
                        + " MiB of memory): give the JVM a larger heap, at least -Xmx128m (in BALLAST_JAVA_OPTS), and"
                        + " run the command again.")
                .doesNotContain("\tat ")
                .doesNotContain("Exception in thread");
    }

    @org.junit.jupiter.api.Test
    void aHeapTooSmallForTheKeyDerivedAheadIsOneSentenceEveryTime() throws Exception {
        // Field case: 'BALLAST_JAVA_OPTS=-Xmx64m ballast list' on a store opened before (its key derived ahead,
        // beside the store's opening) printed "Exception in thread "main" java.lang.OutOfMemoryError: Java heap
        // space" and exited 1 in 6 runs of 9, once after a NoClassDefFoundError of a class whose initialisation
        // had run out of heap; docs/cli.md promises exit 2 and one sentence.
        Path src = sourceWith("heap-ahead", "f.bin", 1000, 5);
        Path dataDir = base.resolve("new-heap-ahead");
        Map<String, String> env = Map.of("HOME", base.resolve("heap-ahead-home").toString());
        Path first = base.resolve("heap-ahead-backup.log");
        Process backup = CliHarness.startInEnvironment(
                CliNamesIT.LAUNCHER_OPTIONS, env, first, "backup", src.toString(), "--data-dir", dataDir.toString());
        assertThat(backup.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(backup.exitValue()).as(Files.readString(first)).isZero();
        List<String> jvm = new ArrayList<>(CliNamesIT.LAUNCHER_OPTIONS);
        jvm.add("-Xmx64m");
        for (int run = 1; run <= 3; run++) {
            Path log = base.resolve("heap-ahead-list-" + run + ".log");
            Process p = CliHarness.startInEnvironment(jvm, env, log, "list", "--data-dir", dataDir.toString());
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            String out = Files.readString(log);
            assertThat(p.exitValue()).as(out).isEqualTo(ExitCodes.USAGE);
            assertThat(out)
                    .isEqualTo("Error: The Java heap is too small to derive the key from the password (Argon2id takes"
                            + " 64 MiB of memory): give the JVM a larger heap, at least -Xmx128m (in"
                            + " BALLAST_JAVA_OPTS), and run the command again.\n");
        }
    }

    @ParameterizedTest
    @EnumSource(Store.class)
    void withoutAPasswordOrATerminalTheFirstBackupIsExit2AndCreatesNothing(Store store) throws Exception {
        String name = "nopw-" + store.name().toLowerCase();
        Path src = sourceWith("nopw-" + store.name(), "f.bin", 1000, 3);
        Path log = base.resolve(name + ".log");
        // BALLAST_PASSWORD empty, no password file or command, no terminal (output to a file), as cron runs it
        Process p = start(
                Map.of("BALLAST_PASSWORD", "", "HOME", base.resolve("home").toString()),
                log,
                args(store, name, "backup", src.toString()));
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String out = Files.readString(log);
        assertThat(p.exitValue()).as(out).isEqualTo(ExitCodes.USAGE);
        // one line of error (beside the warning about --secret-key and the store's INFO lines), no stack trace
        assertThat(out.lines().filter(l -> l.startsWith("Error: ")))
                .singleElement()
                .satisfies(l -> assertThat(l)
                        .startsWith("Error: No password was given for the encrypted repository this first backup makes"
                                + " of ")
                        .contains(
                                "BALLAST_PASSWORD",
                                "--password-file",
                                "--password-command",
                                "--insecure-no-encryption"));
        assertThat(out).doesNotContain("Exception", "\tat ");

        if (store == Store.LOCAL) {
            assertThat(base.resolve("new-" + name)).doesNotExist();
        } else {
            // a command that reads never creates a bucket: 'list' finds none
            Run list = CliHarness.run(base.resolve("home"), q -> {}, args(store, name, "list"));
            assertThat(list.exitCode()).as(list.err()).isEqualTo(ExitCodes.NOT_FOUND);
        }

        // with the opt-out, the same command stores the earlier format and needs no password
        Process optOut = start(
                Map.of("BALLAST_PASSWORD", "", "HOME", base.resolve("home").toString()),
                log,
                args(store, name, "backup", src.toString(), "--insecure-no-encryption"));
        assertThat(optOut.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(optOut.exitValue()).as(Files.readString(log)).isZero();
        try (StorageFacade f = open(store, name)) {
            assertThat(KeyFiles.isRepository(f.objects())).isFalse();
            assertThat(f.objects().list("")).anyMatch(k -> k.endsWith("/f.bin"));
        }
    }
}
