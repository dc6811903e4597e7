package dev.ballast.backup.tree;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which paths {@code --exclude} patterns leave out, against restic's matching of the same patterns. */
class BackupFilterTest {
    /** The backed-up directory of a restic user's field report: {@code /tmp/hu-data/src}. */
    static final Path SOURCE = Path.of("/tmp/hu-data/src");

    static boolean excluded(String rel, String... patterns) {
        List<Glob> globs = Arrays.stream(patterns).map(Glob::parse).toList();
        return new BackupFilter(SOURCE, globs, false).excludes(rel, SOURCE.resolve(rel));
    }

    @Test
    void aPatternWithASlashThatMatchesAnywhereMatchesTheAbsolutePathAsInRestic() {
        // field input: restic left out src/dir2 (316 entries), ballast backed it up (350)
        assertThat(excluded("dir2", "src/dir2")).isTrue();
        assertThat(excluded("dir2/sub/file.txt", "src/dir2")).isTrue();
        assertThat(excluded("dir2", "hu-data/src/dir2")).isTrue();
        assertThat(excluded("dir1", "src/dir2")).isFalse();
        assertThat(excluded("other/src/dir2", "src/dir2")).isTrue();
    }

    @Test
    void aPatternThatMatchesTheBackedUpDirectoryOrOneAboveItLeavesOutOnlyWhatMatchesBelowIt() {
        // restic would leave out the whole tree: **/tmp matches /tmp/hu-data/src/...
        assertThat(excluded("a.txt", "tmp")).isFalse();
        assertThat(excluded("tmp", "tmp")).isTrue();
        assertThat(excluded("x/src/y", "src")).isTrue();
        assertThat(excluded("y", "src")).isFalse();
        assertThat(excluded("a.txt", "hu-*")).isFalse();
    }

    @Test
    void anAnchoredPatternIsAnchoredAtTheBackedUpDirectoryAndAtTheRoot() {
        assertThat(excluded("dir0", "/dir0")).isTrue();
        assertThat(excluded("sub/dir0", "/dir0")).isFalse();
        assertThat(excluded("dir1/a", "/tmp/hu-data/src/dir1")).isTrue();
        assertThat(excluded("dir2/a", "/tmp/hu-data/src/dir1")).isFalse();
    }

    @Test
    void theLastMatchingPatternDecidesAndANegationTakesAPathBack() {
        assertThat(excluded("logs/a.log", "*.log", "!a.log")).isFalse();
        assertThat(excluded("logs/b.log", "*.log", "!a.log")).isTrue();
        assertThat(excluded("dir2/keep.txt", "src/dir2/*", "!src/dir2/keep.txt"))
                .isFalse();
        assertThat(excluded("dir2/drop.txt", "src/dir2/*", "!src/dir2/keep.txt"))
                .isTrue();
    }
}
