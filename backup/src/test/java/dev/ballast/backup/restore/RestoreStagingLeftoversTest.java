package dev.ballast.backup.restore;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.FileAttributeView;
import java.util.Iterator;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/** The removal of a killed run's hidden tree ({@link RestoreStaging#removeLeftovers}). */
@EnabledOnOs(OS.LINUX)
class RestoreStagingLeftoversTest {
    @TempDir
    Path dir;

    /** A directory stream that runs {@code swap} just before it opens a directory in it. */
    record Swapping(SecureDirectoryStream<Path> in, Runnable swap) implements SecureDirectoryStream<Path> {
        @Override
        public SecureDirectoryStream<Path> newDirectoryStream(Path path, LinkOption... options) throws IOException {
            swap.run();
            return in.newDirectoryStream(path, options);
        }

        @Override
        public SeekableByteChannel newByteChannel(
                Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs) throws IOException {
            return in.newByteChannel(path, options, attrs);
        }

        @Override
        public void deleteFile(Path path) throws IOException {
            in.deleteFile(path);
        }

        @Override
        public void deleteDirectory(Path path) throws IOException {
            in.deleteDirectory(path);
        }

        @Override
        public void move(Path source, SecureDirectoryStream<Path> targetdir, Path target) throws IOException {
            in.move(source, targetdir, target);
        }

        @Override
        public <V extends FileAttributeView> V getFileAttributeView(Class<V> type) {
            return in.getFileAttributeView(type);
        }

        @Override
        public <V extends FileAttributeView> V getFileAttributeView(Path path, Class<V> type, LinkOption... options) {
            return in.getFileAttributeView(path, type, options);
        }

        @Override
        public Iterator<Path> iterator() {
            return in.iterator();
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }

    /**
     * A fault tester's, as root: a directory of a killed run's hidden tree, owned by another user (a root
     * restore gives the backup's owners), swapped for a link to a directory of root's between the look
     * that found it a directory and its opening; the next run's removal of the tree deleted root's files
     * through the link (115 of 200 in one of thirteen tries).
     */
    @Test
    void aDirectorySwappedForALinkBetweenItsLookAndItsOpeningIsNeverEntered() throws IOException {
        Path victim = Files.createDirectories(dir.resolve("victim"));
        Files.writeString(victim.resolve("keep.txt"), "root's");
        Path hidden = Files.createDirectories(dir.resolve(".ballast-00112233aabbccdd-1"));
        Path evil = Files.createDirectories(hidden.resolve("evil"));
        Files.writeString(evil.resolve("f"), "the restore's");
        Runnable swap = () -> {
            try {
                if (!Files.isSymbolicLink(evil)) {
                    Files.move(evil, dir.resolve("moved"));
                    Files.createSymbolicLink(evil, victim);
                }
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        };

        boolean clean;
        try (DirectoryStream<Path> in = Files.newDirectoryStream(hidden)) {
            clean = RestoreStaging.deleteTree(
                    new Swapping((SecureDirectoryStream<Path>) in, swap),
                    evil.getFileName(),
                    evil,
                    System.getProperty("user.name"),
                    0,
                    () -> false);
        }

        assertThat(clean)
                .as("the link is not entered, so the tree is not removed in full")
                .isFalse();
        assertThat(victim.resolve("keep.txt")).hasContent("root's");
    }

    @Test
    void aKilledRunsHiddenTreeIsRemovedWithDirectoriesOfMode0500AndLinksInIt() throws IOException {
        Path victim = Files.createDirectories(dir.resolve("victim"));
        Files.writeString(victim.resolve("keep.txt"), "not the restore's");
        Path hidden = dir.resolve(".ballast-00112233aabbccdd-1");
        Path sub = Files.createDirectories(hidden.resolve("a/b"));
        Files.writeString(sub.resolve("f"), "x");
        Files.createSymbolicLink(sub.resolve("link"), victim);
        Files.setPosixFilePermissions(sub, java.nio.file.attribute.PosixFilePermissions.fromString("r-x------"));
        Path usersOwn = Files.createDirectories(dir.resolve(".ballast-0123456789abcdef-1"));

        assertThat(RestoreStaging.removeLeftovers(dir.resolve("out"), "00112233aabbccdd", () -> false))
                .isTrue();

        assertThat(hidden).doesNotExist();
        assertThat(usersOwn).exists();
        assertThat(victim.resolve("keep.txt")).hasContent("not the restore's");
    }

    /**
     * A fault tester's: a FIFO swapped in for a directory of the tree, in a directory other users may
     * write to, hung the removal in its opening for good (the JDK opens without {@code O_NONBLOCK}), and a
     * chain of 8,000 directories there overflowed the stack. What others may change is not entered.
     */
    @Test
    void aDirectoryOthersMayWriteToIsLeftWithWhatItHoldsAndTheRemovalSaysSo() throws IOException {
        Path hidden = dir.resolve(".ballast-00112233aabbccdd-1");
        Path shared = Files.createDirectories(hidden.resolve("shared"));
        Files.createDirectories(shared.resolve("deep/deeper"));
        Files.writeString(hidden.resolve("mine.txt"), "x");
        Files.setPosixFilePermissions(shared, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));

        assertThat(RestoreStaging.removeLeftovers(dir.resolve("out"), "00112233aabbccdd", () -> false))
                .isFalse();

        assertThat(hidden.resolve("mine.txt")).doesNotExist();
        assertThat(shared.resolve("deep/deeper")).isDirectory();
    }

    /** A fault tester's: a directory of another's renamed into a parent others may write to, under the run's name, was removed. */
    @Test
    void besideATargetWhoseParentOthersMayWriteToNothingIsRemoved() throws IOException {
        Path parent = Files.createDirectories(dir.resolve("open"));
        Path hidden = Files.createDirectories(parent.resolve(".ballast-00112233aabbccdd-2"));
        Files.writeString(hidden.resolve("theirs.txt"), "not the restore's");
        Files.setPosixFilePermissions(parent, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));

        assertThat(RestoreStaging.removeLeftovers(parent.resolve("out"), "00112233aabbccdd", () -> false))
                .isFalse();

        assertThat(hidden.resolve("theirs.txt")).hasContent("not the restore's");
    }

    @Test
    void aTreeDeeperThanAPathCanReachIsLeftAndCtrlCStopsTheRemoval() throws IOException {
        Path hidden = Files.createDirectories(dir.resolve(".ballast-00112233aabbccdd-1/a/b/c"));
        int[] asked = new int[1];

        assertThat(RestoreStaging.removeLeftovers(dir.resolve("out"), "00112233aabbccdd", () -> ++asked[0] > 2))
                .isFalse();
        assertThat(hidden).isDirectory();

        try (DirectoryStream<Path> in = Files.newDirectoryStream(dir)) {
            assertThat(RestoreStaging.deleteTree(
                            (SecureDirectoryStream<Path>) in,
                            Path.of(".ballast-00112233aabbccdd-1"),
                            dir.resolve(".ballast-00112233aabbccdd-1"),
                            System.getProperty("user.name"),
                            RestoreStaging.MAX_DEPTH - 1,
                            () -> false))
                    .as("past the deepest a path can reach")
                    .isFalse();
        }
        assertThat(hidden).isDirectory();
    }
}
