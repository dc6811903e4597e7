package dev.ballast.backup.restore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.backup.BackupException;
import dev.ballast.backup.Cancellation;
import dev.ballast.backup.ProgressCounter;
import dev.ballast.backup.run.BackupRunner;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.ManifestEntry;
import dev.ballast.backup.snapshot.ManifestTree;
import dev.ballast.backup.tree.Glob;
import dev.ballast.backup.tree.Names;
import dev.ballast.backup.tree.PosixAttrs;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.test.FakeObjectStore;
import dev.ballast.testkit.FakeTime;
import dev.ballast.testkit.LeakCheck;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
@ExtendWith(LeakCheck.class)
class RestoreRunnerTest {
    static final Instant MTIME = Instant.parse("2025-05-05T05:05:05Z");

    @TempDir
    Path dir;

    final FakeObjectStore store = new FakeObjectStore(FakeObjectStore.CAPABILITIES, new FakeTime());
    final PrintStream sink = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);

    ManifestEntry stored(String path, String content) {
        byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
        ObjectVersion v = store.put(Manifest.objectKey("n", path), ObjectContent.ofBytes(bytes));
        return new ManifestEntry(path, bytes.length, v.sha256(), v.versionId(), MTIME);
    }

    RestoreRunner.Result restore(Manifest m, Path target, boolean overwrite) throws IOException {
        return new RestoreRunner(store, m, target, overwrite, 4, new Cancellation(), x -> new ProgressCounter(0, 0))
                .run();
    }

    static Manifest withTree(List<ManifestEntry> files, ManifestTree tree) {
        return new Manifest(1, "n", MTIME, true, files, List.of(), tree);
    }

    static Manifest manifest(ManifestEntry... entries) {
        return new Manifest(1, "n", MTIME, true, List.of(entries), List.of());
    }

    @Test
    void aFileWhoseRestoreRanOutOfHeapIsAFailureNeverLeftOutOfACompleteRestore() throws IOException {
        // Field case: a restore held to -Xmx128m ran out of heap writing one file; the error ended that
        // file's task unrecorded, and the restore said complete (exit 0) with the file missing.
        ManifestEntry a = stored("a.txt", "alpha");
        ManifestEntry b = stored("b.txt", "bravo");
        String heavy = Manifest.objectKey("n", "b.txt");
        FakeObjectStore outOfHeap = new FakeObjectStore(FakeObjectStore.CAPABILITIES, new FakeTime()) {
            @Override
            public dev.ballast.storage.object.ObjectRead get(
                    String key, dev.ballast.storage.object.ReadOptions options) {
                if (key.equals(heavy)) {
                    throw new OutOfMemoryError("Java heap space");
                }
                return store.get(key, options);
            }
        };
        Path target = dir.resolve("out");

        RestoreRunner.Result r = new RestoreRunner(
                        outOfHeap, manifest(a, b), target, false, 4, new Cancellation(), x -> new ProgressCounter(0, 0))
                .run();

        assertThat(r.ok()).isFalse();
        assertThat(r.restored()).isEqualTo(1);
        assertThat(r.failed())
                .extracting(BackupRunner.Failure::path, BackupRunner.Failure::reason)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(
                                "b.txt",
                                "it could not be restored (Java heap space: the JVM's maximum heap is too small; raise the JVM's -Xmx)"));
        assertThat(target.resolve("a.txt")).hasContent("alpha");
        try (Stream<Path> all = Files.list(target)) {
            assertThat(all.map(p -> p.getFileName().toString())).containsExactly("a.txt");
        }
    }

    @Test
    void restoresBytesAndModificationTimesWithNoTemporaryFilesLeft() throws IOException {
        Manifest m = manifest(stored("a b/ü+x.txt", "hello"), stored("empty", ""));
        Path target = dir.resolve("out");
        RestoreRunner.Result r = restore(m, target, false);
        assertThat(r.ok()).isTrue();
        assertThat(r.restored()).isEqualTo(2);
        assertThat(target.resolve("a b/ü+x.txt")).hasContent("hello");
        assertThat(target.resolve("empty")).isEmptyFile();
        assertThat(Files.getLastModifiedTime(target.resolve("empty")).toInstant())
                .isEqualTo(MTIME);
        try (Stream<Path> all = Files.walk(target)) {
            assertThat(all.filter(Files::isRegularFile).map(p -> p.getFileName().toString()))
                    .containsExactlyInAnyOrder("ü+x.txt", "empty");
        }
    }

    @Test
    void aDirectoryThatAppearsWhereAFileGoesDuringTheRunIsNamedAndKeptWithNothingReplaced() throws IOException {
        Manifest m = manifest(stored("late.txt", "backup"), stored("other.txt", "fine"));
        Path target = dir.resolve("out");
        // Nothing stands at late.txt when the run looks; a directory appears there while its bytes are written.
        RestoreRunner.Result r = new RestoreRunner(
                        store, m, target, true, 1, new Cancellation(), x -> new ProgressCounter(0, 0) {
                            @Override
                            public void addBytes(long n) {
                                super.addBytes(n);
                                try {
                                    Files.createDirectories(target.resolve("late.txt/inner"));
                                } catch (IOException e) {
                                    throw new java.io.UncheckedIOException(e);
                                }
                            }
                        })
                .run();

        assertThat(r.failed()).singleElement().satisfies(f -> {
            assertThat(f.path()).isEqualTo("late.txt");
            assertThat(f.reason()).contains("a directory stands where the backup has this file");
        });
        assertThat(target.resolve("late.txt/inner")).isDirectory();
        assertThat(target.resolve("other.txt")).hasContent("fine");
        try (Stream<Path> all = Files.walk(target)) {
            assertThat(all.map(p -> p.getFileName().toString())).noneMatch(n -> n.startsWith(".ballast-"));
        }
    }

    @Test
    void aCraftedDotDotPathIsRefusedBeforeAnythingIsWritten() {
        ManifestEntry good = stored("good.txt", "fine");
        ManifestEntry evil = new ManifestEntry("../x", good.size(), good.sha256(), good.versionId(), MTIME);
        Path target = dir.resolve("out");
        assertThatThrownBy(() -> restore(manifest(good, evil), target, false))
                .isInstanceOfSatisfying(
                        BackupException.class, f -> assertThat(f.kind()).isEqualTo(BackupException.Kind.INTEGRITY));
        assertThat(dir.resolve("x")).doesNotExist();
        assertThat(target.resolve("good.txt")).doesNotExist();
    }

    @Test
    void neverReplacesADifferentExistingFileWithoutOverwrite() throws IOException {
        Manifest m = manifest(stored("f.txt", "backup"), stored("g.txt", "other"));
        Path target = Files.createDirectories(dir.resolve("out"));
        Files.writeString(target.resolve("f.txt"), "local edit");
        assertThatThrownBy(() -> restore(m, target, false))
                .isInstanceOfSatisfying(
                        BackupException.class,
                        f -> assertThat(f.details())
                                .containsExactly("In the way: f.txt (an existing file differs from the backup's)"))
                .hasMessageContaining("RestoreOptions.overwrite");
        assertThat(target.resolve("f.txt")).hasContent("local edit");
        assertThat(target.resolve("g.txt")).doesNotExist();

        RestoreRunner.Result r = restore(m, target, true);
        assertThat(r.ok()).isTrue();
        assertThat(target.resolve("f.txt")).hasContent("backup");
    }

    @Test
    void anExistingFileThisUserCannotReadIsInTheWayNotAFailedRunAndOverwriteReplacesIt() throws IOException {
        Manifest m = manifest(stored("locked.txt", "backup"), stored("g.txt", "other"));
        Path target = Files.createDirectories(dir.resolve("out"));
        Path locked = Files.writeString(target.resolve("locked.txt"), "backup");
        Files.setPosixFilePermissions(locked, java.util.Set.of()); // mode 000, as a rerun finds what it restored
        org.assertj.core.api.Assumptions.assumeThat(Files.isReadable(locked))
                .as("root reads every file: only another user meets an unreadable one")
                .isFalse();

        assertThatThrownBy(() -> restore(m, target, false))
                .isInstanceOfSatisfying(
                        BackupException.class,
                        f -> assertThat(f.details())
                                .containsExactly(
                                        "In the way: locked.txt (an existing file cannot be read to compare it with the backup's)"))
                .hasMessageContaining("RestoreOptions.overwrite");
        assertThat(target.resolve("g.txt")).doesNotExist();

        RestoreRunner.Result r = restore(m, target, true);
        assertThat(r.ok()).isTrue();
        assertThat(target.resolve("g.txt")).hasContent("other");
    }

    @Test
    void aRefusedRestoreNamesEveryConflictByKindAndNeverAdvisesOverwriteForADirectory() throws IOException {
        // Field input: three conflicts, only the first named, a directory where a file was called a
        // differing file, and --overwrite advised, which does not replace directories.
        Manifest m = manifest(stored("a.txt", "backup"), stored("b.txt", "backup"), stored("sub/c.txt", "c"));
        Path target = Files.createDirectories(dir.resolve("out"));
        Files.writeString(target.resolve("a.txt"), "local edit");
        Files.createDirectories(target.resolve("b.txt"));
        Files.writeString(target.resolve("sub"), "a file where the backup has a directory");
        Manifest withDir = withTree(
                m.files(),
                new ManifestTree(List.of(new ManifestTree.Directory("sub", MTIME, null)), List.of(), List.of()));

        assertThatThrownBy(() -> restore(withDir, target, false)).isInstanceOfSatisfying(BackupException.class, f -> {
            assertThat(f.kind()).isEqualTo(BackupException.Kind.CONFLICT);
            assertThat(f.details())
                    .containsExactlyInAnyOrder(
                            "In the way: a.txt (an existing file differs from the backup's)",
                            "In the way: b.txt (a directory stands where the backup has a file)",
                            "In the way: sub (a file or link stands where the backup has a directory)");
            assertThat(f.getMessage())
                    .contains("3 existing entries are in the way", "nothing was written")
                    .contains("RestoreOptions.overwrite to replace the files and links")
                    .contains(
                            "remove the directories listed yourself (RestoreOptions.overwrite never replaces a directory)");
        });
        assertThat(target.resolve("a.txt")).hasContent("local edit");
    }

    @Test
    void aDirectoryAloneInTheWayIsNotAdvisedAwayWithOverwrite() throws IOException {
        Manifest m = manifest(stored("b.txt", "backup"));
        Path target = Files.createDirectories(dir.resolve("out"));
        Files.createDirectories(target.resolve("b.txt"));
        assertThatThrownBy(() -> restore(m, target, false))
                .isInstanceOf(BackupException.class)
                .hasMessageNotContaining("restore again with RestoreOptions.overwrite")
                .hasMessageContaining("remove the directories listed yourself");
    }

    @Test
    void aVersionMissingFromTheStoreIsADamagedCopyAndTheOtherFilesAreRestored() throws IOException {
        ManifestEntry kept = stored("kept.txt", "kept");
        ManifestEntry gone = stored("gone.txt", "gone");
        store.deleteVersion(Manifest.objectKey("n", "gone.txt"), gone.versionId());
        Path target = dir.resolve("out");

        RestoreRunner.Result r = restore(manifest(kept, gone), target, false);

        assertThat(r.damagedCopies()).isEqualTo(1);
        assertThat(r.failed())
                .singleElement()
                .satisfies(f -> assertThat(f.reason()).contains("is missing from the store"));
        assertThat(target.resolve("kept.txt")).hasContent("kept");
    }

    @Test
    void anExcludedStoredNameOfAHardLinkPairIsNotWrittenAndTheOtherNameGetsTheContent() throws IOException {
        // Field input: `restore --exclude secret.key`, secret.key the stored name of a hard-link pair,
        // still wrote secret.key.
        ManifestEntry secret = stored("secret.key", "k3y");
        Manifest m = withTree(
                List.of(secret, stored("other.txt", "o")),
                new ManifestTree(
                        List.of(),
                        List.of(),
                        List.of(
                                new ManifestTree.HardLink("backup.key", "secret.key"),
                                new ManifestTree.HardLink("third.key", "secret.key"))));
        RestoreSelection.Selected selected =
                new RestoreSelection(List.of(), List.of(), List.of(Glob.parse("secret.key"))).select(m);
        Path target = dir.resolve("out");

        RestoreRunner.Result r = new RestoreRunner(
                        store,
                        selected.manifest(),
                        target,
                        false,
                        4,
                        new Cancellation(),
                        x -> new ProgressCounter(0, 0))
                .writingAs(selected.writtenAs())
                .run();

        assertThat(r.ok()).isTrue();
        assertThat(target.resolve("secret.key")).doesNotExist();
        assertThat(target.resolve("backup.key")).hasContent("k3y");
        assertThat(target.resolve("third.key")).hasContent("k3y");
        assertThat(Files.isSameFile(target.resolve("backup.key"), target.resolve("third.key")))
                .isTrue();
        assertThat(target.resolve("other.txt")).hasContent("o");
    }

    @Test
    void aRestoreCancelledAsItStartsCreatesNoDirectoryAndWritesNothing() throws IOException {
        // Field input: a deep tree's restore did not stop within 5 s of SIGTERM; the shutdown hook's flag
        // is now checked for every directory and entry, not only between files.
        List<ManifestTree.Directory> dirs = new java.util.ArrayList<>();
        StringBuilder path = new StringBuilder("d");
        for (int i = 0; i < 200; i++) {
            dirs.add(new ManifestTree.Directory(path.toString(), MTIME, null));
            path.append("/d");
        }
        Manifest m = withTree(List.of(stored("d/f.txt", "f")), new ManifestTree(dirs, List.of(), List.of()));
        Cancellation cancellation = new Cancellation();
        cancellation.cancel();
        Path target = dir.resolve("out");

        RestoreRunner.Result r =
                new RestoreRunner(store, m, target, false, 4, cancellation, x -> new ProgressCounter(0, 0)).run();

        assertThat(r.cancelled()).isTrue();
        assertThat(r.restored()).isZero();
        assertThat(target).isEmptyDirectory();
    }

    @Test
    void namesLongerThanTheTargetAllowsAreListedEachAndEveryOtherFileIsRestored() throws IOException {
        // Field input: one path the target file system could not hold ended the restore at once, 0 of 3
        // stored files restored. Here a file name and a directory name over NAME_MAX (255 bytes).
        String longFile = "f".repeat(300) + ".txt";
        String longDir = "d".repeat(300) + "/in.txt";
        Manifest m = manifest(stored("ok.txt", "ok"), stored(longFile, "long file"), stored(longDir, "in"));
        Path target = dir.resolve("out");

        RestoreRunner.Result r = restore(m, target, false);

        assertThat(r.restored()).isEqualTo(1);
        assertThat(target.resolve("ok.txt")).hasContent("ok");
        assertThat(r.failed()).extracting(BackupRunner.Failure::path).containsExactlyInAnyOrder(longFile, longDir);
        assertThat(r.failed()).allSatisfy(f -> assertThat(f.reason()).contains("File name too long"));
        assertThat(r.damagedCopies()).isZero();
        try (Stream<Path> all = Files.walk(target)) {
            assertThat(all.filter(Files::isRegularFile).map(p -> p.getFileName().toString()))
                    .containsExactly("ok.txt"); // no temporary file left beside the long name
        }
    }

    @Test
    void aLinkInTheTargetPointingOutsideGetsNothingCreatedBeyondIt() throws IOException {
        Manifest m = manifest(stored("a/b/deep.txt", "deep"), stored("a/top.txt", "top"), stored("c/ok.txt", "ok"));
        Path target = Files.createDirectories(dir.resolve("out"));
        Path outside = Files.createDirectories(dir.resolve("outside"));
        Files.createSymbolicLink(target.resolve("a"), outside);

        RestoreRunner.Result r = restore(m, target, false);

        assertThat(r.restored()).isEqualTo(1);
        assertThat(target.resolve("c/ok.txt")).hasContent("ok");
        assertThat(r.failed())
                .extracting(BackupRunner.Failure::path)
                .containsExactlyInAnyOrder("a/b/deep.txt", "a/top.txt");
        try (Stream<Path> all = Files.walk(outside)) {
            assertThat(all).as("nothing created outside the target").containsExactly(outside);
        }
    }

    @Test
    void temporaryFilesOfAKilledRestoreAreRemovedWhenItIsRunAgainAndNoUserFileEver() throws IOException {
        Manifest m = manifest(stored("d/f.txt", "restored"), stored("g.txt", "also"));
        Path out = dir.resolve("out");
        Path records = dir.resolve("cache/restores");
        Files.createDirectories(records);
        Path target = Files.createDirectories(out.resolve("d"));
        // A run killed with kill -9 left its record and two temporary files.
        String killed = "00112233aabbccdd";
        Files.write(records.resolve(killed), Names.bytes(out.toAbsolutePath().normalize()));
        Files.writeString(target.resolve(".ballast-" + killed + "-1"), "partial");
        Files.writeString(out.resolve(".ballast-" + killed + "-2"), "partial");
        // A run killed into another target: its record stays.
        Files.write(records.resolve("ffffffffffffffff"), Names.bytes(dir.resolve("elsewhere")));
        // The user's own files, one named as temporary files were named before (".ballast-" and 16 hex digits).
        Files.writeString(out.resolve(".ballast-notes"), "the user's own file");
        Files.writeString(target.resolve(".ballast-0123456789abcdef"), "the user's own file too");
        Files.writeString(out.resolve(".ballast-" + "0123456789abcdef" + "-1"), "and this");

        RestoreRunner.Result r = new RestoreRunner(
                        store, m, out, false, 4, new Cancellation(), x -> new ProgressCounter(0, 0))
                .recordingTemporariesIn(records)
                .run();

        assertThat(r.ok()).isTrue();
        try (Stream<Path> all = Files.walk(out)) {
            assertThat(all.filter(Files::isRegularFile)
                            .map(p -> out.relativize(p).toString()))
                    .containsExactlyInAnyOrder(
                            "d/f.txt",
                            "g.txt",
                            ".ballast-notes",
                            "d/.ballast-0123456789abcdef",
                            ".ballast-0123456789abcdef-1");
        }
        try (Stream<Path> left = Files.list(records)) {
            assertThat(left.map(p -> p.getFileName().toString()))
                    .as("the killed run's record is gone, as is this run's; the other target's stays")
                    .containsExactly("ffffffffffffffff");
        }
    }

    @Test
    void temporaryFilesOfARestoreStillRunningIntoTheSameTargetAreLeftAlone() throws IOException {
        // Field input: a second restore into one target deleted the first one's temporary files, and the
        // first failed them as "could not be written (no such file or directory)"
        Manifest m = manifest(stored("d/f.txt", "restored"));
        Path out = dir.resolve("out");
        Path records = Files.createDirectories(dir.resolve("cache/restores"));
        Path d = Files.createDirectories(out.resolve("d"));
        String running = "4455667788990011";
        Path record = records.resolve(running);
        Files.write(record, Names.bytes(out.toAbsolutePath().normalize()));
        Path writing = d.resolve(".ballast-" + running + "-1");
        Files.writeString(writing, "being written");
        try (java.nio.channels.FileChannel c =
                        java.nio.channels.FileChannel.open(record, java.nio.file.StandardOpenOption.WRITE);
                java.nio.channels.FileLock held = c.lock()) {
            RestoreRunner.Result r = new RestoreRunner(
                            store, m, out, false, 4, new Cancellation(), x -> new ProgressCounter(0, 0))
                    .recordingTemporariesIn(records)
                    .run();

            assertThat(r.ok()).isTrue();
            assertThat(writing).hasContent("being written");
            assertThat(record).exists();
        }
        // once that run is gone (its lock released, as at its death), the next run removes what it left
        RestoreRunner.Result again = new RestoreRunner(
                        store, m, out, true, 4, new Cancellation(), x -> new ProgressCounter(0, 0))
                .recordingTemporariesIn(records)
                .run();
        assertThat(again.ok()).isTrue();
        assertThat(writing).doesNotExist();
        assertThat(record).doesNotExist();
    }

    /**
     * Field input (as a user other than root): a folder of mode 555 an earlier restore made could never
     * receive a file again: every later restore that had to write into it failed with "permission
     * denied" and advised running it again.
     */
    @Test
    void aReadOnlyFolderAnEarlierRestoreMadeIsOpenedForTheRunAndGetsItsModeBack() throws IOException {
        org.junit.jupiter.api.Assumptions.assumeFalse(
                "root".equals(System.getProperty("user.name")), "root writes into any folder");
        Path out = dir.resolve("out");
        Path ro = Files.createDirectories(out.resolve("ro/deep"));
        Files.writeString(ro.resolve("old.txt"), "old");
        Files.setPosixFilePermissions(ro, java.nio.file.attribute.PosixFilePermissions.fromString("r-xr-xr-x"));
        Files.setPosixFilePermissions(
                ro.getParent(), java.nio.file.attribute.PosixFilePermissions.fromString("r-xr-xr-x"));
        try {
            Manifest m = manifest(stored("ro/deep/f.txt", "restored"), stored("ro/big", "big"));
            RestoreRunner.Result r = new RestoreRunner(
                            store, m, out, false, 4, new Cancellation(), x -> new ProgressCounter(0, 0))
                    .run();
            assertThat(r.failed()).isEmpty();
            assertThat(ro.resolve("f.txt")).hasContent("restored");
            assertThat(out.resolve("ro/big")).hasContent("big");
            // not directories of this manifest: their permissions as they were
            assertThat(java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(ro)))
                    .isEqualTo("r-xr-xr-x");
        } finally {
            Files.setPosixFilePermissions(ro, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
            Files.setPosixFilePermissions(
                    ro.getParent(), java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        }
    }

    /**
     * Field input: a full restore killed with kill -9, then a restore of a selection (one folder) into the
     * same target, then the full restore again: the selection's run removed the killed run's record though
     * it cleaned only its own folder, and a temporary file in another folder stayed in the tree for good.
     */
    @Test
    void aRunThatWritesToFewerDirectoriesThanAKilledOneStillRemovesAllItsTemporaryFiles() throws IOException {
        Manifest m = manifest(stored("a/f.txt", "restored"));
        Path out = dir.resolve("out");
        Path records = Files.createDirectories(dir.resolve("cache/restores"));
        String killed = "00112233aabbccdd";
        Files.write(records.resolve(killed), Names.bytes(out.toAbsolutePath().normalize()));
        Path elsewhere = Files.createDirectories(out.resolve("c/deeper"));
        Files.writeString(elsewhere.resolve(".ballast-" + killed + "-120f"), "partial");
        Files.writeString(elsewhere.resolve("kept.txt"), "the user's");

        RestoreRunner.Result r = new RestoreRunner(
                        store, m, out, false, 4, new Cancellation(), x -> new ProgressCounter(0, 0))
                .recordingTemporariesIn(records)
                .run();

        assertThat(r.ok()).isTrue();
        try (Stream<Path> all = Files.walk(out)) {
            assertThat(all.filter(Files::isRegularFile)
                            .map(p -> out.relativize(p).toString()))
                    .containsExactlyInAnyOrder("a/f.txt", "c/deeper/kept.txt");
        }
        try (Stream<Path> left = Files.list(records)) {
            assertThat(left).isEmpty();
        }
    }

    /**
     * Field case: kill -9 while a restore of a JDK tree made its symbolic links left a temporary link
     * in a folder that holds only links ({@code conf/security/policy/unlimited}); the run again said
     * complete, every file already present, and left it there for good.
     */
    @Test
    void aKilledRunsTemporaryLinkInAFolderOfLinksOnlyIsRemovedByARunAgain() throws IOException {
        ManifestEntry file = stored("conf/a.txt", "a");
        Manifest m = withTree(
                List.of(file),
                new ManifestTree(
                        List.of(new ManifestTree.Directory("conf/links", MTIME, null)),
                        List.of(new ManifestTree.Symlink("conf/links/policy", "../a.txt", MTIME, null)),
                        List.of()));
        Path out = dir.resolve("out");
        Path records = Files.createDirectories(dir.resolve("cache/restores"));
        RestoreRunner.Result first = new RestoreRunner(
                        store, m, out, false, 4, new Cancellation(), x -> new ProgressCounter(0, 0))
                .recordingTemporariesIn(records)
                .run();
        assertThat(first.ok()).isTrue();
        String killed = "0123456789abcdef";
        Files.write(records.resolve(killed), Names.bytes(out.toAbsolutePath().normalize()));
        Path leftover = out.resolve("conf/links/.ballast-" + killed + "-e1");
        Files.createSymbolicLink(leftover, Path.of("../a.txt"));

        RestoreRunner.Result again = new RestoreRunner(
                        store, m, out, false, 4, new Cancellation(), x -> new ProgressCounter(0, 0))
                .recordingTemporariesIn(records)
                .run();

        assertThat(again.ok()).isTrue();
        assertThat(again.alreadyPresent()).isEqualTo(1);
        assertThat(leftover).doesNotExist();
        assertThat(Files.readSymbolicLink(out.resolve("conf/links/policy"))).isEqualTo(Path.of("../a.txt"));
    }

    @Test
    void anIdenticalExistingFileIsLeftAsItIs() throws IOException {
        Manifest m = manifest(stored("f.txt", "same"));
        Path target = Files.createDirectories(dir.resolve("out"));
        Files.writeString(target.resolve("f.txt"), "same");
        RestoreRunner.Result r = restore(m, target, false);
        assertThat(r.alreadyPresent()).isEqualTo(1);
        assertThat(r.restored()).isZero();
    }

    @Test
    void bytesThatDoNotMatchTheManifestAreNeverRenamedIntoPlace() throws IOException {
        Manifest m = manifest(stored("f.txt", "payload"));
        store.rot("n/f.txt");
        Path target = dir.resolve("out");
        RestoreRunner.Result r = restore(m, target, false);
        assertThat(r.ok()).isFalse();
        assertThat(r.failed())
                .singleElement()
                .satisfies(f -> assertThat(f.reason()).contains("SHA-256"));
        try (Stream<Path> all = Files.list(target)) {
            assertThat(all).isEmpty();
        }
    }

    @Test
    void ctrlCWhileAFileIsWrittenStopsItAtOnceAndLeavesNoTemporaryFile() throws IOException {
        Cancellation cancel = new Cancellation();
        byte[] big = new byte[1024 * 1024];
        new java.util.Random(5).nextBytes(big);
        FakeObjectStore cancelling = new FakeObjectStore(FakeObjectStore.CAPABILITIES, new FakeTime()) {
            @Override
            public synchronized dev.ballast.storage.object.ObjectRead get(
                    String key, dev.ballast.storage.object.ReadOptions o) {
                dev.ballast.storage.object.ObjectRead r = super.get(key, o);
                java.io.InputStream in = new java.io.FilterInputStream(r.stream()) {
                    @Override
                    public int read(byte[] b, int off, int len) throws IOException {
                        cancel.cancel(); // Ctrl-C arrives once the first bytes are on their way
                        return super.read(b, off, len);
                    }
                };
                return new dev.ballast.storage.object.ObjectRead(
                        r.version(), in, r.source(), r.freshness(), r.age(), null);
            }
        };
        ObjectVersion v = cancelling.put(Manifest.objectKey("n", "big.bin"), ObjectContent.ofBytes(big));
        ObjectVersion w = cancelling.put(Manifest.objectKey("n", "next.bin"), ObjectContent.ofBytes(big));
        Manifest m = manifest(
                new ManifestEntry("big.bin", big.length, v.sha256(), v.versionId(), MTIME),
                new ManifestEntry("next.bin", big.length, w.sha256(), w.versionId(), MTIME));
        Path target = dir.resolve("out");

        RestoreRunner.Result r =
                new RestoreRunner(cancelling, m, target, false, 1, cancel, x -> new ProgressCounter(0, 0)).run();

        assertThat(r.cancelled()).isTrue();
        assertThat(r.restored()).isZero();
        assertThat(r.failed()).extracting(BackupRunner.Failure::path).containsExactly("big.bin", "next.bin");
        assertThat(r.failed().get(0).reason()).contains("interrupted");
        try (Stream<Path> all = Files.list(target)) {
            assertThat(all)
                    .as("nothing, not even a temporary file, in the target")
                    .isEmpty();
        }
    }

    @Test
    void restoresModesDirectoriesSymlinksAndHardLinksAndDirectoryTimesLast() throws IOException {
        ManifestEntry tool = stored("bin/tool", "#!/bin/sh\n").withAttrs(new PosixAttrs(0750, 0, 0));
        ManifestEntry secret = stored("private/key", "k").withAttrs(new PosixAttrs(0600, 0, 0));
        Instant dirTime = Instant.parse("2024-04-04T04:04:04Z");
        Manifest m = withTree(
                List.of(tool, secret),
                new ManifestTree(
                        List.of(
                                new ManifestTree.Directory("bin", dirTime, new PosixAttrs(0755, 0, 0)),
                                new ManifestTree.Directory("empty", dirTime, new PosixAttrs(0711, 0, 0)),
                                new ManifestTree.Directory("private", dirTime, new PosixAttrs(0500, 0, 0))),
                        List.of(new ManifestTree.Symlink("current", "bin/tool", MTIME, null)),
                        List.of(new ManifestTree.HardLink("bin/tool-link", "bin/tool"))));
        Path target = dir.resolve("out");
        RestoreRunner.Result r = restore(m, target, false);
        assertThat(r.failed()).isEmpty();
        assertThat(java.nio.file.attribute.PosixFilePermissions.toString(
                        Files.getPosixFilePermissions(target.resolve("bin/tool"))))
                .isEqualTo("rwxr-x---");
        assertThat(java.nio.file.attribute.PosixFilePermissions.toString(
                        Files.getPosixFilePermissions(target.resolve("private/key"))))
                .isEqualTo("rw-------");
        assertThat(java.nio.file.attribute.PosixFilePermissions.toString(
                        Files.getPosixFilePermissions(target.resolve("private"))))
                .isEqualTo("r-x------");
        assertThat(target.resolve("empty")).isEmptyDirectory();
        assertThat(Files.getLastModifiedTime(target.resolve("bin")).toInstant()).isEqualTo(dirTime);
        assertThat(Files.getLastModifiedTime(target.resolve("private")).toInstant())
                .isEqualTo(dirTime);
        assertThat(Files.readSymbolicLink(target.resolve("current"))).isEqualTo(Path.of("bin/tool"));
        assertThat(Files.isSameFile(target.resolve("bin/tool"), target.resolve("bin/tool-link")))
                .isTrue();
        Files.setPosixFilePermissions(
                target.resolve("private"), java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
    }

    @Test
    void overwriteReplacesAFileWhereTheBackupHasADirectoryAndNamesADirectoryInTheWayOfAFile() throws IOException {
        // --overwrite chmod'ed a file standing where the backup has a directory, and reported a temporary name.
        ManifestEntry inner = stored("d/inner", "inside");
        ManifestEntry l = stored("l", "a file");
        Instant dirTime = Instant.parse("2024-04-04T04:04:04Z");
        Manifest m = withTree(
                List.of(inner, l),
                new ManifestTree(
                        List.of(new ManifestTree.Directory("d", dirTime, new PosixAttrs(0700, 0, 0))),
                        List.of(),
                        List.of()));
        Path target = dir.resolve("out");
        Files.createDirectories(target.resolve("l"));
        Files.writeString(target.resolve("l/keep.txt"), "mine");
        Files.writeString(target.resolve("d"), "a file where the backup has a directory");
        Files.setPosixFilePermissions(
                target.resolve("d"), java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));

        RestoreRunner.Result r = restore(m, target, true);

        assertThat(target.resolve("d/inner")).hasContent("inside");
        assertThat(Files.getLastModifiedTime(target.resolve("d")).toInstant()).isEqualTo(dirTime);
        assertThat(target.resolve("l/keep.txt")).hasContent("mine");
        assertThat(r.failed()).singleElement().satisfies(f -> {
            assertThat(f.path()).isEqualTo("l");
            assertThat(f.reason())
                    .contains("a directory stands where the backup has this file")
                    .doesNotContain(".ballast-");
        });
        try (Stream<Path> all = Files.walk(target)) {
            assertThat(all.map(p -> p.getFileName().toString())).noneMatch(n -> n.startsWith(".ballast-"));
        }
    }

    @Test
    void overwriteReplacesALinkStandingWhereTheBackupHasADirectoryInsteadOfWritingThroughIt() throws IOException {
        // With a -> e in the target, a's files were written into e and counted as restored.
        ManifestEntry f = stored("a/f", "f");
        ManifestEntry g = stored("a/sub/g", "g");
        Instant dirTime = Instant.parse("2024-04-04T04:04:04Z");
        Manifest m = withTree(
                List.of(f, g),
                new ManifestTree(
                        List.of(
                                new ManifestTree.Directory("a", dirTime, null),
                                new ManifestTree.Directory("a/sub", dirTime, null),
                                new ManifestTree.Directory("e", dirTime, null)),
                        List.of(),
                        List.of()));
        Path target = dir.resolve("out");
        Files.createDirectories(target.resolve("e"));
        Files.createSymbolicLink(target.resolve("a"), Path.of("e"));

        RestoreRunner.Result r = restore(m, target, true);

        assertThat(r.failed()).isEmpty();
        assertThat(target.resolve("a")).isDirectory();
        assertThat(Files.isSymbolicLink(target.resolve("a"))).isFalse();
        assertThat(target.resolve("a/f")).hasContent("f");
        assertThat(target.resolve("a/sub/g")).hasContent("g");
        assertThat(target.resolve("e")).isEmptyDirectory();
    }

    @Test
    void aHardLinkWhoseFirstNameWasNotRestoredSaysSo() throws IOException {
        ManifestEntry b = stored("b", "content");
        Manifest m = withTree(
                List.of(b), new ManifestTree(List.of(), List.of(), List.of(new ManifestTree.HardLink("a", "b"))));
        Path target = dir.resolve("out");
        Files.createDirectories(target.resolve("b"));

        RestoreRunner.Result r = restore(m, target, true);

        assertThat(r.failed()).extracting(BackupRunner.Failure::path).containsExactlyInAnyOrder("a", "b");
        assertThat(r.failed())
                .filteredOn(x -> x.path().equals("a"))
                .singleElement()
                .satisfies(
                        x -> assertThat(x.reason()).contains("'b', the name it is a hard link to, was not restored"));
    }
}
