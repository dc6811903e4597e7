package dev.ballast.it.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.cli.ExitCodes;
import dev.ballast.it.cli.CliHarness.Run;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A run that stored what it could is a restorable snapshot: a file rewritten in place all through
 * the backup is reported not stored and keeps its previous good version, marked stale, while the
 * files that did change and were stored restore with their new content. Names of 231 to 255 bytes,
 * which ext4 allows, back up and restore. On the default local store and on an S3 endpoint.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CliPartialRunIT extends CliOnBothStores {
    /**
     * Rewrites {@code file} in place until stopped, every pass with another length and a later
     * modification time, as a log or database file that is written all the time.
     */
    /**
     * Keeps {@code file} changing until {@code stop}: 16 MiB of new bytes, then its mtime moved on in a
     * tight loop (a change every few microseconds), with a rewrite of another length now and then. A
     * read of the file takes milliseconds, so the stat a backup takes after reading it differs from the
     * one it took before, whichever moment it reads.
     */
    static Thread rewriter(Path file, AtomicBoolean stop) {
        Thread t = new Thread(
                () -> {
                    byte[] bytes = new byte[16 * 1024 * 1024];
                    long pass = 0;
                    try {
                        while (!stop.get()) {
                            if (pass % 2000 == 0) {
                                Arrays.fill(bytes, (byte) (pass / 2000));
                                Files.write(file, pass % 4000 == 0 ? bytes : Arrays.copyOf(bytes, bytes.length - 1));
                            }
                            pass++;
                            Files.setLastModifiedTime(file, FileTime.fromMillis(1_700_000_000_000L + pass));
                        }
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    }
                },
                "busy-file-writer");
        t.setDaemon(true);
        return t;
    }

    @ParameterizedTest
    @EnumSource(Store.class)
    void aBusyFileKeepsItsPreviousVersionMarkedStaleAndTheRunIsARestorableSnapshot(Store store) throws Exception {
        String name = "busy-" + store.name().toLowerCase();
        Path source = Files.createDirectories(base.resolve(name));
        Files.writeString(source.resolve("notes.txt"), "notes, first");
        Files.writeString(source.resolve("busy.log"), "busy, first");
        Run first = ballast(store, "backup", source.toString());
        assertThat(first.exitCode()).isEqualTo(ExitCodes.OK);

        Files.writeString(source.resolve("notes.txt"), "notes, second and longer");
        AtomicBoolean stop = new AtomicBoolean();
        Thread writer = rewriter(source.resolve("busy.log"), stop);
        writer.start();
        Run second;
        try {
            second = ballast(store, "backup", source.toString(), "--transfers", "1");
        } finally {
            stop.set(true);
            writer.join();
        }
        assertThat(second.exitCode()).isEqualTo(ExitCodes.INCOMPLETE);
        assertThat(second.err())
                .contains("Not stored: busy.log (it changed while it was being backed up")
                .contains("keeps its previous version, marked stale")
                .doesNotContainIgnoringCase("interrupted")
                .doesNotContain("\tat ");
        assertThat(second.out()).contains("1 files stored").contains("complete except 1 file(s) not stored");

        Run list = ballast(store, "list");
        assertThat(list.out()).contains("1 stale");

        Path target = base.resolve(name + "-restored");
        Run restore = ballast(store, "restore", name, target.toString());
        assertThat(restore.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(restore.err())
                .contains("Stale: busy.log (not stored by this run: it changed while it was being " + "backed up")
                .doesNotContainIgnoringCase("interrupted");
        assertThat(target.resolve("notes.txt")).hasContent("notes, second and longer");
        assertThat(target.resolve("busy.log")).hasContent("busy, first");

        // Once the file is quiet, the next run stores it and the snapshot has nothing stale.
        Files.writeString(source.resolve("busy.log"), "busy, quiet now");
        Run third = ballast(store, "backup", source.toString());
        assertThat(third.exitCode()).isEqualTo(ExitCodes.OK);
        Path again = base.resolve(name + "-again");
        Run restoreAgain = ballast(store, "restore", name, again.toString());
        assertThat(restoreAgain.err()).doesNotContain("Stale:");
        assertThat(CliHarness.hashes(again)).isEqualTo(CliHarness.hashes(source));
    }

    @ParameterizedTest
    @EnumSource(Store.class)
    void namesOf231To255BytesRestore(Store store) throws IOException {
        String name = "long-names-" + store.name().toLowerCase();
        Path source = Files.createDirectories(base.resolve(name));
        List<String> names = List.of(
                "a".repeat(231), "b".repeat(240), "c".repeat(255), "é".repeat(127) + "x", "日本".repeat(42) + "abc");
        for (String n : names) {
            assertThat(n.getBytes(StandardCharsets.UTF_8).length).isBetween(231, 255);
            Files.writeString(source.resolve(n), "content of " + n.length());
        }
        Path nested = Files.createDirectories(source.resolve("d".repeat(255)));
        Files.writeString(nested.resolve("e".repeat(255)), "nested");
        Map<String, String> expected = CliHarness.hashes(source);

        Run backup = ballast(store, "backup", source.toString());
        assertThat(backup.exitCode()).isEqualTo(ExitCodes.OK);
        Path target = base.resolve(name + "-restored");
        Run restore = ballast(store, "restore", name, target.toString());
        assertThat(restore.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(restore.err()).doesNotContain("File name too long");
        assertThat(CliHarness.hashes(target)).isEqualTo(expected).hasSize(names.size() + 1);
        // Restoring over the same files (already present) and with --overwrite over changed ones also works.
        Files.writeString(target.resolve("c".repeat(255)), "changed");
        Run overwrite = ballast(store, "restore", name, target.toString(), "--overwrite");
        assertThat(overwrite.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(CliHarness.hashes(target)).isEqualTo(expected);
    }
}
