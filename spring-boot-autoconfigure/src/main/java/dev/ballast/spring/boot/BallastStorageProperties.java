package dev.ballast.spring.boot;

import dev.ballast.storage.object.s3.S3Endpoint;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * The {@code ballast.storage.*} properties: how the {@code StorageFacade} bean is built
 * ({@code StorageFacade.Builder}). The bean exists once {@code local-objects}, {@code s3.bucket} or
 * {@code block-root} is set. Objects go to S3 when {@code s3.bucket} is set, else to the local object
 * store in {@code local-objects}; setting both is refused.
 *
 * @param localObjects the directory of the local object store (versioned, verified objects in this
 *     process, no server), created when missing
 * @param blockRoot the directory of the block volumes ({@code StorageFacade.block(name)})
 * @param s3 the S3 (or S3-compatible) endpoint and bucket
 * @param lastKnownGood the last-known-good cache that serves reads while the store is unavailable
 */
@ConfigurationProperties("ballast.storage")
public record BallastStorageProperties(
        @Nullable Path localObjects,
        @Nullable Path blockRoot,
        @DefaultValue S3 s3,
        @DefaultValue LastKnownGood lastKnownGood) {

    /**
     * The S3 endpoint ({@code S3Endpoint}) and bucket. Requests go through the application's
     * {@code ResilientHttpClient} bean, the one layer that retries.
     *
     * @param endpoint an S3-compatible endpoint such as {@code http://127.0.0.1:9000}; if not set, AWS
     *     S3's regional endpoint
     * @param bucket the versioned bucket holding the objects
     * @param region the region requests are signed for
     * @param accessKey a static access key; if not set (with {@code secret-key}), the AWS SDK's default
     *     credentials chain: environment, system properties, profile files, container and instance
     *     metadata
     * @param secretKey the static secret key
     * @param sessionToken the session token of temporary static credentials
     * @param pathStyle address buckets in the path; if not set, true when an endpoint is set
     * @param checksumMode whether puts carry an S3 additional SHA-256 checksum: AUTO, ALWAYS or NEVER
     * @param createBucket create a missing bucket at start-up instead of refusing to start
     * @param enableVersioning turn versioning on for an unversioned bucket instead of refusing to start
     */
    public record S3(
            @Nullable URI endpoint,
            @Nullable String bucket,
            @DefaultValue("us-east-1") String region,
            @Nullable String accessKey,
            @Nullable String secretKey,
            @Nullable String sessionToken,
            @Nullable Boolean pathStyle,
            @DefaultValue("AUTO") S3Endpoint.ChecksumMode checksumMode,
            @DefaultValue("false") boolean createBucket,
            @DefaultValue("false") boolean enableVersioning) {}

    /**
     * The last-known-good cache ({@code LastKnownGoodConfig}); library defaults in brackets.
     *
     * @param enabled whether reads are cached to be served while the store is unavailable; if not set,
     *     on for S3 and off for the local object store
     * @param maxEntries objects kept [1000]
     * @param maxObjectSize the largest object kept [1MB]
     * @param maxTotalSize bytes kept in all [64MB]
     * @param maxStaleness the oldest copy served [24h]
     * @param expiryJitter the fraction by which expiry is varied, in [0, 1) [0.1]
     */
    public record LastKnownGood(
            @Nullable Boolean enabled,
            @Nullable Integer maxEntries,
            @Nullable DataSize maxObjectSize,
            @Nullable DataSize maxTotalSize,
            @Nullable Duration maxStaleness,
            @Nullable Double expiryJitter) {

        boolean anySet() {
            return enabled != null
                    || maxEntries != null
                    || maxObjectSize != null
                    || maxTotalSize != null
                    || maxStaleness != null
                    || expiryJitter != null;
        }
    }
}
