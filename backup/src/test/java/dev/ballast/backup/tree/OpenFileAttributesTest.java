package dev.ballast.backup.tree;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs with the JVM options of the {@code ./ballast} launcher (backup/pom.xml), as a restore does. */
class OpenFileAttributesTest {
    private static final Instant MTIME = Instant.parse("2021-03-04T05:06:07.123456789Z");

    private static FileChannel written(Path file) throws IOException {
        FileChannel out = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        out.write(ByteBuffer.wrap("restored".getBytes(StandardCharsets.UTF_8)));
        return out;
    }

    @Test
    void theLaunchersJvmOptionsLetItSetAttributesThroughTheDescriptor() {
        assertThat(OpenFileAttributes.available()).isTrue();
    }

    /** On the JDKs the launcher runs (17 to 25): an owner and mode the new file already has are not set again. */
    @Test
    void itReadsWhatTheFileHasToSetOnlyWhatDiffers() {
        assertThat(OpenFileAttributes.readsWhatTheFileHas()).isTrue();
    }

    /** Mode and owner as the file was created: nothing to change but its times, and they stay as they are. */
    @Test
    void aFileThatAlreadyHasItsModeAndOwnerKeepsThem(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("f");
        try (FileChannel out = written(file)) {
            int mode = (Integer) Files.getAttribute(file, "unix:mode") & PosixAttrs.MODE_BITS;
            int uid = (Integer) Files.getAttribute(file, "unix:uid");
            int gid = (Integer) Files.getAttribute(file, "unix:gid");
            assertThat(OpenFileAttributes.apply(out, new PosixAttrs(mode, uid, gid), MTIME, true))
                    .isTrue();
            assertThat(Files.getAttribute(file, "unix:mode")).isEqualTo(0100000 | mode);
            assertThat(Files.getAttribute(file, "unix:uid")).isEqualTo(uid);
            assertThat(Files.getAttribute(file, "unix:gid")).isEqualTo(gid);
        }
        assertThat(Files.getLastModifiedTime(file).toInstant()).isEqualTo(MTIME);
    }

    @Test
    void aWrittenFileGetsItsTimeToTheNanosecondAndItsModeThroughItsDescriptor(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("f");
        try (FileChannel out = written(file)) {
            assertThat(OpenFileAttributes.apply(out, new PosixAttrs(0640, 1234, 5678), MTIME, false))
                    .isTrue();
        }

        assertThat(Files.getLastModifiedTime(file).toInstant()).isEqualTo(MTIME);
        assertThat(Files.getAttribute(file, "unix:mode")).isEqualTo(0100640);
        assertThat(Files.readString(file)).isEqualTo("restored");
    }

    @Test
    void asRootTheOwnerAndGroupTooAndTheSetIdBitsChownWouldClearAreKept(@TempDir Path dir) throws IOException {
        Path probe = Files.createFile(dir.resolve("probe"));
        assumeThat(Files.getAttribute(probe, "unix:uid"))
                .as("owners are restored only as root")
                .isEqualTo(0);
        Path file = dir.resolve("f");
        try (FileChannel out = written(file)) {
            assertThat(OpenFileAttributes.apply(out, new PosixAttrs(06750, 1234, 5678), MTIME, true))
                    .isTrue();
        }

        assertThat(Files.getAttribute(file, "unix:uid")).isEqualTo(1234);
        assertThat(Files.getAttribute(file, "unix:gid")).isEqualTo(5678);
        assertThat(Files.getAttribute(file, "unix:mode")).isEqualTo(0106750);
        assertThat(Files.getLastModifiedTime(file).toInstant()).isEqualTo(MTIME);
    }

    @Test
    void withoutRecordedAttributesOnlyTheTimeIsSet(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("f");
        Object mode;
        try (FileChannel out = written(file)) {
            mode = Files.getAttribute(file, "unix:mode");
            assertThat(OpenFileAttributes.apply(out, null, MTIME, true)).isTrue();
        }

        assertThat(Files.getAttribute(file, "unix:mode")).isEqualTo(mode);
        assertThat(Files.getLastModifiedTime(file).toInstant()).isEqualTo(MTIME);
    }

    @Test
    void aTimeBeforeTheEpochKeepsItsWholeSecondsEitherWayWhereTheJdkWouldSet1970(@TempDir Path dir) throws IOException {
        Instant moonLanding = Instant.parse("1969-07-20T20:17:40.5Z");
        Path viaPath = Files.writeString(dir.resolve("by-path"), "restored");
        Attributes.applyToOwnFile(viaPath, new PosixAttrs(0600, 0, 0), moonLanding, false);
        Path file = dir.resolve("f");
        try (FileChannel out = written(file)) {
            assertThat(OpenFileAttributes.apply(out, new PosixAttrs(0600, 0, 0), moonLanding, false))
                    .isTrue();
        }

        Instant wholeSeconds = Instant.parse("1969-07-20T20:17:40Z");
        assertThat(Files.getLastModifiedTime(file).toInstant()).isEqualTo(wholeSeconds);
        assertThat(Files.getLastModifiedTime(viaPath).toInstant()).isEqualTo(wholeSeconds);
        Path link = Files.createSymbolicLink(dir.resolve("link"), file.getFileName());
        Attributes.setMtime(link, Instant.parse("1960-01-01T00:00:00Z"));
        assertThat(Files.getLastModifiedTime(link, java.nio.file.LinkOption.NOFOLLOW_LINKS)
                        .toInstant())
                .isEqualTo(Instant.parse("1960-01-01T00:00:00Z"));
    }

    @Test
    void aClosedChannelIsLeftToThePathWay(@TempDir Path dir) throws IOException {
        FileChannel out = written(dir.resolve("f"));
        out.close();

        assertThat(OpenFileAttributes.apply(out, new PosixAttrs(0600, 0, 0), MTIME, false))
                .isFalse();
    }
}
