package dev.ballast.storage.object;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One entry of an object's version history, as in
 * <a href="https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectVersions.html">ListObjectVersions</a>.
 *
 * @param key the object key
 * @param versionId the version ID
 * @param eTag the ETag, or null for a delete marker
 * @param size the size in bytes, 0 for a delete marker
 * @param lastModified when the server stored it
 * @param latest whether this is the current version (or current delete marker)
 * @param deleteMarker whether this entry is a delete marker rather than content
 * @param metadata the version's headers and user metadata, where the listing carries them (the
 *     local store and the fake do; S3's ListObjectVersions does not: null there, ask
 *     {@link ObjectStore#head}); {@link ObjectMetadata#NONE} for a delete marker
 */
public record VersionEntry(
        String key,
        String versionId,
        @Nullable String eTag,
        long size,
        Instant lastModified,
        boolean latest,
        boolean deleteMarker,
        @Nullable ObjectMetadata metadata) {
    public VersionEntry {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(versionId, "versionId");
    }

    /** An entry whose listing carries no metadata. */
    public VersionEntry(
            String key,
            String versionId,
            @Nullable String eTag,
            long size,
            Instant lastModified,
            boolean latest,
            boolean deleteMarker) {
        this(key, versionId, eTag, size, lastModified, latest, deleteMarker, null);
    }
}
