package dev.ballast.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.backup.keys.MasterKey;
import dev.ballast.backup.pack.RepairReport;
import dev.ballast.backup.retention.PackedPrune;
import dev.ballast.backup.retention.RetentionPolicy;
import dev.ballast.backup.run.RunMarker;
import dev.ballast.backup.snapshot.SealedStore;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.VersionEntry;
import dev.ballast.storage.object.local.LocalObjectStore;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Damage to a repository of format 3 healed through the {@link Backups} API: a deleted pack is stored
 * again by the next backup (never a loss reported as success), a damaged pack's chunks are dropped by
 * {@link Backups#repair} and stored again by the next backup, a damaged index file stops neither a
 * backup nor a restore and {@code repair} replaces it.
 */
@ExtendWith(LeakCheck.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RepositoryHealingTest {
    @TempDir
    Path dir;

    private LocalObjectStore store;
    private MasterKey key;
    private Backups backups;
    private final List<String> notes = new CopyOnWriteArrayList<>();

    @BeforeEach
    void open() {
        store = LocalObjectStore.open(dir.resolve("store"));
        key = EncryptedBackupsTest.init(store);
        backups = Backups.of(store, key)
                .withClock(Clock.offset(Clock.systemUTC(), Duration.ofMinutes(1)))
                .withListener(new BackupListener() {
                    @Override
                    public void notice(String message) {
                        notes.add(message);
                    }
                });
    }

    @AfterEach
    void close() {
        store.close();
    }

    /** Three files of one chunk each (200 KB of random bytes is under the chunker's minimum). */
    private Path source() throws IOException {
        Path source = Files.createDirectories(dir.resolve("source"));
        for (int i = 0; i < 3; i++) {
            Files.write(source.resolve("f" + i + ".bin"), EncryptedBackupsTest.random(200_000, 40 + i));
        }
        return source;
    }

    private List<String> packs() {
        return store.list("data/");
    }

    private void deleteAllVersions(String key) {
        for (VersionEntry v : store.versions(key)) {
            store.deleteVersion(key, v.versionId());
        }
    }

    private RestoreResult restore(String snapshot, String into) {
        return backups.restore("h", dir.resolve(into), RestoreOptions.latest().version(snapshot));
    }

    @Test
    void aDeletedPackIsStoredAgainByTheNextBackupAndTheOlderSnapshotReadsAgain() throws IOException {
        Path source = source();
        BackupResult first = backups.backup("h", source);
        assertThat(first.ok()).as("%s", first).isTrue();
        assertThat(packs()).hasSize(1);
        deleteAllVersions(packs().get(0));
        // one file changed since: its old chunk is in no source any more
        Files.write(source.resolve("f2.bin"), EncryptedBackupsTest.random(200_000, 99));

        BackupResult second = backups.backup("h", source);
        assertThat(second.ok()).as("%s", second).isTrue();
        assertThat(second.stored())
                .as("every file whose chunk was lost is read again")
                .isEqualTo(3);
        assertThat(notes)
                .anyMatch(n -> n.startsWith("Warning: 1 pack(s) the repository's index names are missing")
                        && n.contains("Backups.repair(false)"))
                .anyMatch(
                        n -> n.startsWith(
                                        "Note: 2 of the 3 chunk(s) of 1 missing pack(s) were stored again from the source")
                                && n.contains(
                                        "; the other 1 were not in this source: the backups that need them stay damaged"));

        // the newest backup is whole
        RestoreResult latest = restore(second.snapshotId(), "latest");
        assertThat(latest.ok()).as("%s", latest).isTrue();
        assertThat(dir.resolve("latest/f2.bin")).hasSameBinaryContentAs(source.resolve("f2.bin"));
        // the first one reads again but for the file whose chunk no source had: named, not restored wrong
        RestoreResult older = restore(first.snapshotId(), "older");
        assertThat(older.failed()).extracting(FileProblem::path).containsExactly("f2.bin");
        assertThat(dir.resolve("older/f0.bin")).hasSameBinaryContentAs(source.resolve("f0.bin"));
        assertThat(dir.resolve("older/f1.bin")).hasSameBinaryContentAs(source.resolve("f1.bin"));
        VerifyResult verified = backups.verify("h", first.snapshotId(), null);
        assertThat(verified.damaged()).extracting(FileProblem::path).containsExactly("f2.bin");
        assertThat(backups.verify("h", "latest", null).ok()).isTrue();

        // repair drops the missing pack from the index: nothing is reported missing afterwards
        RepairResult repaired = backups.repair(false);
        assertThat(repaired.report()).isNotNull();
        assertThat(repaired.report().missingPacks()).hasSize(1);
        assertThat(repaired.report().blobsLost()).isEqualTo(1);
        notes.clear();
        assertThat(backups.backup("h", source).ok()).isTrue();
        assertThat(notes).noneMatch(n -> n.contains("missing"));
    }

    @Test
    void aPackCutShortHasTheChunksPastItsEndStoredAgainByTheNextBackup() throws IOException {
        Path source = source();
        BackupResult first = backups.backup("h", source);
        assertThat(first.ok()).isTrue();
        String pack = packs().get(0);
        byte[] bytes = EncryptedBackupsTest.read(store, store.versions(pack).get(0));
        store.put(pack, ObjectContent.ofBytes(java.util.Arrays.copyOf(bytes, 250_000)));
        // a prune could not copy the chunks past the cut: it deletes nothing and names the repair
        PruneResult refused = backups.prune(Duration.ZERO, false);
        assertThat(refused.deletedVersions()).isZero();
        assertThat(refused.skippedNames())
                .singleElement()
                .asString()
                .contains(pack)
                .contains("Backups.repair(true)");

        BackupResult second = backups.backup("h", source);
        assertThat(second.ok()).as("%s", second).isTrue();
        assertThat(second.stored()).as("the files whose chunk lay past the cut").isEqualTo(2);
        assertThat(notes)
                .anyMatch(n ->
                        n.startsWith("Warning: 1 pack(s) in the store are shorter than the index says (cut: " + pack))
                .anyMatch(n -> n.startsWith("Note: 2 chunk(s) of 1 missing or cut pack(s) were stored again"));
        RestoreResult older = restore(first.snapshotId(), "older");
        assertThat(older.ok()).as("%s", older).isTrue();
        for (int i = 0; i < 3; i++) {
            assertThat(dir.resolve("older/f" + i + ".bin")).hasSameBinaryContentAs(source.resolve("f" + i + ".bin"));
        }
        // repair keeps the cut pack's intact chunk (in a new pack) and deletes the pack: nothing is lost
        RepairResult repaired = backups.repair(false);
        assertThat(repaired.report().salvagedPacks()).containsExactly(pack);
        assertThat(repaired.ok()).isTrue();
        assertThat(backups.prune(Duration.ZERO, false).skippedNames()).isEmpty();
        assertThat(backups.verify("h", first.snapshotId(), null).ok()).isTrue();
    }

    @Test
    void aDamagedPackIsSalvagedByRepairAndTheNextBackupHealsTheOlderSnapshot() throws IOException {
        Path source = source();
        BackupResult first = backups.backup("h", source);
        assertThat(first.ok()).isTrue();
        String pack = packs().get(0);
        VersionEntry v = store.versions(pack).get(0);
        byte[] bytes = EncryptedBackupsTest.read(store, v);
        bytes[100] ^= 0x01; // inside the first blob's sealed bytes
        store.put(pack, ObjectContent.ofBytes(bytes));

        // a restore finds it (a verify would drop the damaged chunk from the index itself)
        RestoreResult found = restore(first.snapshotId(), "damaged");
        assertThat(found.failed()).hasSize(1);
        String damagedFile = found.failed().get(0).path();

        // a listing alone sees nothing wrong; reading every pack finds the damaged chunk
        assertThat(backups.repair(false).report().changed()).isFalse();
        RepairResult repaired = backups.repair(true);
        RepairReport report = repaired.report();
        assertThat(report.salvagedPacks()).containsExactly(pack);
        assertThat(report.blobsLost()).isEqualTo(1);
        assertThat(report.packsRead()).isEqualTo(1);
        assertThat(repaired.ok()).isFalse();
        assertThat(packs()).hasSize(1).doesNotContain(pack);

        BackupResult second = backups.backup("h", source);
        assertThat(second.ok()).as("%s", second).isTrue();
        assertThat(second.stored()).isEqualTo(1);
        RestoreResult older = restore(first.snapshotId(), "older");
        assertThat(older.ok()).as("%s", older).isTrue();
        assertThat(dir.resolve("older").resolve(damagedFile)).hasSameBinaryContentAs(source.resolve(damagedFile));
        assertThat(backups.verify("h", first.snapshotId(), null).ok()).isTrue();
        assertThat(backups.repair(true).ok()).isTrue();
    }

    /**
     * Bit rot on the local store's disk: the store's own SHA-256 of each 1 MiB block refuses every read
     * overlapping the flipped byte, so a read of the whole pack fails. The repair still keeps every chunk
     * outside that block (field case: one flipped byte in a 16 MiB pack made {@code repair packs} drop
     * all 843 of its chunks, though a restore had found 7 files damaged).
     */
    @Test
    void aByteRottedOnTheLocalDiskLosesOnlyTheChunksOfItsBlockNotTheWholePack() throws IOException {
        Path source = Files.createDirectories(dir.resolve("source"));
        for (int i = 0; i < 6; i++) { // one chunk each (under the chunker's minimum): 2.4 MB, three blocks
            Files.write(source.resolve("f" + i + ".bin"), EncryptedBackupsTest.random(400_000, 70 + i));
        }
        // one transfer thread: its chunks of 256 KiB and more all go to its one open pack
        BackupResult first = backups.withTransfers(1).backup("h", source);
        assertThat(first.ok()).as("%s", first).isTrue();
        assertThat(packs()).hasSize(1);
        String pack = packs().get(0);
        rotOnDisk(EncryptedBackupsTest.read(store, store.versions(pack).get(0)), 100);

        // a restore finds them (a verify would drop the damaged chunks from the index itself)
        RestoreResult found = restore(first.snapshotId(), "damaged");
        List<String> damagedFiles =
                found.failed().stream().map(FileProblem::path).sorted().toList();
        assertThat(damagedFiles)
                .as("the chunks of the damaged block")
                .isNotEmpty()
                .hasSizeLessThan(6);

        RepairReport report = backups.repair(true).report();
        assertThat(report.salvagedPacks()).containsExactly(pack);
        assertThat(report.blobsLost())
                .as("only the chunks a read found damaged are lost")
                .isEqualTo(damagedFiles.size());
        RestoreResult afterRepair = restore(first.snapshotId(), "after-repair");
        assertThat(afterRepair.failed())
                .extracting(FileProblem::path)
                .containsExactlyInAnyOrderElementsOf(damagedFiles);
        for (int i = 0; i < 6; i++) {
            String name = "f" + i + ".bin";
            if (!damagedFiles.contains(name)) {
                assertThat(dir.resolve("after-repair").resolve(name)).hasSameBinaryContentAs(source.resolve(name));
            }
        }

        // the next backup stores the lost chunks again from the source, and the first snapshot reads whole
        BackupResult second = backups.backup("h", source);
        assertThat(second.ok()).as("%s", second).isTrue();
        assertThat(restore(first.snapshotId(), "healed").ok()).isTrue();
        assertThat(dir.resolve("healed")).isDirectoryRecursivelyContaining("glob:**/f0.bin");
    }

    /** Flips one byte of the stored object whose bytes are {@code object}, at {@code at}, in the file on disk. */
    private void rotOnDisk(byte[] object, int at) throws IOException {
        byte[] probe = java.util.Arrays.copyOf(object, 4096);
        try (var files = Files.walk(dir.resolve("store"))) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                byte[] all = Files.readAllBytes(file);
                for (int i = 0; i + probe.length <= all.length; i++) {
                    if (all[i] == probe[0]
                            && java.util.Arrays.equals(all, i, i + probe.length, probe, 0, probe.length)) {
                        all[i + at] ^= 0x01;
                        Files.write(file, all);
                        return;
                    }
                }
            }
        }
        throw new AssertionError("the object's bytes were found in no file of the store");
    }

    @Test
    void aDamagedIndexFileStopsNeitherBackupNorRestoreAndRepairReplacesIt() throws IOException {
        Path source = source();
        BackupResult first = backups.backup("h", source);
        assertThat(first.ok()).isTrue();
        List<String> indexFiles = store.list("index/");
        assertThat(indexFiles).hasSize(1);
        String index = indexFiles.get(0);
        byte[] bytes = EncryptedBackupsTest.read(store, store.versions(index).get(0));
        bytes[bytes.length / 2] ^= 0x01;
        store.put(index, ObjectContent.ofBytes(bytes));

        RestoreResult back = restore(first.snapshotId(), "back");
        assertThat(back.ok()).as("%s", back).isTrue();
        assertThat(notes)
                .anyMatch(n -> n.contains("index file(s) of the repository are damaged (" + index)
                        && n.contains("Backups.repair(false)"));
        Files.write(source.resolve("new.bin"), EncryptedBackupsTest.random(100_000, 77));
        BackupResult second = backups.backup("h", source);
        assertThat(second.ok()).as("%s", second).isTrue();
        assertThat(second.stored())
                .as("the other files' chunks were found from the packs' headers")
                .isEqualTo(1);
        assertThat(notes).anyMatch(n -> n.contains(index) && n.contains("Backups.repair(false)"));
        PruneResult refused = backups.prune(Duration.ZERO, false);
        assertThat(refused.deletedVersions()).isZero();
        assertThat(refused.skippedNames())
                .singleElement()
                .asString()
                .contains(index)
                .contains("repair index");

        RepairResult repaired = backups.repair(false);
        assertThat(repaired.ok()).isTrue();
        assertThat(repaired.report().indexFilesReplaced()).containsExactly(index);
        assertThat(store.list("index/")).doesNotContain(index);
        assertThat(backups.prune(Duration.ZERO, false).skippedNames()).isEmpty();
        RestoreResult again = restore(second.snapshotId(), "again");
        assertThat(again.ok()).as("%s", again).isTrue();
        assertThat(backups.verify("h", "latest", null).ok()).isTrue();
    }

    @Test
    void aRepairWaitsForARunningBackupAndABackupDoesNotStartDuringARepair() throws IOException {
        Path source = source();
        assertThat(backups.backup("h", source).ok()).isTrue();
        deleteAllVersions(packs().get(0));
        SealedStore view = new SealedStore(store, key);
        List<VersionEntry> before = store.listVersions("");
        try (RunMarker running = RunMarker.start(view, "other", Clock.systemUTC())) {
            RepairResult r = backups.repair(true);
            assertThat(r.report()).isNull();
            assertThat(r.skipped()).singleElement().asString().startsWith("a backup of 'other' is running");
        }
        // nothing but the repair's own marker came and went
        assertThat(store.listVersions("index/"))
                .isEqualTo(before.stream()
                        .filter(v -> v.key().startsWith("index/"))
                        .toList());
        // a repair (or prune) in progress holds the prune marker: a backup does not start
        try (RunMarker repair = RunMarker.start(view, PackedPrune.PRUNE_MARKER, Clock.systemUTC())) {
            assertThatThrownBy(() -> backups.backup("h", source))
                    .isInstanceOfSatisfying(
                            BackupException.class,
                            e -> assertThat(e.kind()).isEqualTo(BackupException.Kind.UNAVAILABLE));
        }
        assertThat(backups.repair(false).report().missingPacks()).hasSize(1);
    }

    @Test
    void pruneDryRunSaysWhatItWouldDeleteAndWritesNothing() throws IOException {
        Path source = source();
        BackupResult first = backups.backup("h", source);
        for (int i = 0; i < 3; i++) {
            Files.write(source.resolve("f" + i + ".bin"), EncryptedBackupsTest.random(200_000, 60 + i));
        }
        assertThat(backups.backup("h", source).ok()).isTrue();
        assertThat(backups.forget("h", new RetentionPolicy(1, 0, 0, 0, 0, 0, null), false)
                        .removed())
                .containsExactly(first.snapshotId());
        List<VersionEntry> before = store.listVersions("");

        PruneResult planned = backups.prune(Duration.ZERO, true);
        assertThat(planned.dryRun()).isTrue();
        assertThat(planned.skippedNames()).isEmpty();
        assertThat(planned.deletedVersions())
                .as("the pack of the three old contents and the forgotten snapshot's manifest part")
                .isEqualTo(2);
        assertThat(planned.deletedBytes()).isPositive();
        assertThat(store.listVersions(""))
                .as("nothing written, not even a marker")
                .isEqualTo(before);

        PruneResult done = backups.prune(Duration.ZERO, false);
        assertThat(done.deletedVersions()).isEqualTo(planned.deletedVersions());
        assertThat(done.deletedBytes()).isEqualTo(planned.deletedBytes());
    }
}
