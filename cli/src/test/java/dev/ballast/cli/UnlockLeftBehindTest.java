package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.backup.content.PackedBlobs;
import dev.ballast.backup.keys.KeyFiles;
import dev.ballast.backup.keys.MasterKey;
import dev.ballast.backup.run.RunMarker;
import dev.ballast.backup.snapshot.SealedStore;
import dev.ballast.storage.object.local.LocalObjectStore;
import dev.ballast.testkit.LeakCheck;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code unlock} after a backup was killed before its flush: removing the run's marker must not cost
 * the next backup the packs the run uploaded (it would store their chunks again, with no marker left
 * to tell it they are there).
 */
@ExtendWith(LeakCheck.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UnlockLeftBehindTest extends EncryptedStoreCli {
    @Test
    void unlockIndexesTheKilledRunsPacksSoTheNextBackupDoesNotStoreThemAgain() throws Exception {
        Path src = Files.createDirectories(home.resolve("src"));
        byte[] big = new byte[20 * 1024 * 1024];
        new Random(5).nextBytes(big);
        Files.write(src.resolve("big.bin"), big);
        assertThat(run(at("init"))).as(err()).isZero();
        // The killed run: its first full pack uploaded, no index file written, its run marker left behind.
        try (LocalObjectStore store = store()) {
            MasterKey key =
                    KeyFiles.create().open(store, TEST_PASSWORD.toCharArray()).masterKey();
            try (PackedBlobs killed = PackedBlobs.open(store, key, 2)) {
                killed.store(src.resolve("big.bin"), n -> {}, () -> false);
            }
            RunMarker left = RunMarker.start(new SealedStore(store, key), "src", Clock.systemUTC());
            left.abandon();
            left.close();
            assertThat(store.list("data/")).isNotEmpty();
            assertThat(store.list("index/")).isEmpty();
        }

        assertThat(run(at("unlock", "--remove-all"))).as(err()).isZero();
        assertThat(out())
                .contains("Removed the run marker of 'src'")
                .contains("Indexed 1 pack that runs which did not finish left, so the next backup reuses their"
                        + " chunks instead of storing them again.");

        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        Matcher uploaded =
                Pattern.compile("20\\.0 MiB in .*, ([0-9.]+) MiB new").matcher(out());
        assertThat(uploaded.find()).as(out()).isTrue();
        assertThat(Double.parseDouble(uploaded.group(1)))
                .as("the killed run's full pack is reused, not stored again")
                .isLessThanOrEqualTo(8.0);
    }

    /** A killed restore's marker (on S3 a reader leaves one) was named by its reserved name '.ballast-restore'. */
    @Test
    void unlockNamesAKilledRestoresMarkerAsARestoreNotByItsReservedName() throws Exception {
        Path src = Files.createDirectories(home.resolve("src"));
        Files.writeString(src.resolve("a.txt"), "a");
        assertThat(run(at("backup", src.toString()))).as(err()).isZero();
        try (LocalObjectStore store = store()) {
            MasterKey key =
                    KeyFiles.create().open(store, TEST_PASSWORD.toCharArray()).masterKey();
            RunMarker left = RunMarker.start(
                    new SealedStore(store, key),
                    dev.ballast.backup.retention.PackedPrune.READER_MARKER,
                    Clock.systemUTC(),
                    false);
            left.abandon();
            left.close();
        }
        assertThat(run(at("unlock", "--remove-all"))).as(err()).isZero();
        assertThat(out())
                .contains("Removed the run marker of a restore or verify (")
                .doesNotContain(".ballast-restore");
    }
}
