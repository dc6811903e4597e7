package dev.ballast.it.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.cli.ExitCodes;
import dev.ballast.it.cli.CliHarness.Run;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * File names through backup and restore on the default local store and on S3Mock (issue 20, items
 * 2, 3 and 11): every name a Linux file system allows comes back byte for byte — bytes that are not
 * UTF-8, control characters, a relative path over S3's 1,024-byte key limit, the manifest's own file
 * name and a restore temporary's — and {@code café.txt} backs up and restores under an empty
 * environment (no {@code LANG}, as cron and systemd run jobs), from and into accented directories,
 * the JVM started with the launcher's JVM options but not its {@code LC_ALL=C.UTF-8}, so the CLI itself
 * reads the arguments' bytes. The trees are made by the shell from bytes, and compared as bytes ({@code find -print0}).
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@ExtendWith(LeakCheck.class)
class CliNamesIT {
    /** What the ballast launcher passes the JVM so that names are read and made as their bytes. */
    static final List<String> LAUNCHER_OPTIONS = List.of("--add-opens", "java.base/sun.nio.fs=ALL-UNNAMED");

    @TempDir
    static Path base;

    static Run ballast(StoreKind store, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(store.args(base.resolve("data"), "cli-names-it"));
        return CliHarness.run(base.resolve("home"), p -> {}, all.toArray(String[]::new));
    }

