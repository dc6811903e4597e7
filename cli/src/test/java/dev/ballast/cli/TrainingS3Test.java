package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The class-data training's bucket ({@link TrainingS3}) holds up a whole backup, an unchanged backup
 * and a restore, so the training archives the classes of those commands on an endpoint: a stub that
 * stopped at the first request would leave them to be loaded from the jars by every command again.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TrainingS3Test extends InProcessCli {
    @TempDir
    Path tmp;

    @Test
    void aBackupAnUnchangedBackupAndARestoreRunThroughIt() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src").resolve("dir"));
        Files.writeString(src.resolve("a.txt"), "a\n");
        byte[] large = new byte[600_000];
        new java.util.Random(1).nextBytes(large);
        Files.write(tmp.resolve("src").resolve("large.bin"), large);
        Map<String, String> keys = Map.of("AWS_ACCESS_KEY_ID", "k", "AWS_SECRET_ACCESS_KEY", "s");
        try (TrainingS3 s3 = new TrainingS3()) {
            String[] on = {"--endpoint", s3.endpoint().toString(), "--bucket", "training", "--timeout", "5s"};
            String source = tmp.resolve("src").toString();

            assertThat(run(keys, ClassDataTraining.concat(new String[] {"backup", source, "--name", "t"}, on)))
                    .as(err())
                    .isZero();
            assertThat(run(keys, ClassDataTraining.concat(new String[] {"backup", source, "--name", "t"}, on)))
                    .as(err())
                    .isZero();
            assertThat(out()).contains("unchanged");
            Path restored = tmp.resolve("restored");
            assertThat(run(keys, ClassDataTraining.concat(new String[] {"restore", "t", restored.toString()}, on)))
                    .as(err())
                    .isZero();

            assertThat(restored.resolve("dir").resolve("a.txt")).hasContent("a");
            assertThat(Files.readAllBytes(restored.resolve("large.bin"))).isEqualTo(large);
        }
    }
}
