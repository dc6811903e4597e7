package dev.ballast.storage;

import org.jspecify.annotations.Nullable;

/**
 * The store refused the credentials or the operation (HTTP 403: {@code AccessDenied},
 * {@code SignatureDoesNotMatch}, {@code InvalidAccessKeyId}). Not retryable: repeating the call
 * with the same credentials fails the same way (RFC 9110 §15.5.4), so it never counts as the
 * store being unavailable and never falls back to a cached copy. Fix the credentials or the
 * bucket policy.
 */
public final class AccessDeniedException extends StorageException {
    private static final long serialVersionUID = 1L;

    private final @Nullable String key;

    /**
     * @param key the object key the operation was about, or null for an operation on no single key
     * @param message what was refused, by which endpoint and bucket, and the server's error code
     * @param cause the underlying failure
     */
    public AccessDeniedException(@Nullable String key, String message, @Nullable Throwable cause) {
        super(message, cause);
        this.key = key;
    }

    /** The key the operation was about, or null. */
    public @Nullable String key() {
        return key;
    }

    @Override
    public boolean retryable() {
        return false;
    }
}
