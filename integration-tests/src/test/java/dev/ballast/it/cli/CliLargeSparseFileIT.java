package dev.ballast.it.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.cli.ExitCodes;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A 2.5 GiB sparse file (a disk image: a few bytes of data, the rest holes) backs up into the
 * default local store and restores byte-identical, each command in a JVM held to a small heap, so
 * that a pipeline holding a file's bytes in memory fails here: 64 MiB for a store of the earlier
 * format ({@code --insecure-no-encryption}), {@value #ENCRYPTED_HEAP} for the encrypted repository a
 * new store is by default, whose password's Argon2id derivation alone takes 64 MiB (the KDF's memory
 * cost, docs/backup-format.md) before any byte of the file is read. The store and the restore keep
 * the holes, so the test costs little disk. {@code -Dballast.large.mib=10240} runs the 10 GiB case.
 */
@Timeout(value = 20, unit = TimeUnit.MINUTES)
@ExtendWith(LeakCheck.class)
class CliLargeSparseFileIT {
    private static final long MIB = 1024L * 1024;
    private static final long SIZE = Long.getLong("ballast.large.mib", 2560L) * MIB;
    /** The heap of a command on an encrypted repository: the KDF's 64 MiB and as much again for the rest. */
    static final String ENCRYPTED_HEAP = "-Xmx128m";

    @TempDir
    Path base;

    @ParameterizedTest(name = "encrypted={0}")
    @ValueSource(booleans = {true, false})
    void aSparseFileOfTwoAndAHalfGibibytesBacksUpAndRestoresWithBoundedMemory(boolean encrypted) throws Exception {
        String heap = encrypted ? ENCRYPTED_HEAP : "-Xmx64m";
        Path source = Files.createDirectories(base.resolve("images"));
        Path image = source.resolve("disk.img");
        try (RandomAccessFile raf = new RandomAccessFile(image.toFile(), "rw")) {
            raf.setLength(SIZE);
            for (long at : new long[] {0, 123_456_789, SIZE / 2 + 7, SIZE - 32}) {
                raf.seek(at);
                raf.write(("data at " + at).getBytes(StandardCharsets.US_ASCII));
            }
        }
        Path dataDir = base.resolve("data");
        Path out = base.resolve("out");

        Child backup = encrypted
                ? runBounded(heap, "backup", source.toString(), "--data-dir", dataDir.toString())
                : runBounded(
                        heap, "backup", source.toString(), "--data-dir", dataDir.toString(), CliHarness.EARLIER_FORMAT);
        Child restore = runBounded(heap, "restore", "images", out.toString(), "--data-dir", dataDir.toString());
        System.out.printf(
                "[large] %d MiB sparse file, %s, %s: backup %d ms, peak RSS %d MiB; restore %d ms, peak RSS %d MiB%n",
                SIZE / MIB,
                encrypted ? "encrypted" : "earlier format",
                heap,
                backup.millis(),
                backup.peakRssKib() / 1024,
                restore.millis(),
                restore.peakRssKib() / 1024);

        assertThat(backup.exitCode()).as(backup.output()).isEqualTo(ExitCodes.OK);
        assertThat(backup.output()).contains(encrypted ? "Created the encrypted repository" : "Backing up");
        assertThat(restore.exitCode()).as(restore.output()).isEqualTo(ExitCodes.OK);
        Path restored = out.resolve("disk.img");
        assertThat(restored).as(restore.output()).isRegularFile();
        assertThat(Files.size(restored)).isEqualTo(SIZE);
        assertThat(CliHarness.sha256(restored)).isEqualTo(CliHarness.sha256(image));
        Long allocatedKib = allocatedKib(restored);
        if (allocatedKib != null) {
            assertThat(allocatedKib)
                    .as("disk blocks the restored file takes, in KiB")
                    .isLessThan(64 * 1024);
        }
    }

    private record Child(int exitCode, long millis, long peakRssKib, String output) {}

    /** Runs one command in a JVM held to {@code heap} ({@code -Xmx...}), sampling its resident set as it runs. */
    private Child runBounded(String heap, String... args) throws Exception {
        Path log = Files.createTempFile(base, "child", ".log");
        long start = System.nanoTime();
        Process p = CliHarness.start(List.of(heap), log, args);
        long peak = 0;
        while (!p.waitFor(100, TimeUnit.MILLISECONDS)) {
            peak = Math.max(peak, residentKib(p.pid()));
        }
        return new Child(p.exitValue(), (System.nanoTime() - start) / 1_000_000, peak, Files.readString(log));
    }

    /** VmHWM (peak resident set) of a running process on Linux, else 0. */
    private static long residentKib(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException | NumberFormatException e) {
            // the process just ended, or this is not Linux
        }
        return 0;
    }

    /** Disk space a file takes, from du, or null where du is not there. */
    private static Long allocatedKib(Path file) {
        try {
            Process du = new ProcessBuilder("du", "-k", file.toString())
                    .redirectErrorStream(true)
                    .start();
            String out = new String(du.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return du.waitFor() == 0 ? Long.parseLong(out.split("\\s+")[0]) : null;
        } catch (IOException | InterruptedException | NumberFormatException e) {
            return null;
        }
    }
}
