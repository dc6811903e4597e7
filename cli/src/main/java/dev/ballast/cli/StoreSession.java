package dev.ballast.cli;

import dev.ballast.storage.cache.LastKnownGoodConfig;
import dev.ballast.storage.cache.LastKnownGoodStore;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.s3.S3Endpoint;
import dev.ballast.storage.object.s3.S3ObjectStore;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;

/**
 * The object store one command works on: the embedded server (started here, stopped on close) or
 * the endpoint named by {@code --endpoint}; the bucket created with versioning on first use; reads
 * served from the last-known-good cache, marked and counted, when the store is unavailable.
 */
final class StoreSession implements AutoCloseable {
  private final EmbeddedS3 embedded;
  private final S3ObjectStore s3;
  private final LastKnownGoodStore objects;
  private final String where;

  private StoreSession(EmbeddedS3 embedded, S3ObjectStore s3, LastKnownGoodStore objects, String where) {
    this.embedded = embedded;
    this.s3 = s3;
    this.objects = objects;
    this.where = where;
  }

  static StoreSession open(CommonOptions o, CliContext ctx) {
    EmbeddedS3 embedded = null;
    try {
      URI endpoint = o.endpoint;
      String where;
      S3Endpoint.Builder b = S3Endpoint.newBuilder().httpClient(httpClient());
      String region = o.region != null ? o.region : ctx.env().getOrDefault("AWS_REGION", S3Endpoint.DEFAULT_REGION);
      b.region(region);
      String access = o.accessKey != null ? o.accessKey : ctx.env().get("AWS_ACCESS_KEY_ID");
      String secret = o.secretKey != null ? o.secretKey : ctx.env().get("AWS_SECRET_ACCESS_KEY");
      if (endpoint == null) {
        Path dataDir = o.dataDir != null ? o.dataDir : ctx.home().resolve(".ballast");
        embedded = ctx.embedded().start(dataDir.toAbsolutePath());
        endpoint = embedded.endpoint();
        where = embedded.describe();
        b.endpoint(endpoint).pathStyle(true).credentials(access != null ? access : "ballast",
            secret != null ? secret : "ballast");
      } else {
        where = "the S3 endpoint " + endpoint;
        b.endpoint(endpoint);
        if (access != null && secret != null) {
          b.credentials(access, secret);
        } else if (access != null || secret != null) {
          throw new CliFailure(ExitCodes.USAGE, "Only one of the access key and the secret key was given; pass both "
              + "(--access-key and --secret-key, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY) or neither.");
        }
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
      S3ObjectStore.Options options = S3ObjectStore.Options.newBuilder()
          .createBucket(true)
          .enableVersioning(true)
          .clock(ctx.clock())
          .build();
      S3ObjectStore s3 = Errors.translate(where, o.bucket, () -> S3ObjectStore.open(s3Endpoint, o.bucket, options));
      LastKnownGoodStore objects = LastKnownGoodStore.wrap(s3, LastKnownGoodConfig.ofDefaults(), ctx.clock());
      return new StoreSession(embedded, s3, objects, where);
    } catch (RuntimeException e) {
      if (embedded != null) {
        embedded.close();
      }
      throw e;
    }
  }

  private static HttpClient httpClient() {
    return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  }

  ObjectStore objects() {
    return objects;
  }

  /** Where the store is, for messages. */
  String where() {
    return where;
  }

  /** Attempts retried by the HTTP layer so far. */
  long retries() {
    return 0;
  }

  /** Circuit breaker trips (transitions to open) so far. */
  long breakerTrips() {
    return 0;
  }

  /** Reads served from the last-known-good cache so far. */
  long degradedReads() {
    return objects.counters().degradedReads();
  }

  @Override
  public void close() {
    try {
      s3.close();
    } finally {
      if (embedded != null) {
        embedded.close();
      }
    }
  }
}
