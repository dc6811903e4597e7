package dev.ballast.it.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.ballast.cli.EmbeddedS3;
import dev.ballast.cli.ExitCodes;
import dev.ballast.cli.S3MockServer;
import dev.ballast.it.cli.CliHarness.Run;
import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.VersionEntry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded server is stopped in the middle of a backup: the command must end (no hang), exit
 * non-zero, say how many files it stored and which it did not, leave no complete-looking manifest,
 * and every file it reported stored must be readable, verified, once the server is back.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class CliEndpointDiesIT {
  static final int FILES = 12;
  static final int STOP_AFTER = 3;

  @TempDir
  Path base;

  @Test
  void endpointDyingMidBackupEndsWithAClearMessageAndNoCompleteManifest() throws IOException {
    Path source = Files.createDirectories(base.resolve("src"));
    Random random = new Random(7);
    for (int i = 0; i < FILES; i++) {
      byte[] bytes = new byte[256 * 1024];
      random.nextBytes(bytes);
      Files.write(source.resolve(String.format("file-%02d.bin", i)), bytes);
    }
    Map<String, String> expected = CliHarness.hashes(source);
    Path dataDir = base.resolve("data");

    AtomicReference<EmbeddedS3> running = new AtomicReference<>();
    EmbeddedS3.Factory servers = dir -> {
      EmbeddedS3 s = S3MockServer.start(dir);
      running.set(s);
      return s;
    };
    List<String> reportedStored = new ArrayList<>();
    Run run = assertTimeoutPreemptively(Duration.ofSeconds(120), () -> CliHarness.run(base.resolve("home"), servers,
        path -> {
          reportedStored.add(path);
          if (reportedStored.size() == STOP_AFTER) {
            running.get().close();
          }
        },
        "backup", source.toString(), "--name", "dying", "--data-dir", dataDir.toString(), "--timeout", "3s"));

    assertThat(run.exitCode()).isEqualTo(ExitCodes.UNAVAILABLE);
    assertThat(reportedStored).hasSize(STOP_AFTER);
    assertThat(run.err())
        .contains("Backup 'dying' did not complete because")
        .contains("became unavailable")
        .contains(STOP_AFTER + " files stored and confirmed, " + (FILES - STOP_AFTER) + " not stored")
        .doesNotContain("\tat ");
    for (String path : expected.keySet()) {
      if (!reportedStored.contains(path)) {
        assertThat(run.err()).contains("Not stored: " + path);
      }
    }

    try (S3MockServer again = S3MockServer.start(dataDir); StorageFacade facade = CliHarness.facade(again.endpoint())) {
      ObjectStore store = facade.objects();
      for (VersionEntry v : store.versions("dying/.ballast-manifest.json")) {
        if (!v.deleteMarker()) {
          try (ObjectRead read = store.get("dying/.ballast-manifest.json",
              dev.ballast.storage.object.ReadOptions.version(v.versionId()))) {
            assertThat(new String(read.readAllBytes(), StandardCharsets.UTF_8)).contains("\"complete\" : false");
          }
        }
      }
      for (String path : reportedStored) {
        try (ObjectRead read = store.get("dying/" + path)) {
          assertThat(CliHarness.sha256(read.stream())).isEqualTo(expected.get(path));
        }
      }
      Run restore = CliHarness.run(base.resolve("home"), CliHarness.shared(again), p -> { },
          "restore", "dying", base.resolve("out").toString());
      assertThat(restore.exitCode()).isEqualTo(ExitCodes.NOT_FOUND);
      assertThat(restore.err()).containsAnyOf("There is no backup named 'dying'", "has no complete manifest");
    }
  }

  @Test
  void uploadsLeftByARunThatLostItsServerMidUploadAreRemovedByTheNextCommand() throws IOException {
    Path dataDir = base.resolve("data");
    try (S3MockServer server = S3MockServer.start(dataDir); StorageFacade facade = CliHarness.facade(server.endpoint());
        software.amazon.awssdk.services.s3.S3Client raw = dev.ballast.storage.object.s3.S3Endpoint.newBuilder()
            .endpoint(server.endpoint()).credentials("ballast", "ballast")
            .httpClient(java.net.http.HttpClient.newHttpClient()).build().newClient()) {
      // What a backup leaves when its server goes away between two parts: the abort cannot reach it.
      String uploadId = raw.createMultipartUpload(c -> c.bucket("ballast-backups").key("big/f.bin")).uploadId();
      raw.uploadPart(u -> u.bucket("ballast-backups").key("big/f.bin").uploadId(uploadId).partNumber(1)
          .contentLength(5L), software.amazon.awssdk.core.sync.RequestBody.fromBytes(new byte[5]));
    }

    Run list = CliHarness.run(base.resolve("home"), S3MockServer::start, p -> { }, "list", "--data-dir", dataDir.toString());

    assertThat(list.exitCode()).isEqualTo(ExitCodes.OK);
    assertThat(list.err()).contains("removed 1 unfinished upload(s)");
    try (S3MockServer server = S3MockServer.start(dataDir);
        software.amazon.awssdk.services.s3.S3Client raw = dev.ballast.storage.object.s3.S3Endpoint.newBuilder()
            .endpoint(server.endpoint()).credentials("ballast", "ballast")
            .httpClient(java.net.http.HttpClient.newHttpClient()).build().newClient()) {
      assertThat(raw.listMultipartUploads(l -> l.bucket("ballast-backups")).uploads()).as("orphaned uploads").isEmpty();
    }
  }
}
