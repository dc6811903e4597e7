package dev.ballast.storage.object;

import java.net.URI;
import org.jspecify.annotations.Nullable;

/**
 * What the capability probe found the endpoint to guarantee. Ballast never relies on a guarantee
 * marked false here: an operation that needs one is refused with
 * {@code UnsupportedCapabilityException} before anything is written. Immutable.
 *
 * @param endpoint the endpoint probed (null for AWS's default endpoint resolution)
 * @param bucket the bucket probed
 * @param versioningEnabled bucket versioning is {@code Enabled}
 * @param putIfAbsent {@code If-None-Match: *} on PUT is honoured: refused with 412 when the key has a
 *     current version, accepted when it has none ({@link ObjectStore#putIfAbsent})
 * @param putIfMatch {@code If-Match} on PUT is honoured: refused with 412 for an ETag that is not the
 *     current one, accepted for the current one ({@link ObjectStore#putIfMatch})
 * @param additionalChecksums the store accepts and validates {@code x-amz-checksum-sha256}
 * @param presignedUrls the store hands out presigned GET and PUT URLs
 *     ({@link ObjectStore#presign(PresignRequest)}): declared by the store, true for S3 (the URL is
 *     signed locally, so nothing is probed), false for the local store and the test kit's fake
 */
public record StoreCapabilities(
        @Nullable URI endpoint,
        String bucket,
        boolean versioningEnabled,
        boolean putIfAbsent,
        boolean putIfMatch,
        boolean additionalChecksums,
        boolean presignedUrls) {

    /** Capabilities without presigned URLs ({@code presignedUrls} false). */
    public StoreCapabilities(
            @Nullable URI endpoint,
            String bucket,
            boolean versioningEnabled,
            boolean putIfAbsent,
            boolean putIfMatch,
            boolean additionalChecksums) {
        this(endpoint, bucket, versioningEnabled, putIfAbsent, putIfMatch, additionalChecksums, false);
    }

    /** A copy with {@link #presignedUrls()} set to {@code presigned}. */
    public StoreCapabilities withPresignedUrls(boolean presigned) {
        return new StoreCapabilities(
                endpoint, bucket, versioningEnabled, putIfAbsent, putIfMatch, additionalChecksums, presigned);
    }

    /**
     * Capabilities with both conditional writes honoured or both not, without presigned URLs.
     *
     * @param conditionalWrites whether {@code If-None-Match: *} and {@code If-Match} are both honoured
     */
    public StoreCapabilities(
            @Nullable URI endpoint,
            String bucket,
            boolean versioningEnabled,
            boolean conditionalWrites,
            boolean additionalChecksums) {
        this(endpoint, bucket, versioningEnabled, conditionalWrites, conditionalWrites, additionalChecksums);
    }

    /** Whether both conditional writes, {@link #putIfAbsent()} and {@link #putIfMatch()}, are honoured. */
    public boolean conditionalWrites() {
        return putIfAbsent && putIfMatch;
    }
}
