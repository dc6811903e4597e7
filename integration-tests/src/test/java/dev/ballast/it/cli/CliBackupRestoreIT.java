package dev.ballast.it.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.cli.ExitCodes;
import dev.ballast.cli.S3MockServer;
import dev.ballast.it.cli.CliHarness.Run;
import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ObjectVersion;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The main job end to end, in-process, against the embedded S3Mock server: back up a generated
 * tree, restore it byte-identical, back it up again with nothing uploaded, and refuse a crafted
 * manifest that names {@code ../x}.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class CliBackupRestoreIT {
  @TempDir
  static Path base;

  static S3MockServer server;

  @BeforeAll
  static void startServer() throws IOException {
    server = S3MockServer.start(Files.createDirectories(base.resolve("data")));
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  static Run ballast(String... args) {
    return CliHarness.run(base.resolve("home"), CliHarness.shared(server), p -> { }, args);
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

  @Test
  void backsUpAndRestoresATreeByteIdenticalAndASecondBackupUploadsNothing() throws IOException {
    Path source = generateTree(base.resolve("tree"));
    Map<String, String> expected = CliHarness.hashes(source);
    assertThat(expected).hasSize(11).containsKey("nested/twenty-mib.bin").containsKey("empty.bin");

    Run first = ballast("backup", source.toString());
    assertThat(first.exitCode()).isEqualTo(ExitCodes.OK);
    assertThat(first.out()).contains("Backup 'tree' complete: 11 files stored, 0 unchanged");

    Path target = base.resolve("restored");
    Run restore = ballast("restore", "tree", target.toString());
    assertThat(restore.exitCode()).isEqualTo(ExitCodes.OK);
    assertThat(restore.out()).contains("11 files restored").contains("Every SHA-256 matched");
    assertThat(CliHarness.hashes(target)).isEqualTo(expected);

    Run second = ballast("backup", source.toString());
    assertThat(second.exitCode()).isEqualTo(ExitCodes.OK);
    assertThat(second.out()).contains("Nothing to upload: all 11 files are unchanged")
        .contains("0 files stored, 11 unchanged");
    try (StorageFacade facade = CliHarness.facade(server.endpoint())) {
      ObjectStore store = facade.objects();
      assertThat(store.versions("tree/nested/twenty-mib.bin")).hasSize(1);
      assertThat(store.versions("tree/ünïcødé/日本語 ✓.txt")).hasSize(1);
      assertThat(store.versions("tree/.ballast-manifest.json")).hasSize(2);
    }

    Run list = ballast("list");
    assertThat(list.exitCode()).isEqualTo(ExitCodes.OK);
    assertThat(list.out()).contains("tree").contains("11 files");
    Run verify = ballast("verify", "tree");
    assertThat(verify.exitCode()).isEqualTo(ExitCodes.OK);
    assertThat(verify.out()).contains("11 of 11 files verified");
    Run versions = ballast("versions", "tree/a+b=c.txt");
    assertThat(versions.exitCode()).isEqualTo(ExitCodes.OK);
    assertThat(versions.out()).contains("4 B");
  }

  @Test
  void aCraftedManifestNamingDotDotIsRefusedAndNothingIsWritten() throws IOException {
    Path target = Files.createDirectories(base.resolve("victim/target"));
    try (StorageFacade facade = CliHarness.facade(server.endpoint())) {
      ObjectStore store = facade.objects();
      ObjectVersion payload = store.put("evil/x", ObjectContent.ofBytes("pwned".getBytes(StandardCharsets.UTF_8)));
      String manifest = """
          {"formatVersion": 1, "name": "evil", "createdAt": "2026-11-29T10:15:30Z", "complete": true,
           "files": [{"path": "../x", "size": 5, "sha256": "%s", "versionId": "%s",
                      "mtime": "2026-11-29T10:15:30Z"}]}
          """.formatted(payload.sha256(), payload.versionId());
      store.put("evil/.ballast-manifest.json", ObjectContent.ofBytes(manifest.getBytes(StandardCharsets.UTF_8)));
    }

    Run run = ballast("restore", "evil", target.toString());
    assertThat(run.exitCode()).isEqualTo(ExitCodes.INTEGRITY);
    assertThat(run.err()).contains("'../x'").contains("refused").doesNotContain("\tat ");
    assertThat(base.resolve("victim/x")).doesNotExist();
    try (Stream<Path> files = Files.list(target)) {
      assertThat(files).isEmpty();
    }
  }
}
