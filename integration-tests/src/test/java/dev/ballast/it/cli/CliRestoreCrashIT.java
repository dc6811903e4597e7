package dev.ballast.it.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.cli.ExitCodes;
import dev.ballast.it.cli.CliHarness.Run;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A restore killed with kill -9 part-way: into an existing target, every file it renamed into place
 * is complete, and the same command run again keeps what the killed one wrote (checked by size and
 * SHA-256), removes the temporary files it left and completes the tree; into a new target, nothing is
 * at the target's path, and the run again removes the hidden directory the killed one wrote into.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@ExtendWith(LeakCheck.class)
@EnabledOnOs(OS.LINUX)
class CliRestoreCrashIT {
    private static final Pattern TOTALS = Pattern.compile("complete: (\\d+) files? restored, (\\d+) already present");

    @TempDir
    Path base;

    @Test
    void aRestoreKilledPartWayIsCompletedByARunAgainThatKeepsItsWorkAndLeavesNoTemporaryFile() throws Exception {
        Path source = backedUp(40, 7);
        Path home = base.resolve("home");
        Path data = base.resolve("data");
        Path restores = Files.createDirectories(base.resolve("restores"));
        Path target = restores.resolve("tree");

        // Files renamed into place are counted as the kernel reports them (inotify, through a WatchService),
        // not by polling: the run is killed once 200 of its 4,000 files are in place.
        Files.createDirectories(target);
        Process killed;
        try (WatchService watcher = target.getFileSystem().newWatchService()) {
            target.register(watcher, StandardWatchEventKinds.ENTRY_CREATE);
            killed = restore(home, target, data, base.resolve("killed.log"));
            try {
                awaitFilesInPlace(watcher, target, 200, killed);
            } catch (AssertionError | RuntimeException | InterruptedException e) {
                killed.destroyForcibly();
                throw e;
            }
        }
        try {
            assertThat(killed.isAlive())
                    .as(
                            "the restore ended before it could be killed: %s",
                            Files.readString(base.resolve("killed.log"), StandardCharsets.UTF_8))
                    .isTrue();
        } finally {
            killed.destroyForcibly();
            assertThat(killed.waitFor(60, TimeUnit.SECONDS)).isTrue();
        }
        Map<String, String> expected = CliHarness.hashes(source);
        try (Stream<Path> all = Files.walk(target)) {
            for (Path p : all.filter(Files::isRegularFile).toList()) {
                if (!p.getFileName().toString().startsWith(".ballast-")) {
                    assertThat(CliHarness.sha256(p))
                            .as("%s, renamed into place by the killed run", target.relativize(p))
                            .isEqualTo(expected.get(target.relativize(p).toString()));
                }
            }
        }

        Process again = restore(home, target, data, base.resolve("again.log"));
        assertThat(again.waitFor(2, TimeUnit.MINUTES)).isTrue();
        String out = Files.readString(base.resolve("again.log"), StandardCharsets.UTF_8);
        assertThat(again.exitValue()).as(out).isEqualTo(ExitCodes.OK);
        Matcher totals = TOTALS.matcher(out);
        assertThat(totals.find()).as(out).isTrue();
        assertThat(Integer.parseInt(totals.group(2)))
                .as("files the killed run wrote, kept")
                .isGreaterThanOrEqualTo(150);
        assertThat(Integer.parseInt(totals.group(1)) + Integer.parseInt(totals.group(2)))
                .isEqualTo(4000);
        assertThat(CliHarness.hashes(target)).isEqualTo(expected);
        assertThat(names(restores)).as("nothing beside the target").containsExactly("tree");
        try (Stream<Path> all = Files.walk(target)) {
            assertThat(all.map(p -> p.getFileName().toString())).noneMatch(n -> n.startsWith(".ballast-"));
        }
        try (Stream<Path> records = Files.list(home.resolve(".cache/ballast/restores"))) {
            assertThat(records).as("no run record left").isEmpty();
        }
    }

