package dev.ballast.storage.object.s3;

import dev.ballast.http.ResilientHttpClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.util.Objects;
import java.util.Optional;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Where and how to reach an S3 (or S3-compatible) endpoint: endpoint URI, region, credentials,
 * path-style addressing, the {@link HttpClient} every request goes through, and the checksum mode.
 * Immutable and thread-safe; build one with {@link #newBuilder()}, or wrap a caller-built client
 * with {@link #of(S3Client)}.
 *
 * <p>When Ballast builds the {@link S3Client} the SDK's own retries are off: exactly one layer (the
 * {@code HttpClient}, normally a {@code ResilientHttpClient}) retries. The SDK's default request
 * checksums (since 2.30) are off as well ({@code WHEN_REQUIRED}): the object store sends the
 * SHA-256 it computed itself, as an additional checksum, when the capability probe found the
 * endpoint validates it (see {@link ChecksumMode}).
 */
public final class S3Endpoint {

  /** Whether puts carry {@code x-amz-checksum-sha256} (an S3 additional checksum). */
  public enum ChecksumMode {
    /** The capability probe decides: sent when the endpoint accepts and validates it. */
    AUTO,
    /** Always sent; opening the store fails if the endpoint does not validate it. */
    ALWAYS,
    /** Never sent: for stores that reject or mishandle checksum headers. */
    NEVER
  }

  /** The AWS SDK's default region when none is given. */
  public static final String DEFAULT_REGION = "us-east-1";

  private final URI endpoint;
  private final String region;
  private final String accessKey;
  private final String secretKey;
  private final boolean pathStyle;
  private final HttpClient httpClient;
  private final ChecksumMode checksumMode;
  private final S3Client client;

  private S3Endpoint(Builder b) {
    this.endpoint = b.endpoint;
    this.region = b.region;
    this.accessKey = b.accessKey;
    this.secretKey = b.secretKey;
    this.pathStyle = b.pathStyle == null ? b.endpoint != null : b.pathStyle;
    // The SDK's own retries are off, so without a ResilientHttpClient nothing would retry at all.
    this.httpClient = b.httpClient == null ? ResilientHttpClient.newBuilder().build() : b.httpClient;
    this.checksumMode = b.checksumMode;
    this.client = null;
  }

  private S3Endpoint(S3Client client, ChecksumMode checksumMode) {
    this.endpoint = null;
    this.region = client.serviceClientConfiguration().region().id();
    this.accessKey = null;
    this.secretKey = null;
    this.pathStyle = false;
    this.httpClient = null;
    this.checksumMode = checksumMode;
    this.client = client;
  }

  /** A builder with region {@value #DEFAULT_REGION}, AWS's endpoint, checksum mode AUTO. */
  public static Builder newBuilder() {
    return new Builder();
  }

  /**
   * Uses a caller-built client as is (its HTTP client, retry and checksum settings are the
   * caller's). The store does not close it. Checksum mode AUTO.
   *
   * @throws NullPointerException if {@code client} is null
   */
  public static S3Endpoint of(S3Client client) {
    return new S3Endpoint(Objects.requireNonNull(client, "client"), ChecksumMode.AUTO);
  }

  /** The endpoint URI, empty for AWS's own endpoint resolution. */
  public Optional<URI> endpoint() {
    return Optional.ofNullable(endpoint);
  }

  /** The signing region. */
  public String region() {
    return region;
  }

  /** True for path-style addressing ({@code http://host/bucket/key}); default true with an endpoint URI. */
  public boolean pathStyle() {
    return pathStyle;
  }

  /** The checksum mode. */
  public ChecksumMode checksumMode() {
    return checksumMode;
  }

  /** Whether the client was built by the caller ({@link #of(S3Client)}). */
  boolean callerOwnsClient() {
    return client != null;
  }

  /** A description for messages and logs: the endpoint URI or "AWS S3 (region)". */
  String describe() {
    if (endpoint != null) {
      return endpoint.toString();
    }
    return client != null ? "caller-supplied S3Client (" + region + ")" : "AWS S3 (" + region + ")";
  }

  /**
   * The client to use: the caller's, or a new one (owned by the caller of this method, who closes
   * it) with the SDK's retries and default checksums off.
   */
  S3Client client() {
    if (client != null) {
      return client;
    }
    S3ClientFactory.Builder builder = S3ClientFactory.builder(httpClient)
        .region(region)
        .pathStyle(pathStyle)
        // The store sends the SHA-256 it computed itself; the SDK adds nothing on top.
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED);
    if (endpoint != null) {
      builder.endpoint(endpoint);
    }
    if (accessKey != null) {
      builder.credentials(accessKey, secretKey);
    }
    return builder.build();
  }

  @Override
  public String toString() {
    return "S3Endpoint[" + describe() + ", pathStyle=" + pathStyle + ", checksumMode=" + checksumMode + "]";
  }

  /** Builder for {@link S3Endpoint}; not thread-safe. */
  public static final class Builder {
    private URI endpoint;
    private String region = DEFAULT_REGION;
    private String accessKey;
    private String secretKey;
    private Boolean pathStyle;
    private HttpClient httpClient;
    private ChecksumMode checksumMode = ChecksumMode.AUTO;

    private Builder() {}

    /** The endpoint, e.g. {@code http://127.0.0.1:9090}; unset for AWS's own resolution. */
    public Builder endpoint(URI endpoint) {
      this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
      return this;
    }

    /** The signing region; default {@value S3Endpoint#DEFAULT_REGION}. */
    public Builder region(String region) {
      this.region = Objects.requireNonNull(region, "region");
      return this;
    }

    /** Static credentials; unset means the SDK's default credentials provider chain. */
    public Builder credentials(String accessKey, String secretKey) {
      this.accessKey = Objects.requireNonNull(accessKey, "accessKey");
      this.secretKey = Objects.requireNonNull(secretKey, "secretKey");
      return this;
    }

    /** Path-style addressing; default true when an endpoint URI is set, else false. */
    public Builder pathStyle(boolean pathStyle) {
      this.pathStyle = pathStyle;
      return this;
    }

    /**
     * The {@code java.net.http.HttpClient} every S3 request goes through (normally a
     * {@code ResilientHttpClient}: it is the one layer that retries, the SDK's own retries being
     * off). Default: a {@code ResilientHttpClient} with its default policies, one per endpoint.
     */
    public Builder httpClient(HttpClient httpClient) {
      this.httpClient = Objects.requireNonNull(httpClient, "httpClient");
      return this;
    }

    /** Whether puts carry an S3 additional SHA-256 checksum; default {@link ChecksumMode#AUTO}. */
    public Builder checksumMode(ChecksumMode checksumMode) {
      this.checksumMode = Objects.requireNonNull(checksumMode, "checksumMode");
      return this;
    }

    /**
     * @throws IllegalArgumentException if the region is blank or the endpoint is not http(s) with a host
     */
    public S3Endpoint build() {
      if (region.isBlank()) {
        throw new IllegalArgumentException("region must not be blank");
      }
      if (endpoint != null) {
        String scheme = endpoint.getScheme();
        if (scheme == null || !(scheme.equals("http") || scheme.equals("https")) || endpoint.getHost() == null) {
          throw new IllegalArgumentException("endpoint must be an absolute http or https URI with a host but was " + endpoint);
        }
      }
      return new S3Endpoint(this);
    }
  }

  /** The HTTP client requests go through; empty for a caller-built {@link S3Client}. */
  public Optional<HttpClient> httpClient() {
    return Optional.ofNullable(httpClient);
  }
}
