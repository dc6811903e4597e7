package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.storage.object.VersionEntry;
import dev.ballast.storage.object.local.LocalObjectStore;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** The smaller field inputs of issue 20 (item 14), each through the commands on the local store. */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
@ExtendWith(LeakCheck.class)
class FieldCasesTest extends InProcessCli {
    static List<String> files(Path root) throws IOException {
        try (Stream<Path> all = Files.walk(root)) {
            return all.filter(p -> !p.equals(root))
                    .map(p -> root.relativize(p).toString())
                    .sorted()
                    .toList();
        }
    }

    @Test
    void aNegationAfterAnExcludedDirectoryLeavesTheSameOutOnBackupAndOnRestore() throws IOException {
        Path src = Files.createDirectories(home.resolve("src/dir"));
        Files.writeString(src.resolve("keep.txt"), "keep");
        Files.writeString(src.resolve("other.txt"), "other");
        Files.writeString(src.getParent().resolve("top.txt"), "top");
        Path tree = src.getParent();

        assertThat(run(
                        "backup",
                        tree.toString(),
                        "--name",
                        "excl",
                        "-e",
                        "dir",
                        "-e",
                        "!dir/keep.txt",
                        "--data-dir",
                        data().toString()))
                .isZero();
        assertThat(run("restore", "excl", home.resolve("r1").toString(), "--data-dir", data().toString()))
                .isZero();
        assertThat(run("backup", tree.toString(), "--name", "all", "--data-dir", data().toString()))
                .isZero();
        assertThat(run(
                        "restore",
                        "all",
                        home.resolve("r2").toString(),
                        "-e",
                        "dir",
                        "-e",
                        "!dir/keep.txt",
                        "--data-dir",
                        data().toString()))
                .isZero();

        // As restic: an excluded directory is not entered, so the negation brings nothing back.
        assertThat(files(home.resolve("r1"))).containsExactly("top.txt");
        assertThat(files(home.resolve("r2"))).containsExactly("top.txt");

        // Excluding what is in the directory lets the negation keep one file, on both.
        assertThat(run(
                        "backup",
                        tree.toString(),
                        "--name",
                        "excl2",
                        "-e",
                        "dir/*",
                        "-e",
                        "!dir/keep.txt",
                        "--data-dir",
                        data().toString()))
                .isZero();
        assertThat(run("restore", "excl2", home.resolve("r3").toString(), "--data-dir", data().toString()))
                .isZero();
        assertThat(run(
                        "restore",
                        "all",
                        home.resolve("r4").toString(),
                        "-e",
                        "dir/*",
                        "-e",
                        "!dir/keep.txt",
                        "--data-dir",
                        data().toString()))
                .isZero();
        assertThat(files(home.resolve("r3"))).containsExactly("dir", "dir/keep.txt", "top.txt");
        assertThat(files(home.resolve("r4"))).containsExactly("dir", "dir/keep.txt", "top.txt");
    }

    @Test
    void aStoredVersionMissingFromTheStoreIsExitFourFromVerifyAndFromRestore() throws IOException {
        Path src = Files.createDirectories(home.resolve("s"));
        Files.writeString(src.resolve("kept.txt"), "kept");
        Files.writeString(src.resolve("gone.txt"), "gone");
        // the earlier format's mechanics: one object per file, whose version is deleted
        assertThat(run("backup", src.toString(), "--data-dir", data().toString(), "--insecure-no-encryption"))
                .isZero();
        try (LocalObjectStore store = LocalObjectStore.open(data().resolve("ballast-backups"))) {
            for (VersionEntry v : store.listVersions("s/gone.txt")) {
                assertThat(store.deleteVersion(v.key(), v.versionId())).isTrue();
            }
        }

        assertThat(run("verify", "s", "--data-dir", data().toString())).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(err()).contains("Damaged: gone.txt", "is missing from the store");

        assertThat(run("restore", "s", home.resolve("r").toString(), "--data-dir", data().toString()))
                .isEqualTo(ExitCodes.INTEGRITY);
        assertThat(err()).contains("Not restored: gone.txt (its stored version", "is missing from the store");
        assertThat(home.resolve("r/kept.txt")).hasContent("kept");
    }

