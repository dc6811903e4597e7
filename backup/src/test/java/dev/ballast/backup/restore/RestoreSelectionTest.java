package dev.ballast.backup.restore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.ManifestEntry;
import dev.ballast.backup.tree.Glob;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Which entries a restore's {@code PATH} arguments select. */
class RestoreSelectionTest {
    static final Instant MTIME = Instant.parse("2025-05-05T05:05:05Z");
    static final String SHA = "0".repeat(64);

    static Manifest manifest(String... paths) {
        List<ManifestEntry> files = java.util.Arrays.stream(paths)
                .map(p -> new ManifestEntry(p, 3, SHA, "v-" + p, MTIME))
                .toList();
        return new Manifest(1, "n", MTIME, true, files, List.of());
    }

    static List<String> selected(Manifest m, String... paths) {
        return new RestoreSelection(List.of(paths), List.of(), List.of())
                .apply(m).files().stream().map(ManifestEntry::path).toList();
    }

    @Test
    void aBackslashInAPathArgumentIsPartOfTheNameWhereTheFileSystemAllowsIt() {
        // A tree held both a\b (one file whose name has a backslash) and a/b; restoring 'a\b' restored a/b.
        Manifest m = manifest("a\\b", "a/b", "my file\\with.txt", "trailing\\");
        assertThat(selected(m, "a\\b")).containsExactly("a\\b");
        assertThat(selected(m, "a/b")).containsExactly("a/b");
        assertThat(selected(m, "my file\\with.txt")).containsExactly("my file\\with.txt");
        assertThat(selected(m, "trailing\\")).containsExactly("trailing\\");
        assertThat(new RestoreSelection(List.of("a\\b"), List.of(), List.of()).unmatchedPaths(m))
                .isEmpty();
    }

    @Test
    void whereABackslashSeparatesPathsItNamesTheSameEntryAsASlash() {
        assertThat(RestoreSelection.normalise("a\\b", true)).isEqualTo("a/b");
        assertThat(RestoreSelection.normalise("a\\b", false)).isEqualTo("a\\b");
    }

    @Test
    void leadingAndRepeatedSlashesAndADotSegmentInFrontNameTheSameEntry() {
        Manifest m = manifest("docs/2026/x.txt", "docs/other.txt");
        assertThat(selected(m, "/docs/2026/")).containsExactly("docs/2026/x.txt");
        assertThat(selected(m, "./docs//2026")).containsExactly("docs/2026/x.txt");
        assertThat(selected(m, "docs//2026//x.txt")).containsExactly("docs/2026/x.txt");
        assertThat(selected(m, "docs/./2026/x.txt/.")).containsExactly("docs/2026/x.txt");
        assertThat(selected(m, ".")).containsExactly("docs/2026/x.txt", "docs/other.txt");
    }

    static List<String> excluding(Manifest m, String... patterns) {
        return new RestoreSelection(
                        List.of(),
                        List.of(),
                        Stream.of(patterns).map(Glob::parse).toList())
                .apply(m).files().stream().map(ManifestEntry::path).toList();
    }

    @Test
    void aNegationDoesNotBringBackAFileOfAnExcludedDirectoryAsOnBackup() {
        // Field input: -e dir -e '!dir/keep.txt' dropped keep.txt on backup but restored it.
        Manifest m = manifest("dir/keep.txt", "dir/other.txt", "dir/sub/x.txt", "top.txt");
        assertThat(excluding(m, "dir", "!dir/keep.txt")).containsExactly("top.txt");
        // Excluding what is in the directory, not the directory, lets the negation take one file back.
        assertThat(excluding(m, "dir/*", "!dir/keep.txt")).containsExactly("dir/keep.txt", "top.txt");
        assertThat(excluding(m, "*.txt", "!keep.txt")).containsExactly("dir/keep.txt");
    }

    @Test
    void anAbsolutePathUnderTheBackedUpDirectoryIsNamedRelativeToIt() {
        // A README-only restic user's 'restore src DIR /tmp/work/src/a/f1.txt', a restic habit, found
        // nothing: paths are relative to the backed-up directory /tmp/work/src.
        assertThat(RestoreSelection.underSource("tmp/work/src/a/f1.txt", "/tmp/work/src"))
                .isEqualTo("a/f1.txt");
        assertThat(RestoreSelection.underSource("tmp/work/srcx/a", "/tmp/work/src"))
                .isNull();
        assertThat(RestoreSelection.underSource("a/f1.txt", "/tmp/work/src")).isNull();
        assertThat(RestoreSelection.underSource("tmp/work/src/a", null)).isNull();
    }

    /**
     * Field input (a README-only newcomer, a restic user): {@code restore src /tmp/x 'dir03/sub*'} was
     * exit 5, "has no file or directory 'dir03/sub*'", with no word that patterns go to {@code --include}.
     */
    @Test
    void aPathArgumentThatIsAPatternIsPointedToWhereAPatternGoes() {
        Manifest m = manifest("dir03/sub1/a", "dir03/sub2/b");
        var chosen = new dev.ballast.backup.snapshot.Manifests.Versioned(
                m,
                new dev.ballast.storage.object.VersionEntry(
                        "n/.ballast-manifest.json", "01a22d7f56a9aaaa0000000000000001", null, 1, MTIME, true, false),
                List.of());

        org.assertj.core.api.Assertions.assertThatThrownBy(() ->
                        new RestoreSelection(List.of("dir03/sub*"), List.of(), List.of()).selectOrRefuse("n", chosen))
                .isInstanceOfSatisfying(
                        dev.ballast.backup.BackupException.class,
                        e -> assertThat(e.kind()).isEqualTo(dev.ballast.backup.BackupException.Kind.NOT_FOUND))
                .hasMessageContaining("has no file or directory 'dir03/sub*'")
                .hasMessageEndingWith("; a path is matched as it is written, a pattern such as 'dir03/sub*' goes to "
                        + "RestoreOptions.includes.");
        org.assertj.core.api.Assertions.assertThatThrownBy(() ->
                        new RestoreSelection(List.of("dir03/sub3"), List.of(), List.of()).selectOrRefuse("n", chosen))
                .message()
                .doesNotContain("pattern");
    }

    /**
     * Field input (a README-only newcomer): {@code restore src T /tmp/nb8-work/src/docs/sub} answered "has
     * no file or directory 'tmp/nb8-work/src/docs/sub'", a path not typed (its leading slash dropped).
     */
    @Test
    void aPathNotInTheBackupIsQuotedAsItWasGiven() {
        Manifest m = manifest("docs/sub/a");
        var chosen = new dev.ballast.backup.snapshot.Manifests.Versioned(
                m,
                new dev.ballast.storage.object.VersionEntry(
                        "n/.ballast-manifest.json", "01a22d7f56a9aaaa0000000000000001", null, 1, MTIME, true, false),
                List.of());

        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> new RestoreSelection(List.of("/tmp/w/src/docs/sub"), List.of(), List.of())
                                .selectOrRefuse("n", chosen))
                .hasMessageContaining("has no file or directory '/tmp/w/src/docs/sub'")
                .message()
                .doesNotContain("'tmp/w/src/docs/sub'");
    }
}
