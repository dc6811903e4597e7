package dev.ballast.storage.object.s3;

import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
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

/**
 * Builds {@link S3Client}s whose every request goes through a caller-supplied
 * {@link java.net.http.HttpClient} (via {@link JdkSdkHttpClient}), with the SDK's own retries off.
 *
 * <p>Exactly one layer retries (Ballast's field rule 2): the {@code HttpClient} — normally a
 * {@code dev.ballast.http.ResilientHttpClient} — owns retries, attempt timeouts, the circuit breaker
 * and the retry budget, so the client is built with {@link AwsRetryStrategy#doNotRetry()}. The SDK's
 * {@code apiCallTimeout} and {@code apiCallAttemptTimeout} are left unset so they cannot cut an
 * operation short underneath the resilience layer's own deadlines.
 *
 * <p>Usage:
 * <pre>{@code
 * S3Client s3 = S3ClientFactory.builder(resilientHttpClient)
 *         .endpoint(URI.create("http://localhost:9090"))
 *         .region("us-east-1")
 *         .credentials("access-key", "secret-key")
 *         .pathStyle(true)
 *         .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
 *         .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
 *         .build();
 * }</pre>
 *
 * <p>Closing the returned {@link S3Client} does not close the {@code HttpClient}.
 */
public final class S3ClientFactory {

    private S3ClientFactory() {
    }

    /**
     * Returns a builder of S3 clients that send every request through {@code httpClient}.
     *
     * @param httpClient the client that sends every request; its lifecycle stays with the caller
     * @return a new builder
     * @throws NullPointerException if {@code httpClient} is null
     */
    public static Builder builder(HttpClient httpClient) {
        return new Builder(Objects.requireNonNull(httpClient, "httpClient"));
    }

    /**
     * Settings of an {@link S3Client}; not thread-safe. {@link #build()} validates them and may be
     * called repeatedly, each call returning a new client.
     */
    public static final class Builder {
        private final JdkSdkHttpClient.Builder transport;
        private URI endpoint;
        private String region;
        private String accessKeyId;
        private String secretAccessKey;
        private String sessionToken;
        private boolean pathStyle;
        private RequestChecksumCalculation requestChecksumCalculation;
        private ResponseChecksumValidation responseChecksumValidation;

        private Builder(HttpClient httpClient) {
            this.transport = JdkSdkHttpClient.builder(httpClient);
        }

        /**
         * Sets the endpoint of an S3-compatible store, such as {@code http://localhost:9000}. Default:
         * none, meaning AWS S3's regional endpoint.
         *
         * @param endpoint an absolute {@code http} or {@code https} URI with a host and no query or
         *     fragment, or null for AWS
         * @return this builder
         */
        public Builder endpoint(URI endpoint) {
            this.endpoint = endpoint;
            return this;
        }

        /**
         * Sets the region the requests are signed for (and, without an endpoint, the AWS endpoint to
         * use), such as {@code us-east-1}. Required.
         *
         * @param region a region name
         * @return this builder
         */
        public Builder region(String region) {
            this.region = region;
            return this;
        }

        /**
         * Uses static credentials. Default: the SDK's default credentials provider chain (environment,
         * system properties, profile files, container and instance metadata).
         *
         * @param accessKeyId the access key ID
         * @param secretAccessKey the secret access key
         * @return this builder
         * @throws NullPointerException if either argument is null
         */
        public Builder credentials(String accessKeyId, String secretAccessKey) {
            return credentials(accessKeyId, secretAccessKey, null);
        }

        /**
         * Uses static temporary credentials with a session token.
         *
         * @param accessKeyId the access key ID
         * @param secretAccessKey the secret access key
         * @param sessionToken the session token, or null for long-term credentials
         * @return this builder
         * @throws NullPointerException if {@code accessKeyId} or {@code secretAccessKey} is null
         */
        public Builder credentials(String accessKeyId, String secretAccessKey, String sessionToken) {
            this.accessKeyId = Objects.requireNonNull(accessKeyId, "accessKeyId");
            this.secretAccessKey = Objects.requireNonNull(secretAccessKey, "secretAccessKey");
            this.sessionToken = sessionToken;
            return this;
        }

        /**
         * Uses the SDK's default credentials provider chain (the default).
         *
         * @return this builder
         */
        public Builder defaultCredentials() {
            this.accessKeyId = null;
            this.secretAccessKey = null;
            this.sessionToken = null;
            return this;
        }

