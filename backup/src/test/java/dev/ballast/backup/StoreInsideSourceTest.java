package dev.ballast.backup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.storage.StorageFacade;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A local store whose directory lies inside the directory backed up, opened as a user of the library
 * opens it ({@link StorageFacade.Builder#localObjects(Path)}): the backup leaves the store out, as
 * {@code ballast backup} does, and says so in {@link BackupResult#skipped()}.
 */
@ExtendWith(LeakCheck.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StoreInsideSourceTest {
    @TempDir
    Path source;

    @TempDir
    Path elsewhere;

    @Test
    void anEncryptedBackupLeavesOutItsOwnStoreAndSaysSo() throws IOException {
        try (StorageFacade facade =
                StorageFacade.newBuilder().localObjects(source.resolve("store")).build()) {
            Backups backups = Backups.of(facade.objects(), EncryptedBackupsTest.init(facade.objects()));
            backsUpWithoutItsStore(backups);
        }
    }

    @Test
    void anUnencryptedBackupLeavesOutItsOwnStoreAndSaysSo() throws IOException {
        try (StorageFacade facade =
                StorageFacade.newBuilder().localObjects(source.resolve("store")).build()) {
            backsUpWithoutItsStore(Backups.of(facade));
        }
    }

    private void backsUpWithoutItsStore(Backups fromStart) throws IOException {
        // a minute later than the files were written: the second run knows them unchanged by their stat
        Backups backups = fromStart.withClock(Clock.offset(Clock.systemUTC(), Duration.ofMinutes(1)));
        Files.writeString(source.resolve("notes.txt"), "kept", StandardCharsets.UTF_8);
        Files.write(source.resolve("data.bin"), EncryptedBackupsTest.random(300_000, 7));

        BackupResult first = backups.backup("d", source);
        assertThat(first.ok()).as("%s", first).isTrue();
        assertThat(first.stored()).isEqualTo(2);
        assertThat(first.skipped()).containsExactly("store/ (the store this backup is written to)");

        // The store grew with the first backup; the second finds nothing new in the source.
        BackupResult second = backups.backup("d", source);
        assertThat(second.ok()).as("%s", second).isTrue();
        assertThat(second.stored()).isZero();
        assertThat(second.unchanged()).isEqualTo(2);
        assertThat(second.skipped()).containsExactly("store/ (the store this backup is written to)");

        Path target = elsewhere.resolve("restored");
        assertThat(backups.restore("d", target).ok()).isTrue();
        try (Stream<Path> restored = Files.list(target)) {
            assertThat(restored.map(p -> p.getFileName().toString()))
                    .containsExactlyInAnyOrder("notes.txt", "data.bin");
        }
        assertThat(target.resolve("data.bin")).hasSameBinaryContentAs(source.resolve("data.bin"));
    }
}
