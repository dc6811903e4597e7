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
import software.amazon.awssdk.auth.credentials.ProfileCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.profiles.ProfileFile;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.AwsProfileRegionProvider;
import software.amazon.awssdk.regions.providers.SystemSettingsRegionProvider;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.endpoints.S3EndpointProvider;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

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
 *   <li>no {@code Expect: 100-continue} (RFC 9110 section 10.1.1), which the SDK adds to every
 *       PutObject and UploadPart: {@link JdkSdkHttpClient} never asks the JDK client for it, since
 *       that client takes a second interim response after the {@code 100 Continue} (as
 *       {@code moto_server} sends) for the answer, and on JDK 17 waits without bound for a
 *       {@code 100 Continue} a server never sends;</li>
 *   <li>SigV4 signing that takes a body's SHA-256 from the request's {@code x-amz-content-sha256}
 *       when the object store has set it ({@link PrecomputedPayloadSigner}), so a body is not read
 *       and hashed a second time just to be signed.</li>
 * </ul>
 *
 * <h2>Credentials and region</h2>
 * Credentials come from, in this order: a provider given with {@link Builder#credentialsProvider}
 * (any {@link AwsCredentialsProvider}: STS assume-role, web identity, SSO, your own), static keys
 * given with {@link Builder#credentials(String, String, String)} (a session token included), the
 * profile named with {@link Builder#profile(String)} (the SDK's {@link ProfileCredentialsProvider}:
 * static keys, {@code aws_session_token}, {@code role_arn}, {@code sso_*},
 * {@code web_identity_token_file}, {@code credential_process}), else the SDK's
 * {@link DefaultCredentialsProvider} chain: {@code aws.accessKeyId}/{@code aws.secretAccessKey}/{@code
 * aws.sessionToken} system properties, {@code AWS_ACCESS_KEY_ID}/{@code AWS_SECRET_ACCESS_KEY}/{@code
 * AWS_SESSION_TOKEN}, web identity ({@code AWS_WEB_IDENTITY_TOKEN_FILE}, {@code AWS_ROLE_ARN}), the
 * profile {@code AWS_PROFILE} names (else {@code default}) of {@code ~/.aws/credentials} and
 * {@code ~/.aws/config}, container credentials (ECS, EKS Pod Identity) and EC2 instance metadata. The SDK
 * modules those sources need ({@code sts}, {@code sso}, {@code ssooidc}) come with Ballast. A session
 * token is sent, and signed, as {@code X-Amz-Security-Token}. The provider is asked at each request
 * and refreshes what expires.
 *
 * <p>The region is the one given with {@link Builder#region}, else {@code aws.region} or
 * {@code AWS_REGION}, else the {@code region} of the profile ({@link Builder#profile(String)}, else
 * {@code AWS_PROFILE}, else {@code default}) in {@code ~/.aws/config} ({@code AWS_CONFIG_FILE}), else
 * {@value #DEFAULT_REGION}. Unlike the SDK's own chain, EC2 instance metadata is not asked: building an
 * endpoint sends no request (on EC2, set {@code AWS_REGION}).
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
    private final @Nullable AwsCredentialsProvider credentials;
    private final boolean pathStyle;
    private final @Nullable HttpClient httpClient;
    private final ChecksumMode checksumMode;
    private final @Nullable S3Client callerClient;
    private final AttemptTimeouts attemptTimeouts = new AttemptTimeouts();

    private S3Endpoint(Builder b) {
        this.endpoint = b.endpoint;
        this.region = b.region != null ? b.region.trim() : defaultRegion(b.profile, b.profileFile);
        this.credentials = credentialsProvider(b);
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
        this.credentials = null;
        this.pathStyle = false;
        this.httpClient = null;
        this.checksumMode = checksumMode;
        this.callerClient = client;
    }

    /**
     * A builder with the default region and credentials (see the class comment), AWS's endpoint
     * resolution, checksum mode AUTO.
     */
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

    /** The signing region: the one given, else the one the default chain found (see the class comment). */
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
                .credentialsProvider(credentials())
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

    /**
     * A new presigner that signs for this endpoint as its clients do (region, credentials, endpoint URI,
     * path-style addressing), or from the caller-built client's configuration; the caller closes it.
     */
    S3Presigner newPresigner() {
        if (callerClient != null) {
            return S3Presigner.builder().s3Client(callerClient).build();
        }
        S3Presigner.Builder builder = S3Presigner.builder()
                .region(Region.of(region))
                .credentialsProvider(credentials())
                .serviceConfiguration(S3Configuration.builder()
                        .pathStyleAccessEnabled(pathStyle)
                        .chunkedEncodingEnabled(false)
                        .build());
        if (endpoint != null) {
            builder.endpointOverride(endpoint);
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

    /** The credentials every client and presigner built here signs with. */
    AwsCredentialsProvider credentials() {
        if (credentials == null) {
            throw new IllegalStateException("this endpoint wraps a caller-built S3Client, which has its own");
        }
        return credentials;
    }

    private static AwsCredentialsProvider credentialsProvider(Builder b) {
        if (b.credentialsProvider != null) {
            return b.credentialsProvider;
        }
        if (b.accessKey != null) {
            return StaticCredentialsProvider.create(
                    b.sessionToken == null
                            ? AwsBasicCredentials.create(b.accessKey, b.secretKey)
                            : AwsSessionCredentials.create(b.accessKey, b.secretKey, b.sessionToken));
        }
        if (b.profile != null) {
            ProfileCredentialsProvider.Builder profile =
                    ProfileCredentialsProvider.builder().profileName(b.profile);
            if (b.profileFile != null) {
                profile.profileFile(b.profileFile);
            }
            return profile.build();
        }
        DefaultCredentialsProvider.Builder chain = DefaultCredentialsProvider.builder();
        if (b.profileFile != null) {
            chain.profileFile(b.profileFile);
        }
        return chain.build();
    }

    /**
     * {@code aws.region} or {@code AWS_REGION}, else the region of {@code profile} (else of the profile
     * {@code AWS_PROFILE} names, else {@code default}), else {@value #DEFAULT_REGION}.
     */
    static String defaultRegion(@Nullable String profile, @Nullable ProfileFile profileFile) {
        try {
            return new SystemSettingsRegionProvider().getRegion().id();
        } catch (RuntimeException notSet) {
            // fall through to the profile
        }
        try {
            String name = profile != null
                    ? profile
                    : software.amazon.awssdk.profiles.ProfileFileSystemSetting.AWS_PROFILE
                            .getStringValue()
                            .orElse("default");
            ProfileFile file = profileFile != null ? profileFile : ProfileFile.defaultProfileFile();
            Region r = new AwsProfileRegionProvider(() -> file, name).getRegion();
            if (r != null) {
                return r.id();
            }
        } catch (RuntimeException notInProfile) {
            // no profile file, no such profile or no region in it
        }
        return DEFAULT_REGION;
    }

    @Override
    public String toString() {
        return "S3Endpoint[" + describe() + ", pathStyle=" + pathStyle + ", checksumMode=" + checksumMode + "]";
    }

    /** Builder of {@link S3Endpoint}; not thread-safe. */
    public static final class Builder {
        private @Nullable URI endpoint;
        private @Nullable String region;
        private @Nullable String accessKey;
        private @Nullable String secretKey;
        private @Nullable String sessionToken;
        private @Nullable AwsCredentialsProvider credentialsProvider;
        private @Nullable String profile;
        private @Nullable ProfileFile profileFile;
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
         * set, {@code aws.region} or {@code AWS_REGION}, else the profile's {@code region}, else
         * {@value S3Endpoint#DEFAULT_REGION} (see the class comment).
         *
         * @throws NullPointerException if {@code region} is null
         */
        public Builder region(String region) {
            this.region = Objects.requireNonNull(region, "region");
            return this;
        }

        /**
         * Static long-term credentials. If not set, those of {@link #credentialsProvider}, else of the
         * {@link #profile}, else the SDK's default credentials provider chain (see the class comment).
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
         * Any credentials provider, asked at each request (it caches and refreshes as it sees fit):
         * STS ({@code StsAssumeRoleCredentialsProvider}, {@code StsAssumeRoleWithWebIdentityCredentialsProvider}),
         * SSO ({@code SsoCredentialsProvider}), container or instance credentials, your own. Takes
         * precedence over {@link #credentials} and {@link #profile}. The endpoint does not close it.
         *
         * @throws NullPointerException if {@code provider} is null
         */
        public Builder credentialsProvider(AwsCredentialsProvider provider) {
            this.credentialsProvider = Objects.requireNonNull(provider, "provider");
            return this;
        }

        /**
         * Takes the credentials, and the region unless {@link #region} is set, from the profile {@code name}
         * of the shared AWS files ({@code ~/.aws/credentials} and {@code ~/.aws/config}, or where
         * {@code AWS_SHARED_CREDENTIALS_FILE} and {@code AWS_CONFIG_FILE} point), as the SDK's
         * {@link ProfileCredentialsProvider} reads them: static keys with or without
         * {@code aws_session_token}, {@code role_arn} with {@code source_profile} or
         * {@code web_identity_token_file}, {@code sso_session}, {@code credential_process}. Static keys
         * given with {@link #credentials} or a {@link #credentialsProvider} take precedence for the
         * credentials; {@code aws.region}/{@code AWS_REGION} for the region, as in the AWS CLI.
         *
         * @throws NullPointerException if {@code name} is null
         */
        public Builder profile(String name) {
            this.profile = Objects.requireNonNull(name, "name");
            return this;
        }

        /**
         * As {@link #profile(String)}, reading the profile from {@code files} instead of the shared AWS
         * files (build one with {@code ProfileFile.aggregator()} of a credentials and a config file).
         *
         * @throws NullPointerException if an argument is null
         */
        public Builder profile(String name, ProfileFile files) {
            this.profileFile = Objects.requireNonNull(files, "files");
            return profile(name);
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
            if (region != null && region.isBlank()) {
                throw new IllegalArgumentException("region must not be blank, e.g. 'us-east-1'");
            }
            if (accessKey != null && (accessKey.isBlank() || secretKey.isBlank())) {
                throw new IllegalArgumentException("accessKey and secretKey must not be blank");
            }
            if (profile != null && profile.isBlank()) {
                throw new IllegalArgumentException("profile must not be blank, e.g. 'default'");
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
