package dev.ballast.backup.restore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.backup.Cancellation;
import dev.ballast.backup.ProgressCounter;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.ManifestEntry;
import dev.ballast.backup.tree.Names;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.test.FakeObjectStore;
import dev.ballast.testkit.FakeTime;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** A restore into a target that does not exist yet: written beside it, renamed into place once ({@link RestoreStaging}). */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
@ExtendWith(LeakCheck.class)
class RestoreStagingTest {
    static final Instant MTIME = Instant.parse("2025-05-05T05:05:05Z");

    @TempDir
    Path dir;

    /** Runs before each read of a file's stored copy. */
    Consumer<String> beforeEachRead = key -> {};

    final FakeObjectStore store = new FakeObjectStore(FakeObjectStore.CAPABILITIES, new FakeTime()) {
        @Override
        public ObjectRead get(String key, ReadOptions options) {
            beforeEachRead.accept(key);
            return super.get(key, options);
        }
    };

    ManifestEntry stored(String path, String content) {
        byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
        ObjectVersion v = store.put(Manifest.objectKey("n", path), ObjectContent.ofBytes(bytes));
        return new ManifestEntry(path, bytes.length, v.sha256(), v.versionId(), MTIME);
    }

    Manifest manifest() {
        return new Manifest(
                1,
                "n",
                MTIME,
                true,
                List.of(stored("a.txt", "alpha"), stored("d/b.txt", "bravo"), stored("d/e/c.txt", "charlie")),
                List.of());
    }

    Path records() throws IOException {
        return Files.createDirectories(dir.resolve("cache/restores"));
    }

    RestoreRunner runner(Manifest m, Path target, Cancellation cancellation) throws IOException {
        return new RestoreRunner(store, m, target, false, 1, cancellation, x -> new ProgressCounter(0, 0))
                .recordingTemporariesIn(records());
    }

    /**
     * A record as a run that wrote into the hidden directory {@code hidden} leaves it, the directory given
     * the marker that run made: the target, NUL, the secret.
     */
    static byte[] recordOfStaged(Path target, Path hidden) throws IOException {
        String token = hidden.getFileName().toString().substring(9, 25);
        String secret = "0123456789abcdef0123456789abcdef";
        Files.setPosixFilePermissions(hidden, PosixFilePermissions.fromString("rwx------"));
        Files.writeString(hidden.resolve(RestoreStaging.marker(token)), secret);
        byte[] named = Names.bytes(target.toAbsolutePath().normalize());
        byte[] tail = ("\0" + secret).getBytes(StandardCharsets.UTF_8);
        byte[] all = java.util.Arrays.copyOf(named, named.length + tail.length);
        System.arraycopy(tail, 0, all, named.length, tail.length);
        return all;
    }

