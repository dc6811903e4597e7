package dev.ballast.it.cli;

import dev.ballast.backup.Cancellation;
import dev.ballast.cli.Ballast;
import dev.ballast.cli.CliContext;
import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.object.local.LocalStoreConfig;
import dev.ballast.storage.object.s3.S3Endpoint;
import dev.ballast.storage.object.s3.S3StoreConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Stream;

/** Runs the ballast CLI in this JVM and hashes directory trees. */
final class CliHarness {
    private CliHarness() {}

    /**
     * The {@code BALLAST_PASSWORD} every command run here sees (in this JVM or a child), so that an
     * encrypted repository opens as a user's would; stores of the earlier formats never ask for it.
     */
    static final String TEST_PASSWORD = "ballast-test-password";

    /**
     * The option of {@code backup} that keeps a new store of the earlier, unencrypted format: the
     * setup of the tests of that format's own mechanics (objects per file, versions per file, the
     * local store's packs of file contents, plain manifests and markers written behind the CLI's back).
     */
    static final String EARLIER_FORMAT = "--insecure-no-encryption";

    /** {@code args} with {@link #EARLIER_FORMAT} added when they are a {@code backup} command line. */
    static String[] inEarlierFormat(String... args) {
        if (args.length == 0 || !args[0].equals("backup")) {
            return args;
        }
        String[] all = java.util.Arrays.copyOf(args, args.length + 1);
        all[args.length] = EARLIER_FORMAT;
        return all;
    }

    /** The line a store of the earlier format prints when a password was given (StoreSession). */
    static final java.util.regex.Pattern UNUSED_PASSWORD_WARNING = java.util.regex.Pattern.compile(
            "(?m)^Warning: .* is of the earlier, unencrypted format, so the password given is not used.*\\R");

    /** What one command printed and returned. */
    record Run(int exitCode, String out, String err) {}

    static Run run(Path home, Consumer<String> onFileStored, String... args) {
        return run(home, Clock.systemUTC(), onFileStored, args);
    }

    /** As {@link #run(Path, Consumer, String...)}, with {@code clock} for the command's time (and local time zone). */
    static Run run(Path home, Clock clock, Consumer<String> onFileStored, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CliContext ctx = new CliContext(
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                Map.of("BALLAST_PASSWORD", TEST_PASSWORD),
                home,
                false,
                new Cancellation(),
                clock,
                Duration.ofSeconds(2),
                Duration.ofSeconds(2),
                onFileStored);
        int code = Ballast.run(args, ctx);
        String printed = err.toString(StandardCharsets.UTF_8);
        if (!List.of(args).contains("--password-file") && !List.of(args).contains("--password-command")) {
            // the harness's BALLAST_PASSWORD stands for none: a store of the earlier format says nothing of it
            printed = UNUSED_PASSWORD_WARNING.matcher(printed).replaceAll("");
        }
        Run run = new Run(code, out.toString(StandardCharsets.UTF_8), printed);
        System.out.println("$ ballast " + String.join(" ", args) + "  -> exit " + code + "\n" + run.out() + run.err());
        return run;
    }

    /**
     * Starts {@code ballast args} in a JVM of its own (the test class path, {@code jvmOptions} first),
     * its output going to {@code log}: the way to kill a command mid-run, or to hold it to a heap size.
     */
    static Process start(List<String> jvmOptions, Path log, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), Ballast.class.getName()));
        command.addAll(List.of(args));
        ProcessBuilder pb =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().putIfAbsent("BALLAST_PASSWORD", TEST_PASSWORD);
        return pb.start();
    }

    /**
     * As {@link #start(List, Path, String...)}, with exactly {@code env} as the process's environment
     * (as {@code env -i} starts it: no {@code LANG}, as cron and systemd run jobs).
     */
    static Process startInEnvironment(List<String> jvmOptions, Map<String, String> env, Path log, String... args)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), Ballast.class.getName()));
        command.addAll(List.of(args));
        ProcessBuilder pb =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().clear();
        pb.environment().putAll(env);
        pb.environment().putIfAbsent("BALLAST_PASSWORD", TEST_PASSWORD);
        return pb.start();
    }

    /** The facade the CLI uses with {@code --endpoint}, opened directly, for checks behind its back. */
    static StorageFacade facade(URI endpoint, String bucket) {
        return StorageFacade.newBuilder()
                .s3(S3Endpoint.newBuilder()
                        .endpoint(endpoint)
                        .credentials("ballast", "ballast")
                        .build())
                .bucket(bucket)
                .s3Config(S3StoreConfig.builder()
                        .createBucket(true)
                        .enableVersioning(true)
                        .build())
                .build();
    }

    /** The local store the CLI uses by default ({@code DATA-DIR/ballast-backups}), opened read-only. */
    static StorageFacade localReader(Path dataDir) {
        return StorageFacade.newBuilder()
                .localObjects(
                        dataDir.resolve("ballast-backups"),
                        LocalStoreConfig.builder().readOnly(true).build())
                .build();
    }

    /**
     * {@code store} as the commands see it: through the sealed view of format 3 (its master key opened
     * with {@link #TEST_PASSWORD}) when it is an encrypted repository, else as it is (the earlier
     * format), so a test reads manifests under their logical keys ({@code NAME/.ballast-manifest.json})
     * on either.
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

    /** Relative path ({@code /}-separated) to SHA-256 of every regular file under {@code root}. */
    static Map<String, String> hashes(Path root) throws IOException {
        Map<String, String> map = new TreeMap<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                map.put(root.relativize(f).toString().replace('\\', '/'), sha256(f));
            }
        }
        return map;
    }

    static String sha256(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return sha256(in);
        }
    }

    static String sha256(InputStream in) throws IOException {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            byte[] buf = new byte[1 << 20];
            int n;
            while ((n = in.read(buf)) >= 0) {
                d.update(buf, 0, n);
            }
            return HexFormat.of().formatHex(d.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A manifest version as the CLI names it in messages: its short ID (the first 8 hex digits of the
     * SHA-256 of the version ID, as 'ballast list' shows it), then the version ID in parentheses.
     */
    static String label(String versionId) {
        try {
            String shortId = sha256(new java.io.ByteArrayInputStream(
                            versionId.getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                    .substring(0, 8);
            return shortId + " (" + versionId + ")";
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
