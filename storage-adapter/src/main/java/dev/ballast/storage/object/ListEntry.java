package dev.ballast.storage.object;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One entry of a streaming listing ({@link ObjectStore#listing(ListRequest)}): a key's current
 * version, or a common prefix that stands for every key under it (a "folder", when the request has
 * a delimiter). Immutable.
 *
 * @param key the key, or the common prefix (ending with the delimiter)
 * @param commonPrefix true for a common prefix, which has no size, ETag or date
 * @param size the current version's size in bytes; 0 for a common prefix
 * @param eTag the current version's ETag as the store reports it, null for a common prefix
 * @param lastModified when the current version was stored, null for a common prefix
 */
public record ListEntry(
        String key,
        boolean commonPrefix,
        long size,
        @Nullable String eTag,
        @Nullable Instant lastModified) {

    /**
     * @throws NullPointerException if {@code key} is null
     * @throws IllegalArgumentException if {@code size} is negative
     */
    public ListEntry {
        Objects.requireNonNull(key, "key");
        if (size < 0) {
            throw new IllegalArgumentException("size must be >= 0 but was " + size);
        }
    }

    /** A key's current version. */
    public static ListEntry object(String key, long size, @Nullable String eTag, Instant lastModified) {
        return new ListEntry(key, false, size, eTag, Objects.requireNonNull(lastModified, "lastModified"));
    }

    /** A common prefix, such as {@code "photos/2024/"}. */
    public static ListEntry prefix(String prefix) {
        return new ListEntry(prefix, true, 0, null, null);
    }
}
