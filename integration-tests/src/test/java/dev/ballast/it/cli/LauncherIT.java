package dev.ballast.it.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ./ballast} launcher. On the newest JDK this machine has (JDK 24 or later, where loading a
 * JNI library from the class path is reported unless native access is enabled, JEP 472): a backup and a
 * restore print nothing on either stream with {@code -q}, and restore the file. Skipped where no such
 * JDK is installed ({@code -Dballast.test.newerJdk=DIR} names one elsewhere than {@code /usr/lib/jvm}).
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class LauncherIT {
    private static final Pattern VERSION = Pattern.compile("(?m)^JAVA_VERSION=\"(\\d+)");

    @TempDir
    Path dir;

    @Test
    void aQuietBackupAndRestoreThroughTheLauncherPrintNothingOnJdk24OrLater() throws Exception {
        Optional<Path> jdk = newerJdk();
        assumeTrue(jdk.isPresent(), "no JDK 24 or later in /usr/lib/jvm or -Dballast.test.newerJdk");
        Path launcher = launcher();

        Path source = Files.createDirectories(dir.resolve("source"));
        Files.writeString(source.resolve("notes.txt"), "kept\n");
        String data = dir.resolve("data").toString();

        Result backup = run(launcher, jdk.get(), "backup", source.toString(), "--data-dir", data, "-q");
        assertThat(backup.code()).as(backup.output()).isZero();
        assertThat(backup.output())
                .as("a new store says it was created; nothing else")
                .doesNotContain("WARNING");

        Path target = dir.resolve("restored");
        Result restore = run(launcher, jdk.get(), "restore", "source", target.toString(), "--data-dir", data, "-q");
        assertThat(restore.code()).as(restore.output()).isZero();
        assertThat(restore.output()).isEmpty();
        assertThat(target.resolve("notes.txt")).hasContent("kept");
    }

    /** A JAVA_HOME without a java: Maven's launcher refuses it; ours ran the java on PATH instead, silently. */
    @Test
    void aJavaHomeWithoutJavaIsRefusedInOneSentence() throws Exception {
        Path notAJdk = Files.createDirectories(dir.resolve("not-a-jdk"));
        Result version = run(launcher(), notAJdk, "--version");
        assertThat(version.code()).isEqualTo(2);
        assertThat(version.output())
                .isEqualTo("ballast: JAVA_HOME is '" + notAJdk + "', which holds no bin/java; set it to a JDK 17 or"
                        + " later, or unset it to use the java on PATH.\n");
    }

    @Test
    void aLimitOfOpenFilesTooLowIsRefusedInOneSentence() throws Exception {
        // Field case (a fault tester): under 'ulimit -n 50' a restore printed 32 to 84 lines of the JVM's own
        // stack traces, exit 1; under 'ulimit -n 80' it reported 19,500 of 20,000 files "Too many open files".
        ProcessBuilder pb = new ProcessBuilder(
                        "bash",
                        "-c",
                        "ulimit -n 64 && exec \"$0\" --version",
                        launcher().toString())
                .redirectErrorStream(true);
        pb.environment().remove("BALLAST_JAVA_OPTS");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(1, TimeUnit.MINUTES)).isTrue();
        assertThat(p.exitValue()).isEqualTo(2);
        assertThat(out)
                .isEqualTo("ballast: the limit of open files is 64 (ulimit -n); Ballast needs at least 128: raise it"
                        + " (for example 'ulimit -n 1024', or LimitNOFILE= in a systemd unit) and run the command"
                        + " again.\n");
    }

    /**
     * Field case (a fault tester): under {@code ulimit -n 128} a restore with {@code --transfers 64} wrote
     * 214 to 765 of 2,000 files, the rest "Too many open files", exit 1 (and from Ceph RGW the HTTP
     * client's breaker opened on them). The transfers are now lowered to what the limit leaves room for,
     * with a note, and every file is restored.
     */
    @Test
    void aRestoreWithMoreTransfersThanTheLimitOfOpenFilesAllowsRunsFewerAndRestoresEverything() throws Exception {
        assumeTrue(Files.isReadable(Path.of("/proc/self/limits")), "the limit is read on Linux only");
        Path launcher = launcher();
        Path source = Files.createDirectories(dir.resolve("many"));
        for (int d = 0; d < 20; d++) {
            Path sub = Files.createDirectories(source.resolve("d" + d));
            for (int f = 0; f < 100; f++) {
                Files.writeString(sub.resolve("f" + f), "file " + d + "/" + f + "\n");
            }
        }
        String data = dir.resolve("data").toString();
        Path java = Path.of(System.getProperty("java.home"));
        Result backup = run(launcher, java, "backup", source.toString(), "--data-dir", data, "-q");
        assertThat(backup.code()).as(backup.output()).isZero();

        Path target = dir.resolve("restored");
        Result restore =
                underLimit128(launcher, java, "restore many \"$1\" --data-dir \"$2\" --transfers 64", target, data);
        assertThat(restore.code()).as(restore.output()).isZero();
        assertThat(restore.output())
                .contains("Note: running ")
                .containsPattern("Note: running [0-9]+ transfers at once, not 64: the limit of 128 open files"
                        + " \\(ulimit -n\\) leaves room for no more; raise it to run more.\n");
        for (int d = 0; d < 20; d++) {
            for (int f = 0; f < 100; f++) {
                assertThat(target.resolve("d" + d).resolve("f" + f)).hasContent("file " + d + "/" + f + "\n");
            }
        }

        // with -q a run that succeeds prints nothing, the note included (a cron job mails only failures)
        Path quiet = dir.resolve("restored-quietly");
        Result quietly =
                underLimit128(launcher, java, "restore many \"$1\" --data-dir \"$2\" --transfers 64 -q", quiet, data);
        assertThat(quietly.code()).as(quietly.output()).isZero();
        assertThat(quietly.output()).isEmpty();
        assertThat(quiet.resolve("d19/f99")).hasContent("file 19/99\n");
    }

    /** Runs the launcher with {@code args} (a shell fragment naming {@code $1} and {@code $2}) under {@code ulimit -n 128}. */
    private Result underLimit128(Path launcher, Path java, String args, Path one, String two)
            throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(
                        "bash", "-c", "ulimit -n 128 && exec \"$0\" " + args, launcher.toString(), one.toString(), two)
                .redirectErrorStream(true);
        pb.environment().put("JAVA_HOME", java.toString());
        pb.environment().put("BALLAST_PASSWORD", CliHarness.TEST_PASSWORD);
        pb.environment().put("HOME", dir.resolve("home").toString());
        pb.environment().remove("BALLAST_JAVA_OPTS");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(4, TimeUnit.MINUTES)).isTrue();
        return new Result(p.exitValue(), out);
    }

    private static Path launcher() {
        Path root = Path.of(System.getProperty("ballast.repository.root", ".."))
                .toAbsolutePath()
                .normalize();
        Path launcher = root.resolve("ballast");
        assertThat(launcher).isExecutable();
        return launcher;
    }

    record Result(int code, String output) {}

    private Result run(Path launcher, Path javaHome, String... args) throws IOException, InterruptedException {
        List<String> command = new java.util.ArrayList<>(List.of(launcher.toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("JAVA_HOME", javaHome.toString());
        pb.environment().put("BALLAST_PASSWORD", CliHarness.TEST_PASSWORD);
        pb.environment().put("HOME", dir.resolve("home").toString());
        pb.environment().remove("BALLAST_JAVA_OPTS");
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(4, TimeUnit.MINUTES)).isTrue();
        return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }

    /** The installed JDK of the highest feature version, if it is 24 or later. */
    static Optional<Path> newerJdk() throws IOException {
        String given = System.getProperty("ballast.test.newerJdk");
        List<Path> candidates;
        if (given != null) {
            candidates = List.of(Path.of(given));
        } else if (Files.isDirectory(Path.of("/usr/lib/jvm"))) {
            try (Stream<Path> s = Files.list(Path.of("/usr/lib/jvm"))) {
                candidates = s.toList();
            }
        } else {
            candidates = List.of();
        }
        return candidates.stream()
                .filter(j -> Files.isExecutable(j.resolve("bin/java")))
                .filter(j -> featureVersion(j) >= 24)
                .max(Comparator.comparingInt(LauncherIT::featureVersion));
    }

    private static int featureVersion(Path jdk) {
        try {
            Matcher m = VERSION.matcher(Files.readString(jdk.resolve("release")));
            return m.find() ? Integer.parseInt(m.group(1)) : 0;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }
}
