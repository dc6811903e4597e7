package dev.ballast.backup;

import static dev.ballast.backup.EncryptedBackupsTest.init;
import static dev.ballast.backup.EncryptedBackupsTest.random;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.backup.keys.MasterKey;
import dev.ballast.backup.retention.PackedPrune;
import dev.ballast.backup.run.RestoreLock;
import dev.ballast.backup.run.RunMarker;
import dev.ballast.backup.snapshot.SealedStore;
import dev.ballast.test.FakeObjectStore;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A restore and a prune of an encrypted repository on a store other than a local one (S3): the restore
 * keeps a run marker while it reads packs ({@link RestoreLock#forReading}), which a prune finds live and so
 * deletes nothing; a restore that finds a prune's marker live is refused. Without it a prune deleted the
 * packs of a snapshot being restored, and the restore reported its files damaged.
 */
@ExtendWith(LeakCheck.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReaderMarkerTest {
    @TempDir
    Path dir;

    private final FakeObjectStore store = new FakeObjectStore();
    private final Clock clock = Clock.offset(Clock.systemUTC(), Duration.ofMinutes(1));

    private Backups backups(MasterKey key) {
        return Backups.of(store, key).withTransfers(1).withClock(clock);
    }

    /** Two backups of 'b' whose files all differ, then the first one forgotten: its pack is garbage. */
    private MasterKey garbageToPrune() throws IOException {
        MasterKey key = init(store);
        Path source = Files.createDirectories(dir.resolve("source"));
        Files.write(source.resolve("a.bin"), random(40_000, 1));
        assertThat(backups(key).backup("b", source).ok()).isTrue();
        Files.write(source.resolve("a.bin"), random(40_000, 2));
        assertThat(backups(key).backup("b", source).ok()).isTrue();
        backups(key).forget("b", new dev.ballast.backup.retention.RetentionPolicy(1, 0, 0, 0, 0, 0, null), false);
        return key;
    }

    @Test
    void aPruneBesideARestoreOnAnS3StoreDeletesNothingAndSaysWhy() throws IOException {
        MasterKey key = garbageToPrune();
        long before = store.list("data/").size();
        try (RestoreLock restoring = RestoreLock.forReading(new SealedStore(store, key), clock, "restore")) {
            PruneResult r = backups(key).prune(Duration.ZERO, false);
            assertThat(r.skippedNames())
                    .anySatisfy(s -> assertThat(s).contains("a restore or verify from the" + " repository is running"));
            assertThat(store.list("data/")).hasSize((int) before);
        }
        assertThat(store.list(RunMarker.PREFIX))
                .as("the restore's marker is gone with it")
                .isEmpty();
        assertThat(backups(key).prune(Duration.ZERO, false).skippedNames()).isEmpty();
        assertThat(store.list("data/").size()).isLessThan((int) before);
    }

    @Test
    void aRestoreBesideAPruneOnAnS3StoreIsRefusedAndToldToRunAgain() throws IOException {
        MasterKey key = garbageToPrune();
        SealedStore view = new SealedStore(store, key);
        try (RunMarker pruning = RunMarker.start(view, PackedPrune.PRUNE_MARKER, clock)) {
            assertThatThrownBy(() -> backups(key).restore("b", dir.resolve("back")))
                    .isInstanceOf(BackupException.class)
                    .hasMessageContaining("A prune of the repository is running")
                    .hasMessageContaining("run the restore again once it has ended");
        }
        assertThat(backups(key).restore("b", dir.resolve("back")).ok()).isTrue();
    }
}
