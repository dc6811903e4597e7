package dev.ballast.storage;

import java.util.Objects;

/**
 * A read returned an older object version than one this facade has already written or read for
 * the same key, and bounded re-reads did not return a fresh one. Raised instead of silently
 * returning old bytes; callers that accept stale data ask for it explicitly and get a read marked
 * {@code Freshness.STALE}.
 */
public final class StaleReadException extends StorageException {
    private static final long serialVersionUID = 1L;

    private final String key;
    private final long expectedGeneration;
    private final long observedGeneration;

    /**
     * @param key the object key
     * @param expectedGeneration the newest generation known for the key
     * @param observedGeneration the generation the store returned
     */
    public StaleReadException(String key, long expectedGeneration, long observedGeneration) {
        super(
                "Stale read of object '" + key + "': the store returned generation " + observedGeneration
                        + " but generation " + expectedGeneration + " was already written or read",
                null);
        this.key = Objects.requireNonNull(key, "key");
        this.expectedGeneration = expectedGeneration;
        this.observedGeneration = observedGeneration;
    }

    /** The object key. */
    public String key() {
        return key;
    }

    /** The newest generation known for the key. */
    public long expectedGeneration() {
        return expectedGeneration;
    }

    /** The (older) generation the store returned. */
    public long observedGeneration() {
        return observedGeneration;
    }

    @Override
    public boolean retryable() {
        return true;
    }
}
