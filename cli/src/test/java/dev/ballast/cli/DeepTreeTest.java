package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** Deep directory chains back up and restore (the timings are in bench/deep-tree.sh, not here). */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@ExtendWith(LeakCheck.class)
class DeepTreeTest extends InProcessCli {
    /**
     * Not JUnit's {@code @TempDir}: its clean-up resolves the real path of every directory it deletes,
     * which takes minutes on a chain of 2,000.
     */
    Path ownHome;

    @BeforeEach
    void createHome() throws IOException {
        ownHome = Files.createTempDirectory("ballast-deep-tree-");
    }

    @Override
    Path cliHome() {
        return ownHome;
    }

    @AfterEach
    void deleteHome() throws IOException {
        Files.walkFileTree(ownHome, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                Files.delete(dir);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    /** {@code depth} directories named {@code d}, one in the other. */
    static String chain(int depth) {
        StringBuilder rel = new StringBuilder();
        for (int i = 0; i < depth; i++) {
            rel.append(i == 0 ? "" : "/").append('d');
        }
        return rel.toString();
    }

    @Override
    String err() {
        String all = err.toString(StandardCharsets.UTF_8);
        return all.length() > 400 ? all.substring(0, 400) + "..." : all;
    }

    @Test
    void aChainOfTwoThousandNestedDirectoriesBacksUpAndRestores() throws IOException {
        // 4,000 bytes of directories below the backed-up one: near Linux's PATH_MAX (4,096) with the
        // temporary directory's path in front. A file's path in the backup is at most 1,024 bytes (an S3
        // key), so the files sit 400 levels down; the directories below them are restored empty.
        Path src = Files.createDirectories(ownHome.resolve("s"));
        Path bottom = Files.createDirectories(src.resolve(chain(2000)));
        Files.writeString(src.resolve(chain(400)).resolve("f"), "deep");
        Files.writeString(src.resolve("top.txt"), "top");
        Path data = ownHome.resolve("data");
        assertThat(run("backup", src.toString(), "--data-dir", data.toString()))
                .as(this::err)
                .isZero();
        Path target = ownHome.resolve("r");
        assertThat(run("restore", "s", target.toString(), "--data-dir", data.toString()))
                .as(this::err)
                .isZero();
        assertThat(target.resolve(chain(400)).resolve("f")).hasContent("deep");
        assertThat(target.resolve("top.txt")).hasContent("top");
        assertThat(target.resolve(src.relativize(bottom))).isEmptyDirectory();
    }

    @Test
    void aPathLongerThanTheTargetAllowsIsListedAndTheOtherFilesAreRestored() throws IOException {
        // Field input: a directory path longer than the target file system allows ended the restore at
        // once, 0 of 3 stored files restored.
        Path src = Files.createDirectories(ownHome.resolve("s"));
        Files.writeString(src.resolve("one.txt"), "one");
        Files.writeString(src.resolve("two.txt"), "two");
        String deep = "x".repeat(200) + "/" + "y".repeat(200);
        Files.createDirectories(src.resolve(deep));
        Files.writeString(src.resolve(deep).resolve("three.txt"), "three");
        Path data = ownHome.resolve("data");
        assertThat(run("backup", src.toString(), "--data-dir", data.toString()))
                .as(this::err)
                .isZero();
        // A target 3,900 bytes deep: the top-level files fit under Linux's PATH_MAX (4,096), the deep one not.
        Path target = ownHome;
        while (target.toString().length() < 3900 - 201) {
            target = target.resolve("t".repeat(200));
        }
        target = Files.createDirectories(
                target.resolve("t".repeat(3900 - target.toString().length() - 1)));
        assertThat(run("restore", "s", target.toString(), "--data-dir", data.toString()))
                .isEqualTo(ExitCodes.INCOMPLETE);

        assertThat(target.resolve("one.txt")).hasContent("one");
        assertThat(target.resolve("two.txt")).hasContent("two");
        String err = this.err.toString(StandardCharsets.UTF_8);
        assertThat(err.lines().filter(l -> l.startsWith("Not restored: ")))
                .hasSize(3) // both directories and the file in them, one line each
                .allMatch(l -> l.contains("File name too long"));
        assertThat(err).contains("Not restored: " + deep + "/three.txt (");
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("2 files restored");
    }
}
