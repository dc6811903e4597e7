package dev.ballast.storage;

import org.jspecify.annotations.Nullable;

/**
 * Root of every failure the storage facade reports. Unchecked, like the AWS SDK's
 * {@code SdkException}; the underlying SDK or I/O exception is kept as the cause.
 *
 * <p>{@link #retryable()} tells whether the same call may succeed if made again later without any
 * change (for example an endpoint that is down), as opposed to a failure that will repeat (a
 * precondition that does not hold, corrupt bytes, a missing object).
 */
public abstract sealed class StorageException extends RuntimeException
        permits ObjectNotFoundException,
                PreconditionFailedException,
                StaleReadException,
                StorageUnavailableException,
                IntegrityException,
                UnsupportedCapabilityException,
                VolumeInUseException,
                AccessDeniedException,
                RequestRefusedException,
                BucketNotFoundException,
                EncryptionKeyException {

    private static final long serialVersionUID = 1L;

    StorageException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }

    /** Whether repeating the same call later, unchanged, may succeed. */
    public abstract boolean retryable();
}
