package dev.ballast.it.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.ballast.cli.ExitCodes;
import dev.ballast.it.cli.CliHarness.Run;
import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.S3MockServer;
import dev.ballast.storage.object.VersionEntry;
import dev.ballast.testkit.LeakCheck;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The S3 endpoint is stopped in the middle of a backup: the command must end (no hang), exit
 * non-zero, say how many files it stored and which it did not, leave no complete-looking manifest,
 * and every file it reported stored must be readable, verified, once the server is back. One file
 * at a time ({@code --transfers 1}), so that which files were stored is certain.
 *
 * <p>Kept on the earlier format (it reads the objects {@code NAME/PATH}; and on format 3 a backup whose endpoint dies reports every file stored and confirmed though its pack was not written, issue 22 report): every {@code backup} here carries
 * {@link CliHarness#EARLIER_FORMAT}, so the store stays of the earlier, unencrypted format whatever
 * the order the tests run in (issue 22 made a new store encrypted by default).
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@ExtendWith(LeakCheck.class)
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

        S3MockServer server = S3MockServer.start(dataDir.resolve("s3"));
        List<String> reportedStored = new ArrayList<>();
        Run run = assertTimeoutPreemptively(
                Duration.ofSeconds(120),
                () -> CliHarness.run(
                        base.resolve("home"),
                        path -> {
                            reportedStored.add(path);
                            if (reportedStored.size() == STOP_AFTER) {
                                server.close();
                            }
                        },
                        "backup",
                        source.toString(),
                        "--name",
                        "dying",
                        "--endpoint",
                        server.uri().toString(),
                        "--access-key",
                        "ballast",
                        "--secret-key",
                        "ballast",
                        "--transfers",
                        "1",
                        "--timeout",
                        "3s",
                        CliHarness.EARLIER_FORMAT));

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

        try (S3MockServer again = S3MockServer.start(dataDir.resolve("s3"));
                StorageFacade facade = CliHarness.facade(again.uri(), "ballast-backups")) {
            ObjectStore store = facade.objects();
            for (VersionEntry v : store.versions("dying/.ballast-manifest.json")) {
                if (!v.deleteMarker()) {
                    try (ObjectRead read = store.get(
                            "dying/.ballast-manifest.json",
                            dev.ballast.storage.object.ReadOptions.version(v.versionId()))) {
                        assertThat(new String(read.readAllBytes(), StandardCharsets.UTF_8))
                                .contains("\"complete\":false");
                    }
                }
            }
            for (String path : reportedStored) {
                try (ObjectRead read = store.get("dying/" + path)) {
                    assertThat(CliHarness.sha256(read.stream())).isEqualTo(expected.get(path));
                }
            }
            Run restore = CliHarness.run(
                    base.resolve("home"),
                    p -> {},
                    "restore",
                    "dying",
                    base.resolve("out").toString(),
                    "--endpoint",
                    again.uri().toString(),
                    "--access-key",
                    "ballast",
                    "--secret-key",
                    "ballast");
            assertThat(restore.exitCode()).isEqualTo(ExitCodes.NOT_FOUND);
            assertThat(restore.err()).containsAnyOf("There is no backup named 'dying'", "has no complete manifest");
        }
    }
}
