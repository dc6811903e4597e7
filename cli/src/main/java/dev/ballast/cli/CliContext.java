package dev.ballast.cli;

import dev.ballast.backup.Cancellation;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Everything a command takes from its surroundings, so the CLI can run in-process (embedding,
 * integration tests) with its own streams, environment, home directory and cancellation.
 * {@link #system(Cancellation)} is what {@code ballast} itself uses.
 *
 * @param out standard output (results, progress, summary)
 * @param err standard error (warnings and the one-sentence error)
 * @param env environment variables (AWS credentials and region)
 * @param home the user's home directory ({@code ~/.ballast} lives there)
 * @param terminal whether {@code out} is a terminal (progress bar) or not (plain lines)
 * @param cancellation set by Ctrl-C
 * @param clock wall time for manifest dates; its zone is the local time zone {@code forget} counts
 *     days, weeks and months in
 * @param progressInterval how often plain progress lines are printed
 * @param manifestGrace how long an incomplete run waits to write its manifest marked incomplete
 * @param onFileStored called with each path a backup has stored and confirmed, from the thread
 *     that stored it (with {@code --transfers 1}, before the next file is started); in an encrypted
 *     repository (format 3) only once the run's packs and the index file naming them are written, at
 *     the end of the run, from the thread running the backup, in path order
 */
public record CliContext(
        PrintStream out,
        PrintStream err,
        Map<String, String> env,
        Path home,
        boolean terminal,
        Cancellation cancellation,
        Clock clock,
        Duration progressInterval,
        Duration manifestGrace,
        Consumer<String> onFileStored) {

    /** Validates and copies {@code env}. */
    public CliContext {
        Objects.requireNonNull(out, "out");
        Objects.requireNonNull(err, "err");
        env = Map.copyOf(Objects.requireNonNull(env, "env"));
        Objects.requireNonNull(home, "home");
        Objects.requireNonNull(cancellation, "cancellation");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(progressInterval, "progressInterval");
        Objects.requireNonNull(manifestGrace, "manifestGrace");
        Objects.requireNonNull(onFileStored, "onFileStored");
    }

    /**
     * The real process: System streams and environment, a terminal when a console exists, and as home
     * {@code $HOME} when it is set to an absolute path (as restic, rclone and the shell take it), else
     * the JVM's {@code user.home} (the account's home directory).
     */
    public static CliContext system(Cancellation cancellation) {
        java.util.Map<String, String> env = dev.ballast.backup.tree.Names.environment(System.getenv());
        return new CliContext(
                System.out,
                System.err,
                env,
                home(env.get("HOME")),
                System.console() != null,
                cancellation,
                new SystemClock(),
                Duration.ofSeconds(5),
                Duration.ofSeconds(5),
                path -> {});
    }

    /**
     * Where the CLI keeps what it may lose: {@code $XDG_CACHE_HOME/ballast} when that is an absolute
     * path (the XDG Base Directory rule restic follows too), else {@code ~/.cache/ballast}.
     */
    Path cacheDir() {
        String xdg = env.get("XDG_CACHE_HOME");
        if (xdg != null && !xdg.isBlank()) {
            try {
                Path dir = Path.of(xdg);
                if (dir.isAbsolute()) {
                    return dir.resolve("ballast");
                }
            } catch (java.nio.file.InvalidPathException ignored) {
                // not a path: the default
            }
        }
        return home.resolve(".cache").resolve("ballast");
    }

    static Path home(String homeVariable) {
        if (homeVariable != null && !homeVariable.isBlank()) {
            try {
                Path home = Path.of(homeVariable);
                if (home.isAbsolute()) {
                    return home;
                }
            } catch (java.nio.file.InvalidPathException ignored) {
                // not a path: fall back to the account's home
            }
        }
        return Path.of(System.getProperty("user.home"));
    }
}
