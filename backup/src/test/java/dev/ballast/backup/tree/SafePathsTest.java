package dev.ballast.backup.tree;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.backup.BackupException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SafePathsTest {
    @TempDir
    Path target;

    @ParameterizedTest
    @ValueSource(
            strings = {
                "../x",
                "a/../../x",
                "a/..",
                "..",
                "/etc/passwd",
                "/x",
                "a//b",
                "./a",
                "a/./b",
                "a/",
                "",
                "C:/x",
                "a\u0000b"
            })
    void refusesPathsThatAreAbsoluteEscapeOrAreNotPlain(String path) {
        assertThat(SafePaths.problem(path)).isNotNull();
        assertThatThrownBy(() -> SafePaths.resolveInside(target, path))
                .isInstanceOfSatisfying(BackupException.class, f -> {
                    assertThat(f.kind()).isEqualTo(BackupException.Kind.INTEGRITY);
                    assertThat(f.getMessage()).contains("refused").contains("nothing was restored");
                });
    }

    @ParameterizedTest
    @ValueSource(strings = {"a", "a b/ü+x.txt", "..a/b..", "deep/er/file", ".hidden", "x+y z"})
    void resolvesPlainRelativePathsInsideTheTarget(String path) {
        Path resolved = SafePaths.resolveInside(target, path);
        assertThat(resolved.startsWith(target.toAbsolutePath().normalize())).isTrue();
        assertThat(resolved.toString()).endsWith(path);
    }

    @Test
    void aBackslashIsPartOfAFileNameWhereItDoesNotSeparatePaths() {
        assertThat(SafePaths.problem("a\\b.txt", false)).isNull();
        assertThat(SafePaths.problem("a\\..\\x", false)).isNull();
        assertThat(SafePaths.problem("a\\b.txt", true)).contains("backslash");
        assertThat(SafePaths.problem("a\\..\\x", true)).contains("backslash");
        if (java.io.File.separatorChar == '/') {
            Path resolved = SafePaths.resolveInside(target, "dir/a\\..\\x");
            assertThat(resolved.getParent())
                    .isEqualTo(target.toAbsolutePath().normalize().resolve("dir"));
            assertThat(resolved.getFileName().toString()).isEqualTo("a\\..\\x");
        }
    }

    @Test
    void theMessageNamesThePathAndTheReason() {
        assertThatThrownBy(() -> SafePaths.resolveInside(target, "../x"))
                .hasMessageContaining("'../x'")
                .hasMessageContaining("contains '..'");
    }

    @Test
    void aControlCharacterIsPartOfAFileNameWhereBackslashesDoNotSeparatePaths() {
        // Linux allows every byte but '/' and NUL in a name: a newline or escape is restored as it was.
        assertThat(SafePaths.problem("a\nb/\u001B[31m", false)).isNull();
        assertThat(SafePaths.problem("a\nb", true)).contains("control character");
        assertThat(SafePaths.problem("a\u0000b", false)).contains("NUL");
        if (java.io.File.separatorChar == '/') {
            assertThat(SafePaths.resolveInside(target, "d/a\nb").getFileName().toString())
                    .isEqualTo("a\nb");
        }
    }
}
