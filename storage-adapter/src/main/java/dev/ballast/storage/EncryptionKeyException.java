package dev.ballast.storage;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * An object encrypted client-side ({@code dev.ballast.storage.crypto.EncryptedObjectStore}) cannot be
 * decrypted with the keys given: none of them has the ID its envelope records (a missing key), or the
 * one that has it does not unwrap its data key (a wrong key under that ID, or a damaged envelope).
 * Also thrown by a plain read ({@code LastKnownGoodStore}, a facade without client-side encryption) of
 * an object written encrypted: it names the key ID to build the facade's encryption with. Nothing of
 * the object is handed to the caller. Not retryable: the same keys fail the same way.
 */
public final class EncryptionKeyException extends StorageException {
    private static final long serialVersionUID = 1L;

    private final String key;
    private final String keyId;

    /**
     * @param key the object key
     * @param keyId the ID of the key the object's data key was wrapped with, as its envelope records it
     * @param message which key was needed and which were given
     * @param cause the failure of the unwrap, if any
     */
    public EncryptionKeyException(String key, String keyId, String message, @Nullable Throwable cause) {
        super(message, cause);
        this.key = Objects.requireNonNull(key, "key");
        this.keyId = Objects.requireNonNull(keyId, "keyId");
    }

    /** The object key. */
    public String key() {
        return key;
    }

    /** The ID of the key the object was encrypted under. */
    public String keyId() {
        return keyId;
    }

    @Override
    public boolean retryable() {
        return false;
    }
}
