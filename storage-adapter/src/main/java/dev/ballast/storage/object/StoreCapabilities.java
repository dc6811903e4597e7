package dev.ballast.storage.object;

import java.net.URI;

/**
 * What the capability probe found the endpoint to guarantee. Ballast never relies on a guarantee
 * marked false here.
 *
 * @param endpoint the endpoint probed (null for AWS's default endpoint resolution)
 * @param bucket the bucket probed
 * @param versioningEnabled bucket versioning is {@code Enabled}
 * @param conditionalWrites {@code If-None-Match: *} on an existing key and {@code If-Match} with a
 *     wrong ETag are both refused with 412
 * @param additionalChecksums the store accepts and validates {@code x-amz-checksum-sha256}
 */
public record StoreCapabilities(
    URI endpoint, String bucket, boolean versioningEnabled, boolean conditionalWrites, boolean additionalChecksums) {}
