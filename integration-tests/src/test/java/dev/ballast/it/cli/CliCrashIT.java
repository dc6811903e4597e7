package dev.ballast.it.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.cli.ExitCodes;
import dev.ballast.it.cli.CliHarness.Run;
import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.VersionEntry;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 at random moments of backups into the default local store: the command runs in a JVM of
 * its own and is killed ({@link Process#destroyForcibly()}, SIGKILL) after a random delay, until it
 * was killed 20 times (or {@code -Dballast.crash.kills=N}); the delays reach past a whole backup, so
 * some runs finish and leave a manifest between the kills. The source changes before each run.
 * Afterwards every
 * manifest version that exists restores byte-identical to the source as it was when that backup ran,
 * the next backup completes, and no temporary file of a killed run is left in the store.
 */
@Timeout(value = 15, unit = TimeUnit.MINUTES)
@ExtendWith(LeakCheck.class)
class CliCrashIT {
    private static final int KILLS = Integer.getInteger("ballast.crash.kills", 20);
    private static final Pattern CREATED_AT = Pattern.compile("\"createdAt\":\"([^\"]+)\"");

    @TempDir
    Path base;

    @Test
    void killedBackupsLeaveEveryManifestRestorableAndTheNextBackupCompletes() throws Exception {
        Path source = Files.createDirectories(base.resolve("src"));
        Path dataDir = base.resolve("data");
        Random random = new Random(20261130);
        for (int i = 0; i < 800; i++) {
            write(source.resolve("d" + (i % 16) + "/f" + i + ".txt"), random, 1000 + random.nextInt(7000));
        }
        for (int i = 0; i < 4; i++) {
            write(source.resolve("large/l" + i + ".bin"), random, 4 * 1024 * 1024 + random.nextInt(1000));
        }
        for (int i = 0; i < 6; i++) {
            write(source.resolve("medium/m" + i + ".bin"), random, 100_000 + random.nextInt(100_000));
        }

        Map<Instant, Map<String, String>> sourceAt = new TreeMap<>();
        sourceAt.put(Instant.now(), CliHarness.hashes(source));
        // How long a whole backup takes here, so the kills land inside one.
        long full = timedChildBackup(source, dataDir, Long.MAX_VALUE).millis();
        System.out.printf("[crash] an uninterrupted backup takes %d ms (JVM start included)%n", full);

        int killed = 0;
        // Later backups store only what changed, so they are shorter than the first: the delays follow the
        // length of the last run that finished, still reaching past it.
        long span = full;
        for (int k = 1; killed < KILLS && k <= 3 * KILLS; k++) {
            mutate(source, random, k);
            sourceAt.put(Instant.now(), CliHarness.hashes(source));
            long delay = 100 + (long) (random.nextDouble() * span * 1.6);
            Child c = timedChildBackup(source, dataDir, delay);
            killed += c.killed() ? 1 : 0;
            if (!c.killed()) {
                span = c.millis();
            }
            System.out.printf(
                    "[crash] run %2d: %s after %d ms%n",
                    k, c.killed() ? "killed (SIGKILL)" : "finished first", c.millis());
        }
        assertThat(killed).as("runs killed mid-way").isEqualTo(KILLS);

        List<String> versions = new ArrayList<>();
        Map<String, Instant> createdAt = new TreeMap<>();
        try (StorageFacade reader = CliHarness.localReader(dataDir)) {
            // the first backup made the store an encrypted repository: its manifests are read through the key
            assertThat(dev.ballast.backup.keys.KeyFiles.isRepository(reader.objects()))
                    .isTrue();
            var manifests = CliHarness.asCommandsSeeIt(reader.objects());
            for (VersionEntry v : manifests.versions("src/.ballast-manifest.json")) {
                versions.add(v.versionId());
                try (ObjectRead read =
                        manifests.get("src/.ballast-manifest.json", ReadOptions.version(v.versionId()))) {
                    Matcher m = CREATED_AT.matcher(new String(read.readAllBytes(), StandardCharsets.UTF_8));
                    assertThat(m.find()).isTrue();
                    createdAt.put(v.versionId(), Instant.parse(m.group(1)));
                }
            }
        }
        System.out.printf("[crash] %d kills, %d manifest versions exist; restoring each%n", killed, versions.size());
        assertThat(versions).isNotEmpty();

        for (String version : versions) {
            Path out = base.resolve("restore-" + version);
            Run restore = CliHarness.run(
                    base.resolve("home"),
                    p -> {},
                    "restore",
                    "src",
                    out.toString(),
                    "--manifest-version",
                    version,
                    "--data-dir",
                    dataDir.toString());
            assertThat(restore.exitCode())
                    .as("restore of manifest version %s", version)
                    .isEqualTo(ExitCodes.OK);
            Map<String, String> restored = CliHarness.hashes(out);
            Map<String, String> expected = sourceWhenBackedUp(sourceAt, createdAt.get(version));
            assertThat(expected).as("source at %s", createdAt.get(version)).containsAllEntriesOf(restored);
        }

        Run next = CliHarness.run(
                base.resolve("home"), p -> {}, "backup", source.toString(), "--data-dir", dataDir.toString());
        assertThat(next.exitCode()).as("the backup after the kills").isEqualTo(ExitCodes.OK);
        Run latest = CliHarness.run(
                base.resolve("home"),
                p -> {},
                "restore",
                "src",
                base.resolve("latest").toString(),
                "--data-dir",
                dataDir.toString());
        assertThat(latest.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(CliHarness.hashes(base.resolve("latest"))).isEqualTo(CliHarness.hashes(source));
        try (Stream<Path> leftovers = Files.list(dataDir.resolve("ballast-backups/tmp"))) {
            assertThat(leftovers).as("temporary files of killed runs").isEmpty();
        }
    }

    /** The source tree as it was when a backup that started at {@code started} ran. */
    private static Map<String, String> sourceWhenBackedUp(Map<Instant, Map<String, String>> sourceAt, Instant started) {
        Map<String, String> state = null;
        for (Map.Entry<Instant, Map<String, String>> e : sourceAt.entrySet()) {
            if (!e.getKey().isAfter(started)) {
                state = e.getValue();
            }
        }
        return state == null ? Map.of() : state;
    }

    private record Child(long millis, boolean killed) {}

    /** Runs a backup in its own JVM and kills it after {@code killAfterMillis} unless it finished. */
    private Child timedChildBackup(Path source, Path dataDir, long killAfterMillis) throws Exception {
        long start = System.nanoTime();
        Process p = CliHarness.start(
                List.of(), base.resolve("child.log"), "backup", source.toString(), "--data-dir", dataDir.toString());
        boolean finished = killAfterMillis == Long.MAX_VALUE
                ? p.waitFor(5, TimeUnit.MINUTES)
                : p.waitFor(killAfterMillis, TimeUnit.MILLISECONDS);
        if (!finished) {
            p.destroyForcibly();
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        }
        long millis = (System.nanoTime() - start) / 1_000_000;
        if (killAfterMillis == Long.MAX_VALUE) {
            assertThat(p.exitValue())
                    .as(Files.readString(base.resolve("child.log")))
                    .isEqualTo(ExitCodes.OK);
        }
        return new Child(millis, !finished);
    }

    /** Changes some files, adds some and removes one, so that every run has something to store. */
    private static void mutate(Path source, Random random, int k) throws IOException {
        for (int i = 0; i < 40; i++) {
            write(
                    source.resolve("d" + random.nextInt(16) + "/f" + random.nextInt(800) + ".txt"),
                    random,
                    1000 + random.nextInt(7000));
        }
        write(source.resolve("new/run" + k + ".txt"), random, 5000);
        write(source.resolve("large/l" + random.nextInt(4) + ".bin"), random, 4 * 1024 * 1024 + random.nextInt(1000));
        Files.deleteIfExists(source.resolve("new/run" + (k - 3) + ".txt"));
    }

    private static void write(Path file, Random random, int size) throws IOException {
        byte[] bytes = new byte[size];
        random.nextBytes(bytes);
        Files.createDirectories(file.getParent());
        Files.write(file, bytes);
    }
}
