package dev.ballast.it.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.cli.ExitCodes;
import dev.ballast.it.cli.CliHarness.Run;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What goes into a backup and what comes out of a restore, on the default local store and on
 * S3Mock: {@code backup --exclude/--exclude-file/--exclude-caches} and {@code .ballastignore};
 * {@code restore NAME TARGET PATH...} and {@code --include/--exclude}, with restic's pattern
 * semantics.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@ExtendWith(LeakCheck.class)
class CliSelectionIT {
    @TempDir
    static Path base;

    static Run ballast(StoreKind store, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(store.args(base.resolve("data"), "cli-selection-it"));
        return CliHarness.run(base.resolve("home"), p -> {}, all.toArray(String[]::new));
    }

    static Path project(Path root) throws IOException {
        for (String f : List.of(
                "src/main/App.java",
                "src/main/App.class",
                "src/test/AppTest.java",
                "docs/guide.md",
                "docs/2026/report.pdf",
                "docs/2026/draft.tmp",
                "build/out.jar",
                "web/node_modules/react/index.js",
                "web/index.html",
                "web/build/bundle.js",
                "logs/a.log",
                "logs/keep.log",
                "cache/blob.bin",
                "cache/sub/x",
                "notes.txt")) {
            Files.createDirectories(root.resolve(f).getParent());
            Files.writeString(root.resolve(f), "content of " + f, StandardCharsets.UTF_8);
        }
        Files.writeString(
                root.resolve("cache/CACHEDIR.TAG"),
                "Signature: 8a477f597d28d172789f06886806bc55\n# This file is a cache directory tag.\n");
        Files.writeString(root.resolve("web/.ballastignore"), "# built files\n/build\nnode_modules\n");
        return root;
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void backupExcludesWhatThePatternsIgnoreFilesAndCacheTagsSay(StoreKind store) throws IOException {
        Path source = project(base.resolve("excl-" + store));
        Path excludeFile = base.resolve("excludes-" + store + ".txt");
        Files.writeString(excludeFile, "# generated\n\n*.class\n/build\n");
        Run backup = ballast(
                store,
                "backup",
                source.toString(),
                "--exclude",
                "*.tmp",
                "-e",
                "*.log",
                "-e",
                "!keep.log",
                "--exclude-file",
                excludeFile.toString(),
                "--exclude-caches");
        assertThat(backup.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(backup.out()).contains("files and directories excluded");

        Path target = base.resolve("excl-restored-" + store);
        assertThat(ballast(store, "restore", "excl-" + store, target.toString()).exitCode())
                .isEqualTo(ExitCodes.OK);
        assertThat(CliHarness.hashes(target).keySet())
                .containsExactlyInAnyOrder(
                        "src/main/App.java",
                        "src/test/AppTest.java",
                        "docs/guide.md",
                        "docs/2026/report.pdf",
                        "web/index.html",
                        "web/.ballastignore",
                        "logs/keep.log",
                        "cache/CACHEDIR.TAG",
                        "notes.txt");
        assertThat(target.resolve("cache")).isDirectory();
        assertThat(target.resolve("build")).doesNotExist();
        assertThat(target.resolve("web/build")).doesNotExist();

        Run badFile = ballast(
                store,
                "backup",
                source.toString(),
                "--exclude-file",
                base.resolve("missing.txt").toString());
        assertThat(badFile.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(badFile.err())
                .contains("--exclude-file")
                .contains("missing.txt")
                .doesNotContain("\tat ");
        Run badPattern = ballast(store, "backup", source.toString(), "--exclude", "[oops");
        assertThat(badPattern.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(badPattern.err()).contains("'[oops'");
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void restoreWritesOnlyThePathsAndPatternsAsked(StoreKind store) throws IOException {
        Path source = project(base.resolve("sel-" + store));
        String name = "sel-" + store;
        assertThat(ballast(store, "backup", source.toString()).exitCode()).isEqualTo(ExitCodes.OK);

        Path byPath = base.resolve("sel-path-" + store);
        Run paths = ballast(store, "restore", name, byPath.toString(), "docs/2026", "notes.txt");
        assertThat(paths.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(CliHarness.hashes(byPath).keySet())
                .containsExactlyInAnyOrder("docs/2026/report.pdf", "docs/2026/draft.tmp", "notes.txt");

        Path byGlob = base.resolve("sel-glob-" + store);
        Run globs = ballast(
                store,
                "restore",
                name,
                byGlob.toString(),
                "--include",
                "*.java",
                "--include",
                "/docs",
                "--exclude",
                "*.tmp",
                "--exclude",
                "src/test");
        assertThat(globs.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(CliHarness.hashes(byGlob).keySet())
                .containsExactlyInAnyOrder("src/main/App.java", "docs/guide.md", "docs/2026/report.pdf");
        assertThat(CliHarness.hashes(byGlob).get("src/main/App.java"))
                .isEqualTo(CliHarness.sha256(source.resolve("src/main/App.java")));

        Path none = base.resolve("sel-none-" + store);
        Run missing = ballast(store, "restore", name, none.toString(), "no/such/dir");
        assertThat(missing.exitCode()).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(missing.err())
                .contains("'no/such/dir'")
                .contains("nothing was restored")
                // the version named as every message names it: short ID first, the full one in parentheses
                .containsPattern("\\(manifest version [0-9a-f]{8} \\([^)]+\\)\\) has no file or directory");
        assertThat(none).doesNotExist();
        Run nothing = ballast(store, "restore", name, none.toString(), "--include", "*.nothing");
        assertThat(nothing.exitCode()).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(nothing.err()).containsPattern("\\(manifest version [0-9a-f]{8} \\([^)]+\\)\\) matches");
        assertThat(ballast(store, "restore", name, none.toString(), "--include", "a[b")
                        .exitCode())
                .isEqualTo(ExitCodes.USAGE);
    }
}
