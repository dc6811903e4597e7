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

    static final String TOKEN = "00112233aabbccdd";

    /** Makes {@code hidden} a killed run's hidden directory: its marker holds the secret returned. */
    static String staged(Path hidden) throws IOException {
        Files.createDirectories(hidden);
        Files.setPosixFilePermissions(hidden, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        String secret = "0123456789abcdef0123456789abcdef";
        Files.writeString(hidden.resolve(RestoreStaging.marker(TOKEN)), secret);
        return secret;
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

        boolean empty;
        try (DirectoryStream<Path> in = Files.newDirectoryStream(hidden)) {
            empty = RestoreStaging.deleteContents(
                    new Swapping((SecureDirectoryStream<Path>) in, swap), hidden, "root", 0, () -> false);
        }

        assertThat(empty)
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
        Files.createDirectories(hidden.resolve("open"));
        Files.setPosixFilePermissions(
                hidden.resolve("open"), java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
        Files.setPosixFilePermissions(sub, java.nio.file.attribute.PosixFilePermissions.fromString("r-x------"));
        Path usersOwn = Files.createDirectories(dir.resolve(".ballast-0123456789abcdef-1"));
        String secret = staged(hidden);

        assertThat(RestoreStaging.removeLeftover(dir.resolve("out"), TOKEN, secret, () -> false))
                .isTrue();

        assertThat(hidden).doesNotExist();
        assertThat(usersOwn).exists();
        assertThat(victim.resolve("keep.txt")).hasContent("not the restore's");
    }

    /**
     * Fault testers': another user renamed a directory of root's, which they could not empty, to the
     * killed run's name beside the target (a parent of theirs, sticky or with an ACL), and the next run
     * removed it; then, with the run's directory found by device and inode, removed the run's empty
     * directory so that a new one of root's took its inode, and renamed that. Only a directory holding
     * the run's secret is removed.
     */
    @Test
    void aDirectoryPutAtTheRunsNameIsNotRemovedEvenWithTheRunsInode() throws IOException {
        Path made = dir.resolve(".ballast-" + TOKEN + "-1");
        String secret = staged(made);
        Files.delete(made.resolve(RestoreStaging.marker(TOKEN)));
        Files.delete(made);
        Path roots = Files.createDirectories(dir.resolve("done")); // may take the inode made had
        Files.writeString(roots.resolve("root.txt"), "root's");
        Files.move(roots, made);
        Path second = Files.createDirectories(dir.resolve(".ballast-" + TOKEN + "-2"));
        Files.writeString(second.resolve(RestoreStaging.marker(TOKEN)), "not the secret");

        RestoreStaging.removeLeftover(dir.resolve("out"), TOKEN, secret, () -> false);

        assertThat(made.resolve("root.txt")).hasContent("root's");
        assertThat(second.resolve(RestoreStaging.marker(TOKEN))).hasContent("not the secret");
    }

    @Test
    void aTreeDeeperThanAPathCanReachIsLeftAndCtrlCStopsTheRemoval() throws IOException {
        Path top = dir.resolve(".ballast-00112233aabbccdd-1");
        Path deep = Files.createDirectories(top.resolve("a/b/c"));
        String secret = staged(top);
        int[] asked = new int[1];

        assertThat(RestoreStaging.removeLeftover(dir.resolve("out"), TOKEN, secret, () -> ++asked[0] > 2))
                .isFalse();
        assertThat(deep).isDirectory();

        try (DirectoryStream<Path> in = Files.newDirectoryStream(top)) {
            assertThat(RestoreStaging.deleteContents(
                            (SecureDirectoryStream<Path>) in, top, "root", RestoreStaging.MAX_DEPTH - 1, () -> false))
                    .as("past the deepest a path can reach")
                    .isFalse();
        }
        assertThat(deep).isDirectory();
    }

    /**
     * A fault tester's: FIFOs named as the marker in directories of the run's name made the removal wait
     * on every run; and a directory the run made but was killed before its marker stayed for good.
     */
    @Test
    void aMarkerThatIsNoRegularFileIsNotOpenedAndAnEmptyDirectoryOfTheRunsNameGoes() throws Exception {
        Path fake = Files.createDirectories(dir.resolve(".ballast-" + TOKEN + "-2"));
        Files.setPosixFilePermissions(fake, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        Process mkfifo = new ProcessBuilder(
                        "mkfifo", fake.resolve(RestoreStaging.marker(TOKEN)).toString())
                .start();
        assertThat(mkfifo.waitFor()).isZero();
        Path empty = Files.createDirectories(dir.resolve(".ballast-" + TOKEN + "-3"));
        Path real = dir.resolve(".ballast-" + TOKEN + "-1");
        String secret = staged(real);

        assertThat(RestoreStaging.removeLeftover(dir.resolve("out"), TOKEN, secret, () -> false))
                .isTrue();

        assertThat(real).doesNotExist();
        assertThat(empty).doesNotExist();
        assertThat(fake.resolve(RestoreStaging.marker(TOKEN))).exists();
    }

    /** A fault tester's: a marker moved by another user out of a hidden directory they could write to. */
    @Test
    void aMarkerInADirectoryNotOfMode0700IsNotTrusted() throws IOException {
        Path theirs = Files.createDirectories(dir.resolve(".ballast-" + TOKEN + "-2"));
        Files.writeString(theirs.resolve("root.txt"), "root's");
        String secret = "0123456789abcdef0123456789abcdef";
        Files.writeString(theirs.resolve(RestoreStaging.marker(TOKEN)), secret);
        Files.setPosixFilePermissions(theirs, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxr-x"));

        RestoreStaging.removeLeftover(dir.resolve("out"), TOKEN, secret, () -> false);

        assertThat(theirs.resolve("root.txt")).hasContent("root's");
    }
}
