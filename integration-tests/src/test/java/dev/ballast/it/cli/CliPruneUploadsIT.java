package dev.ballast.it.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.cli.ExitCodes;
import dev.ballast.it.cli.CliHarness.Run;
import dev.ballast.storage.object.S3MockServer;
import dev.ballast.storage.object.s3.S3Endpoint;
import dev.ballast.testkit.LeakCheck;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A prune of an encrypted repository on S3 aborts the multipart uploads killed runs left (a backup
 * killed with kill -9 in the middle of a pack's upload): their parts take space in the bucket but are
 * no object, so no listing of {@code data/} finds them, and before this nothing removed them (a
 * README-only user found one after a kill, with prune and unlock run).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
@ExtendWith(LeakCheck.class)
class CliPruneUploadsIT {
    @TempDir
    static Path base;

    static final String BUCKET = "cli-prune-uploads-it";

    static Run ballast(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(StoreKind.S3.args(base.resolve("data"), BUCKET));
        return CliHarness.run(base.resolve("home"), p -> {}, all.toArray(String[]::new));
    }

    @Test
    void pruneAbortsTheUploadsOfKilledRunsAndADryRunDoesNot() throws Exception {
        Path src = Files.createDirectories(base.resolve("src"));
        Files.writeString(src.resolve("a.txt"), "alpha");
        assertThat(ballast("backup", src.toString(), "--name", "n").exitCode()).isEqualTo(ExitCodes.OK);
        try (S3Client s3 = S3Endpoint.newBuilder()
                .endpoint(S3MockServer.endpoint())
                .credentials("ballast", "ballast")
                .httpClient(HttpClient.newHttpClient())
                .build()
                .newClient()) {
            String id = s3.createMultipartUpload(c -> c.bucket(BUCKET).key("data/ab/orphan"))
                    .uploadId();
            s3.uploadPart(
                    p -> p.bucket(BUCKET).key("data/ab/orphan").uploadId(id).partNumber(1),
                    RequestBody.fromBytes(new byte[1024]));
            assertThat(s3.listMultipartUploads(l -> l.bucket(BUCKET)).uploads()).hasSize(1);

            Run dry = ballast("prune", "--dry-run", "--grace", "0s");
            assertThat(dry.exitCode()).as(dry.err()).isEqualTo(ExitCodes.OK);
            assertThat(dry.out()).doesNotContain("Aborted");
            assertThat(s3.listMultipartUploads(l -> l.bucket(BUCKET)).uploads()).hasSize(1);

            Run prune = ballast("prune", "--grace", "0s");
            assertThat(prune.exitCode()).as(prune.err()).isEqualTo(ExitCodes.OK);
            assertThat(prune.out())
                    .contains("Aborted 1 incomplete upload that killed runs left in the bucket (older than the grace"
                            + " period, ");
            assertThat(s3.listMultipartUploads(l -> l.bucket(BUCKET)).uploads()).isEmpty();
        }
        Path out = base.resolve("out");
        assertThat(ballast("restore", "n", out.toString()).exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(out.resolve("a.txt")).hasContent("alpha");
    }
}
