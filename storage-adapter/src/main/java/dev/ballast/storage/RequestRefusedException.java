package dev.ballast.storage;

import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The store refused the request with a client error (an HTTP 4xx such as {@code 400 InvalidArgument},
 * {@code 400 EntityTooLarge}, {@code 404 NoSuchBucket} or {@code 405 MethodNotAllowed}) for which no
 * more specific exception applies. Not retryable: the same request would be refused again (RFC 9110
 * section 15.5), so it never counts as the store being unavailable and never falls back to a cached
 * copy. The message names the operation, the status and the store's error code.
 */
public final class RequestRefusedException extends StorageException {
    private static final long serialVersionUID = 1L;

    private final @Nullable String key;
    private final int statusCode;
    private final @Nullable String errorCode;

    /**
     * @param key the object key the operation was about, or null for an operation on no single key
     * @param statusCode the HTTP status of the refusal, 400 to 499
     * @param errorCode the store's error code (such as {@code NoSuchBucket}), or null if it sent none
     * @param message what was refused, by which endpoint and bucket
     * @param cause the underlying failure
     */
    public RequestRefusedException(
            @Nullable String key,
            int statusCode,
            @Nullable String errorCode,
            String message,
            @Nullable Throwable cause) {
        super(message, cause);
        this.key = key;
        this.statusCode = statusCode;
        this.errorCode = errorCode;
    }

    /** The key the operation was about, if any. */
    public Optional<String> key() {
        return Optional.ofNullable(key);
    }

    /** The HTTP status of the refusal. */
    public int statusCode() {
        return statusCode;
    }

    /** The store's error code, if it sent one. */
    public Optional<String> errorCode() {
        return Optional.ofNullable(errorCode);
    }

    @Override
    public boolean retryable() {
        return false;
    }
}
