package dev.ballast.it.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ballast.cli.ExitCodes;
import dev.ballast.it.cli.CliHarness.Run;
import dev.ballast.it.support.S3Backends;
import dev.ballast.storage.object.S3Buckets;
import dev.ballast.storage.object.S3TestBackend;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The main job against the endpoint named by {@code BALLAST_S3_ENDPOINT} (Ceph RGW in {@code .ci/run}):
 * a tree with empty files, a 20 MiB file and nested, spaced and non-ASCII names is backed up and
 * restored byte-identical. Skipped, with the reason, when the variable is unset.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@ExtendWith(LeakCheck.class)
class CliOnEnvEndpointIT {
    @TempDir
    Path base;

    @Test
    void backsUpATreeToTheEndpointAndRestoresItByteIdentical() throws IOException {
        Optional<S3TestBackend> found = S3Backends.fromEnvironment(System.getenv());
        assumeTrue(
                found.isPresent(),
                S3Backends.ENDPOINT_VARIABLE + " is not set, so there is no external endpoint to run against");
        S3TestBackend backend = found.orElseThrow();
        String bucket = "ballast-cli-" + UUID.randomUUID().toString().substring(0, 8);
        Path source = CliBackupRestoreIT.generateTree(base.resolve("tree"));
        Map<String, String> expected = CliHarness.hashes(source);
        String[] endpoint = {
            "--endpoint",
            backend.endpoint().toString(),
            "--bucket",
            bucket,
            "--region",
            backend.region(),
            "--access-key",
            backend.accessKey(),
            "--secret-key",
            backend.secretKey()
        };
        try {
            Run backup = ballast(endpoint, "backup", source.toString());
            assertThat(backup.exitCode()).as(backup.err()).isEqualTo(ExitCodes.OK);
            assertThat(backup.out()).contains("Backup 'tree' complete: 11 files stored, 0 unchanged");

            Path target = base.resolve("restored");
            Run restore = ballast(endpoint, "restore", "tree", target.toString());
            assertThat(restore.exitCode()).as(restore.err()).isEqualTo(ExitCodes.OK);
            assertThat(restore.out())
                    .contains("11 files restored")
                    .contains("Every chunk matched its ID and every file its size");
            assertThat(CliHarness.hashes(target))
                    .isEqualTo(expected)
                    .containsKey("empty.bin")
                    .containsKey("nested/twenty-mib.bin");
        } finally {
            try (S3Client s3 = backend.endpoint(HttpClient.newHttpClient()).newClient()) {
                S3Buckets.removeWithEveryVersion(s3, bucket);
            }
        }
    }

    /** Runs {@code command} with {@code operands}, then the endpoint options. */
    private Run ballast(String[] endpoint, String command, String... operands) {
        String[] args = Stream.concat(Stream.concat(Stream.of(command), Stream.of(operands)), Stream.of(endpoint))
                .toArray(String[]::new);
        return CliHarness.run(base.resolve("home"), p -> {}, args);
    }
}
