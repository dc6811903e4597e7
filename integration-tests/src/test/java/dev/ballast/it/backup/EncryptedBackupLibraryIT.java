package dev.ballast.it.backup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.backup.BackupResult;
import dev.ballast.backup.Backups;
import dev.ballast.backup.FileProblem;
import dev.ballast.backup.ForgetResult;
import dev.ballast.backup.PruneResult;
import dev.ballast.backup.RestoreResult;
import dev.ballast.backup.SnapshotInfo;
import dev.ballast.backup.VerifyResult;
import dev.ballast.backup.retention.RetentionPolicy;
import dev.ballast.backup.tree.Names;
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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * An encrypted repository (format 3) through the backup library's API alone, on the local object store
 * and on S3 (S3Mock): restored bytes and names (a control character, a name not valid UTF-8), an
 * unchanged run storing nothing, a flipped byte in a pack named as damage with nothing wrong written,
 * no name or content readable in any stored object, and forget + prune freeing packs.
 */
@ExtendWith(LeakCheck.class)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class EncryptedBackupLibraryIT {
    enum Store {
        LOCAL,
        S3
    }

    static final byte[] CONTROL_NAME = {'t', 'a', 'b', '\t', 'n', 'a', 'm', 'e'};
    static final byte[] LATIN1_NAME = {'n', (byte) 0xE9, '.', 't', 'x', 't'};
    static final String SECRET_NAME = "board-minutes-confidential.txt";
    static final String SECRET_TEXT = "acquisition of Globex at 41 a share";

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
    void backsUpRestoresAndPrunesAnEncryptedRepository(Store kind) throws IOException {
        Path source = Files.createDirectories(dir.resolve("source"));
        Files.createDirectories(source.resolve("docs"));
        Files.writeString(source.resolve("docs/" + SECRET_NAME), (SECRET_TEXT + "\n").repeat(300));
        Files.writeString(source.resolve(Names.path(Names.decode(CONTROL_NAME))), "a tab in the name");
        Files.writeString(source.resolve(Names.path(Names.decode(LATIN1_NAME))), "latin-1 name");
        Files.write(source.resolve("big.bin"), random(2 * 1024 * 1024, 7));

        try (StorageFacade facade =
                open(kind, "encrypted-library-" + kind.name().toLowerCase())) {
            ObjectStore store = facade.objects();
            Backups backups = Backups.init(store, "library password".toCharArray())
                    .withClock(Clock.offset(Clock.systemUTC(), Duration.ofMinutes(1)))
                    .withTransfers(2);

            BackupResult made = backups.backup("docs", source);
            assertThat(made.ok()).as("%s", made).isTrue();
            assertThat(made.stored()).isEqualTo(4);

            Map<String, Long> packs = sizes(store, "data/");
            BackupResult again = backups.backup("docs", source);
            assertThat(again.ok()).as("%s", again).isTrue();
            assertThat(again.unchanged()).isEqualTo(4);
            assertThat(again.bytesUploaded()).isZero();
            assertThat(sizes(store, "data/")).isEqualTo(packs);

            Path target = dir.resolve("restored");
            RestoreResult back = backups.restore("docs", target);
            assertThat(back.ok()).as("%s", back).isTrue();
            assertThat(contents(target)).isEqualTo(contents(source));
            assertThat(contents(target)).containsKeys(hex(CONTROL_NAME), hex(LATIN1_NAME));
            assertThat(backups.verify("docs", "latest", null).ok()).isTrue();

            // Nothing in the store tells a name or a content.
            List<String> needles = List.of(SECRET_NAME, SECRET_TEXT, "big.bin", "docs/");
            for (VersionEntry v : store.listVersions("")) {
                for (String needle : needles) {
                    assertThat(v.key()).doesNotContain(needle);
                }
                if (!v.deleteMarker()) {
                    String bytes = new String(read(store, v), StandardCharsets.ISO_8859_1);
                    for (String needle : needles) {
                        assertThat(bytes).as("%s in %s", needle, v.key()).doesNotContain(needle);
                    }
                }
            }

            // A new big file; forget the older snapshots; prune frees the packs only they needed.
            Files.write(source.resolve("big.bin"), random(2 * 1024 * 1024, 8));
            BackupResult third = backups.backup("docs", source);
            assertThat(third.ok()).isTrue();
            ForgetResult forgot = backups.forget("docs", new RetentionPolicy(1, 0, 0, 0, 0, 0, null), false);
            assertThat(forgot.removed()).containsExactly(again.snapshotId(), made.snapshotId());
            assertThat(backups.snapshots("docs"))
                    .extracting(SnapshotInfo::versionId)
                    .containsExactly(third.snapshotId());
            PruneResult pruned = backups.prune(Duration.ZERO, false);
            assertThat(pruned.skippedNames()).isEmpty();
            assertThat(pruned.deletedBytes()).isPositive();
            Path latest = dir.resolve("latest");
            RestoreResult after = backups.restore("docs", latest);
            assertThat(after.ok()).as("%s", after).isTrue();
            assertThat(contents(latest)).isEqualTo(contents(source));

            // A flipped byte in a pack: the file is named damaged and nothing is written in its place.
            for (VersionEntry pack : store.listVersions("data/")) {
                if (pack.latest() && !pack.deleteMarker()) {
                    byte[] bytes = read(store, pack);
                    bytes[50] ^= 0x01;
                    store.put(pack.key(), ObjectContent.ofBytes(bytes));
                }
            }
            Path damaged = dir.resolve("damaged");
            RestoreResult broken = backups.restore("docs", damaged);
            assertThat(broken.ok()).isFalse();
            assertThat(broken.damagedCopies()).isPositive();
            assertThat(broken.failed()).extracting(FileProblem::path).isNotEmpty();
            for (FileProblem p : broken.failed()) {
                assertThat(damaged.resolve(Names.path(p.path()))).doesNotExist();
            }
            VerifyResult verified = backups.verify("docs", "latest", null);
            assertThat(verified.ok()).isFalse();
            assertThat(verified.damaged()).isNotEmpty();
        }
    }

    private static Map<String, Long> sizes(ObjectStore store, String prefix) {
        Map<String, Long> out = new TreeMap<>();
        for (VersionEntry v : store.listVersions(prefix)) {
            if (!v.deleteMarker()) {
                out.put(v.key() + " " + v.versionId(), v.size());
            }
        }
        return out;
    }

    private static byte[] read(ObjectStore store, VersionEntry v) {
        try (ObjectRead r =
                store.get(v.key(), ReadOptions.version(v.versionId()).withAllowCache(false))) {
            return r.readAllBytes();
        }
    }

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

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

    private static String hex(byte[] name) {
        return HexFormat.of().formatHex(name);
    }
}