    /**
     * A fault tester's: in a store of the earlier, unencrypted format, a backup of a folder named
     * {@code keys} (its default name, stored as {@code keys/...}) reported success, and then every command
     * refused the store, every backup in it included, as an encrypted repository whose config was
     * deleted (exit 4); the names a repository writes under are not reserved for backups.
     */
    @Test
    void aBackupNamedAfterAPlaceOfTheEncryptedFormatLeavesAnUnencryptedStoreUsable() throws IOException {
        Path m1 = Files.createDirectories(home.resolve("m1"));
        Files.writeString(m1.resolve("a.txt"), "first");
        assertThat(run("backup", m1.toString(), "--data-dir", data().toString(), "--insecure-no-encryption"))
                .as(err())
                .isZero();
        for (String name : List.of("keys", "data", "index", "snapshots", "manifest-parts")) {
            Path dir = Files.createDirectories(home.resolve("x/" + name));
            Files.writeString(dir.resolve("k.txt"), "s " + name);
            // a name of hex digits, as a repository's objects are named, in the folder too, and one of their shape
            // (a restic repository's keys folder backed up)
            Files.writeString(dir.resolve("0a"), "hex " + name);
            Files.writeString(dir.resolve("ab".repeat(32)), "restic's " + name);
            assertThat(run("backup", dir.toString(), "--data-dir", data().toString()))
                    .as(err())
                    .isZero();
        }

        assertThat(run("list", "--data-dir", data().toString())).as(err()).isZero();
        assertThat(out()).contains("m1", "keys", "data", "index", "snapshots", "manifest-parts");
        assertThat(run("restore", "m1", home.resolve("r1").toString(), "--data-dir", data().toString()))
                .as(err())
                .isZero();
        assertThat(home.resolve("r1/a.txt")).hasContent("first");
        assertThat(run("restore", "keys", home.resolve("r2").toString(), "--data-dir", data().toString()))
                .as(err())
                .isZero();
        assertThat(home.resolve("r2/k.txt")).hasContent("s keys");
        assertThat(home.resolve("r2/0a")).hasContent("hex keys");
    }

    /** As above, with the backup named {@code keys} the store's only one: its next backup took it for a new store. */
    @Test
    void anUnencryptedStoreWhoseOnlyBackupIsNamedKeysIsNoNewStore() throws IOException {
        Path dir = Files.createDirectories(home.resolve("x/keys"));
        Files.writeString(dir.resolve("k.txt"), "one");
        assertThat(run("backup", dir.toString(), "--data-dir", data().toString(), "--insecure-no-encryption"))
                .as(err())
                .isZero();
        Files.writeString(dir.resolve("k.txt"), "two");

        assertThat(run("backup", dir.toString(), "--data-dir", data().toString()))
                .as(err())
                .isZero();
        assertThat(err()).doesNotContain("encrypted repository");
        assertThat(run("restore", "keys", home.resolve("r").toString(), "--data-dir", data().toString()))
                .as(err())
                .isZero();
        assertThat(home.resolve("r/k.txt")).hasContent("two");
    }

    @Test
    void listShowsEightCharacterShortIdsThatSelectTheirBackup() throws IOException {
        Path src = Files.createDirectories(home.resolve("s"));
        Files.writeString(src.resolve("f.txt"), "one");
        assertThat(run("backup", src.toString(), "--data-dir", data().toString()))
                .isZero();
        Files.writeString(src.resolve("f.txt"), "two");
        assertThat(run("backup", src.toString(), "--data-dir", data().toString()))
                .isZero();

        assertThat(run("list", "--data-dir", data().toString())).isZero();
        List<String[]> rows = out().lines()
                .filter(l -> l.startsWith("  "))
                .map(l -> l.trim().split("\\s+"))
                .toList();
        assertThat(rows).hasSize(2);
        assertThat(rows.get(0)[0]).hasSize(8).isNotEqualTo(rows.get(1)[0]);
        // Time-ordered version IDs of two backups a moment apart share their first 8 characters.
        String older = rows.get(1)[0];
        assertThat(rows.get(1)[1]).startsWith(rows.get(0)[1].substring(0, 8));

        assertThat(run(
                        "restore",
                        "s",
                        home.resolve("r").toString(),
                        "--manifest-version",
                        older,
                        "--data-dir",
                        data().toString()))
                .isZero();
        assertThat(home.resolve("r/f.txt")).hasContent("one");
        assertThat(run(
                        "restore",
                        "s",
                        home.resolve("r2").toString(),
                        "--manifest-version",
                        rows.get(1)[1].substring(0, 8),
                        "--data-dir",
                        data().toString()))
                .isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("matches 2 manifest versions of 's'", rows.get(0)[1], rows.get(1)[1]);
    }

    @Test
    void pruneReportsTheSpaceItGaveBackNotTheSizesOfTheVersionsItDeleted() throws IOException {
        // Field input: prune reported 196.3 MiB freed where 152.8 MB was: the deleted versions' sizes
        // count contents that kept versions also hold.
        byte[] shared = new byte[200_000];
        new Random(1).nextBytes(shared);
        Path src = Files.createDirectories(home.resolve("s"));
        Files.write(src.resolve("a.bin"), shared);
        Files.write(src.resolve("b.bin"), shared); // the same content: stored once
        // the earlier format's prune: versions of file objects, deleted and counted
        assertThat(run("backup", src.toString(), "--data-dir", data().toString(), "--insecure-no-encryption"))
                .isZero();
        Files.writeString(src.resolve("a.bin"), "now small");
        assertThat(run("backup", src.toString(), "--data-dir", data().toString()))
                .isZero();

        assertThat(run("forget", "s", "--keep-last", "1", "--prune", "--grace", "0s", "--data-dir", data().toString()))
                .as(err())
                .isZero();

        // a.bin's first version (200,000 bytes) is deleted, but b.bin still holds its content.
        // What is given back is the old manifest's few hundred bytes in a repacked pack file.
        assertThat(out())
                .contains("deleted 1 version holding 195.3 KiB (200,000 bytes) of file contents")
                .containsPattern(
                        "Space given back: ([\\d.]+ KiB \\([\\d,]{4,5} bytes\\)|\\d{1,4} bytes) \\(content, pack and manifest "
                                + "files: [\\d.]+ (KiB|MiB)")
                .contains("contents also held by kept versions");
    }

