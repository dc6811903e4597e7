package dev.ballast.storage.object;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One stored version of an object, as written or read.
 *
 * @param key the object key, byte-exact
 * @param versionId the S3 version ID (S3 returns the string {@code "null"} for objects written while
 *     versioning was off)
 * @param eTag the entity tag as the server returned it, quotes included; opaque, never an MD5
 * @param size content length in bytes
 * @param sha256 lowercase hex SHA-256 of the content as recorded at write time
 * @param generation the monotonically increasing per-key generation recorded at write time, used
 *     for stale-read detection; 0 when the object was not written by Ballast
 * @param lastModified when the server stored it, or null if not known
 */
public record ObjectVersion(
        String key,
        String versionId,
        String eTag,
        long size,
        String sha256,
        long generation,
        @Nullable Instant lastModified) {
    public ObjectVersion {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(versionId, "versionId");
        Objects.requireNonNull(eTag, "eTag");
        Objects.requireNonNull(sha256, "sha256");
        if (size < 0) {
            throw new IllegalArgumentException("size must be >= 0 but was " + size);
        }
    }
}
