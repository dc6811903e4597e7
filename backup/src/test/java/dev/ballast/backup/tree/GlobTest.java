package dev.ballast.backup.tree;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Cases from restic's filter tests and documentation, with the verdicts restic gives. */
class GlobTest {
    @ParameterizedTest(name = "{0} vs {1} -> {2}")
    @CsvSource({
        "*.go, /foo/bar/test.go, true",
        "*.c, /foo/bar/test.go, false",
        "test.go, /foo/bar/test.go, true",
        "bar, /foo/bar/test.go, true",
        "/bar, /foo/bar/test.go, false",
        "/foo, /foo/bar/test.go, true",
        "/foo/bar, /foo/bar/test.go, true",
        "foo/bar, /x/foo/bar/test.go, true",
        "/foo/*/test.go, /foo/bar/test.go, true",
        "/foo/*/test.go, /foo/bar/baz/test.go, false",
        "/foo/**/test.go, /foo/bar/baz/test.go, true",
        "/foo/**/test.go, /foo/test.go, true",
        "**/test.go, /a/b/c/test.go, true",
        "/foo/**, /foo/a/b, true",
        "/foo/**, /food, false",
        "te?t.go, /test.go, true",
        "te?t.go, /teest.go, false",
        "[abc].txt, /b.txt, true",
        "[^abc].txt, /b.txt, false",
        "[!abc].txt, /d.txt, true",
        "[a-c].txt, /d.txt, false",
        "\\*.txt, /*.txt, true",
        "\\*.txt, /a.txt, false",
        "node_modules, /web/node_modules/react/index.js, true",
        "cache/, /home/cache/x, true",
    })
    void matchesAsResticDoes(String pattern, String path, boolean expected) {
        assertThat(Glob.parse(pattern).matches(path)).isEqualTo(expected);
    }

    @Test
    void theLastMatchingPatternDecidesSoANegationTakesAPathBack() {
        List<Glob> list = List.of(Glob.parse("*.log"), Glob.parse("!keep.log"));
        assertThat(Glob.anyMatches(list, "/a/x.log")).isTrue();
        assertThat(Glob.anyMatches(list, "/a/keep.log")).isFalse();
        assertThat(Glob.anyMatches(list, "/a/x.txt")).isFalse();
    }

    @Test
    void badPatternsAreRefusedWithTheReason() {
        assertThatThrownBy(() -> Glob.parse("")).hasMessageContaining("empty");
        assertThatThrownBy(() -> Glob.parse("/")).hasMessageContaining("only slashes");
        assertThatThrownBy(() -> Glob.parse("a[bc")).hasMessageContaining("'['");
    }

    @Test
    void anAnchoredPatternSaysWhichDirectoriesCanHoldAMatch() {
        Glob g = Glob.parse("/docs/2026/*.pdf");
        assertThat(g.childMayMatch("/docs")).isTrue();
        assertThat(g.childMayMatch("/photos")).isFalse();
        assertThat(Glob.parse("*.pdf").childMayMatch("/photos")).isTrue();
    }
}
