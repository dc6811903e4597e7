package dev.ballast.storage.object;

import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * How to read an object. Immutable.
 *
 * @param versionId a specific version to read, or null for the latest
 * @param acceptStale if true a detected stale read is returned marked {@link Freshness#STALE}
 *     instead of raising {@code StaleReadException}
 * @param allowCache if true (the default) a last-known-good copy may be served, marked, when the
 *     store is unavailable
 */
public record ReadOptions(@Nullable String versionId, boolean acceptStale, boolean allowCache) {

    /** The latest version, stale reads raised, cache fallback allowed. */
    public static ReadOptions latest() {
        return new ReadOptions(null, false, true);
    }

    /** A specific version. */
    public static ReadOptions version(String versionId) {
        return new ReadOptions(Objects.requireNonNull(versionId, "versionId"), false, true);
    }

    /** A copy of these options that returns stale reads marked instead of raising. */
    public ReadOptions withAcceptStale(boolean accept) {
        return new ReadOptions(versionId, accept, allowCache);
    }

    /** A copy of these options with the cache fallback allowed or not. */
    public ReadOptions withAllowCache(boolean allow) {
        return new ReadOptions(versionId, acceptStale, allow);
    }

    /** The requested version ID, if any. */
    public Optional<String> requestedVersion() {
        return Optional.ofNullable(versionId);
    }
}
