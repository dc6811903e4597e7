package dev.ballast.it.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.backup.BackupException;
import dev.ballast.backup.BackupListener;
import dev.ballast.backup.BackupProgress;
import dev.ballast.backup.BackupResult;
import dev.ballast.backup.Backups;
import dev.ballast.backup.ForgetResult;
import dev.ballast.backup.PruneResult;
import dev.ballast.backup.RestoreOptions;
import dev.ballast.backup.RestoreResult;
import dev.ballast.backup.SnapshotInfo;
import dev.ballast.backup.VerifyResult;
import dev.ballast.backup.retention.RetentionPolicy;
import dev.ballast.backup.tree.Names;
import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.object.S3MockServer;
import dev.ballast.storage.object.s3.S3Endpoint;
import dev.ballast.storage.object.s3.S3StoreConfig;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A backup and its restores through the backup library's API alone (no class of the command line),
 * on the local object store and on S3 (S3Mock): the restored bytes and names (one of them not valid
 * UTF-8), a selection, a refused overwrite, the snapshot list, verify, forget and prune, and the
 * progress and results the library hands back as values.
 */
@ExtendWith(LeakCheck.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BackupLibraryIT {

    enum Store {
        LOCAL,
        S3
    }

    @TempDir
    Path dir;

    private StorageFacade open(Store store, String bucket) {
        return store == Store.LOCAL
                ? StorageFacade.newBuilder().localObjects(dir.resolve("store")).build()
                : StorageFacade.newBuilder()
                        .s3(S3Endpoint.newBuilder()
                                .endpoint(S3MockServer.endpoint())
                                .credentials("ballast", "ballast")
                                .build())
                        .bucket(bucket)
                        .s3Config(S3StoreConfig.builder()
                                .createBucket(true)
                                .enableVersioning(true)
                                .build())
                        .build();
    }

    /** Progress and notes as the listener received them. */
    static final class Recorder implements BackupListener {
        final List<BackupProgress> progress = new CopyOnWriteArrayList<>();
        final List<String> notices = new CopyOnWriteArrayList<>();

        @Override
        public void progress(BackupProgress p) {
            progress.add(p);
        }

        @Override
        public void notice(String message) {
            notices.add(message);
        }

        BackupProgress last() {
            return progress.get(progress.size() - 1);
        }
    }

    @ParameterizedTest
    @EnumSource(Store.class)
    void backsUpAndRestoresThroughTheLibraryAlone(Store kind) throws IOException {
        Path source = Files.createDirectories(dir.resolve("source"));
        Files.createDirectories(source.resolve("docs"));
        byte[] report = "quarterly report\n".repeat(1000).getBytes(StandardCharsets.UTF_8);
        Files.write(source.resolve("docs/report.txt"), report);
        Files.writeString(source.resolve("café.txt"), "with an accent");
        // A name that is not valid UTF-8 (Latin-1 "é"), kept byte for byte.
        byte[] latin1 = {'n', (byte) 0xE9, '.', 't', 'x', 't'};
        Files.writeString(source.resolve(Names.path(Names.decode(latin1))), "latin-1 name");
        long totalBytes = report.length + "with an accent".length() + "latin-1 name".length();

        try (StorageFacade facade = open(kind, "backup-library-" + kind.name().toLowerCase())) {
            Recorder first = new Recorder();
            // The backups run a minute "later" than the files were written: a file changed within two
            // seconds of a run's start is hashed again by the next run (git's racily clean files), and
            // this test wants the unchanged files recognised by their stat alone.
            Backups backups = Backups.of(facade)
                    .withClock(Clock.offset(Clock.systemUTC(), Duration.ofMinutes(1)))
                    .withListener(first)
                    .withTransfers(2);

            BackupResult made = backups.backup("docs", source);

            assertThat(made.ok()).as("%s", made).isTrue();
            assertThat(made.snapshotId()).isNotNull();
            assertThat(made.stored()).isEqualTo(3);
            assertThat(made.unchanged()).isZero();
            assertThat(made.bytesTotal()).isEqualTo(totalBytes);
            assertThat(made.failed()).isEmpty();
            assertThat(first.last()).isEqualTo(new BackupProgress(3, 3, totalBytes, totalBytes));

            // Unchanged files are kept without being stored again.
            BackupResult again = backups.withListener(BackupListener.NONE).backup("docs", source);
            assertThat(again.ok()).isTrue();
            assertThat(again.stored()).as("%s", again).isZero();
            assertThat(again.unchanged()).isEqualTo(3);
            assertThat(again.bytesUploaded()).isZero();

            List<SnapshotInfo> snapshots = backups.snapshots("docs");
            assertThat(snapshots)
                    .extracting(SnapshotInfo::versionId)
                    .containsExactly(again.snapshotId(), made.snapshotId());
            assertThat(snapshots).allSatisfy(s -> {
                assertThat(s.complete()).isTrue();
                assertThat(s.damaged()).isNull();
                assertThat(s.files()).isEqualTo(3);
                assertThat(s.bytes()).isEqualTo(totalBytes);
            });

            Recorder restoring = new Recorder();
            Path target = dir.resolve("restored");
            RestoreResult back = backups.withListener(restoring).restore("docs", target, RestoreOptions.latest());

            assertThat(back.ok()).as("%s", back).isTrue();
            assertThat(back.snapshotId()).isEqualTo(again.snapshotId());
            assertThat(back.olderThanNewest()).isFalse();
            assertThat(back.restored()).isEqualTo(3);
            assertThat(back.bytes()).isEqualTo(totalBytes);
            assertThat(restoring.last()).isEqualTo(new BackupProgress(3, 3, totalBytes, totalBytes));
            assertThat(contents(target)).isEqualTo(contents(source));
            assertThat(contents(target)).containsKey(HexFormat.of().formatHex(latin1));

            // A selection: only docs/, from the first snapshot by its short ID.
            Path selected = dir.resolve("selected");
            RestoreResult part = backups.restore(
                    "docs",
                    selected,
                    RestoreOptions.latest().version(snapshots.get(1).shortId()).only("docs"));
            assertThat(part.ok()).isTrue();
            assertThat(part.snapshotId()).isEqualTo(made.snapshotId());
            assertThat(contents(selected)).containsOnlyKeys(hex("docs/report.txt"));

            // An existing file that differs is never replaced silently.
            Files.writeString(target.resolve("docs/report.txt"), "changed since");
            assertThatThrownBy(() -> backups.restore("docs", target))
                    .isInstanceOfSatisfying(BackupException.class, e -> {
                        assertThat(e.kind()).isEqualTo(BackupException.Kind.CONFLICT);
                        assertThat(e.details())
                                .containsExactly(
                                        "In the way: docs/report.txt (an existing file differs from the backup's)");
                    });
            assertThat(Files.readString(target.resolve("docs/report.txt"))).isEqualTo("changed since");
            RestoreResult overwritten =
                    backups.restore("docs", target, RestoreOptions.latest().overwriting());
            assertThat(overwritten.ok()).isTrue();
            assertThat(overwritten.restored()).isEqualTo(1);
            assertThat(overwritten.alreadyPresent()).isEqualTo(2);
            assertThat(contents(target)).isEqualTo(contents(source));

            // Verify reads every stored copy back against its SHA-256.
            VerifyResult verified = backups.verify("docs", "latest", null);
            assertThat(verified.ok()).as("%s", verified).isTrue();
            assertThat(verified.snapshotId()).isEqualTo(again.snapshotId());
            assertThat(verified.verified()).isEqualTo(3);
            assertThat(verified.bytes()).isEqualTo(totalBytes);

            // A third snapshot with one file changed; keep only it, then prune what no snapshot references:
            // the one version the changed file's old bytes were stored as.
            Files.writeString(source.resolve("café.txt"), "with an accent, changed");
            BackupResult third = backups.backup("docs", source);
            assertThat(third.stored()).isEqualTo(1);
            assertThat(third.unchanged()).isEqualTo(2);
            ForgetResult forgot =
                    backups.forget("docs", RetentionPolicy.builder().last(1).build(), false);
            assertThat(forgot.removed()).containsExactly(again.snapshotId(), made.snapshotId());
            assertThat(forgot.keptSnapshots())
                    .containsExactly(new ForgetResult.Kept(
                            third.snapshotId(), backups.snapshots("docs").get(0).createdAt(), "last snapshot"));
            assertThat(backups.snapshots("docs"))
                    .extracting(SnapshotInfo::versionId)
                    .containsExactly(third.snapshotId());
            PruneResult pruned = backups.prune(Duration.ZERO, false);
            assertThat(pruned.deletedVersions()).isEqualTo(1);
            assertThat(pruned.deletedBytes()).isEqualTo("with an accent".length());
            Path latest = dir.resolve("latest");
            assertThat(backups.restore("docs", latest).ok()).isTrue();
            assertThat(contents(latest)).isEqualTo(contents(source));

            assertThatThrownBy(() -> backups.restore("no-such-backup", dir.resolve("none")))
                    .isInstanceOfSatisfying(
                            BackupException.class, e -> assertThat(e.kind()).isEqualTo(BackupException.Kind.NOT_FOUND));
            Path aFile = Files.writeString(dir.resolve("a-file"), "in the way");
            assertThatThrownBy(() -> backups.restore("docs", aFile))
                    .isInstanceOfSatisfying(
                            BackupException.class,
                            e -> assertThat(e.kind()).isEqualTo(BackupException.Kind.INVALID_INPUT))
                    .hasMessage("'" + aFile + "' exists and is not a directory; pass a directory to restore into.");
            assertThat(Files.readString(aFile)).isEqualTo("in the way");
            assertThat(first.notices).isEmpty();
        }
    }

    /** Each regular file under {@code root}: its path's bytes in hex, to its bytes in hex. */
    private static Map<String, String> contents(Path root) throws IOException {
        Map<String, String> map = new TreeMap<>();
        List<Path> files = new ArrayList<>();
        try (Stream<Path> all = Files.walk(root)) {
            all.filter(Files::isRegularFile).forEach(files::add);
        }
        for (Path f : files) {
            String rel = Names.relative(root, f);
            map.put(HexFormat.of().formatHex(Names.encode(rel)), HexFormat.of().formatHex(Files.readAllBytes(f)));
        }
        return map;
    }

    private static String hex(String name) {
        return HexFormat.of().formatHex(name.getBytes(StandardCharsets.UTF_8));
    }
}
