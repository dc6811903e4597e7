package dev.ballast.backup;

import static dev.ballast.backup.EncryptedBackupsTest.contents;
import static dev.ballast.backup.EncryptedBackupsTest.init;
import static dev.ballast.backup.EncryptedBackupsTest.random;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.backup.keys.MasterKey;
import dev.ballast.test.FakeObjectStore;
import dev.ballast.test.FaultInjectingObjectStore;
import dev.ballast.test.StoreFault;
import dev.ballast.test.StoreOperation;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A backup into a repository of format 3 whose pack uploads or index write fail (issue 22, rule 5: a
 * loss is never reported as success): a file counts as stored only once every pack holding its chunks
 * is uploaded and an index file naming them written. Each case: the files the run could not make
 * durable are listed as not stored, no snapshot claims them, the older backup still restores, and the
 * next backup (the store healthy again) stores them.
 */
@ExtendWith(LeakCheck.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PackUploadFailureTest {
    @TempDir
    Path dir;

    private FaultInjectingObjectStore store;
    private MasterKey key;
    private Path source;
    private Map<String, String> firstTree;

    private Backups backups() {
        return Backups.of(store, key)
                .withTransfers(1)
                .withClock(Clock.offset(Clock.systemUTC(), Duration.ofMinutes(1)));
    }

    /** A repository holding one good backup "b" of two small files; then more files are added to the source. */
    @BeforeEach
    void firstBackup() throws IOException {
        store = FaultInjectingObjectStore.wrap(new FakeObjectStore());
        key = init(store);
        source = Files.createDirectories(dir.resolve("source"));
        Files.write(source.resolve("old-1.bin"), random(40_000, 1));
        Files.write(source.resolve("old-2.bin"), random(40_000, 2));
        BackupResult first = backups().backup("b", source);
        assertThat(first.ok()).as("%s", first).isTrue();
        firstTree = contents(source);
    }

    private void newFiles(int count, int bytes) throws IOException {
        for (int i = 0; i < count; i++) {
            Files.write(source.resolve(String.format("new-%02d.bin", i)), random(bytes, 100 + i));
        }
    }

    private static List<String> newPaths(int count) {
        return java.util.stream.IntStream.range(0, count)
                .mapToObj(i -> String.format("new-%02d.bin", i))
                .toList();
    }

    /** What every case observes after the failed run {@code failed} of {@code count} new files. */
    private void notStoredThenStoredByTheNextRun(BackupResult failed, int count) throws IOException {
        assertThat(failed.ok()).as("%s", failed).isFalse();
        assertThat(failed.stored()).as("%s", failed).isZero();
        List<String> notStored = new java.util.ArrayList<>(failed.notAttempted());
        failed.failed().forEach(p -> notStored.add(p.path()));
        assertThat(notStored).as("%s", failed).containsAll(newPaths(count));
        // No snapshot names a chunk the store lacks: the newest complete one restores, with what it holds.
        for (SnapshotInfo s : backups().snapshots("b")) {
            if (s.complete()) {
                assertThat(s.files()).as("%s", s).isLessThanOrEqualTo(2);
            }
        }
        Path before = dir.resolve("restored-before");
        RestoreResult older = backups().restore("b", before);
        assertThat(older.ok()).as("%s", older).isTrue();
        assertThat(contents(before)).isEqualTo(firstTree);

        store.clearRules();
        BackupResult next = backups().backup("b", source);
        assertThat(next.ok()).as("%s", next).isTrue();
        assertThat(next.stored()).isEqualTo(count);
        Path after = dir.resolve("restored-after");
        RestoreResult back = backups().restore("b", after);
        assertThat(back.ok()).as("%s", back).isTrue();
        assertThat(contents(after)).isEqualTo(contents(source));
        assertThat(backups().verify("b", "latest", null).ok()).isTrue();
    }

    @Test
    void aPackPutRefusedAsStorageFullStoresNoFileItHeld() throws IOException {
        newFiles(4, 50_000);
        store.inject(StoreFault.outOfSpace()).on(StoreOperation.PUT).forKeys(k -> k.startsWith("data/"));
        BackupResult r = backups().backup("b", source);
        assertThat(r.failed())
                .isNotEmpty()
                .allSatisfy(p -> assertThat(p.reason()).containsIgnoringCase("space"));
        assertThat(r.bytesUploaded()).as("no pack reached the store").isZero();
        notStoredThenStoredByTheNextRun(r, 4);
    }

    @Test
    void aPackPutWithAnUnknownOutcomeStoresNoFileItHeld() throws IOException {
        newFiles(3, 50_000);
        store.inject(StoreFault.serverError()).on(StoreOperation.PUT).forKeys(k -> k.startsWith("data/"));
        BackupResult r = backups().backup("b", source);
        assertThat(r.bytesUploaded()).as("no pack reached the store").isZero();
        notStoredThenStoredByTheNextRun(r, 3);
    }

    /** A full pack is uploaded in the background while later files are added: its failure reaches them all. */
    @Test
    void aFullPackFailingInTheBackgroundAfterFilesWereAddedStoresNoneOfThem() throws IOException {
        newFiles(5, 5 * 1024 * 1024);
        store.inject(StoreFault.outOfSpace())
                .on(StoreOperation.PUT)
                .forKeys(k -> k.startsWith("data/"))
                .times(1);
        notStoredThenStoredByTheNextRun(backups().backup("b", source), 5);
    }

    @Test
    void anIndexWriteFailingAtTheFlushStoresNoFileOfTheRun() throws IOException {
        newFiles(3, 50_000);
        store.inject(StoreFault.outOfSpace()).on(StoreOperation.PUT).forKeys(k -> k.startsWith("index/"));
        BackupResult r = backups().backup("b", source);
        // The packs were sent, and say so, though no index names them and so no file of theirs is stored.
        assertThat(r.bytesUploaded()).as("the packs the store took").isEqualTo(3 * 50_000L);
        notStoredThenStoredByTheNextRun(r, 3);
    }

    /** A file whose chunks all dedup against the index stays stored when the run's own pack fails. */
    @Test
    void aFileWhoseChunksTheIndexHeldIsStoredThoughTheRunsPackFailed() throws IOException {
        Files.copy(source.resolve("old-1.bin"), source.resolve("copy-of-old-1.bin"));
        newFiles(2, 50_000);
        store.inject(StoreFault.outOfSpace()).on(StoreOperation.PUT).forKeys(k -> k.startsWith("data/"));
        BackupResult r = backups().backup("b", source);
        assertThat(r.stored()).as("%s", r).isEqualTo(1);
        assertThat(r.failed()).extracting(FileProblem::path).containsExactlyInAnyOrderElementsOf(newPaths(2));
    }
    /**
     * A name's first backup whose every pack the store refuses (a proxy's body limit, a bucket policy)
     * holds no file: it must not pass for a complete backup of 0 files that restores "complete".
     */
    @Test
    void aFirstBackupWhosePacksTheStoreRefusesLeavesNoSnapshotTakenForComplete() throws IOException {
        Path other = Files.createDirectories(dir.resolve("other"));
        Files.write(other.resolve("a.bin"), random(50_000, 7));
        Files.write(other.resolve("b.bin"), random(50_000, 8));
        store.inject(StoreFault.accessDenied()).on(StoreOperation.PUT).forKeys(k -> k.startsWith("data/"));

        BackupResult r = backups().backup("other", other);

        assertThat(r.complete()).as("%s", r).isFalse();
        assertThat(r.ok()).isFalse();
        assertThat(r.failed()).extracting(FileProblem::path).containsExactlyInAnyOrder("a.bin", "b.bin");
        assertThat(backups().snapshots("other")).as("snapshots").noneMatch(SnapshotInfo::complete);
        assertThatThrownBy(() -> backups().restore("other", dir.resolve("out")))
                .isInstanceOf(BackupException.class)
                .hasMessageContaining("has no complete manifest");
    }

    /** A later backup whose packs the store refuses: restore takes the earlier, complete one, not it. */
    @Test
    void aLaterBackupWhosePacksTheStoreRefusesIsIncompleteAndRestorePassesOverIt() throws IOException {
        newFiles(2, 50_000);
        store.inject(StoreFault.accessDenied()).on(StoreOperation.PUT).forKeys(k -> k.startsWith("data/"));

        BackupResult r = backups().backup("b", source);

        assertThat(r.complete()).as("%s", r).isFalse();
        assertThat(backups().snapshots("b").get(0).complete())
                .as("the newest snapshot")
                .isFalse();
        Path out = dir.resolve("out");
        assertThat(backups().restore("b", out).ok()).isTrue();
        assertThat(contents(out)).isEqualTo(firstTree);
    }
}
