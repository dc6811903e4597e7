package dev.ballast.it.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.cli.ExitCodes;
import dev.ballast.it.cli.CliHarness.Run;
import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.S3MockServer;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The main job end to end, in-process, on the default local store and on an S3 endpoint (S3Mock):
 * back up a generated tree, restore it byte-identical, back it up again with nothing uploaded, and
 * refuse a crafted manifest that names {@code ../x}.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@ExtendWith(LeakCheck.class)
class CliBackupRestoreIT {
    @TempDir
    static Path base;

    /** The bucket the S3 runs use. */
    static final String BUCKET = "cli-it";

    static Run ballast(StoreKind store, String... args) {
        return ballastIn(store, "data", BUCKET, args);
    }

    /** {@code ballast args} on the store {@code base/dataDir} (local) or {@code bucket} (S3). */
    static Run ballastIn(StoreKind store, String dataDir, String bucket, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(store.args(base.resolve(dataDir), bucket));
        return CliHarness.run(base.resolve("home"), p -> {}, all.toArray(String[]::new));
    }

    static Path generateTree(Path root) throws IOException {
        Random random = new Random(42);
        Files.createDirectories(root.resolve("nested/deeper/deepest"));
        Files.writeString(root.resolve("nested/deeper/deepest/leaf.txt"), "leaf");
        Files.write(root.resolve("empty.bin"), new byte[0]);
        Files.writeString(root.resolve("name with spaces.txt"), "spaces");
        Files.createDirectories(root.resolve("ünïcødé"));
        Files.writeString(root.resolve("ünïcødé/日本語 ✓.txt"), "unicode", StandardCharsets.UTF_8);
        Files.writeString(root.resolve("a+b=c.txt"), "plus");
        for (int i = 0; i < 5; i++) {
            byte[] small = new byte[1000 + i * 777];
            random.nextBytes(small);
            Files.write(root.resolve("nested/small-" + i + ".dat"), small);
        }
        byte[] big = new byte[20 * 1024 * 1024];
        random.nextBytes(big);
        Files.write(root.resolve("nested/twenty-mib.bin"), big);
        return root;
    }

