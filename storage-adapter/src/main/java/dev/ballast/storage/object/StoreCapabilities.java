package dev.ballast.storage.object;

import java.net.URI;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;
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
 * @param features what else the store offers ({@link Feature}); a case or caller needing one it
 *     lacks is refused with {@code UnsupportedCapabilityException}
 */
public record StoreCapabilities(
        @Nullable URI endpoint,
        String bucket,
        boolean versioningEnabled,
        boolean putIfAbsent,
        boolean putIfMatch,
        boolean additionalChecksums,
        boolean presignedUrls,
        Set<Feature> features) {

    /** Features beyond whole-object versioned storage, each probed or declared by the store. */
    public enum Feature {
        /** {@code get} with a {@link ByteRange} reads only those bytes. */
        RANGED_READS,
        /**
         * A SHA-256 of every 1 MiB block (1,048,576 bytes) is recorded at write time, so a range of a
         * version written by this store is verified. Client-side encryption
         * ({@code dev.ballast.storage.crypto.EncryptedObjectStore}) declares it too: its ranges are
         * authenticated by the AES-GCM tag of every segment (64 KiB by default), recorded at write time.
         */
        BLOCK_DIGESTS,
        /** {@link ObjectMetadata} given on put is kept and returned. */
        METADATA,
        /** {@link ServerSideEncryption#s3()} is applied and reported. */
        SSE_S3,
        /** {@link ServerSideEncryption#kms(String)} is applied and reported. */
        SSE_KMS,
        /** {@link ServerSideEncryption#customerKey(byte[])} is applied and reported. */
        SSE_C
    }

    public StoreCapabilities {
        features = features.isEmpty() ? Set.of() : Collections.unmodifiableSet(EnumSet.copyOf(features));
    }

    /** Capabilities with features but without presigned URLs ({@code presignedUrls} false). */
    public StoreCapabilities(
            @Nullable URI endpoint,
            String bucket,
            boolean versioningEnabled,
            boolean putIfAbsent,
            boolean putIfMatch,
            boolean additionalChecksums,
            Set<Feature> features) {
        this(endpoint, bucket, versioningEnabled, putIfAbsent, putIfMatch, additionalChecksums, false, features);
    }

    /** Capabilities with no {@link Feature}. */
    public StoreCapabilities(
            @Nullable URI endpoint,
            String bucket,
            boolean versioningEnabled,
            boolean putIfAbsent,
            boolean putIfMatch,
            boolean additionalChecksums,
            boolean presignedUrls) {
        this(
                endpoint,
                bucket,
                versioningEnabled,
                putIfAbsent,
                putIfMatch,
                additionalChecksums,
                presignedUrls,
                Set.of());
    }

    /** Capabilities without presigned URLs ({@code presignedUrls} false) and with no {@link Feature}. */
    public StoreCapabilities(
            @Nullable URI endpoint,
            String bucket,
            boolean versioningEnabled,
            boolean putIfAbsent,
            boolean putIfMatch,
            boolean additionalChecksums) {
        this(endpoint, bucket, versioningEnabled, putIfAbsent, putIfMatch, additionalChecksums, false, Set.of());
    }

    /**
     * Capabilities with both conditional writes honoured or both not, without presigned URLs or features.
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

    /** A copy with {@link #presignedUrls()} set to {@code presigned}. */
    public StoreCapabilities withPresignedUrls(boolean presigned) {
        return new StoreCapabilities(
                endpoint, bucket, versioningEnabled, putIfAbsent, putIfMatch, additionalChecksums, presigned, features);
    }

    /** Whether the store offers {@code feature}. */
    public boolean has(Feature feature) {
        return features.contains(feature);
    }

    /** These capabilities with {@code more} features added. */
    public StoreCapabilities withFeatures(Collection<Feature> more) {
        EnumSet<Feature> all = EnumSet.noneOf(Feature.class);
        all.addAll(features);
        all.addAll(more);
        return new StoreCapabilities(
                endpoint, bucket, versioningEnabled, putIfAbsent, putIfMatch, additionalChecksums, presignedUrls, all);
    }

    /** Whether both conditional writes, {@link #putIfAbsent()} and {@link #putIfMatch()}, are honoured. */
    public boolean conditionalWrites() {
        return putIfAbsent && putIfMatch;
    }
}
