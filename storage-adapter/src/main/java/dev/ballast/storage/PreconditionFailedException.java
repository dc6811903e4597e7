package dev.ballast.storage;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A conditional write's precondition did not hold: the object's current ETag did not match
 * {@code If-Match} (HTTP 412, RFC 9110 §13.1.1). See
 * <a href="https://docs.aws.amazon.com/AmazonS3/latest/userguide/conditional-writes.html">S3
 * conditional writes</a>.
 */
public sealed class PreconditionFailedException extends StorageException permits AlreadyExistsException {
    private static final long serialVersionUID = 1L;

    private final String key;

    /**
     * @param key the object key
     * @param message what did not hold
     * @param cause the underlying failure
     */
    public PreconditionFailedException(String key, String message, @Nullable Throwable cause) {
        super(message, cause);
        this.key = Objects.requireNonNull(key, "key");
    }

    /** The object key. */
    public String key() {
        return key;
    }

    @Override
    public boolean retryable() {
        return false;
    }
}
