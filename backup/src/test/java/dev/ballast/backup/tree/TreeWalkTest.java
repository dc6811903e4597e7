package dev.ballast.backup.tree;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.FileVisitOption;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The one-stat walk shows a visitor what {@link Files#walkFileTree} shows it, and the stat a backup records. */
class TreeWalkTest {
    @TempDir
    Path root;

    @BeforeEach
    void tree() throws IOException {
        assumeTrue(FileStat.UNIX, "the unix attribute view");
        Files.createDirectories(root.resolve("a/b/c"));
        Files.createDirectories(root.resolve("empty"));
        Files.createDirectories(root.resolve("skipped/inside"));
        Files.writeString(root.resolve("a/one.txt"), "1");
        Files.writeString(root.resolve("a/b/two.txt"), "22");
        Files.writeString(root.resolve("skipped/inside/x"), "x");
        Files.write(root.resolve("zero"), new byte[0]);
        Files.createSymbolicLink(root.resolve("link-to-file"), Path.of("a/one.txt"));
        Files.createSymbolicLink(root.resolve("link-to-dir"), Path.of("a/b"));
        Files.createSymbolicLink(root.resolve("broken"), Path.of("nowhere"));
        Files.createSymbolicLink(root.resolve("a/b/c/loop"), Path.of("../.."));
        Files.createLink(root.resolve("hard"), root.resolve("a/one.txt"));
        Files.setPosixFilePermissions(root.resolve("a/b/two.txt"), PosixFilePermissions.fromString("rw-r-----"));
    }

    /** Every event, with what a backup reads from its attributes. */
    static class Recorder extends SimpleFileVisitor<Path> {
        final Path root;
        final List<String> events = new ArrayList<>();

        Recorder(Path root) {
            this.root = root;
        }

        String rel(Path p) {
            return root.relativize(p).toString();
        }

        String describe(BasicFileAttributes a) {
            String type = a.isDirectory() ? "dir" : a.isSymbolicLink() ? "link" : a.isRegularFile() ? "file" : "other";
            return type + " " + (a.isDirectory() ? "" : a.size()) + " " + a.lastModifiedTime() + " " + a.fileKey();
        }

        @Override
        public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
            events.add("pre " + rel(dir) + " " + describe(attrs));
            return rel(dir).equals("skipped") ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
            events.add("file " + rel(file) + " " + describe(attrs));
            return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFileFailed(Path file, IOException exc) {
            events.add("failed " + rel(file) + " " + exc.getClass().getSimpleName());
            return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult postVisitDirectory(Path dir, IOException exc) {
            events.add("post " + rel(dir) + " " + exc);
            return FileVisitResult.CONTINUE;
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void theVisitorSeesWhatWalkFileTreeShowsIt(boolean follow) throws IOException {
        Recorder jdk = new Recorder(root);
        Files.walkFileTree(
                root,
                follow ? EnumSet.of(FileVisitOption.FOLLOW_LINKS) : EnumSet.noneOf(FileVisitOption.class),
                Integer.MAX_VALUE,
                jdk);
        Recorder ours = new Recorder(root);
        TreeWalk.walk(root, follow, ours);
        assertThat(ours.events).isEqualTo(jdk.events);
        if (follow) {
            assertThat(ours.events).anyMatch(e -> e.equals("failed a/b/c/loop FileSystemLoopException"));
            assertThat(ours.events).anyMatch(e -> e.startsWith("file broken link"));
        } else {
            assertThat(ours.events).anyMatch(e -> e.startsWith("file link-to-dir link"));
        }
    }

    /**
     * Field case (a fault tester): a backup of a tree 31 directories deep failed under {@code ulimit -n
     * 128}, the walk holding one directory open per level. It now holds at most {@link
     * TreeWalk#MAX_OPEN_DIRECTORIES}, whatever the depth, and shows the visitor the same events.
     */
    @org.junit.jupiter.api.Test
    void aDeepTreeIsWalkedWithABoundedNumberOfDirectoriesOpen() throws IOException {
        Path fds = Path.of("/proc/self/fd");
        assumeTrue(Files.isDirectory(fds), "open descriptors listed in /proc/self/fd");
        Path deep = root.resolve("deep");
        Path leaf = deep;
        for (int i = 0; i < 3 * TreeWalk.MAX_OPEN_DIRECTORIES; i++) {
            leaf = leaf.resolve("d" + i);
            Files.createDirectories(leaf);
            Files.writeString(leaf.resolve("f"), "at " + i);
        }
        long before = count(fds);
        long[] most = {0};
        Recorder jdk = new Recorder(deep);
        Files.walkFileTree(deep, jdk);
        Recorder ours = new Recorder(deep) {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                most[0] = Math.max(most[0], count(fds) - before);
                return super.visitFile(file, attrs);
            }
        };
        TreeWalk.walk(deep, false, ours);
        assertThat(ours.events).isEqualTo(jdk.events);
        assertThat(ours.events)
                .contains("file d0/d1/d2/f "
                        + ours.describe(Files.readAttributes(
                                deep.resolve("d0/d1/d2/f"), BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)));
        // two descriptors for each directory the walk holds, and the one listing /proc/self/fd to count them
        assertThat(most[0]).isLessThanOrEqualTo(2L * TreeWalk.MAX_OPEN_DIRECTORIES + 1);
    }

    private static long count(Path dir) {
        try (var s = Files.list(dir)) {
            return s.count();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"a/b/two.txt", "hard", "link-to-file", "a"})
    void theStatIsTheOneTheBackupRecordedWithTwoStats(String entry) throws IOException {
        Path p = root.resolve(entry);
        BasicFileAttributes basic = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        FileStat twoStats = FileStat.of(p, basic, LinkOption.NOFOLLOW_LINKS);
        FileStat oneStat = TreeWalk.read(p, LinkOption.NOFOLLOW_LINKS).stat();
        assertThat(oneStat).isEqualTo(twoStats);
        Map<String, Object> unix = Files.readAttributes(p, "unix:nlink", LinkOption.NOFOLLOW_LINKS);
        assertThat(oneStat.links()).isEqualTo(unix.get("nlink"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"a/b/two.txt", "hard", "link-to-file", "broken", "a", "zero"})
    void theJdksOwnStatReadsWhatTheUnixViewReads(String entry) throws IOException {
        assumeTrue(UnixStat.available(), "sun.nio.fs opened to this code");
        Path p = root.resolve(entry);
        for (LinkOption[] options : List.of(new LinkOption[] {LinkOption.NOFOLLOW_LINKS}, new LinkOption[0])) {
            if (entry.equals("broken") && options.length == 0) {
                continue; // its target is gone
            }
            TreeWalk.Attributes direct = UnixStat.read(p, options);
            TreeWalk.Attributes viaView = TreeWalk.readThroughUnixView(p, options);
            assertThat(direct).isNotNull();
            assertThat(direct.stat()).isEqualTo(viaView.stat());
            assertThat(direct.fileKey()).isEqualTo(viaView.fileKey());
            assertThat(List.of(direct.isRegularFile(), direct.isDirectory(), direct.isSymbolicLink(), direct.isOther()))
                    .isEqualTo(List.of(
                            viaView.isRegularFile(),
                            viaView.isDirectory(),
                            viaView.isSymbolicLink(),
                            viaView.isOther()));
        }
    }
}
