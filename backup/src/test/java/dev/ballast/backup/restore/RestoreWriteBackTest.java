package dev.ballast.backup.restore;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The syncs a restore starts in the background as it writes ({@link RestoreDurability#written}). */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RestoreWriteBackTest {
    final Path written = Path.of("/restore/.ballast-0123456789abcdef-1");

    /** A sync that records each call and holds it until released. */
    static final class Held implements RestoreSync {
        final boolean available;
        final List<Collection<Path>> calls = java.util.Collections.synchronizedList(new ArrayList<>());
        final CountDownLatch started = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final CountDownLatch ended = new CountDownLatch(1);

        Held(boolean available) {
            this.available = available;
        }

        @Override
        public boolean available(Path target) {
            return available;
        }

        @Override
        public void syncAll(Collection<Path> directories) {
            calls.add(List.copyOf(directories));
            started.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                ended.countDown();
            }
        }
    }

    @Test
    void aThirdOfTwentyThousandSmallFilesStartsOneSyncOfWhatTheRunWritesAndNoSecondWhileItRuns()
            throws InterruptedException {
        Held sync = new Held(true);
        RestoreDurability d = RestoreDurability.choose(sync, written, Path.of("/restore/out"), () -> false);
        for (int i = 1; i < RestoreDurability.WRITE_BACK_FILES; i++) {
            d.written(2500);
        }
        assertThat(sync.calls)
                .as("not before %d files", RestoreDurability.WRITE_BACK_FILES)
                .isEmpty();

        d.written(2500);
        assertThat(sync.started.await(10, TimeUnit.SECONDS)).isTrue();
        for (int i = 0; i < 2 * RestoreDurability.WRITE_BACK_FILES; i++) {
            d.written(2500); // returns at once, the sync still running
        }
        sync.release.countDown();
        assertThat(sync.ended.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(sync.calls).containsExactly(List.of(written));
    }

    @Test
    void bytesStartOneToo() throws InterruptedException {
        Held sync = new Held(true);
        RestoreDurability d = RestoreDurability.choose(sync, written, Path.of("/restore/out"), () -> false);
        for (int i = 0; i < 64; i++) {
            d.written(RestoreDurability.SYNC_AS_WRITTEN_BYTES - 1);
        }
        assertThat(sync.calls).isEmpty();
        d.written(64);
        assertThat(sync.started.await(10, TimeUnit.SECONDS)).isTrue();
        sync.release.countDown();
        assertThat(sync.calls).containsExactly(List.of(written));
    }

    @Test
    void filesSyncedAsWrittenAndRunsThatSyncEachFileStartNone() {
        Held sync = new Held(true);
        RestoreDurability d = RestoreDurability.choose(sync, written, Path.of("/restore/out"), () -> false);
        for (int i = 0; i < RestoreDurability.WRITE_BACK_FILES; i++) {
            d.written(RestoreDurability.SYNC_AS_WRITTEN_BYTES); // synced before its rename already
        }
        Held none = new Held(false);
        RestoreDurability each = RestoreDurability.choose(none, written, Path.of("/restore/out"), () -> false);
        for (int i = 0; i < RestoreDurability.WRITE_BACK_FILES; i++) {
            each.written(2500);
        }
        assertThat(sync.calls).isEmpty();
        assertThat(none.calls).isEmpty();
    }

    /** A tester's Ctrl-C left the background sync's command running against a hung disk after the restore ended. */
    @Test
    void theEndStopsABackgroundSyncStillRunning() throws InterruptedException {
        Held sync = new Held(true);
        RestoreDurability d = RestoreDurability.choose(sync, written, Path.of("/restore/out"), () -> false);
        for (int i = 0; i < RestoreDurability.WRITE_BACK_FILES; i++) {
            d.written(2500);
        }
        assertThat(sync.started.await(10, TimeUnit.SECONDS)).isTrue();

        d.stopWriteBack();

        assertThat(sync.ended.await(10, TimeUnit.SECONDS))
                .as("interrupted (FileSystemSync then kills its command), never released")
                .isTrue();
        assertThat(sync.release.getCount()).isEqualTo(1);
    }
}