    @org.junit.jupiter.api.Test
    void commandsOtherThanBackupAndInitNeverCreateTheBucketNorWriteToIt() throws Exception {
        // Only backup and init make a store: a mistyped --bucket given to a reading command, or to one that
        // writes into an existing store (prune, forget, verify --repair, unlock, key), is reported missing.
        String bucket = "never-created-by-a-read";
        Path source = Files.createDirectories(base.resolve("repair-source"));
        for (String[] args : new String[][] {
            {"list"},
            {"versions", "x/y"},
            {"verify", "x"},
            {"restore", "x", base.resolve("never").toString()},
            {"prune"},
            {"forget", "x", "--keep-last", "1"},
            {"verify", "x", "--repair", source.toString()},
            {"unlock", "--remove-all"},
            {"key", "list"}
        }) {
            List<String> all = new ArrayList<>(List.of(args));
            all.addAll(List.of(
                    "--endpoint",
                    S3MockServer.endpoint().toString(),
                    "--bucket",
                    bucket,
                    "--access-key",
                    "ballast",
                    "--secret-key",
                    "ballast"));
            Run run = CliHarness.run(base.resolve("home"), p -> {}, all.toArray(String[]::new));
            assertThat(run.exitCode()).as(String.join(" ", args)).isEqualTo(ExitCodes.NOT_FOUND);
            assertThat(run.err())
                    .as(String.join(" ", args))
                    .contains("There is no bucket '" + bucket + "' at the S3 endpoint")
                    .contains("check the bucket's name (--bucket, or BUCKET in --repo s3:URL/BUCKET)");
        }
        Run viaRepo = CliHarness.run(
                base.resolve("home"),
                p -> {},
                "-r",
                "s3:" + S3MockServer.endpoint() + "/" + bucket,
                "list",
                "--access-key",
                "ballast",
                "--secret-key",
                "ballast");
        assertThat(viaRepo.exitCode()).as(viaRepo.err()).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(viaRepo.err())
                .contains("There is no bucket '" + bucket + "' at the S3 endpoint")
                .contains("BUCKET in --repo");
        var head = java.net.http.HttpClient.newHttpClient()
                .send(
                        java.net.http.HttpRequest.newBuilder(
                                        S3MockServer.endpoint().resolve("/" + bucket))
                                .method("HEAD", java.net.http.HttpRequest.BodyPublishers.noBody())
                                .build(),
                        java.net.http.HttpResponse.BodyHandlers.discarding());
        assertThat(head.statusCode()).as("HEAD of the bucket").isEqualTo(404);
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void backsUpAndRestoresATreeByteIdenticalAndASecondBackupUploadsNothing(StoreKind store) throws IOException {
        Path source = generateTree(base.resolve("tree-" + store));
        String name = "tree-" + store;
        Map<String, String> expected = CliHarness.hashes(source);
        assertThat(expected).hasSize(11).containsKey("nested/twenty-mib.bin").containsKey("empty.bin");

        Run first = ballast(store, "backup", source.toString());
        assertThat(first.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(first.out()).contains("Backup '" + name + "' complete: 11 files stored, 0 unchanged");
        List<String> packsAfterFirst;
        try (StorageFacade facade = store.open(base.resolve("data"), BUCKET)) {
            // the first backup into the empty store made it an encrypted repository (format 3)
            assertThat(dev.ballast.backup.keys.KeyFiles.isRepository(facade.objects()))
                    .isTrue();
            assertThat(facade.objects().list("")).noneMatch(k -> k.startsWith(name) || k.contains("twenty"));
            packsAfterFirst = facade.objects().list("data/");
        }

        Path target = base.resolve("restored-" + store);
        Run restore = ballast(store, "restore", name, target.toString());
        assertThat(restore.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(restore.out())
                .contains("11 files restored")
                .contains("Every chunk matched its ID and every file its size");
        assertThat(CliHarness.hashes(target)).isEqualTo(expected);

        Run second = ballast(store, "backup", source.toString());
        assertThat(second.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(second.out())
                .contains("Nothing to upload: all 11 files are unchanged")
                .contains("0 files stored, 11 unchanged");
        try (StorageFacade facade = store.open(base.resolve("data"), BUCKET)) {
            ObjectStore objects = facade.objects();
            // nothing stored again: no new pack, and one more snapshot
            assertThat(objects.list("data/")).isEqualTo(packsAfterFirst);
            assertThat(CliHarness.asCommandsSeeIt(objects).versions(name + "/.ballast-manifest.json"))
                    .hasSize(2);
        }

        Run list = ballast(store, "list");
        assertThat(list.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(list.out()).contains(name).contains("11 files");
        Run verify = ballast(store, "verify", name);
        assertThat(verify.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(verify.out()).contains("11 of 11 files verified");
        Run versions = ballast(store, "versions", name + "/a+b=c.txt");
        assertThat(versions.exitCode()).as("versions is of the earlier format").isEqualTo(ExitCodes.USAGE);
        assertThat(versions.err()).contains("does not apply to an encrypted repository");
    }

    /**
     * The same job into a new store with {@code --insecure-no-encryption}: the earlier format, one
     * object per file and a version of the manifest per backup, which {@code versions} lists.
     */
    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void theEarlierFormatOnRequestStoresOneObjectPerFileAndASecondBackupUploadsNothing(StoreKind store)
            throws IOException {
        Path source = generateTree(base.resolve("earlier-" + store));
        String name = "earlier-" + store;
        Map<String, String> expected = CliHarness.hashes(source);
        String data = "data-earlier";
        String bucket = "cli-it-earlier";

        Run first = ballastIn(store, data, bucket, "backup", source.toString(), CliHarness.EARLIER_FORMAT);
        assertThat(first.exitCode()).as(first.err()).isEqualTo(ExitCodes.OK);
        assertThat(first.out()).contains("Backup '" + name + "' complete: 11 files stored, 0 unchanged");
        assertThat(first.err()).doesNotContain("Created the encrypted repository");

        Path target = base.resolve("restored-earlier-" + store);
        Run restore = ballastIn(store, data, bucket, "restore", name, target.toString());
        assertThat(restore.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(CliHarness.hashes(target)).isEqualTo(expected);

        // a store of the earlier format stays one: the second backup needs no option
        Run second = ballastIn(store, data, bucket, "backup", source.toString());
        assertThat(second.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(second.out()).contains("0 files stored, 11 unchanged");
        try (StorageFacade facade = store.open(base.resolve(data), bucket)) {
            ObjectStore objects = facade.objects();
            assertThat(dev.ballast.backup.keys.KeyFiles.isRepository(objects)).isFalse();
            assertThat(objects.versions(name + "/nested/twenty-mib.bin")).hasSize(1);
            assertThat(objects.versions(name + "/ünïcødé/日本語 ✓.txt")).hasSize(1);
            assertThat(objects.versions(name + "/.ballast-manifest.json")).hasSize(2);
        }
        Run versions = ballastIn(store, data, bucket, "versions", name + "/a+b=c.txt");
        assertThat(versions.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(versions.out()).contains("4 B");
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void aCraftedManifestNamingDotDotIsRefusedAndNothingIsWritten(StoreKind store) throws IOException {
        Path target = Files.createDirectories(base.resolve("victim-" + store + "/target"));
        // a plain manifest of the earlier format, written into a store of its own (so it is of that format)
        String data = "data-crafted";
        String bucket = "cli-it-crafted";
        try (StorageFacade facade = store.open(base.resolve(data), bucket)) {
            ObjectStore objects = facade.objects();
            ObjectVersion payload =
                    objects.put("evil/x", ObjectContent.ofBytes("pwned".getBytes(StandardCharsets.UTF_8)));
            String manifest = """
          {"formatVersion": 1, "name": "evil", "createdAt": "2026-11-29T10:15:30Z", "complete": true,
           "files": [{"path": "../x", "size": 5, "sha256": "%s", "versionId": "%s",
                      "mtime": "2026-11-29T10:15:30Z"}]}
          """.formatted(payload.sha256(), payload.versionId());
            objects.put(
                    "evil/.ballast-manifest.json", ObjectContent.ofBytes(manifest.getBytes(StandardCharsets.UTF_8)));
        }

        Run run = ballastIn(store, data, bucket, "restore", "evil", target.toString());
        assertThat(run.exitCode()).isEqualTo(ExitCodes.INTEGRITY);
        assertThat(run.err()).contains("'../x'").contains("refused").doesNotContain("\tat ");
        assertThat(base.resolve("victim-" + store + "/x")).doesNotExist();
        try (Stream<Path> files = Files.list(target)) {
            assertThat(files).isEmpty();
        }
    }

    /**
     * Names S3 accepts and Linux file systems allow, that the earlier embedded server refused (a
     * backslash) or that are easy to mangle: each restores under its own name, byte-identical.
     */
    @Test
    void oddFileNamesRestoreUnderTheirOwnNamesFromTheLocalStore() throws IOException {
        Path source = Files.createDirectories(base.resolve("odd"));
        List<String> names = List.of(
                "a\\b.txt",
                "back\\\\slashes\\",
                " leading space",
                "trailing space ",
                "-dash",
                "100% #hash? &amp=;",
                "x y+z",
                "tab\u00a0nbsp",
                "café",
                "cafe\u0301",
                "emoji \ud83d\ude00",
                "*star*",
                "quote\"and'apostrophe",
                "ends.with.dot.",
                "n".repeat(255));
        for (String n : names) {
            Files.writeString(source.resolve(n), "content of " + n, StandardCharsets.UTF_8);
        }
        Files.createDirectories(source.resolve("dir\\with\\backslashes"));
        Files.writeString(source.resolve("dir\\with\\backslashes/inside"), "inside");
        Map<String, String> expected = CliHarness.hashes(source);

        Run backup = ballast(StoreKind.LOCAL, "backup", source.toString());
        Run restore = ballast(
                StoreKind.LOCAL, "restore", "odd", base.resolve("odd-restored").toString());

        assertThat(backup.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(restore.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(CliHarness.hashes(base.resolve("odd-restored")))
                .isEqualTo(expected)
                .hasSize(names.size() + 1);
    }
}
