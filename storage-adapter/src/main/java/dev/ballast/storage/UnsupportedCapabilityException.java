package dev.ballast.storage;

import org.jspecify.annotations.Nullable;

/**
 * The endpoint does not give a guarantee the operation needs (for example conditional writes or
 * versioning), as found by the capability probe. Ballast refuses rather than pretends.
 */
public final class UnsupportedCapabilityException extends StorageException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message which capability is missing, on which endpoint, and what to do
     */
    public UnsupportedCapabilityException(String message) {
        this(message, null);
    }

    /**
     * @param message which capability is missing, on which endpoint, and what to do
     * @param cause the store's answer that showed it
     */
    public UnsupportedCapabilityException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }

    @Override
    public boolean retryable() {
        return false;
    }
}
