package dev.ballast.backup.pack;

import java.time.Instant;
import java.util.Objects;

/**
 * A pack object as the store lists it: what {@link BlobRepository#prune}'s {@code keep} predicate is
 * asked about.
 *
 * @param key the object key, {@code data/<2 hex>/<64 hex>}
 * @param size its stored size in bytes
 * @param lastModified when the store stored it
 * @param indexed whether an index file names it (false: a pack of a run that has not written its
 *     index yet, or garbage left by a run that died)
 */
public record PackFile(String key, long size, Instant lastModified, boolean indexed) {
    public PackFile {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(lastModified, "lastModified");
    }
}
