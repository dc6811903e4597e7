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

    /**
     * The line a store of the earlier format prints when a password was given: the harness's default
     * {@code BALLAST_PASSWORD} stands for no password at all, so {@link #err()} leaves it out then.
     */
    static final java.util.regex.Pattern UNUSED_PASSWORD_WARNING = java.util.regex.Pattern.compile(
            "(?m)^Warning: .* is of the earlier, unencrypted format, so the password given is not used.*\\R");

    /** Whether the last command ran with the harness's default password and no password of its own. */
    private boolean defaultPasswordOnly;

    /** As {@link #run(String...)}, with {@code env} over the default {@code BALLAST_PASSWORD}. */
    int run(Map<String, String> env, String... args) {
        out.reset();
        err.reset();
        defaultPasswordOnly = defaultPasswordOnly(env, args);
        return Ballast.run(args, context(env));
    }

    /** The context a command of this harness sees: its streams, {@code env} over the default password, {@link #cliHome()}. */
    CliContext context(Map<String, String> env) {
        return new CliContext(
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
    }

    /** Whether a command run with {@code env} and {@code args} has only the harness's default password. */
    static boolean defaultPasswordOnly(Map<String, String> env, String... args) {
        return !env.containsKey("BALLAST_PASSWORD")
                && !env.containsKey("BALLAST_PASSWORD_FILE")
                && !env.containsKey("BALLAST_PASSWORD_COMMAND")
                && !java.util.Arrays.asList(args).contains("--password-file")
                && !java.util.Arrays.asList(args).contains("--password-command");
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
        String printed = err.toString(StandardCharsets.UTF_8);
        return defaultPasswordOnly ? UNUSED_PASSWORD_WARNING.matcher(printed).replaceAll("") : printed;
    }

    Path data() {
        return cliHome().resolve("data");
    }

    /** {@code args} followed by {@code --data-dir} {@link #data()}: a command on the tests' local store. */
    String[] at(String... args) {
        String[] all = java.util.Arrays.copyOf(args, args.length + 2);
        all[args.length] = "--data-dir";
        all[args.length + 1] = data().toString();
        return all;
    }
}
