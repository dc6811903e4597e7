package dev.ballast.it.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.cli.ExitCodes;
import dev.ballast.it.cli.CliHarness.Run;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
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
     * Keeps {@code file} changing until {@code stop}, as a log or database file written all the time:
     * it becomes 64 MiB once, then a byte of it is rewritten in place and its mtime moved on in a
     * tight loop (a change every few microseconds; its length never changes, so a backup can never
     * catch it short and read it in an instant). {@code changing} is counted down once the loop runs,
     * so a backup started after it cannot read the file before the writer has begun. Reading and
     * hashing 64 MiB takes far longer than the writer can be kept off a core, so the stat a backup
     * takes after reading it differs from the one it took before.
     */
    static Thread rewriter(Path file, AtomicBoolean stop, CountDownLatch changing) {
        Thread t = new Thread(
                () -> {
                    int size = 64 * 1024 * 1024;
                    try {
                        Files.write(file, new byte[size]);
                        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
                            ByteBuffer one = ByteBuffer.allocate(1);
                            long pass = 0;
                            while (!stop.get()) {
                                pass++;
                                one.clear().put(0, (byte) pass);
                                channel.write(one, (pass * 4099) % size);
                                Files.setLastModifiedTime(file, FileTime.fromMillis(1_700_000_000_000L + pass));
                                if (pass == 100) {
                                    changing.countDown();
                                }
                            }
                        }
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    } finally {
                        changing.countDown();
                    }
                },
                "busy-file-writer");
        t.setDaemon(true);
        return t;
    }

    /** A backup of {@code source} (one transfer) while another thread keeps rewriting its file {@code busy}. */
    private Run backupWhileRewriting(Store store, Path source, String busy) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch changing = new CountDownLatch(1);
        Thread writer = rewriter(source.resolve(busy), stop, changing);
        writer.start();
        try {
            assertThat(changing.await(60, TimeUnit.SECONDS))
                    .as("the writer is rewriting " + busy)
                    .isTrue();
            return ballast(store, "backup", source.toString(), "--transfers", "1");
        } finally {
            stop.set(true);
            writer.join();
        }
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
        Run second = backupWhileRewriting(store, source, "busy.log");
        assertThat(second.exitCode()).isEqualTo(ExitCodes.INCOMPLETE);
        assertThat(second.err())
                .contains("Not stored: busy.log (it changed while it was being backed up")
                .contains("keeps its previous version, marked stale")
                .doesNotContainIgnoringCase("interrupted")
                .doesNotContain("\tat ");
        assertThat(second.out()).contains("1 file stored").contains("complete except 1 file not stored");

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

    /**
     * Field input: a complete snapshot without a file its run could not store, and that no earlier run
     * stored, was listed like any other; {@code list} now says how many such files it lacks.
     */
    @ParameterizedTest
    @EnumSource(Store.class)
    void aFileTheFirstRunCouldNotStoreIsCountedByList(Store store) throws Exception {
        String name = "first-busy-" + store.name().toLowerCase();
        Path source = Files.createDirectories(base.resolve(name));
        Files.writeString(source.resolve("notes.txt"), "notes");
        Files.writeString(source.resolve("busy.log"), "busy, first");
        Run first = backupWhileRewriting(store, source, "busy.log");
        assertThat(first.exitCode()).isEqualTo(ExitCodes.INCOMPLETE);
        assertThat(first.err()).contains("Not stored: busy.log");

        Run list = ballast(store, "list");
        assertThat(list.out().lines().filter(l -> l.contains(name)).filter(l -> l.startsWith("  ")))
                .singleElement()
                .satisfies(l -> assertThat(l)
                        .contains("1 file ")
                        .contains("1 not stored (in no earlier backup either)")
                        .doesNotContain("INCOMPLETE")
                        .doesNotContain("stale"));
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
