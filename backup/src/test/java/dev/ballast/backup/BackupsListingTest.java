package dev.ballast.backup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.backup.tree.LocalHost;
import dev.ballast.storage.object.local.LocalObjectStore;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** What a library user lists: the backup names of a store and each snapshot as {@code ballast list} shows it. */
@ExtendWith(LeakCheck.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BackupsListingTest {
    @TempDir
    Path dir;

    private static Path source(Path dir, String name) throws IOException {
        Path source = Files.createDirectories(dir.resolve(name));
        Files.writeString(source.resolve("a.txt"), "a");
        return source;
    }

    /** Both formats: the earlier one without a key, and an encrypted repository. */
    private void onBothFormats(java.util.function.BiConsumer<Backups, String> test) {
        for (boolean encrypted : new boolean[] {false, true}) {
            try (LocalObjectStore store = LocalObjectStore.open(dir.resolve("store-" + encrypted))) {
                Backups backups = encrypted ? Backups.of(store, EncryptedBackupsTest.init(store)) : Backups.of(store);
                test.accept(backups, encrypted ? "format 3" : "earlier format");
            }
        }
    }

    @Test
    void namesListsEveryBackupNameOfTheStoreAndNoneOfAnEmptyOne() {
        onBothFormats((backups, format) -> {
            assertThat(backups.names()).as(format).isEmpty();
            try {
                backups.backup("photos", source(dir, "p-" + format.hashCode()));
                backups.backup("docs", source(dir, "d-" + format.hashCode()));
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            assertThat(backups.names()).as(format).containsExactlyInAnyOrder("docs", "photos");
        });
    }

    @Test
    void aSnapshotTellsTheHostAndDirectoryItsRunBackedUpAndWhatItCouldNotStore() {
        onBothFormats((backups, format) -> {
            Path source;
            try {
                source = source(dir, "s-" + format.hashCode());
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            BackupResult made = backups.backup("s", source);
            List<SnapshotInfo> listed = new ArrayList<>(backups.snapshots("s"));
            assertThat(listed).hasSize(1);
            SnapshotInfo s = listed.get(0);
            assertThat(s.versionId()).isEqualTo(made.snapshotId());
            assertThat(s.host()).as(format).isEqualTo(LocalHost.nameOrNull());
            assertThat(s.source()).as(format).isEqualTo(source.toAbsolutePath().toString());
            assertThat(s.notStored()).isZero();
            assertThat(s.stale()).isZero();
            assertThat(s.files()).isEqualTo(1);
        });
    }

    @Test
    void forgetTellsEachKeptSnapshotsIdTimeAndReasonApart() throws IOException {
        try (LocalObjectStore store = LocalObjectStore.open(dir.resolve("store"))) {
            Backups backups = Backups.of(store);
            Path source = source(dir, "f");
            BackupResult first = backups.backup("f", source);
            BackupResult second = backups.backup("f", source);
            ForgetResult forgot = backups.forget(
                    "f",
                    dev.ballast.backup.retention.RetentionPolicy.builder()
                            .last(1)
                            .build(),
                    true);
            assertThat(forgot.removed()).containsExactly(first.snapshotId());
            assertThat(forgot.keptSnapshots()).hasSize(1);
            ForgetResult.Kept kept = forgot.keptSnapshots().get(0);
            assertThat(kept.versionId()).isEqualTo(second.snapshotId());
            assertThat(kept.createdAt()).isEqualTo(backups.snapshots("f").get(0).createdAt());
            assertThat(kept.reason()).isEqualTo("last snapshot");
            assertThat(kept).hasToString(second.snapshotId() + " (last snapshot)");
        }
    }

    @Test
    void theSnapshotsOfANameWithoutBackupsAreNotFoundAsItsRestoreIs() {
        onBothFormats((backups, format) -> {
            for (org.assertj.core.api.ThrowableAssert.ThrowingCallable call :
                    List.<org.assertj.core.api.ThrowableAssert.ThrowingCallable>of(
                            () -> backups.snapshots("nosuch"),
                            () -> backups.restore("nosuch", dir.resolve("target")))) {
                org.assertj.core.api.Assertions.assertThatThrownBy(call)
                        .as(format)
                        .isInstanceOfSatisfying(
                                BackupException.class,
                                e -> assertThat(e.kind()).isEqualTo(BackupException.Kind.NOT_FOUND))
                        .hasMessage("There is no backup named 'nosuch' in the object store; Backups.names() lists"
                                + " the backups there.");
            }
        });
    }
}
