package dev.ballast.storage.object.s3;

import dev.ballast.http.ResilientHttpClient;
import dev.ballast.storage.object.s3.transport.JdkSdkHttpClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.endpoints.S3EndpointProvider;

/**
 * Where and how to reach an S3 (or S3-compatible) endpoint, the one home of connection settings:
 * endpoint URI, region, credentials, path-style addressing, the {@link HttpClient} every request
 * goes through, and whether puts carry an additional checksum. Build one with {@link #newBuilder()},
 * or wrap a caller-built client with {@link #of(S3Client)}. How the bucket is used is
 * {@link S3StoreConfig}'s.
 *
 * <h2>How Ballast talks to S3</h2>
 * The {@link S3Client}s built here ({@link #newClient()}) send through {@link JdkSdkHttpClient} over
 * the configured {@code HttpClient}, with:
 * <ul>
 *   <li>the SDK's own retries off ({@link AwsRetryStrategy#doNotRetry()}): exactly one layer retries,
 *       the {@code HttpClient} (by default a {@code ResilientHttpClient}); writes that create a
 *       version are marked so it never repeats them after an ambiguous failure;</li>
 *   <li>the SDK's default request checksums (since 2.30) off ({@code WHEN_REQUIRED}): the object
 *       store sends the SHA-256 it computed itself as an additional checksum when the capability
 *       probe found the endpoint validates it (see {@link ChecksumMode});</li>
 *   <li>aws-chunked uploads off ({@link S3Configuration.Builder#chunkedEncodingEnabled}): a body is
 *       sent as itself with its {@code Content-Length}, and over plain HTTP its SHA-256 is signed in
 *       {@code x-amz-content-sha256}. The streaming forms ({@code STREAMING-AWS4-HMAC-SHA256-PAYLOAD},
 *       with or without trailer) are refused or mishandled by S3-compatible servers: Ceph RGW 16
 *       answers {@code 400} to trailing checksums and {@code XAmzContentSHA256Mismatch} to the framing
 *       of an empty body;</li>
 *   <li>with an endpoint URI and path-style addressing, each request's URL and signing scope taken
 *       straight from that URI ({@link PathStyleEndpointProvider}) instead of from the SDK's S3
 *       endpoint rules, which it would otherwise run twice per request;</li>
 *   <li>SigV4 signing that takes a body's SHA-256 from the request's {@code x-amz-content-sha256}
 *       when the object store has set it ({@link PrecomputedPayloadSigner}), so a body is not read
 *       and hashed a second time just to be signed.</li>
 * </ul>
 *
 * <p>Immutable and thread-safe; builders are not thread-safe.
 *
 * @see S3ObjectStore#open(S3Endpoint, String, S3StoreConfig)
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

    /** The region used when none is given: {@value}, the AWS SDK's default. */
    public static final String DEFAULT_REGION = "us-east-1";

    private final @Nullable URI endpoint;
    private final String region;
    private final @Nullable String accessKey;
    private final @Nullable String secretKey;
    private final @Nullable String sessionToken;
    private final boolean pathStyle;
    private final @Nullable HttpClient httpClient;
    private final ChecksumMode checksumMode;
    private final @Nullable S3Client callerClient;
    private final AttemptTimeouts attemptTimeouts = new AttemptTimeouts();

    private S3Endpoint(Builder b) {
        this.endpoint = b.endpoint;
        this.region = b.region.trim();
        this.accessKey = b.accessKey;
        this.secretKey = b.secretKey;
        this.sessionToken = b.sessionToken;
        this.pathStyle = b.pathStyle == null ? b.endpoint != null : b.pathStyle;
        // The SDK's own retries are off, so without a ResilientHttpClient nothing would retry at all.
        this.httpClient =
                b.httpClient == null ? ResilientHttpClient.newBuilder().build() : b.httpClient;
        this.checksumMode = b.checksumMode;
        this.callerClient = null;
    }

    private S3Endpoint(S3Client client, ChecksumMode checksumMode) {
        this.endpoint = null;
        this.region = client.serviceClientConfiguration().region().id();
        this.accessKey = null;
        this.secretKey = null;
        this.sessionToken = null;
        this.pathStyle = false;
        this.httpClient = null;
        this.checksumMode = checksumMode;
        this.callerClient = client;
    }

    /** A builder with region {@value #DEFAULT_REGION}, AWS's endpoint resolution, checksum mode AUTO. */
    public static Builder newBuilder() {
        return new Builder();
    }

    /**
     * Uses a caller-built client as is (its HTTP client, retry, checksum and chunked-encoding settings
     * are the caller's: see the class comment for the ones Ballast relies on). The store does not close
     * it. Checksum mode AUTO.
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

    /** The HTTP client requests go through; empty for a caller-built {@link S3Client}. */
    public Optional<HttpClient> httpClient() {
        return Optional.ofNullable(httpClient);
    }

    /**
     * A new {@link S3Client} that talks to this endpoint exactly as the object store does (see the
     * class comment). Closing it leaves the {@code HttpClient} open. Useful for operations the
     * {@code ObjectStore} interface does not offer.
     *
     * @return a new client, which the caller closes
     * @throws IllegalStateException if this endpoint wraps a caller-built client ({@link #of(S3Client)})
     */
    public S3Client newClient() {
        if (callerClient != null) {
            throw new IllegalStateException("this endpoint wraps a caller-built S3Client; use that client");
        }
        S3ClientBuilder builder = S3Client.builder()
                .httpClient(JdkSdkHttpClient.builder(httpClient)
                        .nonIdempotentEffect(VersionedBucketWrites::nonIdempotent)
                        .requestTimeout(attemptTimeouts::of)
                        .build())
                .region(Region.of(region))
                .credentialsProvider(credentialsProvider())
                .putAuthScheme(PrecomputedPayloadSigner.scheme())
                .forcePathStyle(pathStyle)
                .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()))
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .serviceConfiguration(
                        S3Configuration.builder().chunkedEncodingEnabled(false).build());
        if (endpoint != null) {
            builder.endpointOverride(endpoint);
            if (pathStyle) {
                builder.endpointProvider(
                        new PathStyleEndpointProvider(endpoint, region, S3EndpointProvider.defaultProvider()));
            }
        }
        return builder.build();
    }

    /** The caller's client, or a new one owned by the caller of this method. */
    S3Client client() {
        return callerClient != null ? callerClient : newClient();
    }

    /** The attempt timeouts of requests that need their own, shared by the clients built here. */
    AttemptTimeouts attemptTimeouts() {
        return attemptTimeouts;
    }

    /**
     * Whether requests go over plain {@code http}: then only the signed payload hash protects a body
     * on the way, so it is signed; over {@code https} (and AWS's own endpoints) TLS does.
     */
    boolean plainHttp() {
        return endpoint != null && "http".equalsIgnoreCase(endpoint.getScheme());
    }

    /** Whether the client was built by the caller ({@link #of(S3Client)}). */
    boolean callerOwnsClient() {
        return callerClient != null;
    }

    /** A description for messages and logs: the endpoint URI or "AWS S3 (region)". */
    String describe() {
        if (endpoint != null) {
            return endpoint.toString();
        }
        return callerClient != null ? "caller-supplied S3Client (" + region + ")" : "AWS S3 (" + region + ")";
    }

    private AwsCredentialsProvider credentialsProvider() {
        if (accessKey == null) {
            return DefaultCredentialsProvider.builder().build();
        }
        if (sessionToken == null) {
            return StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey));
        }
        return StaticCredentialsProvider.create(AwsSessionCredentials.create(accessKey, secretKey, sessionToken));
    }

    @Override
    public String toString() {
        return "S3Endpoint[" + describe() + ", pathStyle=" + pathStyle + ", checksumMode=" + checksumMode + "]";
    }

    /** Builder of {@link S3Endpoint}; not thread-safe. */
    public static final class Builder {
        private @Nullable URI endpoint;
        private String region = DEFAULT_REGION;
        private @Nullable String accessKey;
        private @Nullable String secretKey;
        private @Nullable String sessionToken;
        private @Nullable Boolean pathStyle;
        private @Nullable HttpClient httpClient;
        private ChecksumMode checksumMode = ChecksumMode.AUTO;

        private Builder() {}

        /**
         * The endpoint of an S3-compatible store, such as {@code http://127.0.0.1:9000}. If not set, AWS
         * S3's regional endpoint for the region.
         *
         * @param endpoint an absolute {@code http} or {@code https} URI with a host and no query or fragment
         * @throws NullPointerException if {@code endpoint} is null
         */
        public Builder endpoint(URI endpoint) {
            this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
            return this;
        }

        /**
         * The region requests are signed for (and, without an endpoint, the AWS endpoint used). If not
         * set, {@value S3Endpoint#DEFAULT_REGION}.
         *
         * @throws NullPointerException if {@code region} is null
         */
        public Builder region(String region) {
            this.region = Objects.requireNonNull(region, "region");
            return this;
        }

        /**
         * Static long-term credentials. If not set, the SDK's default credentials provider chain
         * (environment, system properties, profile files, container and instance metadata).
         *
         * @throws NullPointerException if either argument is null
         */
        public Builder credentials(String accessKey, String secretKey) {
            return credentials(accessKey, secretKey, null);
        }

        /**
         * Static temporary credentials with a session token, sent and signed as
         * {@code X-Amz-Security-Token}.
         *
         * @param sessionToken the session token, or null for long-term credentials
         * @throws NullPointerException if {@code accessKey} or {@code secretKey} is null
         */
        public Builder credentials(String accessKey, String secretKey, @Nullable String sessionToken) {
            this.accessKey = Objects.requireNonNull(accessKey, "accessKey");
            this.secretKey = Objects.requireNonNull(secretKey, "secretKey");
            this.sessionToken = sessionToken;
            return this;
        }

        /**
         * Addresses buckets in the path ({@code http://host/bucket/key}) instead of the host name
         * ({@code http://bucket.host/key}); most S3-compatible stores need it. If not set, true when an
         * endpoint URI is set, else false.
         */
        public Builder pathStyle(boolean pathStyle) {
            this.pathStyle = pathStyle;
            return this;
        }

        /**
         * The {@code java.net.http.HttpClient} every S3 request goes through, normally a
         * {@code ResilientHttpClient}: it is the one layer that retries, the SDK's own retries being off.
         * If not set, a {@code ResilientHttpClient} with its default policies.
         *
         * @throws NullPointerException if {@code httpClient} is null
         */
        public Builder httpClient(HttpClient httpClient) {
            this.httpClient = Objects.requireNonNull(httpClient, "httpClient");
            return this;
        }

        /**
         * Whether puts carry an S3 additional SHA-256 checksum. If not set, {@link ChecksumMode#AUTO}.
         *
         * @throws NullPointerException if {@code checksumMode} is null
         */
        public Builder checksumMode(ChecksumMode checksumMode) {
            this.checksumMode = Objects.requireNonNull(checksumMode, "checksumMode");
            return this;
        }

        /**
         * A new, immutable endpoint with these settings.
         *
         * @throws IllegalArgumentException if the region or a static credential is blank, or the endpoint
         *     is not an absolute http(s) URI with a host and without query or fragment
         */
        public S3Endpoint build() {
            if (region.isBlank()) {
                throw new IllegalArgumentException("region must not be blank, e.g. 'us-east-1'");
            }
            if (accessKey != null && (accessKey.isBlank() || secretKey.isBlank())) {
                throw new IllegalArgumentException("accessKey and secretKey must not be blank");
            }
            if (endpoint != null) {
                String scheme = endpoint.getScheme() == null
                        ? null
                        : endpoint.getScheme().toLowerCase(Locale.ROOT);
                if (!endpoint.isAbsolute()
                        || !("http".equals(scheme) || "https".equals(scheme))
                        || endpoint.getHost() == null
                        || endpoint.getRawQuery() != null
                        || endpoint.getRawFragment() != null) {
                    throw new IllegalArgumentException(
                            "endpoint must be an absolute http or https URI with a host and no query"
                                    + " or fragment, e.g. 'http://127.0.0.1:9000', but was '" + endpoint + "'");
                }
            }
            return new S3Endpoint(this);
        }
    }
}
