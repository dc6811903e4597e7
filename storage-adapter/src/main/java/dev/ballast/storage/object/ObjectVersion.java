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
 * @param metadata the headers and user metadata recorded with the version ({@link ObjectMetadata#NONE}
 *     when none)
 * @param encryption the server-side encryption the store reported applied ({@link ServerSideEncryption#NONE}
 *     when it reported none)
 */
public record ObjectVersion(
        String key,
        String versionId,
        String eTag,
        long size,
        String sha256,
        long generation,
        @Nullable Instant lastModified,
        ObjectMetadata metadata,
        ServerSideEncryption encryption) {
    public ObjectVersion {
        Objects.requireNonNull(metadata, "metadata");
        Objects.requireNonNull(encryption, "encryption");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(versionId, "versionId");
        Objects.requireNonNull(eTag, "eTag");
        Objects.requireNonNull(sha256, "sha256");
        if (size < 0) {
            throw new IllegalArgumentException("size must be >= 0 but was " + size);
        }
    }

    /** A version without metadata or server-side encryption. */
    public ObjectVersion(
            String key,
            String versionId,
            String eTag,
            long size,
            String sha256,
            long generation,
            @Nullable Instant lastModified) {
        this(
                key,
                versionId,
                eTag,
                size,
                sha256,
                generation,
                lastModified,
                ObjectMetadata.NONE,
                ServerSideEncryption.NONE);
    }

    /** This version with {@code metadata} and {@code encryption}. */
    public ObjectVersion with(ObjectMetadata metadata, ServerSideEncryption encryption) {
        return new ObjectVersion(key, versionId, eTag, size, sha256, generation, lastModified, metadata, encryption);
    }
}