        /**
         * Addresses buckets in the path ({@code http://host/bucket/key}) instead of the host name
         * ({@code http://bucket.host/key}). Most S3-compatible stores need path style. Default: false.
         *
         * @param pathStyle true for path-style addressing
         * @return this builder
         */
        public Builder pathStyle(boolean pathStyle) {
            this.pathStyle = pathStyle;
            return this;
        }

        /**
         * Sets when the SDK computes request checksums. Since SDK 2.30 the default is
         * {@code WHEN_SUPPORTED}, which sends {@code x-amz-checksum-*} headers and trailers that some
         * S3-compatible stores reject; {@code WHEN_REQUIRED} sends them only for operations that require
         * one. Default: null, the SDK's default (which also honours its environment and profile
         * settings).
         *
         * @param mode the mode, or null for the SDK's default
         * @return this builder
         */
        public Builder requestChecksumCalculation(RequestChecksumCalculation mode) {
            this.requestChecksumCalculation = mode;
            return this;
        }

        /**
         * Sets when the SDK validates response checksums. Default: null, the SDK's default
         * ({@code WHEN_SUPPORTED}).
         *
         * @param mode the mode, or null for the SDK's default
         * @return this builder
         */
        public Builder responseChecksumValidation(ResponseChecksumValidation mode) {
            this.responseChecksumValidation = mode;
            return this;
        }

        /**
         * Sets the time each request may wait for its response headers; see
         * {@link JdkSdkHttpClient.Builder#responseTimeout(Duration)}. Default: none of its own.
         *
         * @param timeout a positive duration, or null for none
         * @return this builder
         * @throws IllegalArgumentException if {@code timeout} is zero or negative
         */
        public Builder responseTimeout(Duration timeout) {
            transport.responseTimeout(timeout);
            return this;
        }

        /**
         * Validates the settings and builds a client.
         *
         * @return a new client; closing it leaves the {@code HttpClient} open
         * @throws IllegalStateException if the region is missing or blank, the endpoint is not an
         *     absolute http(s) URI with a host and without query or fragment, or a static credential is
         *     blank
         */
        public S3Client build() {
            Region signingRegion = validatedRegion();
            Optional<URI> validatedEndpoint = validatedEndpoint();
            S3ClientBuilder builder = S3Client.builder()
                    .httpClient(transport.build())
                    .region(signingRegion)
                    .credentialsProvider(credentialsProvider())
                    .forcePathStyle(pathStyle)
                    .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()));
            validatedEndpoint.ifPresent(builder::endpointOverride);
            if (requestChecksumCalculation != null) {
                builder.requestChecksumCalculation(requestChecksumCalculation);
            }
            if (responseChecksumValidation != null) {
                builder.responseChecksumValidation(responseChecksumValidation);
            }
            return builder.build();
        }

        private Region validatedRegion() {
            if (region == null || region.isBlank()) {
                throw new IllegalStateException("region must be set, e.g. 'us-east-1', but was "
                        + (region == null ? "unset" : "'" + region + "'"));
            }
            return Region.of(region.trim());
        }

        private Optional<URI> validatedEndpoint() {
            if (endpoint == null) {
                return Optional.empty();
            }
            String scheme = endpoint.getScheme() == null ? null : endpoint.getScheme().toLowerCase(Locale.ROOT);
            if (!endpoint.isAbsolute() || !("http".equals(scheme) || "https".equals(scheme))
                    || endpoint.getHost() == null || endpoint.getRawQuery() != null
                    || endpoint.getRawFragment() != null) {
                throw new IllegalStateException("endpoint must be an absolute http or https URI with a host"
                        + " and no query or fragment, e.g. 'http://localhost:9000', but was '" + endpoint + "'");
            }
            return Optional.of(endpoint);
        }

        private AwsCredentialsProvider credentialsProvider() {
            if (accessKeyId == null) {
                return DefaultCredentialsProvider.builder().build();
            }
            if (accessKeyId.isBlank() || secretAccessKey.isBlank()) {
                throw new IllegalStateException("accessKeyId and secretAccessKey must not be blank");
            }
            if (sessionToken == null) {
                return StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKeyId, secretAccessKey));
            }
            return StaticCredentialsProvider.create(
                    AwsSessionCredentials.create(accessKeyId, secretAccessKey, sessionToken));
        }
    }
}
