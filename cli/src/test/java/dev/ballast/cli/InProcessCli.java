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
    /**
     * The {@code BALLAST_PASSWORD} every command sees, so that a store that is (or becomes, when new
     * stores are encrypted by default) an encrypted repository opens as a user's would; a store of
     * the earlier formats never asks for it.
     */
    static final String TEST_PASSWORD = "ballast-test-password";

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
        return run(Map.of(), args);
    }

    /** As {@link #run(String...)}, with {@code env} over the default {@code BALLAST_PASSWORD}. */
    int run(Map<String, String> env, String... args) {
        out.reset();
        err.reset();
        CliContext ctx = new CliContext(
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                withTestPassword(env),
                cliHome(),
                false,
                new Cancellation(),
                Clock.systemUTC(),
                Duration.ofSeconds(5),
                Duration.ofSeconds(1),
                p -> {});
        return Ballast.run(args, ctx);
    }

    /** {@code env} with {@code BALLAST_PASSWORD} set to {@link #TEST_PASSWORD} unless it sets it. */
    static Map<String, String> withTestPassword(Map<String, String> env) {
        Map<String, String> all = new java.util.HashMap<>(env);
        all.putIfAbsent("BALLAST_PASSWORD", TEST_PASSWORD);
        return all;
    }

    /**
     * {@code store} as the commands see it: through the sealed view of format 3 (its master key opened
     * with {@link #TEST_PASSWORD}) when it is an encrypted repository, else as it is (the earlier
     * format), so a test reads and writes manifests under their logical keys on either.
     */
    static dev.ballast.storage.object.ObjectStore asCommandsSeeIt(dev.ballast.storage.object.ObjectStore store) {
        if (!dev.ballast.backup.keys.KeyFiles.isRepository(store)) {
            return store;
        }
        return new dev.ballast.backup.snapshot.SealedStore(
                store,
                dev.ballast.backup.keys.KeyFiles.create()
                        .open(store, TEST_PASSWORD.toCharArray())
                        .masterKey());
    }

    /** The version ID of the snapshot the last backup reported saving ("Snapshot SHORT (VERSION) saved."). */
    String savedSnapshot() {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("Snapshot [0-9a-f]{8} \\(([^)]+)\\) saved\\.")
                .matcher(out());
        if (!m.find()) {
            throw new AssertionError("no snapshot saved in: " + out() + err());
        }
        return m.group(1);
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