    List<String> besideTarget() throws IOException {
        try (Stream<Path> all = Files.list(dir)) {
            return all.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    static List<String> filesBelow(Path root) throws IOException {
        try (Stream<Path> all = Files.walk(root)) {
            return all.filter(Files::isRegularFile)
                    .map(p -> root.relativize(p).toString())
                    .sorted()
                    .toList();
        }
    }

    @Test
    void aNewTargetAppearsOnlyOnceItsWholeTreeIsWritten() throws IOException {
        Manifest m = manifest();
        Path target = dir.resolve("out");
        List<String> seen = new ArrayList<>();
        beforeEachRead = key -> {
            try {
                seen.add(Files.exists(target) + " " + besideTarget());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        };

        RestoreRunner.Result r = runner(m, target, new Cancellation()).run();

        assertThat(r.ok()).isTrue();
        assertThat(r.restored()).isEqualTo(3);
        assertThat(seen)
                .hasSize(3)
                .allSatisfy(s -> assertThat(s)
                        .as("while files are written, nothing is at the target's path, only one hidden directory")
                        .matches("false \\[\\.ballast-[0-9a-f]{16}-1, cache]"));
        assertThat(besideTarget()).containsExactly("cache", "out");
        assertThat(filesBelow(target)).containsExactly("a.txt", "d/b.txt", "d/e/c.txt");
        assertThat(target.resolve("d/e/c.txt")).hasContent("charlie");
        assertThat(Files.getLastModifiedTime(target.resolve("d/b.txt")).toInstant())
                .isEqualTo(MTIME);
        try (Stream<Path> left = Files.list(records())) {
            assertThat(left).as("the run's record is gone").isEmpty();
        }
    }

    @Test
    void theHiddenTreeOfAKilledRunIsRemovedByTheNextRunAndNoUserDirectoryEver() throws IOException {
        Manifest m = manifest();
        Path target = dir.resolve("out");
        // A run killed with kill -9 left its record and its hidden directory, one folder in it already given
        // the backup's mode 0500.
        String killed = "00112233aabbccdd";
        Path hidden = Files.createDirectories(dir.resolve(".ballast-" + killed + "-1/d/e"));
        Files.write(records().resolve(killed), recordOfStaged(target, dir.resolve(".ballast-" + killed + "-1")));
        Files.writeString(hidden.resolve("c.txt"), "char");
        Files.setPosixFilePermissions(hidden, PosixFilePermissions.fromString("r-x------"));
        // A folder of the user's named as the run's are, by another token: no record names it.
        Path users = Files.createDirectories(dir.resolve(".ballast-0123456789abcdef-1"));
        Files.writeString(users.resolve("notes"), "the user's own");

        RestoreRunner.Result r = runner(m, target, new Cancellation()).run();

        assertThat(r.ok()).isTrue();
        assertThat(besideTarget()).containsExactly(".ballast-0123456789abcdef-1", "cache", "out");
        assertThat(users.resolve("notes")).hasContent("the user's own");
        assertThat(filesBelow(target)).containsExactly("a.txt", "d/b.txt", "d/e/c.txt");
        try (Stream<Path> left = Files.list(records())) {
            assertThat(left)
                    .as("the killed run's record is gone, as is this run's")
                    .isEmpty();
        }
    }

    @Test
    void aTargetMadeWhileTheRunWroteIsNeitherReplacedNorMergedAndTheTreeIsKeptWhereTheMessageSays() throws IOException {
        Manifest m = manifest();
        Path target = dir.resolve("out");
        beforeEachRead = key -> {
            try {
                if (!Files.exists(target)) {
                    Files.createDirectories(target);
                    Files.writeString(target.resolve("theirs.txt"), "another program's");
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        };

        RestoreRunner.Result r = runner(m, target, new Cancellation()).run();

        assertThat(r.ok()).isFalse();
        assertThat(r.restored()).isEqualTo(3);
        assertThat(r.notPlaced())
                .matches("The restore wrote its files into '.*/\\.ballast-[0-9a-f]{16}-1' but did not rename it to"
                        + " '.*/out' \\(something was put there while the restore ran; it was neither replaced nor"
                        + " merged into\\); move it there yourself, .*");
        assertThat(filesBelow(target)).containsExactly("theirs.txt");
        List<String> beside = besideTarget();
        assertThat(beside).hasSize(3);
        Path kept = dir.resolve(beside.get(0));
        assertThat(filesBelow(kept)).containsExactly("a.txt", "d/b.txt", "d/e/c.txt");
        // no record is left, so no later run into the same target takes the tree away
        try (Stream<Path> left = Files.list(records())) {
            assertThat(left).isEmpty();
        }
        beforeEachRead = key -> {};
        Path elsewhere = dir.resolve("again");
        assertThat(runner(m, elsewhere, new Cancellation()).run().ok()).isTrue();
        assertThat(filesBelow(kept)).hasSize(3);
    }

    @Test
    void aCancelledRunPutsTheFilesItCompletedAtTheTargetAndNothingHalfWritten() throws IOException {
        Manifest m = manifest();
        Path target = dir.resolve("out");
        Cancellation cancellation = new Cancellation();
        int[] reads = new int[1];
        beforeEachRead = key -> {
            if (++reads[0] == 2) {
                cancellation.cancel();
            }
        };

        RestoreRunner.Result r = runner(m, target, cancellation).run();

        assertThat(r.cancelled()).isTrue();
        assertThat(besideTarget()).containsExactly("cache", "out");
        List<String> written = filesBelow(target);
        assertThat(written)
                .as("the file read first, whole; the one read when it was cancelled not at all")
                .hasSize(1);
        assertThat(target.resolve(written.get(0)))
                .hasContent(m.files().stream()
                        .filter(f -> f.path().equals(written.get(0)))
                        .map(f -> f.path().equals("a.txt") ? "alpha" : f.path().equals("d/b.txt") ? "bravo" : "charlie")
                        .findFirst()
                        .orElseThrow());
    }

    @Test
    void aTargetThatExistsIsWrittenInPlace() throws IOException {
        Manifest m = manifest();
        Path target = Files.createDirectories(dir.resolve("out"));
        List<Boolean> targetHadFiles = new ArrayList<>();
        beforeEachRead = key -> {
            try (Stream<Path> in = Files.list(target)) {
                targetHadFiles.add(in.findAny().isPresent());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        };

        RestoreRunner.Result r = runner(m, target, new Cancellation()).run();

        assertThat(r.ok()).isTrue();
        assertThat(targetHadFiles)
                .as("the files' directories are made in the target first")
                .containsOnly(true);
        assertThat(besideTarget()).containsExactly("cache", "out");
        assertThat(filesBelow(target)).containsExactly("a.txt", "d/b.txt", "d/e/c.txt");
    }

    /**
     * A fault tester's: the hidden directory moved away and a link to another directory put at its name
     * during the end sync was renamed to the target, and the restore said complete (exit 0).
     */
    @Test
    void aHiddenDirectoryReplacedWhileTheRunWroteIsNotPutAtTheTarget() throws IOException {
        Manifest m = manifest();
        Path target = dir.resolve("out");
        Path theirs = Files.createDirectories(dir.resolve("theirs"));
        Path moved = dir.resolve("moved");
        int[] reads = new int[1];
        beforeEachRead = key -> {
            if (++reads[0] == 3) {
                try (Stream<Path> beside = Files.list(dir)) {
                    Path hidden = beside.filter(p -> p.getFileName().toString().startsWith(".ballast-"))
                            .findFirst()
                            .orElseThrow();
                    Files.move(hidden, moved);
                    Files.createSymbolicLink(hidden, theirs);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        };

        RestoreRunner.Result r = runner(m, target, new Cancellation()).run();

        assertThat(r.ok()).isFalse();
        assertThat(r.notPlaced()).contains("was moved or replaced while the restore ran, so nothing was put at");
        assertThat(target).doesNotExist();
        try (Stream<Path> in = Files.list(theirs)) {
            assertThat(in).as("nothing written through the link").isEmpty();
        }
    }

    /** A tester's: an empty directory of mode 0700 made at the target during the restore was replaced. */
    @Test
    void anEmptyDirectoryMadeAtTheTargetWhileTheRunWroteIsNotReplaced() throws IOException {
        Manifest m = manifest();
        Path target = dir.resolve("out");
        beforeEachRead = key -> {
            try {
                if (!Files.exists(target)) {
                    Files.createDirectory(target);
                    Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwx------"));
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        };

        RestoreRunner.Result r = runner(m, target, new Cancellation()).run();

        assertThat(r.notPlaced()).contains("something was put there while the restore ran");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(target)))
                .isEqualTo("rwx------");
        try (Stream<Path> in = Files.list(target)) {
            assertThat(in).isEmpty();
        }
    }

    /**
     * A fault tester's, with the rename held up ({@code strace -e inject=rename:delay_enter}): a directory of
     * mode 0700 made at the target after the run had looked and before it renamed was replaced, and the
     * restore said complete. The run takes the target's name first, so such a directory cannot be made.
     */
    @Test
    void aDirectoryMadeAtTheTargetRightBeforeTheRenameCannotBeMadeAndIsNeverReplaced() throws IOException {
        Manifest m = manifest();
        Path target = dir.resolve("out");
        List<String> tried = new ArrayList<>();
        RestoreRunner runner = runner(m, target, new Cancellation()).beforeRenamingIntoPlace(() -> {
            try {
                Files.createDirectory(target);
                tried.add("made");
            } catch (java.nio.file.FileAlreadyExistsException e) {
                tried.add("refused");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });

        RestoreRunner.Result r = runner.run();

        assertThat(tried).as("the user's mkdir finds the name taken").containsExactly("refused");
        assertThat(r.ok()).isTrue();
        assertThat(filesBelow(target)).containsExactly("a.txt", "d/b.txt", "d/e/c.txt");
    }

    /**
     * A fault tester's {@code kill -9} between the marker's removal and the rename left a hidden tree no
     * later run removed (it had no marker). Up to the rename the hidden directory holds its marker and is
     * this user's alone, what the next run's removal asks of it ({@link RestoreStaging#removeLeftover});
     * after it, the target holds neither.
     */
    @Test
    void untilTheRenameTheHiddenDirectoryKeepsWhatTheNextRunFindsItBy() throws IOException {
        Manifest m = manifest();
        Path target = dir.resolve("out");
        List<String> seen = new ArrayList<>();
        RestoreRunner runner = runner(m, target, new Cancellation()).beforeRenamingIntoPlace(() -> {
            try (Stream<Path> beside = Files.list(dir)) {
                Path hidden = beside.filter(p -> p.getFileName().toString().matches("\\.ballast-[0-9a-f]{16}-1"))
                        .findFirst()
                        .orElseThrow();
                String token = hidden.getFileName().toString().substring(9, 25);
                seen.add(PosixFilePermissions.toString(Files.getPosixFilePermissions(hidden)) + " "
                        + Files.readString(hidden.resolve(RestoreStaging.marker(token)))
                                .length());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });

        RestoreRunner.Result r = runner.run();

        assertThat(r.ok()).isTrue();
        assertThat(seen).containsExactly("rwx------ 32");
        assertThat(filesBelow(target)).containsExactly("a.txt", "d/b.txt", "d/e/c.txt");
        try (Stream<Path> in = Files.list(target)) {
            assertThat(in.map(p -> p.getFileName().toString())).noneMatch(n -> n.startsWith(".ballast-"));
        }
    }

    /**
     * A fault tester's kill at the chmod right after the hidden directory was made, before the run wrote
     * its secret into its record: the empty directory stayed beside the target through every later run.
     * The next run removes it, as an empty directory only.
     */
    @Test
    void anEmptyHiddenDirectoryOfARunKilledBeforeItsSecretIsRemovedByTheNextRun() throws IOException {
        Manifest m = manifest();
        Path target = dir.resolve("out");
        String killed = "00112233aabbccdd";
        Files.createDirectories(dir.resolve(".ballast-" + killed + "-1"));
        Files.write(
                records().resolve(killed), Names.bytes(target.toAbsolutePath().normalize()));
        String other = "8899aabbccddeeff";
        Path notEmpty = Files.createDirectories(dir.resolve(".ballast-" + other + "-1"));
        Files.writeString(notEmpty.resolve("notes"), "someone's");
        Files.write(
                records().resolve(other), Names.bytes(target.toAbsolutePath().normalize()));

        assertThat(runner(m, target, new Cancellation()).run().ok()).isTrue();

        assertThat(besideTarget()).containsExactly(".ballast-" + other + "-1", "cache", "out");
        assertThat(notEmpty.resolve("notes")).hasContent("someone's");
        assertThat(filesBelow(target)).containsExactly("a.txt", "d/b.txt", "d/e/c.txt");
    }

    /**
     * A fault tester's: a record another user could write (mode 0666), naming the target, had the next run
     * delete a file of the target's named as a temporary of that record's run, and an empty directory
     * beside it. Only this user's records, writable by no one else, are acted on.
     */
    @Test
    void aRecordAnotherUserCouldWriteIsNeverActedOn() throws IOException {
        Manifest m = manifest();
        Path target = dir.resolve("out");
        assertThat(runner(m, target, new Cancellation()).run().ok()).isTrue();
        String planted = "1234567890abcdef";
        Path record = records().resolve(planted);
        Files.write(record, Names.bytes(target.toAbsolutePath().normalize()));
        Files.setPosixFilePermissions(record, PosixFilePermissions.fromString("rw-rw-rw-"));
        Path precious = target.resolve(".ballast-" + planted + "-5");
        Files.writeString(precious, "precious");
        Path empty = Files.createDirectories(dir.resolve(".ballast-" + planted + "-1"));

        assertThat(runner(m, target, new Cancellation()).run().ok()).isTrue();

        assertThat(precious).hasContent("precious");
        assertThat(empty).isDirectory();
        assertThat(record).exists();
    }

    /**
     * A run killed right after its rename, before it removed its marker, leaves that marker in the
     * restored tree: the next restore into the target removes it (its record names the secret), and no
     * file of that shape that no record's secret is in.
     */
    @Test
    void aMarkerLeftInTheTargetByARunKilledAfterItsRenameIsRemovedByTheNextRun() throws IOException {
        Manifest m = manifest();
        Path target = dir.resolve("out");
        assertThat(runner(m, target, new Cancellation()).run().ok()).isTrue();
        String killed = "00112233aabbccdd";
        Path hidden = Files.createDirectories(dir.resolve(".ballast-" + killed + "-1"));
        byte[] record = recordOfStaged(target, hidden);
        Files.move(hidden.resolve(RestoreStaging.marker(killed)), target.resolve(RestoreStaging.marker(killed)));
        Files.delete(hidden);
        Files.write(records().resolve(killed), record);
        Path notOfARun = target.resolve(RestoreStaging.marker("ffeeddccbbaa9988"));
        Files.writeString(notOfARun, "0123456789abcdef0123456789abcdef");

        assertThat(runner(m, target, new Cancellation()).run().ok()).isTrue();

        assertThat(target.resolve(RestoreStaging.marker(killed))).doesNotExist();
        assertThat(notOfARun).hasContent("0123456789abcdef0123456789abcdef");
        assertThat(filesBelow(target))
                .containsExactly(".ballast-ffeeddccbbaa9988-key", "a.txt", "d/b.txt", "d/e/c.txt");
        try (Stream<Path> left = Files.list(records())) {
            assertThat(left).isEmpty();
        }
    }

    /**
     * A tester's (as root, the backup's directories owned by another user): a directory of a killed
     * run's hidden tree swapped for a link to a directory of root's while the next run removed the tree;
     * root's files were deleted through it. A link in the tree is removed, never followed.
     */
    @Test
    void removingAKilledRunsHiddenTreeNeverFollowsALinkInIt() throws IOException {
        Manifest m = manifest();
        Path target = dir.resolve("out");
        String killed = "00112233aabbccdd";
        Path victim = Files.createDirectories(dir.resolve("victim"));
        Files.writeString(victim.resolve("keep.txt"), "not the restore's");
        Path hidden = Files.createDirectories(dir.resolve(".ballast-" + killed + "-1/evil"));
        Files.write(records().resolve(killed), recordOfStaged(target, hidden.getParent()));
        Files.createSymbolicLink(hidden.resolve("inner"), victim);
        Files.createSymbolicLink(hidden.getParent().resolve("top"), victim);

        RestoreRunner.Result r = runner(m, target, new Cancellation()).run();

        assertThat(r.ok()).isTrue();
        assertThat(victim.resolve("keep.txt")).hasContent("not the restore's");
        assertThat(besideTarget()).containsExactly("cache", "out", "victim");
    }

    /**
     * A fault tester's: the records were 0644 under umask 022 (another user read a run's secret) and their
     * directory 0775 under umask 002 (another user planted a record of their own).
     */
    @Test
    void theRecordsAreThisUsersAloneAndTheTargetGetsTheModeTheUmaskGives() throws IOException {
        Manifest m = manifest();
        Path target = dir.resolve("out");
        Files.createDirectories(records());
        Files.setPosixFilePermissions(records(), PosixFilePermissions.fromString("rwxrwxr-x"));
        List<String> seen = new ArrayList<>();
        beforeEachRead = key -> {
            try (Stream<Path> in = Files.list(records())) {
                for (Path r : in.toList()) {
                    seen.add(PosixFilePermissions.toString(Files.getPosixFilePermissions(records())) + " "
                            + PosixFilePermissions.toString(Files.getPosixFilePermissions(r)));
                }
                try (Stream<Path> beside = Files.list(dir)) {
                    for (Path h : beside.filter(p -> p.getFileName().toString().startsWith(".ballast-"))
                            .toList()) {
                        seen.add("hidden " + PosixFilePermissions.toString(Files.getPosixFilePermissions(h)));
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        };
        Path sibling = Files.createDirectory(dir.resolve("made-with-the-umask"));

        assertThat(runner(m, target, new Cancellation()).run().ok()).isTrue();

        assertThat(seen).contains("rwx------ rw-------", "hidden rwx------");
        assertThat(Files.getPosixFilePermissions(target)).isEqualTo(Files.getPosixFilePermissions(sibling));
    }
}
