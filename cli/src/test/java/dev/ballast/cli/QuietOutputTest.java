package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * {@code -q/--quiet} for cron and systemd (a README user's: a backup's summary lines, and without a
 * terminal a progress line every 5 seconds, went to cron mail on every run): nothing on standard output
 * when the command succeeds, all of it when it fails.
 */
class QuietOutputTest extends InProcessCli {

    private Path source() throws Exception {
        Path src = Files.createDirectories(home.resolve("src"));
        Files.writeString(src.resolve("a.txt"), "alpha");
        return src;
    }

    @Test
    void aSuccessfulCommandPrintsNothingAndAFailedOneAllItHeldBack() throws Exception {
        Path src = source();
        assertThat(run(at("backup", src.toString(), "-q"))).as(err()).isZero();
        assertThat(out()).isEmpty();
        // the one notice of a new repository stays, on standard error
        assertThat(err()).startsWith("Created the encrypted repository ").hasLineCount(1);
        // before the command too, as restic's -q
        assertThat(run(at("-q", "backup", src.toString()))).as(err()).isZero();
        assertThat(out()).isEmpty();
        assertThat(err()).isEmpty();

        Path target = Files.createDirectories(home.resolve("r"));
        Files.writeString(target.resolve("a.txt"), "in the way");
        assertThat(run(at("restore", "src", target.toString(), "--quiet"))).isEqualTo(ExitCodes.CONFLICT);
        assertThat(out()).contains("Restoring 'src'");
        assertThat(err()).contains("In the way: a.txt");
        assertThat(target.resolve("a.txt")).hasContent("in the way");

        assertThat(run(at("restore", "src", home.resolve("r2").toString(), "-q")))
                .as(err())
                .isZero();
        assertThat(out()).isEmpty();
        assertThat(home.resolve("r2/a.txt")).hasContent("alpha");
    }

    @Test
    void theCommandsWhoseOutputIsTheAnswerAndHelpPrintAsUsual() throws Exception {
        assertThat(run(at("backup", source().toString(), "-q"))).as(err()).isZero();

        assertThat(run(at("list", "-q"))).as(err()).isZero();
        assertThat(out()).startsWith("src\n");
        assertThat(run(at("ls", "src", "-q"))).as(err()).isZero();
        assertThat(out()).contains("a.txt");
        assertThat(run(at("key", "list", "-q"))).as(err()).isZero();
        assertThat(out()).contains("KDF");
        assertThat(run("backup", "-q", "--help")).isZero();
        assertThat(out()).contains("Usage: ballast backup");
    }
}
