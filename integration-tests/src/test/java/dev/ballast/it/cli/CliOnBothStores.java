package dev.ballast.it.cli;

import dev.ballast.it.cli.CliHarness.Run;
import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.object.S3MockServer;
import dev.ballast.storage.object.VersionEntry;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the CLI tests that run on both stores share: the default local store under a temporary
 * data directory, and an S3Mock whose files (under {@code base/s3data/s3}) a test may damage behind
 * its back. One S3Mock per test class; the classes run one after another.
 */
@ExtendWith(LeakCheck.class)
abstract class CliOnBothStores {
    static final String BUCKET = "both-stores-it";

    @TempDir
    static Path base;

    static S3MockServer s3;

    /** Where the backups go. */
    enum Store {
        /** The default: the local object store under --data-dir, no server. */
        LOCAL,
        /** An S3 endpoint given with --endpoint. */
        S3;

        List<String> args() {
            return this == LOCAL
                    ? List.of("--data-dir", base.resolve("data").toString())
                    : List.of(
                            "--endpoint",
                            s3.uri().toString(),
                            "--bucket",
                            BUCKET,
                            "--access-key",
                            "ballast",
                            "--secret-key",
                            "ballast",
                            "--timeout",
                            "20s");
        }

        StorageFacade open() {
            return this == LOCAL ? CliHarness.localReader(base.resolve("data")) : CliHarness.facade(s3.uri(), BUCKET);
        }

        /** Damages the stored bytes of one version. */
        void damage(String versionId, UnaryOperator<byte[]> how) {
            if (this == LOCAL) {
                StoredCopies.damageLocal(base.resolve("data").resolve("ballast-backups"), versionId, how);
            } else {
                StoredCopies.damageS3Mock(base.resolve("s3data").resolve("s3"), versionId, how);
            }
        }

        /** The versions of {@code key}, newest first. */
        List<VersionEntry> versions(String key) {
            try (StorageFacade f = open()) {
                return f.objects().versions(key);
            }
        }

        String latestVersion(String key) {
            return versions(key).get(0).versionId();
        }
    }

    @BeforeAll
    static void startS3() {
        s3 = S3MockServer.start(base.resolve("s3data").resolve("s3"));
    }

    @AfterAll
    static void stopS3() {
        if (s3 != null) {
            s3.close();
            s3 = null;
        }
    }

    static Run ballast(Store store, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(store.args());
        return CliHarness.run(base.resolve("home"), p -> {}, all.toArray(String[]::new));
    }

    /** A directory {@code base/name} holding {@code file} with {@code bytes} random bytes. */
    static Path sourceWith(String name, String file, int bytes, long seed) throws IOException {
        Path source = Files.createDirectories(base.resolve(name));
        byte[] b = new byte[bytes];
        new Random(seed).nextBytes(b);
        Files.write(source.resolve(file), b);
        return source;
    }
}
