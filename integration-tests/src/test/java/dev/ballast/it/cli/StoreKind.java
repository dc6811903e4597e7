package dev.ballast.it.cli;

import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.object.S3MockServer;
import java.nio.file.Path;
import java.util.List;

/** The two stores every CLI integration test runs on: the default local store, and S3 (S3Mock). */
enum StoreKind {
    /** The default: the local object store under --data-dir, no server. */
    LOCAL,
    /** An S3 endpoint given with --endpoint. */
    S3;

    /** The options that point the CLI at this store: {@code DATA-DIR} for the local one, {@code bucket} on S3Mock. */
    List<String> args(Path dataDir, String bucket) {
        return this == LOCAL
                ? List.of("--data-dir", dataDir.toString())
                : List.of(
                        "--endpoint",
                        S3MockServer.endpoint().toString(),
                        "--bucket",
                        bucket,
                        "--access-key",
                        "ballast",
                        "--secret-key",
                        "ballast");
    }

    /** The store behind the CLI's back, written to directly (the local one as its writer). */
    StorageFacade open(Path dataDir, String bucket) {
        return this == LOCAL
                ? StorageFacade.newBuilder()
                        .localObjects(dataDir.resolve("ballast-backups"))
                        .build()
                : CliHarness.facade(S3MockServer.endpoint(), bucket);
    }
}
