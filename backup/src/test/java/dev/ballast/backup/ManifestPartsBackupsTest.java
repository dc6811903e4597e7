package dev.ballast.backup;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.luben.zstd.Zstd;
import dev.ballast.backup.keys.MasterKey;
import dev.ballast.backup.retention.RetentionPolicy;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.SealedStore;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.VersionEntry;
import dev.ballast.storage.object.local.LocalObjectStore;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Manifests stored in parts (docs/backup-format.md, "Manifest parts") through the {@link Backups} API
 * on the local object store: an unchanged backup of many small files adds no part, snapshots stored
 * whole by the code before parts still list, restore and verify, and prune keeps exactly the parts a
 * kept snapshot reads.
 */
@ExtendWith(LeakCheck.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ManifestPartsBackupsTest {
    @TempDir
    Path dir;

    private LocalObjectStore store;
    private MasterKey key;

    @BeforeEach
    void open() {
        store = LocalObjectStore.open(dir.resolve("store"));
        key = EncryptedBackupsTest.init(store);
    }

    @AfterEach
    void close() {
        store.close();
    }

    /** Backups a minute "later" than the files were written, so an unchanged file is known by its stat alone. */
    private Backups backups() {
        return Backups.of(store, key).withClock(Clock.offset(Clock.systemUTC(), Duration.ofMinutes(1)));
    }

    /** {@code n} files of 1 to 4 KiB in folders of 100, as bench/backup-vs-peers.sh --small makes them. */
    private Path smallFiles(int n) throws IOException {
        Path source = dir.resolve("source");
        Random r = new Random(1);
        for (int i = 0; i < n; i++) {
            Path folder = Files.createDirectories(source.resolve(String.format("d%03d", i / 100)));
            byte[] bytes = new byte[1024 + r.nextInt(3073)];
            r.nextBytes(bytes);
            Files.write(folder.resolve(String.format("f%05d.txt", i)), bytes);
        }
        return source;
    }

    @Test
    void anUnchangedBackupOfManySmallFilesAddsItsHeadAndNoPart() throws IOException {
        Path source = smallFiles(3000);
        Backups backups = backups();
        BackupResult first = backups.backup("small", source);
        assertThat(first.ok()).as("%s", first).isTrue();
        List<String> parts = store.list(SealedStore.PARTS);
        assertThat(parts).hasSizeGreaterThan(2);

        BackupResult again = backups.backup("small", source);
        assertThat(again.ok()).as("%s", again).isTrue();
        assertThat(again.unchanged()).isEqualTo(3000);
        assertThat(store.list(SealedStore.PARTS)).isEqualTo(parts);
        List<VersionEntry> heads = store.listVersions(SealedStore.SNAPSHOTS);
        assertThat(heads).hasSize(2);
        assertThat(heads).allSatisfy(v -> assertThat(v.size()).isLessThan(4 * 1024));

        // Forgetting the first and pruning keeps every part: the second's head names them all.
        backups.forget("small", new RetentionPolicy(1, 0, 0, 0, 0, 0, null), false);
        assertThat(backups.prune(Duration.ZERO, false).skippedNames()).isEmpty();
        assertThat(store.list(SealedStore.PARTS)).isEqualTo(parts);
        VerifyResult verified = backups.verify("small", "latest", null);
        assertThat(verified.ok()).as("%s", verified).isTrue();
        assertThat(verified.verified()).isEqualTo(3000);
    }

    @Test
    void aSnapshotStoredWholeBeforePartsListsRestoresVerifiesAndTheNextBackupGoesOnFromIt() throws IOException {
        Path source = smallFiles(500);
        Backups backups = backups();
        BackupResult made = backups.backup("old", source);
        assertThat(made.ok()).as("%s", made).isTrue();
        // Rewrite the repository as the code before parts left it: the snapshot sealed whole, no parts.
        SealedStore view = new SealedStore(store, key);
        byte[] json;
        try (ObjectRead read = view.get(Manifest.key("old"))) {
            json = read.readAllBytes();
        }
        String snapshot = view.snapshotKey("old");
        for (VersionEntry v : store.versions(snapshot)) {
            store.deleteVersion(snapshot, v.versionId());
        }
        for (VersionEntry v : store.listVersions(SealedStore.PARTS)) {
            store.deleteVersion(v.key(), v.versionId());
        }
        String whole = store.put(
                        snapshot,
                        ObjectContent.ofBytes(
                                key.seal(Zstd.compress(json, 3), "manifest".getBytes(StandardCharsets.US_ASCII))))
                .versionId();
        assertThat(store.list(SealedStore.PARTS)).isEmpty();

        List<SnapshotInfo> listed = backups.snapshots("old");
        assertThat(listed).extracting(SnapshotInfo::versionId).containsExactly(whole);
        assertThat(listed.get(0).damaged()).isNull();
        RestoreResult back = backups.restore("old", dir.resolve("restored"));
        assertThat(back.ok()).as("%s", back).isTrue();
        assertThat(back.restored()).isEqualTo(500);
        assertThat(Files.readAllBytes(dir.resolve("restored/d004/f00499.txt")))
                .isEqualTo(Files.readAllBytes(source.resolve("d004/f00499.txt")));
        VerifyResult verified = backups.verify("old", "latest", null);
        assertThat(verified.ok()).as("%s", verified).isTrue();
        assertThat(verified.verified()).isEqualTo(500);

        // The next backup reads the whole one as its previous manifest and writes parts.
        BackupResult next = backups.backup("old", source);
        assertThat(next.ok()).as("%s", next).isTrue();
        assertThat(next.unchanged()).isEqualTo(500);
        assertThat(store.list(SealedStore.PARTS)).isNotEmpty();
        // A prune keeps both: the whole one names its chunks, the new one its parts.
        assertThat(backups.prune(Duration.ZERO, false).skippedNames()).isEmpty();
        assertThat(backups.snapshots("old"))
                .allSatisfy(s -> assertThat(s.damaged()).isNull());
        assertThat(backups.verify("old", whole, null).ok()).isTrue();
        assertThat(backups.verify("old", "latest", null).ok()).isTrue();
    }

    @Test
    void pruneDeletesThePartsOnlyAForgottenSnapshotNamed() throws IOException {
        Path source = smallFiles(1000);
        Backups backups = backups();
        assertThat(backups.backup("p", source).ok()).isTrue();
        List<String> firstParts = store.list(SealedStore.PARTS);
        // Every file changed: the second backup's entries share no part with the first's.
        Random r = new Random(2);
        try (var files = Files.walk(source)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                byte[] bytes = new byte[2000];
                r.nextBytes(bytes);
                Files.write(f, bytes);
            }
        }
        BackupResult second = backups.backup("p", source);
        assertThat(second.ok()).as("%s", second).isTrue();

        backups.forget("p", new RetentionPolicy(1, 0, 0, 0, 0, 0, null), false);
        PruneResult pruned = backups.prune(Duration.ZERO, false);
        assertThat(pruned.skippedNames()).isEmpty();

        SealedStore view = new SealedStore(store, key);
        List<String> secondParts = view.partsOf(view.snapshotKey("p"), second.snapshotId()).stream()
                .map(id -> SealedStore.PARTS + id)
                .distinct()
                .sorted()
                .toList();
        List<String> left = store.list(SealedStore.PARTS).stream().sorted().toList();
        assertThat(left).isEqualTo(secondParts);
        assertThat(firstParts).anySatisfy(p -> assertThat(left).doesNotContain(p));
        RestoreResult back = backups.restore("p", dir.resolve("restored"));
        assertThat(back.ok()).as("%s", back).isTrue();
        assertThat(back.restored()).isEqualTo(1000);
    }
}