    /**
     * A restore into a target that does not exist yet writes into a hidden directory beside it: killed,
     * it leaves nothing at the target's path, and the run again removes what it left and writes the tree.
     */
    @Test
    void aRestoreIntoANewTargetKilledPartWayLeavesNothingAtTheTargetAndARunAgainCompletesIt() throws Exception {
        Path source = backedUp(10, 11);
        Path home = base.resolve("home");
        Path data = base.resolve("data");
        Path restores = Files.createDirectories(base.resolve("restores"));
        Path target = restores.resolve("tree");

        Process killed;
        try (WatchService watcher = restores.getFileSystem().newWatchService()) {
            restores.register(watcher, StandardWatchEventKinds.ENTRY_CREATE);
            killed = restore(home, target, data, base.resolve("killed.log"));
            try {
                awaitFilesInPlace(watcher, restores, 100, killed);
            } catch (AssertionError | RuntimeException | InterruptedException e) {
                killed.destroyForcibly();
                throw e;
            }
        }
        try {
            assertThat(killed.isAlive()).isTrue();
        } finally {
            killed.destroyForcibly();
            assertThat(killed.waitFor(60, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(names(restores))
                .as("nothing at the target's path, only the killed run's hidden directory")
                .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
                .matches("\\.ballast-[0-9a-f]{16}-1");

        Process again = restore(home, target, data, base.resolve("again.log"));
        assertThat(again.waitFor(2, TimeUnit.MINUTES)).isTrue();
        String out = Files.readString(base.resolve("again.log"), StandardCharsets.UTF_8);
        assertThat(again.exitValue()).as(out).isEqualTo(ExitCodes.OK);
        assertThat(out).contains("complete: 1000 files restored, 0 already present");
        assertThat(CliHarness.hashes(target)).isEqualTo(CliHarness.hashes(source));
        assertThat(names(restores)).as("the hidden directory removed").containsExactly("tree");
        try (Stream<Path> records = Files.list(home.resolve(".cache/ballast/restores"))) {
            assertThat(records).as("no run record left").isEmpty();
        }
    }

    /**
     * Makes {@code base/source}, {@code dirs} folders of 100 random files of 1–7 KiB each, and backs it up
     * as {@code s} into {@code base/data}, with {@code base/home} as the home directory.
     */
    private Path backedUp(int dirs, long seed) throws IOException {
        Path source = base.resolve("source");
        Random random = new Random(seed);
        for (int d = 0; d < dirs; d++) {
            Path dir = Files.createDirectories(source.resolve("dir-" + d));
            for (int f = 0; f < 100; f++) {
                byte[] bytes = new byte[1024 + random.nextInt(6 * 1024)];
                random.nextBytes(bytes);
                Files.write(dir.resolve("file-" + f + ".bin"), bytes);
            }
        }
        Path home = Files.createDirectories(base.resolve("home"));
        Run backup = CliHarness.run(
                home,
                p -> {},
                "backup",
                source.toString(),
                "--name",
                "s",
                "--data-dir",
                base.resolve("data").toString());
        assertThat(backup.exitCode()).as(backup.err()).isEqualTo(ExitCodes.OK);
        return source;
    }

    private Process restore(Path home, Path target, Path data, Path log) throws IOException {
        return CliHarness.startInEnvironment(
                CliNamesIT.LAUNCHER_OPTIONS,
                Map.of("PATH", "/usr/bin:/bin", "HOME", home.toString()),
                log,
                "restore",
                "s",
                target.toString(),
                "--data-dir",
                data.toString(),
                "--transfers",
                "1");
    }

    private static List<String> names(Path dir) throws IOException {
        try (Stream<Path> all = Files.list(dir)) {
            return all.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /**
     * Waits until {@code files} files have been created or renamed into the directories below {@code
     * target} (its temporary names not counted), or fails once {@code restore} has ended or two
     * minutes have passed. Each directory the restore makes is watched as it appears (the hidden one a
     * restore into a new target writes into too).
     */
    private static void awaitFilesInPlace(WatchService watcher, Path target, int files, Process restore)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        int seen = 0;
        while (seen < files) {
            assertThat(restore.isAlive())
                    .as("the restore ended before it could be killed")
                    .isTrue();
            // Woken by the next event; at most a second, so that a restore that ended is noticed.
            WatchKey key = watcher.poll(1, TimeUnit.SECONDS);
            if (key == null) {
                assertThat(System.nanoTime())
                        .as("%d files in place after two minutes", seen)
                        .isLessThan(deadline);
                continue;
            }
            Path dir = (Path) key.watchable();
            for (WatchEvent<?> event : key.pollEvents()) {
                if (!(event.context() instanceof Path name)) {
                    continue; // OVERFLOW: the count only comes later
                }
                Path created = dir.resolve(name);
                if (Files.isDirectory(created, LinkOption.NOFOLLOW_LINKS)) {
                    created.register(watcher, StandardWatchEventKinds.ENTRY_CREATE);
                } else if (!name.toString().startsWith(".ballast-")) {
                    seen++;
                }
            }
            key.reset();
        }
    }
}
