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
 */
public record StoreCapabilities(
        @Nullable URI endpoint,
        String bucket,
        boolean versioningEnabled,
        boolean putIfAbsent,
        boolean putIfMatch,
        boolean additionalChecksums) {

    /**
     * Capabilities with both conditional writes honoured or both not.
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
