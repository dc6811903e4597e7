package dev.ballast.backup;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The transfers the limit of open files leaves room for, and how the limit is read. */
class OpenFileLimitTest {
    @TempDir
    Path dir;

    @Test
    void transfersThatFitAreKeptAndTooManyAreLoweredToWhatFits() {
        // ulimit -n 128 with about 60 open at the start (the JVM, its jars, the class-data archive)
        assertThat(OpenFileLimit.fit(4, 128, 60)).isEqualTo(4);
        assertThat(OpenFileLimit.fit(64, 128, 60))
                .isEqualTo((128 - 60 - OpenFileLimit.RESERVE) / OpenFileLimit.PER_TRANSFER);
        assertThat(OpenFileLimit.fit(64, 1024, 60)).isEqualTo(64);
        assertThat(OpenFileLimit.fit(8, 70, 60))
                .as("no room: one at a time, never none")
                .isEqualTo(1);
        assertThat(OpenFileLimit.fit(32, -1, 60))
                .as("limit unknown or unlimited")
                .isEqualTo(32);
    }

    @Test
    void theSoftLimitIsReadFromProcSelfLimits() throws Exception {
        Path limits = dir.resolve("limits");
        Files.writeString(
                limits,
                "Limit                     Soft Limit           Hard Limit           Units     \n"
                        + "Max cpu time              unlimited            unlimited            seconds   \n"
                        + "Max open files            128                  4096                 files     \n");
        assertThat(OpenFileLimit.limit(limits)).isEqualTo(128);

        Files.writeString(limits, "Max open files            unlimited            unlimited            files     \n");
        assertThat(OpenFileLimit.limit(limits)).isEqualTo(-1);
        assertThat(OpenFileLimit.limit(dir.resolve("absent"))).isEqualTo(-1);
    }

    @Test
    void runningOutOfDescriptorsIsToldApartFromTheStoreGoingAway() {
        // as a local store's read of a pack failed under ulimit -n 128, which a restore reported as "the local
        // store ... became unavailable"
        Exception emfile = new dev.ballast.storage.StorageUnavailableException(
                "blobs/ec/ec3b",
                "Reading 'blobs/ec/ec3b' failed",
                new java.nio.file.FileSystemException("/st/blobs/ec/ec3b", null, "Too many open files"));
        assertThat(Messages.outOfFileDescriptors(emfile)).isTrue();
        assertThat(Messages.outOfFileDescriptors(new java.io.IOException("Connection reset")))
                .isFalse();
    }

    @Test
    void openDescriptorsAreTheEntriesOfTheDirectory() throws Exception {
        Path fds = Files.createDirectories(dir.resolve("fd"));
        for (int i = 0; i < 5; i++) {
            Files.createFile(fds.resolve(String.valueOf(i)));
        }
        assertThat(OpenFileLimit.open(fds)).isEqualTo(5);
        assertThat(OpenFileLimit.open(dir.resolve("absent"))).isEqualTo(-1);
    }
}
