package dev.ballast.it.backup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.backup.BackupResult;
import dev.ballast.backup.Backups;
import dev.ballast.backup.PruneResult;
import dev.ballast.backup.RepairResult;
import dev.ballast.backup.RestoreOptions;
import dev.ballast.backup.RestoreResult;
import dev.ballast.backup.VerifyResult;
import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.S3MockServer;
import dev.ballast.storage.object.VersionEntry;
import dev.ballast.storage.object.s3.S3Endpoint;
import dev.ballast.storage.object.s3.S3StoreConfig;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The damage rules of an encrypted repository on the local store and on S3 (S3Mock), through the
 * {@code Backups} API: a deleted pack is stored again by the next backup and the older snapshot restores
 * again; a damaged pack is salvaged by {@code repair(true)} and healed by the next backup; a damaged
 * index file stops no restore and {@code repair(false)} replaces it.
 */
@ExtendWith(LeakCheck.class)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class EncryptedRepositoryHealingIT {
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

    @ParameterizedTest
    @EnumSource(Store.class)
    void missingAndDamagedPacksAndADamagedIndexFileAreHealed(Store kind) throws IOException {
        Path source = source(0);
        try (StorageFacade facade = open(kind, "healing-" + kind.name().toLowerCase())) {
            ObjectStore store = facade.objects();
            Backups backups = Backups.init(store, "library password".toCharArray())
                    .withClock(Clock.offset(Clock.systemUTC(), Duration.ofMinutes(1)))
                    .withTransfers(2);
            BackupResult first = backups.backup("h", source);
            assertThat(first.ok()).as("%s", first).isTrue();

            // a deleted pack: the next backup stores its chunks again, the older snapshot restores again
            for (String pack : store.list("data/")) {
                deleteAllVersions(store, pack);
            }
            BackupResult second = backups.backup("h", source);
            assertThat(second.ok()).as("%s", second).isTrue();
            assertThat(second.stored()).isEqualTo(3);
            assertRestores(backups, first.snapshotId(), source, dir.resolve("after-loss"));
            // the missing pack stays named until a repair, but holds nothing: a prune keeps the new copies
            assertThat(backups.prune(Duration.ZERO, false).skippedNames()).isEmpty();
            assertRestores(backups, first.snapshotId(), source, dir.resolve("after-loss-and-prune"));

            // a damaged pack: verify drops the damaged chunk (the pack replaced by its intact ones), the next
            // backup stores it again
            List<String> packs = store.list("data/");
            assertThat(packs).hasSize(1);
            byte[] bytes = read(store, packs.get(0));
            bytes[100] ^= 0x01;
            store.put(packs.get(0), ObjectContent.ofBytes(bytes));
            VerifyResult damaged = backups.verify("h", first.snapshotId(), null);
            assertThat(damaged.damaged()).hasSize(1);
            assertThat(damaged.recorded()).isTrue();
            assertThat(store.list("data/")).doesNotContain(packs.get(0));
            assertThat(backups.backup("h", source).ok()).isTrue();
            assertRestores(backups, first.snapshotId(), source, dir.resolve("after-damage"));
            assertThat(backups.verify("h", first.snapshotId(), null).ok()).isTrue();

            // a damaged index file: restore finds the packs from their headers; repair(false) replaces it
            String index = store.list("index/").get(0);
            byte[] indexBytes = read(store, index);
            indexBytes[indexBytes.length / 2] ^= 0x01;
            store.put(index, ObjectContent.ofBytes(indexBytes));
            assertRestores(backups, first.snapshotId(), source, dir.resolve("damaged-index"));
            RepairResult replaced = backups.repair(false);
            assertThat(replaced.ok()).isTrue();
            assertThat(replaced.report().indexFilesReplaced()).containsExactly(index);
            assertThat(store.list("index/")).doesNotContain(index);
            assertThat(backups.repair(true).report().changed()).isFalse();
        }
    }

    @ParameterizedTest
    @EnumSource(Store.class)
    void packsWhoseIndexFileIsLostStillRestoreAndNoPruneDeletesThem(Store kind) throws IOException {
        Path source = source(10);
        try (StorageFacade facade = open(kind, "lost-index-" + kind.name().toLowerCase())) {
            ObjectStore store = facade.objects();
            List<String> notices = new java.util.concurrent.CopyOnWriteArrayList<>();
            // two hours on: the packs are past a prune's grace period
            Backups backups = Backups.init(store, "library password".toCharArray())
                    .withClock(Clock.offset(Clock.systemUTC(), Duration.ofHours(2)))
                    .withListener(new dev.ballast.backup.BackupListener() {
                        @Override
                        public void notice(String message) {
                            notices.add(message);
                        }
                    })
                    .withTransfers(2);
            BackupResult first = backups.backup("h", source);
            assertThat(first.ok()).as("%s", first).isTrue();
            List<String> packs = store.list("data/");
            for (String index : store.list("index/")) {
                deleteAllVersions(store, index);
            }

            assertRestores(backups, first.snapshotId(), source, dir.resolve("no-index"));
            assertThat(notices)
                    .anySatisfy(n -> assertThat(n)
                            .contains("no index file names")
                            .contains(packs.get(0))
                            .contains("Backups.repair(false)"));
            assertThat(backups.verify("h", first.snapshotId(), null).ok()).isTrue();

            PruneResult refused = backups.prune(Duration.ofMinutes(1), false);
            assertThat(refused.skippedNames())
                    .anySatisfy(n -> assertThat(n).contains(packs.get(0)).contains("Backups.repair(false)"));
            assertThat(store.list("data/")).containsExactlyElementsOf(packs);
            assertRestores(backups, first.snapshotId(), source, dir.resolve("after-refused-prune"));

            assertThat(backups.repair(false).ok()).isTrue();
            assertThat(store.list("index/")).isNotEmpty();
            PruneResult pruned = backups.prune(Duration.ofMinutes(1), false);
            assertThat(pruned.skippedNames()).isEmpty();
            notices.clear();
            assertRestores(backups, first.snapshotId(), source, dir.resolve("after-repair"));
            assertThat(notices).noneSatisfy(n -> assertThat(n).contains("no index file names"));
        }
    }

    /** Three files of 200,000 random bytes, f0.bin to f2.bin, from seeds {@code seed} on. */
    private Path source(int seed) throws IOException {
        Path source = Files.createDirectories(dir.resolve("source"));
        for (int i = 0; i < 3; i++) {
            byte[] b = new byte[200_000];
            new Random(seed + i).nextBytes(b);
            Files.write(source.resolve("f" + i + ".bin"), b);
        }
        return source;
    }

    private static void assertRestores(Backups backups, String snapshot, Path source, Path target) throws IOException {
        RestoreResult r = backups.restore("h", target, RestoreOptions.latest().version(snapshot));
        assertThat(r.ok()).as("%s", r).isTrue();
        for (int i = 0; i < 3; i++) {
            assertThat(Files.readAllBytes(target.resolve("f" + i + ".bin")))
                    .isEqualTo(Files.readAllBytes(source.resolve("f" + i + ".bin")));
        }
    }

    private static void deleteAllVersions(ObjectStore store, String key) {
        for (VersionEntry v : store.versions(key)) {
            store.deleteVersion(key, v.versionId());
        }
    }

    private static byte[] read(ObjectStore store, String key) {
        try (ObjectRead r = store.get(key, ReadOptions.latest().withAllowCache(false))) {
            return r.readAllBytes();
        }
    }
}
