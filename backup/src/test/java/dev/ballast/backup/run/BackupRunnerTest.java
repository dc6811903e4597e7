package dev.ballast.backup.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.backup.BackupException;
import dev.ballast.backup.Cancellation;
import dev.ballast.backup.ProgressCounter;
import dev.ballast.backup.restore.RestoreRunner;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.ManifestEntry;
import dev.ballast.backup.snapshot.ManifestTree;
import dev.ballast.backup.tree.FileStat;
import dev.ballast.backup.tree.Glob;
import dev.ballast.backup.tree.Names;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.internal.Sha256;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.test.FakeObjectStore;
import dev.ballast.testkit.FakeTime;
import dev.ballast.testkit.LeakCheck;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
@ExtendWith(LeakCheck.class)
class BackupRunnerTest {
    /** Runs start a minute after the files were written, so their stat is trusted next time. */
    static final Clock CLOCK = Clock.offset(Clock.systemUTC(), Duration.ofMinutes(1));

    @TempDir
    Path src;

    final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    final PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);

    @BeforeEach
    void tree() throws IOException {
        Files.createDirectories(src.resolve("a b/ü+x"));
        Files.writeString(src.resolve("a b/ü+x/f.txt"), "hello");
        Files.write(src.resolve("empty"), new byte[0]);
        Files.writeString(src.resolve("z.txt"), "zzz");
    }

    /** One file at a time, in path order, so that the order of puts is part of what is checked. */
    BackupRunner.Result backup(FakeObjectStore store, Cancellation cancel, Consumer<String> onStored) {
        return backup(store, new BackupRunner.Settings(false, 1, false), CLOCK, cancel, onStored);
    }

    BackupRunner.Result backup(
            FakeObjectStore store,
            BackupRunner.Settings settings,
            Clock clock,
            Cancellation cancel,
            Consumer<String> onStored) {
        return runnerOf(store, src, settings, clock, cancel, onStored).run();
    }

    BackupRunner runnerOf(
            FakeObjectStore store,
            Path source,
            BackupRunner.Settings settings,
            Clock clock,
            Cancellation cancel,
            Consumer<String> onStored) {
        return new BackupRunner(
                store,
                "n",
                source,
                settings,
                cancel,
                clock,
                err::println,
                () -> new ProgressCounter(0, 0),
                Duration.ofSeconds(5),
                onStored);
    }

    Manifest manifest(FakeObjectStore store) {
        return Manifest.parse(store.get(Manifest.key("n")).readAllBytes(), "test");
    }

    @Test
    void aFileWhoseBackupRanOutOfHeapIsAFailureNeverLeftOutOfACompleteSnapshot() {
        // Field case (CI, CliLargeSparseFileIT): a backup held to -Xmx128m ran out of heap on its one file;
        // the error ended the file's task unrecorded, and the run said complete (exit 0) with a snapshot of
        // no files, which the restore then restored.
        FakeObjectStore store = new FakeObjectStore(FakeObjectStore.CAPABILITIES, new FakeTime()) {
            @Override
            public java.util.concurrent.CompletableFuture<ObjectVersion> putAsync(String key, ObjectContent content) {
                if (key.endsWith("z.txt")) {
                    throw new OutOfMemoryError("Java heap space");
                }
                return super.putAsync(key, content);
            }
        };

        BackupRunner.Result r = backup(store, new Cancellation(), p -> {});

        assertThat(r.failed())
                .extracting(BackupRunner.Failure::path, BackupRunner.Failure::reason)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(
                                "z.txt",
                                "it could not be stored (Java heap space: the JVM's maximum heap is too small; raise the JVM's -Xmx)"));
        assertThat(r.stored()).isEqualTo(2);
        assertThat(manifest(store).notStored()).containsExactly("z.txt");
    }

    @Test
    void aFileWhoseNameIsNotUtf8IsKeptUnchangedByTheNextBackup() throws IOException {
        // Its version is stored under .ballast-names/ (Manifest.keyFor): the check for versions the store lost
        // looked for it under its plain key, reported it lost and stored it again on every backup.
        org.junit.jupiter.api.Assumptions.assumeTrue(Names.exact(), "names as bytes");
        byte[] latin1 = {'n', (byte) 0xE9, '.', 't', 'x', 't'};
        Files.writeString(src.resolve(Names.path(Names.decode(latin1))), "latin-1 name");
        FakeObjectStore store = new FakeObjectStore(FakeObjectStore.CAPABILITIES, new FakeTime());

        BackupRunner.Result first = backup(store, new Cancellation(), p -> {});
        BackupRunner.Result second = backup(store, new Cancellation(), p -> {});

        assertThat(first.stored()).isEqualTo(4);
        assertThat(second.stored()).as("%s", second).isZero();
        assertThat(second.unchanged()).isEqualTo(4);
        // Nor is its stored version reported lost.
        assertThat(errBytes.toString(StandardCharsets.UTF_8)).doesNotContain("lost");
    }

    @Test
    void aStatIsTheSameOnlyWhenSizeTimesAndInodeAllAre() {
        Instant t = Instant.parse("2026-01-01T00:00:00Z");
        ManifestEntry recorded = new ManifestEntry("a", 5, "b".repeat(64), "v1", t, t.plusSeconds(1), 42L);
        assertThat(new FileStat(5, t, t.plusSeconds(1), 42L).sameAs(recorded)).isTrue();
        assertThat(new FileStat(6, t, t.plusSeconds(1), 42L).sameAs(recorded)).isFalse();
        assertThat(new FileStat(5, t.plusNanos(1), t.plusSeconds(1), 42L).sameAs(recorded))
                .isFalse();
        assertThat(new FileStat(5, t, t.plusSeconds(2), 42L).sameAs(recorded)).isFalse();
        assertThat(new FileStat(5, t, t.plusSeconds(1), 43L).sameAs(recorded)).isFalse();
        assertThat(new FileStat(5, t, t.plusSeconds(1), 42L).sameAs(null)).isFalse();
        assertThat(new FileStat(5, t, t.plusSeconds(1), 42L).sameAs(new ManifestEntry("a", 5, "b".repeat(64), "v1", t)))
                .as("an entry without ctime (an earlier format, or not trusted) never proves a file unchanged")
                .isFalse();
    }

    @Test
    void firstRunStoresEveryFileAndWritesACompleteManifest() {
        FakeObjectStore store = new FakeObjectStore(FakeObjectStore.CAPABILITIES, new FakeTime());
        BackupRunner.Result r = backup(store, new Cancellation(), p -> {});
        assertThat(r.ok()).isTrue();
        assertThat(r.stored()).isEqualTo(3);
        assertThat(store.keysPut())
                .containsExactly("n/a b/ü+x/f.txt", "n/empty", "n/z.txt", "n/.ballast-manifest.json");
        Manifest m = manifest(store);
        assertThat(m.complete()).isTrue();
        assertThat(m.files()).extracting(ManifestEntry::path).containsExactly("a b/ü+x/f.txt", "empty", "z.txt");
        assertThat(m.files().get(0).sha256())
                .isEqualTo(Sha256.hex(Sha256.of("hello".getBytes(StandardCharsets.UTF_8))));
        assertThat(m.files().get(0).versionId())
                .isEqualTo(store.versions("n/a b/ü+x/f.txt").get(0).versionId());
    }

    BackupRunner runnerOf(FakeObjectStore store, Path source) {
        return runnerOf(store, source, new BackupRunner.Settings(false, 1, false), CLOCK, new Cancellation(), p -> {});
    }

    @Test
    void aNameTakenFromTheDirectoryIsNotMadeTheHistoryOfAnotherDirectoryWithTheSameBaseName(@TempDir Path other)
            throws IOException {
        // /a/src and /b/src are both 'src' by default: a backup of the second became the newest of the first.
        Files.writeString(other.resolve("only.txt"), "other tree");
        FakeObjectStore store = new FakeObjectStore(FakeObjectStore.CAPABILITIES, new FakeTime());
        assertThat(runnerOf(store, src).nameFromDirectory().run().ok()).isTrue();
        assertThat(manifest(store).source()).isEqualTo(src.toString());
        store.forgetRecordedKeys();

        assertThatThrownBy(() -> runnerOf(store, other).nameFromDirectory().run())
                .isInstanceOfSatisfying(
                        BackupException.class, f -> assertThat(f.kind()).isEqualTo(BackupException.Kind.INVALID_INPUT))
                .hasMessageContaining("holds backups of " + src + ", not of " + other)
                .hasMessageContaining("under a name of its own");
        assertThat(store.keysPut()).as("nothing stored").isEmpty();
        assertThat(manifest(store).source()).isEqualTo(src.toString());

        // Named on purpose (a directory that moved): allowed, and said.
        assertThat(runnerOf(store, other).run().ok()).isTrue();
        assertThat(manifest(store).source()).isEqualTo(other.toString());
        assertThat(errBytes.toString(StandardCharsets.UTF_8)).contains("'n' last backed up " + src);
    }

    @Test
    void ctrlCStopsAFileInTheMiddleInsteadOfWaitingForItsEnd() throws Exception {
        // Ctrl-C during a large file waited for the whole file, past the 30 s the shutdown hook allows,
        // and the command ended without a word or a manifest.
        Files.writeString(src.resolve("big.bin"), "large");
        CountDownLatch started = new CountDownLatch(1);
        FakeObjectStore store = new FakeObjectStore(FakeObjectStore.CAPABILITIES, new FakeTime()) {
            @Override
            public ObjectVersion put(String key, ObjectContent content) {
                if (key.endsWith("big.bin")) {
                    started.countDown();
                    try {
                        new CountDownLatch(1).await(); // a read that ends only when interrupted
                    } catch (InterruptedException e) {
                        throw new UncheckedIOException(new java.nio.channels.ClosedByInterruptException());
                    }
                }
                return super.put(key, content);
            }
        };
        Cancellation cancel = new Cancellation();
        Thread ctrlC = new Thread(() -> {
            try {
                started.await();
            } catch (InterruptedException e) {
                return;
            }
            cancel.cancel();
        });
        ctrlC.start();

        BackupRunner.Result r = backup(store, new BackupRunner.Settings(false, 2, false), CLOCK, cancel, p -> {});
        ctrlC.join();

        assertThat(r.cancelled()).isTrue();
        assertThat(r.notAttempted()).contains("big.bin");
        assertThat(r.failed()).isEmpty();
        assertThat(r.manifestComplete()).isFalse();
        assertThat(manifest(store).files()).extracting(ManifestEntry::path).doesNotContain("big.bin");
    }

    @Test
    void secondRunReadsNoFileAndUploadsNothingButAManifestVersion() {
        FakeObjectStore store = new FakeObjectStore(FakeObjectStore.CAPABILITIES, new FakeTime());
        backup(store, new Cancellation(), p -> {});
        store.forgetRecordedKeys();
        BackupRunner.Result r = backup(store, new Cancellation(), p -> {});
        assertThat(r.ok()).isTrue();
        assertThat(r.stored()).isZero();
        assertThat(r.unchanged()).isEqualTo(3);
        assertThat(r.bytesRead()).as("bytes read from the source").isZero();
        assertThat(store.keysPut()).containsExactly("n/.ballast-manifest.json");
        assertThat(store.versions(Manifest.key("n"))).hasSize(2);
    }

    @Test
    void aFileRewrittenWithItsOldSizeAndMtimeIsFoundByItsCtime() throws IOException {
        FakeObjectStore store = new FakeObjectStore(FakeObjectStore.CAPABILITIES, new FakeTime());
        backup(store, new Cancellation(), p -> {});
        FileTime mtime = Files.getLastModifiedTime(src.resolve("z.txt"));
        Files.writeString(src.resolve("z.txt"), "zzZ");
        Files.setLastModifiedTime(src.resolve("z.txt"), mtime);
        store.forgetRecordedKeys();

        BackupRunner.Result r = backup(store, new Cancellation(), p -> {});

        assertThat(r.stored()).isEqualTo(1);
        assertThat(store.keysPut()).containsExactly("n/z.txt", "n/.ballast-manifest.json");
        assertThat(manifest(store).files())
                .filteredOn(e -> e.path().equals("z.txt"))
                .singleElement()
                .satisfies(e -> assertThat(e.sha256())
                        .isEqualTo(Sha256.hex(Sha256.of("zzZ".getBytes(StandardCharsets.UTF_8)))));
    }

    @Test
    void aTouchedFileIsReadButNotStoredAgain() throws IOException {
        FakeObjectStore store = new FakeObjectStore(FakeObjectStore.CAPABILITIES, new FakeTime());
        backup(store, new Cancellation(), p -> {});
        String versionBefore = store.versions("n/z.txt").get(0).versionId();
        Files.setLastModifiedTime(src.resolve("z.txt"), FileTime.from(Instant.parse("2030-01-01T00:00:00Z")));
        store.forgetRecordedKeys();

        BackupRunner.Result r = backup(store, new Cancellation(), p -> {});

        assertThat(r.bytesRead()).isEqualTo(3);
        assertThat(r.unchanged()).isEqualTo(3);
        assertThat(store.keysPut()).containsExactly("n/.ballast-manifest.json");
        assertThat(manifest(store).files())
                .filteredOn(e -> e.path().equals("z.txt"))
                .singleElement()
                .satisfies(e -> {
                    assertThat(e.versionId()).isEqualTo(versionBefore);
                    assertThat(e.mtime()).isEqualTo(Instant.parse("2030-01-01T00:00:00Z"));
                });
    }

    @Test
    void checksumReadsEveryFileAndStoresOnlyWhatDiffers() {
        FakeObjectStore store = new FakeObjectStore(FakeObjectStore.CAPABILITIES, new FakeTime());
        backup(store, new Cancellation(), p -> {});
        store.forgetRecordedKeys();

        BackupRunner.Result r =
                backup(store, new BackupRunner.Settings(false, 1, true), CLOCK, new Cancellation(), p -> {});

        assertThat(r.bytesRead()).isEqualTo("hello".length() + "zzz".length());
        assertThat(r.unchanged()).isEqualTo(3);
        assertThat(store.keysPut()).containsExactly("n/.ballast-manifest.json");
    }

    @Test
    void aStatTakenTooCloseToItsChangeIsNotTrustedByTheNextRun() {
        FakeObjectStore store = new FakeObjectStore(FakeObjectStore.CAPABILITIES, new FakeTime());
        Clock now = Clock.systemUTC();
        backup(store, new BackupRunner.Settings(false, 1, false), now, new Cancellation(), p -> {});
        assertThat(manifest(store).files())
                .allSatisfy(e -> assertThat(e.ctime()).isNull());
        store.forgetRecordedKeys();

        BackupRunner.Result r =
                backup(store, new BackupRunner.Settings(false, 1, false), CLOCK, new Cancellation(), p -> {});

        assertThat(r.bytesRead()).as("every file read again, none stored again").isEqualTo(8);
        assertThat(store.keysPut()).containsExactly("n/.ballast-manifest.json");
        assertThat(manifest(store).files())
                .allSatisfy(e -> assertThat(e.ctime()).isNotNull());
    }

    @Test
    void manyFilesStoredConcurrentlyAllLandInTheManifestInPathOrder() throws IOException {
        for (int i = 0; i < 300; i++) {
            Files.writeString(
                    Files.createDirectories(src.resolve("many/d" + (i % 7))).resolve("f" + i), "content " + i);
        }
        FakeObjectStore store = new FakeObjectStore(FakeObjectStore.CAPABILITIES, new FakeTime());

        BackupRunner.Result r =
                backup(store, new BackupRunner.Settings(false, 8, false), CLOCK, new Cancellation(), p -> {});

        assertThat(r.ok()).isTrue();
        assertThat(r.stored()).isEqualTo(303);
        Manifest m = manifest(store);
        assertThat(m.files()).hasSize(303);
        assertThat(m.files()).extracting(ManifestEntry::path).isSorted();
        for (ManifestEntry e : m.files()) {
            assertThat(store.versions(Manifest.objectKey("n", e.path())).get(0).versionId())
                    .isEqualTo(e.versionId());
        }
    }

    /** Something another program does to a source file. */
    @FunctionalInterface
    private interface Change {
        void apply() throws IOException;
    }

    /** A store that lets {@code change} happen to the source right after it stores {@code z.txt}. */
    private static FakeObjectStore changingZOnceStored(Change change) {
        return new FakeObjectStore(FakeObjectStore.CAPABILITIES, new FakeTime()) {
            @Override
            public synchronized ObjectVersion put(String key, ObjectContent content) {
                ObjectVersion v = super.put(key, content);
                if (key.equals("n/z.txt")) {
                    try {
                        change.apply();
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                }
                return v;
            }
        };
    }

    /** What a user sees of a backup during which {@code z.txt} changed: not stored, and said so. */
    private void assertZReportedChangedAndNotStored(BackupRunner.Result r, FakeObjectStore store) {
        assertThat(r.ok()).isFalse();
        assertThat(r.failed()).singleElement().satisfies(f -> {
            assertThat(f.path()).isEqualTo("z.txt");
            assertThat(f.reason()).contains("changed while it was being backed up");
        });
        assertThat(manifest(store).files()).extracting(ManifestEntry::path).doesNotContain("z.txt");
    }

    @Test
    void aFileChangedWhileItIsReadIsReportedNotStored() throws IOException {
        // another program appends meanwhile
        FakeObjectStore store = changingZOnceStored(() -> Files.writeString(src.resolve("z.txt"), "zzzz"));

        BackupRunner.Result r = backup(store, new Cancellation(), p -> {});

        assertZReportedChangedAndNotStored(r, store);
    }

    /**
     * Field input: a file rewritten in place while it was read, its mtime then set back (as
     * {@code rsync --inplace -t} or {@code touch -r} leave it), kept its size, mtime and inode, and was
     * stored as complete with the first part of the old bytes and the rest of the new. Its ctime tells.
     */
    @Test
    void aFileRewrittenWhileItIsReadWithItsMtimeSetBackIsReportedNotStored() throws IOException {
        Path z = src.resolve("z.txt");
        java.nio.file.attribute.FileTime mtime = Files.getLastModifiedTime(z);
        FakeObjectStore store = changingZOnceStored(() -> {
            byte[] same = Files.readAllBytes(z);
            java.util.Arrays.fill(same, (byte) 'Q'); // same size, other bytes
            Files.write(z, same);
            Files.setLastModifiedTime(z, mtime); // and the time set back
        });

        BackupRunner.Result r = backup(store, new Cancellation(), p -> {});

        assertZReportedChangedAndNotStored(r, store);
    }

    /** A store that, while {@code busy}, rewrites {@code z.txt} each time it stores it, as a busy log file. */
    private FakeObjectStore rewritingZWhileBusy(AtomicBoolean busy) {
        return new FakeObjectStore(FakeObjectStore.CAPABILITIES, new FakeTime()) {
            @Override
            public synchronized ObjectVersion put(String key, ObjectContent content) {
                ObjectVersion v = super.put(key, content);
                if (busy.get() && key.equals("n/z.txt")) {
                    try {
                        Files.writeString(src.resolve("z.txt"), "z" + System.nanoTime());
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                }
                return v;
            }
        };
    }

    @Test
    void aFileThatCannotBeStoredKeepsItsPreviousVersionMarkedStaleAndTheRunIsASnapshot() throws IOException {
        AtomicBoolean busy = new AtomicBoolean();
        FakeObjectStore store = rewritingZWhileBusy(busy);
        assertThat(backup(store, new Cancellation(), p -> {}).ok()).isTrue();
        ManifestEntry before = manifest(store).files().stream()
                .filter(e -> e.path().equals("z.txt"))
                .findFirst()
                .orElseThrow();
        Files.writeString(src.resolve("z.txt"), "zz, changed");
        Files.writeString(src.resolve("empty"), "no longer empty");
        busy.set(true);

        BackupRunner.Result r = backup(store, new Cancellation(), p -> {});

        assertThat(r.ok()).isFalse();
        assertThat(r.manifestComplete()).isTrue();
        Manifest m = manifest(store);
        assertThat(m.complete()).isTrue();
        assertThat(m.incompleteBecause()).isNull();
        assertThat(m.notStored()).containsExactly("z.txt");
        assertThat(m.stale()).singleElement().satisfies(st -> {
            assertThat(st.path()).isEqualTo("z.txt");
            assertThat(st.reason()).contains("changed while it was being backed up");
        });
        assertThat(m.files()).extracting(ManifestEntry::path).containsExactly("a b/ü+x/f.txt", "empty", "z.txt");
        ManifestEntry kept = m.files().get(2);
        assertThat(kept.versionId()).isEqualTo(before.versionId());
        assertThat(kept.sha256()).isEqualTo(before.sha256());
        assertThat(kept.ctime())
                .as("not trusted: the next run reads the file again")
                .isNull();
        assertThat(m.files().get(1).size()).isEqualTo("no longer empty".length());
    }

    @Test
    void aRunAfterAnInterruptedOneKeepsTheFilesItDidNotReachFromTheCompleteSnapshotBeforeIt() throws IOException {
        AtomicBoolean busy = new AtomicBoolean();
        FakeObjectStore store = rewritingZWhileBusy(busy);
        assertThat(backup(store, new Cancellation(), p -> {}).ok()).isTrue();
        String zFirst = manifest(store).files().stream()
                .filter(e -> e.path().equals("z.txt"))
                .findFirst()
                .orElseThrow()
                .versionId();
        // Stopped (Ctrl-C) after its first file: its manifest lists what it stored, not z.txt.
        Files.writeString(src.resolve("a b/ü+x/f.txt"), "f, changed");
        Files.writeString(src.resolve("z.txt"), "zz, changed");
        Cancellation cancel = new Cancellation();
        assertThat(backup(store, cancel, p -> cancel.cancel()).cancelled()).isTrue();
        assertThat(manifest(store).complete()).isFalse();
        assertThat(manifest(store).files()).extracting(ManifestEntry::path).doesNotContain("z.txt");

        busy.set(true);
        BackupRunner.Result r = backup(store, new Cancellation(), p -> {});

        Manifest m = manifest(store);
        assertThat(m.complete()).isTrue();
        assertThat(r.failed()).extracting(BackupRunner.Failure::path).containsExactly("z.txt");
        assertThat(m.stale())
                .as("z.txt keeps the version the last complete snapshot had")
                .extracting(Manifest.Stale::path)
                .containsExactly("z.txt");
        assertThat(m.files()).extracting(ManifestEntry::path).containsExactly("a b/ü+x/f.txt", "empty", "z.txt");
        assertThat(m.files().get(2).versionId()).isEqualTo(zFirst);
    }

    @Test
    void aStoreRefusingTheBytesOfAFileThatChangedMeanwhileIsReportedAsTheChangeNotAsDamage() throws IOException {
        // An S3 server answers a multipart upload whose parts were read from a file being rewritten with
        // an ETag other than the parts sent make; the change is the cause, not the store.
        FakeObjectStore store = new FakeObjectStore(FakeObjectStore.CAPABILITIES, new FakeTime()) {
            @Override
            public synchronized ObjectVersion put(String key, ObjectContent content) {
                if (!key.equals("n/z.txt")) {
                    return super.put(key, content);
                }
                try {
                    Files.writeString(src.resolve("z.txt"), "z, rewritten during the upload");
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
                throw new IntegrityException(key, "the ETag answered is not the one the parts sent make");
            }
        };

        BackupRunner.Result r = backup(store, new Cancellation(), p -> {});

        assertThat(r.failed()).singleElement().satisfies(f -> {
            assertThat(f.path()).isEqualTo("z.txt");
            assertThat(f.reason()).isEqualTo("it changed while it was being backed up; run the backup again");
        });
    }

    @Test
    void aStoreRefusingTheBytesOfAnUnchangedFileIsReportedAsDamage() {
        FakeObjectStore store = new FakeObjectStore(FakeObjectStore.CAPABILITIES, new FakeTime()) {
            @Override
            public synchronized ObjectVersion put(String key, ObjectContent content) {
                if (key.equals("n/z.txt")) {
                    throw new IntegrityException(key, "the ETag answered is not the one the parts sent make");
                }
                return super.put(key, content);
            }
        };

        BackupRunner.Result r = backup(store, new Cancellation(), p -> {});

        assertThat(r.failed())
                .singleElement()
                .satisfies(f -> assertThat(f.reason())
                        .startsWith("its stored copy did not match its SHA-256 (the ETag answered"));
    }

    @Test
    void onlyAChangedFileIsUploadedAgain() throws IOException {
        FakeObjectStore store = new FakeObjectStore(FakeObjectStore.CAPABILITIES, new FakeTime());
        backup(store, new Cancellation(), p -> {});
        Files.writeString(src.resolve("z.txt"), "zzZ");
        store.forgetRecordedKeys();
        BackupRunner.Result r = backup(store, new Cancellation(), p -> {});
        assertThat(r.stored()).isEqualTo(1);
        assertThat(store.keysPut()).containsExactly("n/z.txt", "n/.ballast-manifest.json");
    }

    @Test
    void readsBackEachUploadWhenTheStoreDoesNotValidateChecksums() {
        FakeObjectStore store = new FakeObjectStore(FakeObjectStore.WITHOUT_ADDITIONAL_CHECKSUMS, new FakeTime());
        backup(store, new Cancellation(), p -> {});
        assertThat(store.keysRead()).contains("n/a b/ü+x/f.txt", "n/empty", "n/z.txt");
        FakeObjectStore validating = new FakeObjectStore(FakeObjectStore.CAPABILITIES, new FakeTime());
        backup(validating, new Cancellation(), p -> {});
        assertThat(validating.keysRead()).doesNotContain("n/z.txt");
    }

    @Test
    void symlinksAreRecordedAsLinksNotFollowed() throws IOException {
        Files.createSymbolicLink(src.resolve("link"), Path.of("z.txt"));
        Files.createSymbolicLink(src.resolve("dangling"), Path.of("/nowhere/at/all"));
        FakeObjectStore store = new FakeObjectStore(FakeObjectStore.CAPABILITIES, new FakeTime());
        BackupRunner.Result r = backup(store, new Cancellation(), p -> {});
        assertThat(r.skipped()).isEmpty();
        assertThat(store.keysPut()).doesNotContain("n/link", "n/dangling");
        assertThat(r.ok()).isTrue();
        assertThat(manifest(store).tree().symlinks())
                .extracting(ManifestTree.Symlink::path, ManifestTree.Symlink::target)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("dangling", "/nowhere/at/all"),
                        org.assertj.core.groups.Tuple.tuple("link", "z.txt"));
    }

    @Test
    void modesDirectoriesAndHardLinksAreRecorded() throws IOException {
        Files.setPosixFilePermissions(
                src.resolve("z.txt"), java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-x---"));
        Files.createDirectories(src.resolve("empty dir"));
        Files.setPosixFilePermissions(
                src.resolve("empty dir"), java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        Files.createLink(src.resolve("z-again.txt"), src.resolve("z.txt"));
        FakeObjectStore store = new FakeObjectStore(FakeObjectStore.CAPABILITIES, new FakeTime());
        BackupRunner.Result r = backup(store, new Cancellation(), p -> {});
        assertThat(r.ok()).isTrue();
        Manifest m = manifest(store);
        assertThat(m.files())
                .filteredOn(e -> e.path().startsWith("z"))
                .singleElement()
                .satisfies(e -> assertThat(e.attrs().mode()).isEqualTo(0750));
        assertThat(m.tree().directories())
                .extracting(ManifestTree.Directory::path)
                .containsExactly("a b", "a b/ü+x", "empty dir");
        assertThat(m.tree().directories().get(2).attrs().mode()).isEqualTo(0700);
        // The walk meets one of the two names first and stores it; the other becomes a link to it.
        assertThat(m.tree().hardLinks()).singleElement().satisfies(l -> {
            assertThat(List.of(l.path(), l.target())).containsExactlyInAnyOrder("z.txt", "z-again.txt");
            assertThat(store.keysPut())
                    .contains(Manifest.objectKey("n", l.target()))
                    .doesNotContain(Manifest.objectKey("n", l.path()));
        });
    }

    @Test
    void excludesCachesAndIgnoreFilesLeaveOutWhatTheyMatch() throws IOException {
        Files.createDirectories(src.resolve("cache/sub"));
        Files.write(
                src.resolve("cache/CACHEDIR.TAG"),
                "Signature: 8a477f597d28d172789f06886806bc55\n# a cache\n".getBytes(StandardCharsets.US_ASCII));
        Files.writeString(src.resolve("cache/blob"), "x");
        Files.writeString(src.resolve("cache/sub/blob"), "x");
        Files.createDirectories(src.resolve("notcache"));
        Files.writeString(src.resolve("notcache/CACHEDIR.TAG"), "Signature: something else");
        Files.writeString(src.resolve("notcache/kept"), "x");
        Files.writeString(src.resolve("a b/.ballastignore"), "# comment\n\n*.log\n/ü+x\n");
        Files.writeString(src.resolve("a b/x.log"), "x");
        Files.writeString(src.resolve("trace.tmp"), "x");
        FakeObjectStore store = new FakeObjectStore(FakeObjectStore.CAPABILITIES, new FakeTime());
        BackupRunner runner = new BackupRunner(
                store,
                "n",
                src,
                new BackupRunner.Settings(false, 1, false, List.of(Glob.parse("*.tmp")), true),
                new Cancellation(),
                CLOCK,
                err::println,
                () -> new ProgressCounter(0, 0),
                Duration.ofSeconds(5),
                p -> {});
        assertThat(runner.run().ok()).isTrue();
        assertThat(manifest(store).files())
                .extracting(ManifestEntry::path)
                .containsExactly(
                        "a b/.ballastignore",
                        "cache/CACHEDIR.TAG",
                        "empty",
                        "notcache/CACHEDIR.TAG",
                        "notcache/kept",
                        "z.txt");
        assertThat(manifest(store).tree().directories())
                .extracting(ManifestTree.Directory::path)
                .containsExactly("a b", "cache", "notcache");
        assertThat(runner.excluded()).isEqualTo(5); // ü+x, x.log, trace.tmp, cache/blob, cache/sub
    }

    @Test
    void aStoreThatDiesMidRunLeavesNoCompleteManifest() {
        FakeObjectStore store = new FakeObjectStore(FakeObjectStore.CAPABILITIES, new FakeTime()) {
            int puts;

            @Override
            public synchronized ObjectVersion put(String key, ObjectContent content) {
                if (++puts > 1) {
                    throw new StorageUnavailableException(key, "down", new IOException("Connection refused"));
                }
                return super.put(key, content);
            }
        };
        List<String> stored = new ArrayList<>();
        BackupRunner.Result r = backup(store, new Cancellation(), stored::add);
        assertThat(r.ok()).isFalse();
        assertThat(r.unavailable()).isNotNull();
        assertThat(stored).containsExactly("a b/ü+x/f.txt");
        assertThat(r.failed()).extracting(BackupRunner.Failure::path).containsExactly("empty");
        assertThat(r.notAttempted()).containsExactly("z.txt");
        assertThat(r.manifestVersionId()).isNull();
        assertThat(store.versions(Manifest.key("n"))).isEmpty();
    }

    @Test
    void cancellingStopsAfterTheCurrentFileAndMarksTheManifestIncomplete() {
        FakeObjectStore store = new FakeObjectStore(FakeObjectStore.CAPABILITIES, new FakeTime());
        Cancellation cancel = new Cancellation();
        BackupRunner.Result r = backup(store, cancel, p -> cancel.cancel());
        assertThat(r.cancelled()).isTrue();
        assertThat(r.stored()).isEqualTo(1);
        assertThat(r.notAttempted()).containsExactly("empty", "z.txt");
        Manifest m = manifest(store);
        assertThat(m.complete()).isFalse();
        assertThat(m.files()).extracting(ManifestEntry::path).containsExactly("a b/ü+x/f.txt");
        assertThat(m.notStored()).containsExactly("empty", "z.txt");
    }

    @Test
    void everyNameTheFileSystemAllowsIsStoredUnderAKeyS3TakesAndRestoredByteForByte() throws Exception {
        // Issue 20 items 3 and 11: names that are not UTF-8, hold control characters, make a relative path
        // over S3's 1,024-byte key limit or look like Ballast's own records were left out or refused.
        org.junit.jupiter.api.Assumptions.assumeTrue(Names.exact(), "names are read as bytes (--add-opens)");
        // Two names differing only in bytes that are not UTF-8 (both decode to "x\uFFFD" in the JDK's own
        // view), control characters, and the shell creating them from their bytes.
        Process p = new ProcessBuilder(
                        "/bin/sh",
                        "-c",
                        "printf one > \"$(printf 'x\\377')\"; printf two > \"$(printf 'x\\376')\";"
                                + " printf 3 > \"$(printf 'nl\\nname')\"; printf 4 > \"$(printf 'tab\\tesc\\033')\";"
                                + " mkdir \"$(printf 'd\\300')\"; printf 5 > \"$(printf 'd\\300/\\001')\"")
                .directory(src.toFile())
                .inheritIO()
                .start();
        assertThat(p.waitFor()).isZero();
        Files.writeString(src.resolve(Manifest.FILE_NAME), "the user's own file, not a manifest");
        Files.writeString(src.resolve(".ballast-0123456789abcdef"), "named like a restore's temporary file");
        Path deep = src;
        for (int i = 0; i < 5; i++) {
            deep = Files.createDirectories(
                    deep.resolve(String.valueOf((char) ('a' + i)).repeat(200)));
        }
        Files.writeString(deep.resolve("f".repeat(90) + ".txt"), "deep");
        String deepName = Names.relative(src, deep.resolve("f".repeat(90) + ".txt"));
        assertThat(Names.byteLength(deepName)).isGreaterThan(1_024);
        Map<String, String> before = namesAndContents(src);

        FakeObjectStore store = new FakeObjectStore(FakeObjectStore.CAPABILITIES, new FakeTime());
        BackupRunner.Result r = backup(store, new Cancellation(), x -> {});

        assertThat(r.failed()).isEmpty();
        assertThat(r.skipped()).isEmpty();
        assertThat(r.ok()).isTrue();
        assertThat(store.keysPut())
                .as("every key is valid UTF-8 without control characters and at most 1,024 bytes")
                .allSatisfy(k -> {
                    assertThat(Names.isUtf8(k)).isTrue();
                    assertThat(k.chars().noneMatch(Character::isISOControl)).isTrue();
                    assertThat(k.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(1_024);
                })
                .as("no file is stored under the manifest's key")
                .containsOnlyOnce(Manifest.key("n"));
        Manifest m = manifest(store);
        assertThat(m.formatVersion()).isEqualTo(Manifest.FORMAT_VERSION);
        assertThat(m.files()).extracting(ManifestEntry::path).containsExactlyInAnyOrderElementsOf(before.keySet());
        assertThat(m.objectKeyOf(Manifest.FILE_NAME)).isNotEqualTo(Manifest.key("n"));
        assertThat(m.objectKeyOf("z.txt")).isEqualTo("n/z.txt");

        Path target = src.resolveSibling(src.getFileName() + "-restored");
        RestoreRunner.Result restored =
                new RestoreRunner(store, m, target, false, 4, new Cancellation(), x -> new ProgressCounter(0, 0)).run();
        assertThat(restored.failed()).isEmpty();
        assertThat(namesAndContents(target)).isEqualTo(before);
        // A second restore into the same target removes nothing of the user's (the temporary-looking file).
        RestoreRunner.Result again =
                new RestoreRunner(store, m, target, false, 4, new Cancellation(), x -> new ProgressCounter(0, 0)).run();
        assertThat(again.ok()).isTrue();
        assertThat(namesAndContents(target)).isEqualTo(before);
    }

    /** Each regular file under {@code root}: its name's bytes (as hex) to its content. */
    static Map<String, String> namesAndContents(Path root) throws IOException {
        Map<String, String> map = new java.util.TreeMap<>();
        try (java.util.stream.Stream<Path> all = Files.walk(root)) {
            for (Path f : (Iterable<Path>) all.filter(Files::isRegularFile)::iterator) {
                map.put(Names.relative(root, f), Files.readString(f));
            }
        }
        return map;
    }
}
