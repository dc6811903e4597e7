package dev.ballast.cli;

import java.net.URI;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The options every command accepts, the same way. */
final class CommonOptions {
  static final String DEFAULT_BUCKET = "ballast-backups";

  @Option(names = "--data-dir", paramLabel = "DIR",
      description = "Where the embedded S3 server keeps its data (default: ~/.ballast). Ignored with --endpoint.")
  Path dataDir;

  @Option(names = "--endpoint", paramLabel = "URL",
      description = "Use this S3 endpoint (MinIO, Ceph, AWS, ...) instead of the embedded server, e.g. http://localhost:9000.")
  URI endpoint;

  @Option(names = "--bucket", paramLabel = "NAME", defaultValue = DEFAULT_BUCKET,
      description = "Bucket holding the backups (default: ${DEFAULT-VALUE}); created with versioning enabled on first use.")
  String bucket;

  @Option(names = "--region", paramLabel = "REGION",
      description = "S3 region (default: $AWS_REGION, else us-east-1).")
  String region;

  @Option(names = "--path-style", negatable = true,
      description = "Path-style bucket addressing (http://host/bucket/key); default on with --endpoint, off for AWS.")
  Boolean pathStyle;

  @Option(names = "--access-key", paramLabel = "KEY",
      description = "Access key ID (default: $AWS_ACCESS_KEY_ID; any value for the embedded server).")
  String accessKey;

  @Option(names = "--secret-key", paramLabel = "SECRET",
      description = "Secret access key (default: $AWS_SECRET_ACCESS_KEY). Prefer the environment variable: flags show in ps.")
  String secretKey;

  @Option(names = {"-v", "--verbose"},
      description = "Show the cause of an error and Ballast's INFO logs (capability probe, retries).")
  boolean verbose;
}
