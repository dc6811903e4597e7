package dev.ballast.it.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.cli.ExitCodes;
import dev.ballast.it.cli.CliHarness.Run;
import dev.ballast.testkit.LeakCheck;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A restore syncs what it wrote once, at its end ({@code sync -f}, found on {@code PATH}): when
 * that sync fails, the command must not say complete. A {@code sync} first on {@code PATH} that
 * passes the run's first call (its check, before writing) and fails the next stands for a disk
 * that fails its write-back.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@ExtendWith(LeakCheck.class)
@EnabledOnOs(OS.LINUX)
class CliRestoreSyncIT {

    @TempDir
    Path base;

    @Test
    void aRestoreWhoseFinalSyncFailsExitsIncompleteNamingTheTargetAndARunAgainCompletes() throws Exception {
        Path source = Files.createDirectories(base.resolve("source/sub"));
        Files.writeString(source.resolve("a.txt"), "alpha");
        Files.writeString(source.resolve("../b.txt"), "bravo");
        Path data = base.resolve("data");
        Run backup = CliHarness.run(
                base.resolve("home"),
                p -> {},
                "backup",
                base.resolve("source").toString(),
                "--name",
                "s",
                "--data-dir",
                data.toString());
        assertThat(backup.exitCode()).as(backup.err()).isEqualTo(ExitCodes.OK);

        Path bin = Files.createDirectories(base.resolve("bin"));
        Path calls = base.resolve("sync-calls");
        Path sync = bin.resolve("sync");
        Files.writeString(
                sync,
                "#!/bin/sh\n"
                        + "echo \"$*\" >> '" + calls + "'\n"
                        + "if [ \"$(wc -l < '" + calls + "')\" -gt 1 ]; then\n"
                        + "  echo \"sync: error syncing '$2': Input/output error\" >&2; exit 1\n"
                        + "fi\n"
                        + "exec /usr/bin/env PATH=/usr/bin:/bin sync \"$@\"\n");
        Files.setPosixFilePermissions(sync, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path home = Files.createDirectories(base.resolve("process-home"));
        Path target = base.resolve("target");

        Run failed = restore(bin + ":/usr/bin:/bin", home, target, data);
        assertThat(failed.exitCode()).as(failed.out()).isEqualTo(ExitCodes.INCOMPLETE);
        assertThat(failed.out())
                .contains("The restore into '" + target.toRealPath() + "' did not complete because what it wrote "
                        + "could not be synced to disk (")
                .contains("Input/output error")
                .doesNotContain("complete:");
        assertThat(Files.readAllLines(calls)).hasSize(2); // the check before writing, the sync at the end

        Run again = restore("/usr/bin:/bin", home, target, data);
        assertThat(again.exitCode()).as(again.out()).isEqualTo(ExitCodes.OK);
        assertThat(again.out()).contains("Restore of 's' complete: 0 files restored, 2 already present");
        assertThat(target.resolve("sub/a.txt")).hasContent("alpha");
        assertThat(target.resolve("b.txt")).hasContent("bravo");
    }

    /** Runs {@code ballast restore s TARGET} in a JVM of its own with this {@code PATH}; its output in {@link Run#out()}. */
    private Run restore(String path, Path home, Path target, Path data) throws Exception {
        Path log = Files.createTempFile(base, "restore", ".log");
        Process p = CliHarness.startInEnvironment(
                CliNamesIT.LAUNCHER_OPTIONS,
                Map.of("PATH", path, "HOME", home.toString()),
                log,
                "restore",
                "s",
                target.toString(),
                "--data-dir",
                data.toString());
        assertThat(p.waitFor(2, TimeUnit.MINUTES)).isTrue();
        return new Run(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8), "");
    }
}