    /** Runs {@code script} with bash in {@code dir}; returns its standard output's bytes. */
    static byte[] bash(Path dir, String script) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("bash", "-c", script)
                .directory(dir.toFile())
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor()).as(script).isZero();
        return out;
    }

    /** Every regular file under {@code root}: its name's bytes, a NUL, its content, a NUL; in byte order of the names. */
    static byte[] namesAndContents(Path root) throws IOException, InterruptedException {
        return bash(
                root,
                "find . -type f -print0 | LC_ALL=C sort -z"
                        + " | while IFS= read -r -d '' f; do printf '%s\\0' \"$f\"; cat -- \"$f\"; printf '\\0'; done");
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void everyNameTheFileSystemAllowsIsBackedUpAndRestoredByteForByte(StoreKind store) throws Exception {
        Path source = Files.createDirectories(base.resolve("names-" + store));
        bash(
                source,
                String.join(
                        "\n",
                        "printf one > $'x\\xff'",
                        "printf two > $'x\\xfe'",
                        "printf three > $'ctl\\x01\\x1b[31m'",
                        "printf four > $'new\\nline'",
                        "mkdir $'latin1-\\xe9t\\xe9' && printf five > $'latin1-\\xe9t\\xe9/caf\\xe9.txt'",
                        "printf six > caf\u00e9.txt",
                        "printf 'the user file' > .ballast-manifest.json",
                        "printf 'looks temporary' > .ballast-0123456789abcdef",
                        "d=$(printf 'a%.0s' {1..200})/$(printf 'b%.0s' {1..200})/$(printf 'c%.0s' {1..200})",
                        "d=$d/$(printf 'd%.0s' {1..200})/$(printf 'e%.0s' {1..200})",
                        "mkdir -p $d && printf deep > $d/$(printf 'f%.0s' {1..90}).txt",
                        "ln -s $'x\\xff' $'link-\\xff'"));
        byte[] expected = namesAndContents(source);
        assertThat(new String(expected, StandardCharsets.ISO_8859_1)).contains("x\u00ff\u0000one");

        Run backup = ballast(store, "backup", source.toString(), "--name", "names");
        assertThat(backup.exitCode()).as(backup.err()).isEqualTo(ExitCodes.OK);
        assertThat(backup.err()).doesNotContain("Skipped").doesNotContain("not stored");
        assertThat(backup.out()).contains("complete");

        Path target = base.resolve("restored-" + store);
        Run restore = ballast(store, "restore", "names", target.toString());
        assertThat(restore.exitCode()).as(restore.err()).isEqualTo(ExitCodes.OK);
        assertThat(namesAndContents(target)).isEqualTo(expected);
        assertThat(bash(target, "readlink $'link-\\xff'")).isEqualTo("x\u00ff\n".getBytes(StandardCharsets.ISO_8859_1));

        // A second restore into the same target leaves the user's files, whatever they are called.
        Run again = ballast(store, "restore", "names", target.toString());
        assertThat(again.exitCode()).as(again.err()).isEqualTo(ExitCodes.OK);
        assertThat(namesAndContents(target)).isEqualTo(expected);

        Run verify = ballast(store, "verify", "names");
        assertThat(verify.exitCode()).as(verify.err()).isEqualTo(ExitCodes.OK);
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void aTreeWhoseOnlyDirectoryHasANameThatIsNotUtf8Restores(StoreKind store) throws Exception {
        // The field input (tester): every restore of it ended with exit 1, "'sync -f R/dir\uFFFD' exited
        // with 1", though each file was written: the end sync was handed the mangled name.
        Path source = Files.createDirectories(base.resolve("lone-dir-" + store));
        bash(source, "mkdir $'dir\\xc3' && printf q > $'dir\\xc3/f'");
        byte[] expected = namesAndContents(source);
        String name = "lone-dir-" + store;
        Run backup = ballast(store, "backup", source.toString(), "--name", name);
        assertThat(backup.exitCode()).as(backup.err()).isEqualTo(ExitCodes.OK);

        Path target = base.resolve("lone-dir-restored-" + store);
        Run restore = ballast(store, "restore", name, target.toString());
        assertThat(restore.exitCode()).as(restore.err()).isEqualTo(ExitCodes.OK);
        assertThat(namesAndContents(target)).isEqualTo(expected);
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void anAccentedNameBacksUpAndRestoresWithoutALocaleAsCronRunsIt(StoreKind store) throws Exception {
        // The field input: café.txt in a tree whose own path is ASCII.
        backUpAndRestoreInCronsEnvironment(store, "cron-" + store, "cron-restored-" + store);
        // The directory's own name and the target's accented too: the arguments are read as their bytes.
        backUpAndRestoreInCronsEnvironment(store, "cron-caf\u00e9-" + store, "cron-restaur\u00e9-" + store);
    }

    private static void backUpAndRestoreInCronsEnvironment(StoreKind store, String sourceName, String targetName)
            throws Exception {
        Path source = Files.createDirectories(base.resolve(sourceName));
        Files.writeString(source.resolve("caf\u00e9.txt"), "accent", StandardCharsets.UTF_8);
        Files.writeString(source.resolve("plain.txt"), "plain");
        byte[] expected = namesAndContents(source);
        // Cron's environment: PATH and HOME, no LANG or LC_*: the JVM's file name encoding is ASCII.
        Map<String, String> cron = Map.of(
                "PATH",
                "/usr/bin:/bin",
                "HOME",
                Files.createDirectories(base.resolve("cron-home")).toString());
        List<String> storeArgs = store.args(base.resolve("data"), "cli-names-it");
        String name = "b-" + Integer.toHexString(sourceName.hashCode());

        List<String> backup = new ArrayList<>(List.of("backup", source.toString(), "--name", name));
        backup.addAll(storeArgs);
        Path log = base.resolve(name + "-backup.log");
        Process b = CliHarness.startInEnvironment(LAUNCHER_OPTIONS, cron, log, backup.toArray(String[]::new));
        assertThat(b.waitFor(2, TimeUnit.MINUTES)).isTrue();
        String backupLog = Files.readString(log, StandardCharsets.UTF_8);
        assertThat(b.exitValue()).as(backupLog).isEqualTo(ExitCodes.OK);
        assertThat(backupLog).doesNotContain("Malformed").contains("complete");

        Path target = base.resolve(targetName);
        List<String> restore = new ArrayList<>(List.of("restore", name, target.toString()));
        restore.addAll(storeArgs);
        log = base.resolve(name + "-restore.log");
        Process r = CliHarness.startInEnvironment(LAUNCHER_OPTIONS, cron, log, restore.toArray(String[]::new));
        assertThat(r.waitFor(2, TimeUnit.MINUTES)).isTrue();
        String restoreLog = Files.readString(log, StandardCharsets.UTF_8);
        assertThat(r.exitValue()).as(restoreLog).isEqualTo(ExitCodes.OK);
        assertThat(restoreLog).doesNotContain("damaged").contains("Every chunk matched its ID and every file its size");
        assertThat(namesAndContents(target)).isEqualTo(expected);
        assertThat(Files.isDirectory(target))
                .as("the target under its own name")
                .isTrue();

        // And the listing, written as UTF-8 whatever the locale.
        List<String> ls = new ArrayList<>(List.of("ls", name));
        ls.addAll(storeArgs);
        log = base.resolve(name + "-ls.log");
        Process l = CliHarness.startInEnvironment(LAUNCHER_OPTIONS, cron, log, ls.toArray(String[]::new));
        assertThat(l.waitFor(2, TimeUnit.MINUTES)).isTrue();
        assertThat(l.exitValue()).isEqualTo(ExitCodes.OK);
        assertThat(Files.readString(log, StandardCharsets.UTF_8)).contains("caf\u00e9.txt");
    }
}
