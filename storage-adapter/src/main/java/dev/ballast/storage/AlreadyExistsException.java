package dev.ballast.storage;

import org.jspecify.annotations.Nullable;

/**
 * A create-only write ({@code If-None-Match: *}) found the key already present (HTTP 412).
 */
public final class AlreadyExistsException extends PreconditionFailedException {
    private static final long serialVersionUID = 1L;

    /**
     * @param key the object key
     * @param cause the underlying failure
     */
    public AlreadyExistsException(String key, @Nullable Throwable cause) {
        super(key, "Object '" + key + "' already exists; a create-only write (If-None-Match: *) was refused", cause);
    }
}
