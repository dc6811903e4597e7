package dev.ballast.cli;

import dev.ballast.http.HttpClientListener;
import dev.ballast.http.ResilientHttpClient;
import dev.ballast.http.RetryDecision;
import dev.ballast.http.breaker.BreakerState;
import dev.ballast.storage.StorageException;
import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.s3.S3Endpoint;
import dev.ballast.storage.object.s3.S3StoreConfig;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;

/**
 * The object store one command works on, through {@link StorageFacade}: the embedded server
 * (started here, stopped on close) or the endpoint named by {@code --endpoint}; the bucket created
 * with versioning on first use; every request through one {@link ResilientHttpClient} (the one
 * layer that retries, with an attempt timeout and a total timeout per operation); reads served from
 * the last-known-good cache, marked and counted, when the store is unavailable.
 */
final class StoreSession implements AutoCloseable {
  private final EmbeddedS3 embedded;
  private final ResilientHttpClient http;
  private final StorageFacade facade;
  private final Counting counting;
  private final String where;

  private StoreSession(EmbeddedS3 embedded, ResilientHttpClient http, StorageFacade facade, Counting counting,
      String where) {
    this.embedded = embedded;
    this.http = http;
    this.facade = facade;
    this.counting = counting;
    this.where = where;
  }

  /** Counts what the summary reports from the HTTP layer. */
  private static final class Counting implements HttpClientListener {
    final LongAdder retries = new LongAdder();
    final LongAdder breakerTrips = new LongAdder();

    @Override
    public void onRetryDecision(RetryDecisionEvent event) {
      if (event.decision() == RetryDecision.RETRYING) {
        retries.increment();
      }
    }

    @Override
    public void onBreakerStateTransition(String dependency, BreakerState from, BreakerState to) {
      if (to == BreakerState.OPEN) {
        breakerTrips.increment();
      }
    }
  }

  static StoreSession open(CommonOptions o, CliContext ctx) {
    EmbeddedS3 embedded = null;
    ResilientHttpClient http = null;
    try {
      Counting counting = new Counting();
      http = ResilientHttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .totalTimeout(o.timeout)
          .listener(counting)
          .build();
      URI endpoint = o.endpoint;
      String where;
      S3Endpoint.Builder b = S3Endpoint.newBuilder().httpClient(http);
      String region = o.region != null ? o.region : ctx.env().getOrDefault("AWS_REGION", S3Endpoint.DEFAULT_REGION);
      b.region(region);
      if (endpoint == null) {
        Path dataDir = usableDataDir(o.dataDir != null ? o.dataDir : ctx.home().resolve(".ballast"));
        embedded = ctx.embedded().start(dataDir);
        endpoint = embedded.endpoint();
        where = embedded.describe();
        // The embedded server accepts any key; real AWS credentials from the environment stay unused.
        b.endpoint(endpoint).pathStyle(true).credentials("ballast", "ballast");
      } else {
        where = "the S3 endpoint " + endpoint;
        b.endpoint(endpoint);
        S3Credentials.resolve(o, ctx.env(), ctx.home()).ifPresent(c -> b.credentials(c.accessKey(), c.secretKey()));
      }
      if (o.pathStyle != null) {
        b.pathStyle(o.pathStyle);
      }
      S3Endpoint s3Endpoint;
      try {
        s3Endpoint = b.build();
      } catch (IllegalArgumentException e) {
        throw new CliFailure(ExitCodes.USAGE, "The endpoint '" + o.endpoint + "' is not usable (" + e.getMessage()
            + "); pass an absolute http:// or https:// URL.", e);
      }
      StorageFacade facade = Errors.translate(where, o.bucket, () -> StorageFacade.newBuilder()
          .s3(s3Endpoint)
          .bucket(o.bucket)
          .s3Config(S3StoreConfig.builder().createBucket(true).enableVersioning(true).build())
          .clock(ctx.clock())
          .build());
      if (embedded != null) {
        sweepOrphanedUploads(facade, ctx, where);
      }
      return new StoreSession(embedded, http, facade, counting, where);
    } catch (RuntimeException e) {
      if (http != null) {
        http.close();
      }
      if (embedded != null) {
        embedded.close();
      }
      throw e;
    }
  }

  /**
   * Creates the data directory and checks that a file can be created in it, so an unusable one is
   * reported as the input it is (exit 2) before the embedded server starts.
   */
  private static Path usableDataDir(Path dir) {
    Path abs = dir.toAbsolutePath();
    try {
      Files.createDirectories(abs);
      Files.deleteIfExists(Files.createTempFile(abs, ".ballast-probe-", ".tmp"));
      return abs;
    } catch (IOException e) {
      throw new CliFailure(ExitCodes.USAGE, "The data directory '" + abs + "' cannot be used (" + Errors.describeIo(e)
          + "); pass a writable directory with --data-dir.", e);
    }
  }

  /**
   * The data directory is locked to this command, so every multipart upload already in the embedded
   * server was left by an earlier run that was killed or lost its server mid-upload: abort them so
   * their parts do not pile up. A failure here only postpones the sweep to the next command.
   */
  private static void sweepOrphanedUploads(StorageFacade facade, CliContext ctx, String where) {
    try {
      int aborted = facade.abortIncompleteUploads(ctx.clock().instant());
      if (aborted > 0) {
        ctx.err().println("Note: removed " + aborted + " unfinished upload(s) that an interrupted earlier run left in "
            + where + ".");
      }
    } catch (StorageException e) {
      ctx.err().println("Note: could not remove unfinished uploads of an earlier run (" + Errors.rootMessage(e)
          + "); the next command tries again.");
    }
  }

  ObjectStore objects() {
    return facade.objects();
  }

  /** Where the store is, for messages. */
  String where() {
    return where;
  }

  /** Attempts retried by the HTTP layer so far. */
  long retries() {
    return counting.retries.sum();
  }

  /** Circuit breaker trips (transitions to open) so far. */
  long breakerTrips() {
    return counting.breakerTrips.sum();
  }

  /** Reads served from the last-known-good cache so far. */
  long degradedReads() {
    return facade.stats().degradedReads();
  }

  @Override
  public void close() {
    try {
      facade.close();
    } finally {
      try {
        http.close();
      } finally {
        if (embedded != null) {
          embedded.close();
        }
      }
    }
  }
}
