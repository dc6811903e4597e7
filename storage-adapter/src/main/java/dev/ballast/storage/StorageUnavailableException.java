package dev.ballast.storage;

import org.jspecify.annotations.Nullable;

/**
 * The object store could not be reached (endpoint down, circuit breaker open, retries exhausted)
 * and no acceptable last-known-good copy exists: nothing was cached, or the cached copy is older
 * than the configured maximum staleness. Never replaced by an empty or default value.
 *
 * <p>For an operation that changes the store (a put or a delete), {@link #outcomeUnknown()} tells
 * whether it may have taken effect anyway.
 */
public final class StorageUnavailableException extends StorageException {
    private static final long serialVersionUID = 1L;

    private final @Nullable String key;
    private final boolean outcomeUnknown;

    /**
     * A failure whose outcome is unknown ({@link #outcomeUnknown()} true): the safe assumption when
     * nothing proves that the request had no effect.
     *
     * @param key the object key the operation was about, or null for an operation on no single key
     * @param message what was attempted and why no fallback applied
     * @param cause the failure of the store
     */
    public StorageUnavailableException(@Nullable String key, String message, @Nullable Throwable cause) {
        this(key, message, cause, true);
    }

    /**
     * @param key the object key the operation was about, or null for an operation on no single key
     * @param message what was attempted and why no fallback applied
     * @param cause the failure of the store
     * @param outcomeUnknown false only when the request provably had no effect on the store; see
     *     {@link #outcomeUnknown()}
     */
    public StorageUnavailableException(
            @Nullable String key, String message, @Nullable Throwable cause, boolean outcomeUnknown) {
        super(message, cause);
        this.key = key;
        this.outcomeUnknown = outcomeUnknown;
    }

    /** The key the operation was about, or null. */
    public @Nullable String key() {
        return key;
    }

    /**
     * Whether the operation may have taken effect despite this failure: true when a request may have
     * reached the store and no answer says what it did (a timeout or reset after the request may have
     * been sent, retries exhausted with such an attempt, {@code 500}, {@code 502} or {@code 504}).
     * False when it provably did not: it was refused before any byte was sent (circuit breaker open,
     * bulkhead full, connection refused or connect timeout on every attempt made, a request that had
     * to come first failed), or the store answered that it did nothing ({@code 408}, {@code 429},
     * {@code 503}, throttling). A retry budget only ever refuses a retry, so the call then ends with
     * the previous attempt's failure and that attempt decides. A write that fails with {@code false} changed nothing: the
     * last-known-good copy of its key stays valid, and repeating it later writes it once.
     */
    public boolean outcomeUnknown() {
        return outcomeUnknown;
    }

    @Override
    public boolean retryable() {
        return true;
    }
}
