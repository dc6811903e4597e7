package dev.ballast.it.cli;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.putRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.github.tomakehurst.wiremock.WireMockServer;
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
 * <p>On format 3 (the default) the files' chunks go into pack files uploaded in the background and
 * one index file names them at the end: a file is stored only once both are written, so an endpoint
 * that dies after the first pack reached it leaves every file of the run not stored (issue 22 report:
 * such a run had said every file was stored and confirmed). The earlier, unencrypted format
 * ({@link CliHarness#EARLIER_FORMAT}) keeps its own case: it stores each file as the object
 * {@code NAME/PATH}, which the test reads behind the CLI's back.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@ExtendWith(LeakCheck.class)
class CliEndpointDiesIT {
    static final int FILES = 12;
    static final int STOP_AFTER = 3;

    @TempDir
    Path base;

    /**
     * Format 3: the endpoint (a proxy in front of S3Mock) stops once the first pack's PUT reached it,
     * while later files are still being chunked into the next pack.
     */
    @Test
    void endpointDyingAfterTheFirstPackEndsWithEveryFileNotStoredAndNoManifest() throws Exception {
        Path source = Files.createDirectories(base.resolve("src"));
        Random random = new Random(7);
        for (int i = 0; i < FILES; i++) {
            byte[] bytes = new byte[4 * 1024 * 1024];
            random.nextBytes(bytes);
            Files.write(source.resolve(String.format("file-%02d.bin", i)), bytes);
        }
        Map<String, String> expected = CliHarness.hashes(source);
        Path dataDir = base.resolve("data");

        List<String> reportedStored = new java.util.concurrent.CopyOnWriteArrayList<>();
        Run run;
        try (S3MockServer server = S3MockServer.start(dataDir.resolve("s3"))) {
            WireMockServer proxy =
                    new WireMockServer(wireMockConfig().dynamicPort().bindAddress("127.0.0.1"));
            proxy.start();
            proxy.stubFor(any(anyUrl())
                    .willReturn(aResponse().proxiedFrom(server.uri().toString())));
            // The first pack PUT the proxy has seen stops it (from a thread of its own).
            Thread killer = new Thread(() -> {
                await().atMost(Duration.ofMinutes(3))
                        .pollInterval(Duration.ofMillis(10))
                        .until(() -> !proxy.isRunning()
                                || !proxy.findAll(putRequestedFor(urlPathMatching("/dying-3/data/.*")))
                                        .isEmpty());
                proxy.stop();
            });
            killer.setDaemon(true);
            killer.start();
            try {
                run = assertTimeoutPreemptively(
                        Duration.ofSeconds(150),
                        () -> CliHarness.run(
                                base.resolve("home"),
                                reportedStored::add,
                                "backup",
                                source.toString(),
                                "--name",
                                "dying",
                                "--endpoint",
                                "http://127.0.0.1:" + proxy.port(),
                                "--bucket",
                                "dying-3",
                                "--access-key",
                                "ballast",
                                "--secret-key",
                                "ballast",
                                "--transfers",
                                "1",
                                "--timeout",
                                "3s"));
            } finally {
                // The killer stops the proxy on its own thread: a stop here at the same moment made Jetty
                // throw IllegalStateException: STOPPED (a CI run, 2026-12-03). One stop, after it ended.
                killer.interrupt();
                killer.join();
                if (proxy.isRunning()) {
                    proxy.stop();
                }
            }
        }

        assertThat(run.exitCode()).isEqualTo(ExitCodes.UNAVAILABLE);
        assertThat(reportedStored).isEmpty();
        assertThat(run.err())
                .contains("Backup 'dying' did not complete because")
                .contains("became unavailable")
                .contains("0 files stored and confirmed, " + FILES + " not stored")
                .doesNotContain("\tat ");
        for (String path : expected.keySet()) {
            assertThat(run.err()).contains("Not stored: " + path);
        }

        try (S3MockServer again = S3MockServer.start(dataDir.resolve("s3"))) {
            List<String> store = List.of(
                    "--endpoint", again.uri().toString(),
                    "--bucket", "dying-3",
                    "--access-key", "ballast",
                    "--secret-key", "ballast");
            Run restore = ballast("restore", "dying", base.resolve("out").toString(), store);
            assertThat(restore.exitCode()).isEqualTo(ExitCodes.NOT_FOUND);
            assertThat(restore.err()).containsAnyOf("There is no backup named 'dying'", "has no complete manifest");

            Run next = ballast("backup", source.toString(), "--name", "dying", store);
            assertThat(next.exitCode()).as(next.err()).isEqualTo(ExitCodes.OK);
            Path out = base.resolve("out-next");
            Run back = ballast("restore", "dying", out.toString(), store);
            assertThat(back.exitCode()).isEqualTo(ExitCodes.OK);
            assertThat(CliHarness.hashes(out)).isEqualTo(expected);
        }
    }

    private Run ballast(String command, String arg, String arg2, List<String> store) {
        List<String> all = new ArrayList<>(List.of(command, arg, arg2));
        all.addAll(store);
        return CliHarness.run(base.resolve("home"), p -> {}, all.toArray(String[]::new));
    }

    private Run ballast(String command, String arg, String option, String value, List<String> store) {
        List<String> all = new ArrayList<>(List.of(command, arg, option, value));
        all.addAll(store);
        return CliHarness.run(base.resolve("home"), p -> {}, all.toArray(String[]::new));
    }

    @Test
    void endpointDyingMidBackupOfTheEarlierFormatEndsWithAClearMessageAndNoCompleteManifest() throws IOException {
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
