package dev.ballast.cli;

import dev.ballast.backup.Cancellation;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;

/**
 * The training run of {@code ./ballast}'s class-data-sharing archive: the classes it loads are
 * archived once per build, and every later command maps them instead of loading them from the jars.
 * One JVM runs what the commands load: a backup into a local store (a new one, so an encrypted
 * repository is made first: the key derivation, sealing, chunking and packing), a second one after
 * changes (the previous manifest read, changed files stored), a backup, a second backup and a
 * restore on an S3 endpoint ({@link TrainingS3}, a bucket in memory on a loopback port: the AWS SDK's
 * client, signer, requests, responses and XML parsing, and the HTTP layer), and a backup towards a
 * loopback port nobody listens on (the failure's path). Nothing leaves the machine. Output is
 * discarded; the exit status is always 0.
 *
 * <p>Usage: {@code ClassDataTraining DIR}, an empty directory the run may fill.
 */
public final class ClassDataTraining {
    private ClassDataTraining() {}

    public static void main(String[] args) throws IOException {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "off");
        Path dir = Path.of(args[0]);
        Path source = Files.createDirectories(dir.resolve("src").resolve("dir"));
        Files.writeString(source.resolve("small.txt"), "small\n");
        // Over the chunker's minimum, so its chunks are hashed and added on the adder's threads.
        byte[] large = new byte[600_000];
        new java.util.Random(1).nextBytes(large);
        Files.write(dir.resolve("src").resolve("large.bin"), large);
        PrintStream nowhere = new PrintStream(OutputStream.nullOutputStream());
        Cancellation cancellation = new Cancellation();
        CliContext ctx = new CliContext(
                nowhere,
                nowhere,
                // a password: the first backup into the new store makes it an encrypted repository, as a user's does
                Map.of(
                        "AWS_ACCESS_KEY_ID",
                        "training",
                        "AWS_SECRET_ACCESS_KEY",
                        "training",
                        "BALLAST_PASSWORD",
                        "training"),
                dir,
                false,
                cancellation,
                Clock.systemUTC(),
                Duration.ofSeconds(5),
                Duration.ofSeconds(1),
                path -> {});
        String src = dir.resolve("src").toString();
        Ballast.run(
                new String[] {"backup", src, "--data-dir", dir.resolve("data").toString()}, ctx);
        // A second backup after changes, as most backups are: the previous manifest (and its parts) read,
        // a file of the same size hashed again, a changed one stored, the new manifest's parts looked up.
        large[0] ^= 1;
        Files.write(dir.resolve("src").resolve("large.bin"), large);
        Files.writeString(source.resolve("small.txt"), "Small\n");
        Files.writeString(source.resolve("new.txt"), "new\n");
        Ballast.run(
                new String[] {"backup", src, "--data-dir", dir.resolve("data").toString()}, ctx);
        try (TrainingS3 s3 = new TrainingS3()) {
            String[] onS3 = {"--endpoint", s3.endpoint().toString(), "--bucket", "training", "--timeout", "5s"};
            Ballast.run(concat(new String[] {"backup", src}, onS3), ctx);
            Files.writeString(source.resolve("small.txt"), "small again\n");
            Ballast.run(concat(new String[] {"backup", src}, onS3), ctx);
            Ballast.run(
                    concat(
                            new String[] {
                                "restore", "src", dir.resolve("restored").toString()
                            },
                            onS3),
                    ctx);
        } catch (RuntimeException e) {
            // the training goes on: what ran is archived
        }
        int closedPort;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = probe.getLocalPort();
        }
        Ballast.run(
                new String[] {
                    "backup",
                    src,
                    "--endpoint",
                    "http://127.0.0.1:" + closedPort,
                    "--bucket",
                    "training",
                    "--timeout",
                    "2s"
                },
                ctx);
        System.exit(0);
    }

    /** {@code a} followed by {@code b}. */
    static String[] concat(String[] a, String[] b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