    @Test
    void restoreExcludingEitherNameOfAHardLinkPairWritesOnlyTheOtherWithTheContent() throws IOException {
        // Field input: `restore --exclude secret.key`, secret.key the stored name of a hard-link pair,
        // still wrote secret.key.
        Path src = Files.createDirectories(home.resolve("s"));
        Files.writeString(src.resolve("secret.key"), "k3y");
        Files.createLink(src.resolve("copy.key"), src.resolve("secret.key"));
        assertThat(run("backup", src.toString(), "--data-dir", data().toString()))
                .isZero();

        for (String[] pair : new String[][] {{"secret.key", "copy.key"}, {"copy.key", "secret.key"}}) {
            Path target = home.resolve("r-" + pair[0]);
            assertThat(run("restore", "s", target.toString(), "--exclude", pair[0], "--data-dir", data().toString()))
                    .as(err())
                    .isZero();
            assertThat(files(target)).containsExactly(pair[1]);
            assertThat(target.resolve(pair[1])).hasContent("k3y");
        }
    }

    @Test
    void aRefusedRestoreListsEveryEntryInTheWayOneALineThenOneSentence() throws IOException {
        Path src = Files.createDirectories(home.resolve("s/sub"));
        Files.writeString(src.getParent().resolve("a.txt"), "backup");
        Files.writeString(src.getParent().resolve("b.txt"), "backup");
        Files.writeString(src.resolve("c.txt"), "c");
        assertThat(run("backup", src.getParent().toString(), "--data-dir", data().toString()))
                .isZero();
        Path target = Files.createDirectories(home.resolve("r"));
        Files.writeString(target.resolve("a.txt"), "local edit");
        Files.createDirectories(target.resolve("b.txt"));
        Files.writeString(target.resolve("sub"), "a file");

        assertThat(run("restore", "s", target.toString(), "--data-dir", data().toString()))
                .isEqualTo(ExitCodes.CONFLICT);

        assertThat(err().lines().toList())
                .containsSubsequence(
                        "In the way: a.txt (an existing file differs from the backup's)",
                        "In the way: b.txt (a directory stands where the backup has a file)")
                .contains("In the way: sub (a file or link stands where the backup has a directory)")
                .hasSize(4);
        assertThat(err().lines().toList().get(3))
                .startsWith("Error: Restore into '")
                .contains("3 existing entries are in the way", "--overwrite never replaces a directory");
        assertThat(target.resolve("a.txt")).hasContent("local edit");
    }

    /**
     * Field input: {@code ballast list} said "1 files" of a one-file backup; list and forget's file
     * column and prune's per-name line now say "1 file" and "1 unreferenced version", the columns still
     * aligned.
     */
    @Test
    void countsOfOneAreSingularInListForgetAndPrune() throws IOException {
        Path src = Files.createDirectories(home.resolve("one"));
        Files.writeString(src.resolve("a.txt"), "first");
        String dir = data().toString();
        assertThat(run("backup", src.toString(), "--insecure-no-encryption", "--data-dir", dir))
                .as(err())
                .isZero();
        Files.writeString(src.resolve("a.txt"), "second");
        Files.writeString(src.resolve("b.txt"), "b");
        assertThat(run("backup", src.toString(), "--data-dir", dir)).as(err()).isZero();

        assertThat(run("list", "--data-dir", dir)).as(err()).isZero();
        List<String> lines = out().lines().toList();
        assertThat(lines).hasSize(3);
        assertThat(lines.get(1)).containsPattern("     2 files +\\d+ bytes");
        assertThat(lines.get(2)).containsPattern("     1 file +\\d+ bytes?");
        assertThat(out()).doesNotContain("1 files");

        assertThat(run("forget", "one", "--keep-last", "1", "--data-dir", dir))
                .as(err())
                .isZero();
        assertThat(out())
                .containsPattern("     2 files +\\d+ bytes")
                .containsPattern("     1 file +\\d+ bytes?")
                .contains("Removed 1 manifest version of 'one'")
                .doesNotContain("1 files");

        assertThat(run("prune", "--grace", "0s", "--data-dir", dir)).as(err()).isZero();
        assertThat(out())
                .contains("'one': deleted 1 unreferenced version; kept 2 referenced by a manifest")
                .doesNotContain("1 unreferenced versions");
    }
}
