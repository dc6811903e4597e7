package dev.ballast.storage;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The bytes read do not match the SHA-256 recorded when the object was written (or the object was
 * truncated), or the store refused uploaded bytes that do not match the digest or signature sent
 * with them ({@code BadDigest}, {@code XAmzContentSHA256Mismatch}). Corrupt bytes are never handed
 * to the caller past this point and never cached. Retryable: the next transfer may arrive intact.
 */
public final class IntegrityException extends StorageException {
    private static final long serialVersionUID = 1L;

    private final String key;

    /**
     * @param key the object key
     * @param message what did not match (expected and actual digest or length)
     */
    public IntegrityException(String key, String message) {
        this(key, message, null);
    }

    /**
     * @param key the object key
     * @param message what did not match (expected and actual digest or length)
     * @param cause the underlying failure (for example the store's answer refusing uploaded bytes)
     */
    public IntegrityException(String key, String message, @Nullable Throwable cause) {
        super(message, cause);
        this.key = Objects.requireNonNull(key, "key");
    }

    /** The object key. */
    public String key() {
        return key;
    }

    @Override
    public boolean retryable() {
        return true;
    }
}
