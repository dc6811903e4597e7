package dev.ballast.cli;

import dev.ballast.backup.Cancellation;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;

/**
 * The base of tests that run the commands in-process as a user types them: a private home (the local
 * store under {@code home/data} with {@code --data-dir data()}), what each command printed, and its exit code.
 */
abstract class InProcessCli {
    @TempDir
    Path home;

    final ByteArrayOutputStream out = new ByteArrayOutputStream();
    final ByteArrayOutputStream err = new ByteArrayOutputStream();

    /** The home directory the commands see: the {@code @TempDir} unless a test keeps its own. */
    Path cliHome() {
        return home;
    }

    /** Runs one command line; {@link #out()} and {@link #err()} then hold what it printed. */
    int run(String... args) {
        out.reset();
        err.reset();
        CliContext ctx = new CliContext(
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                Map.of(),
                cliHome(),
                false,
                new Cancellation(),
                Clock.systemUTC(),
                Duration.ofSeconds(5),
                Duration.ofSeconds(1),
                p -> {});
        return Ballast.run(args, ctx);
    }

    String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    Path data() {
        return cliHome().resolve("data");
    }
}
