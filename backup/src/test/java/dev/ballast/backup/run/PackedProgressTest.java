package dev.ballast.backup.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.backup.BackupProgress;
import dev.ballast.backup.Cancellation;
import dev.ballast.backup.ProgressCounter;
import dev.ballast.backup.content.PackedBlobs;
import dev.ballast.backup.keys.MasterKey;
import dev.ballast.test.FakeObjectStore;
import dev.ballast.testkit.FakeTime;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * An encrypted backup (format 3) counts a file's bytes in its progress as each chunk is read, not
 * when the whole file is done: a big file showed 0 MiB done, and its rate fell, for as long as it was
 * read. A file hashed first and then stored counts its bytes once. A run stopped in the middle of a
 * big file reports the chunks it did upload, which the next run does not upload again.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ExtendWith(LeakCheck.class)
class PackedProgressTest {
    /** Several chunks of random bytes (chunks are 512 KiB to 8 MiB, 1 MiB on average). */
    static final int SIZE = 12 * 1024 * 1024;

    @TempDir
    Path src;

    final FakeObjectStore metadata = new FakeObjectStore(FakeObjectStore.CAPABILITIES, new FakeTime());
    final FakeObjectStore data = new FakeObjectStore();
    final MasterKey key = MasterKey.generate();

    @Test
    void aBigFileCountsItsBytesChunkByChunkWhileItIsRead() throws IOException {
        Files.write(src.resolve("big"), random(SIZE, 1));
        List<BackupProgress> seen = Collections.synchronizedList(new ArrayList<>());

        BackupRunner.Result r = backup(new Cancellation(), seen::add);

        assertThat(r.ok()).isTrue();
        List<BackupProgress> reading = seen.stream()
                .filter(p -> p.files() == 0 && p.bytes() > 0 && p.bytes() < SIZE)
                .toList();
        assertThat(reading)
                .as("bytes counted before the file is done: %s", seen)
                .hasSizeGreaterThan(1);
        // The total is known before any byte counts: a display never shows more done than known.
        assertThat(seen).allSatisfy(p -> assertThat(p.bytes()).isLessThanOrEqualTo(p.totalBytes()));
        assertThat(seen.get(seen.size() - 1)).isEqualTo(new BackupProgress(1, 1, SIZE, SIZE));
    }

    @Test
    void aFileHashedFirstThenStoredCountsItsBytesOnce() throws IOException {
        Path big = src.resolve("big");
        Files.write(big, random(SIZE, 1));
        assertThat(backup(new Cancellation(), p -> {}).ok()).isTrue();
        // Same size, other bytes and mtime: hashed first (maybe unchanged), then read again and stored.
        Files.write(big, random(SIZE, 2));
        Files.setLastModifiedTime(
                big, FileTime.fromMillis(Files.getLastModifiedTime(big).toMillis() - 60_000));
        List<BackupProgress> seen = Collections.synchronizedList(new ArrayList<>());

        BackupRunner.Result r = backup(new Cancellation(), seen::add);

        assertThat(r.ok()).isTrue();
        assertThat(r.stored()).isEqualTo(1);
        assertThat(r.bytesRead()).isEqualTo(2L * SIZE);
        assertThat(seen).allSatisfy(p -> assertThat(p.bytes()).isLessThanOrEqualTo(SIZE));
        assertThat(seen.get(seen.size() - 1)).isEqualTo(new BackupProgress(1, 1, SIZE, SIZE));
    }

    @Test
    void aRunStoppedInTheMiddleOfABigFileReportsTheChunksItUploaded() throws IOException {
        Files.write(src.resolve("big"), random(SIZE, 3));
        Cancellation cancel = new Cancellation();

        // Stopped (Ctrl-C, kill -TERM) once a third of the file was read: no file is stored, yet the
        // chunks read so far were added to packs, which the run's last flush uploads.
        BackupRunner.Result stopped = backup(cancel, p -> {
            if (p.bytes() > SIZE / 3) {
                cancel.cancel();
            }
        });

        assertThat(stopped.cancelled()).isTrue();
        assertThat(stopped.stored()).isZero();
        assertThat(stopped.bytesUploaded()).isBetween(SIZE / 3L - 8 * 1024 * 1024, (long) SIZE);
        assertThat(stopped.bytesUploaded()).isPositive();

        BackupRunner.Result next = backup(new Cancellation(), p -> {});

        assertThat(next.ok()).isTrue();
        // What the stopped run said it uploaded is what the next one did not upload again.
        assertThat(next.bytesUploaded()).isEqualTo(SIZE - stopped.bytesUploaded());
    }

    private BackupRunner.Result backup(Cancellation cancel, Consumer<BackupProgress> progress) {
        try (PackedBlobs blobs = PackedBlobs.open(data, key, 2)) {
            return new BackupRunner(
                            metadata,
                            "n",
                            src,
                            new BackupRunner.Settings(false, 2, false),
                            cancel,
                            BackupRunnerTest.CLOCK,
                            line -> {},
                            () -> new ProgressCounter(0, 0) {
                                @Override
                                protected void onChange() {
                                    progress.accept(snapshot());
                                }
                            },
                            Duration.ofSeconds(5),
                            path -> {})
                    .packedInto(blobs)
                    .run();
        }
    }

    private static byte[] random(int size, long seed) {
        byte[] b = new byte[size];
        new Random(seed).nextBytes(b);
        return b;
    }
}
