package dev.ballast.storage.crypto;

import java.security.GeneralSecurityException;
import java.security.NoSuchAlgorithmException;
import java.util.Objects;
import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;

/**
 * A key that wraps (encrypts) and unwraps the per-object data keys of {@link EncryptedObjectStore}: a
 * key the user holds, never stored beside the objects. Each wrapped data key is stored with this key's
 * {@link #scheme()} and {@link #keyId()}, so that a reader picks the right key among several (rotation).
 * Implementations are thread-safe.
 */
public interface KeyWrapper {

    /** The wrapping scheme recorded in each envelope, in ASCII, such as {@code "AES-KW"} or {@code "AWS-KMS"}. */
    String scheme();

    /** This key's ID, recorded in each envelope (1 to 1,000 UTF-8 bytes); not secret. */
    String keyId();

    /**
     * Wraps a data key.
     *
     * @param dataKey the 32 bytes of an AES-256 data key
     * @return the wrapped key, at most 65,535 bytes
     * @throws GeneralSecurityException if the key cannot be wrapped
     */
    byte[] wrap(byte[] dataKey) throws GeneralSecurityException;

    /**
     * Unwraps a data key this key wrapped.
     *
     * @param wrapped what {@link #wrap} returned
     * @return the data key
     * @throws GeneralSecurityException if {@code wrapped} was not wrapped by this key (a wrong key under
     *     this ID, or damaged bytes)
     */
    byte[] unwrap(byte[] wrapped) throws GeneralSecurityException;

    /**
     * AES key wrap (RFC 3394, the JDK's {@code AESWrap} cipher) under {@code key}, a 256-bit AES key the
     * user holds: the wrapped data key is 40 bytes, and unwrapping it with another key fails RFC 3394's
     * integrity check.
     *
     * @param keyId the ID recorded with each wrapped data key, for example {@code "backup-2026"}
     * @param key a 32-byte AES key ({@code "AES"} algorithm)
     * @throws IllegalArgumentException if {@code key} is not a 32-byte AES key or the ID is empty or longer
     *     than 1,000 UTF-8 bytes
     */
    static KeyWrapper aesKeyWrap(String keyId, SecretKey key) {
        Objects.requireNonNull(keyId, "keyId");
        Objects.requireNonNull(key, "key");
        Envelope.checkKeyId(keyId);
        byte[] encoded = key.getEncoded();
        if (!"AES".equalsIgnoreCase(key.getAlgorithm()) || encoded == null || encoded.length != 32) {
            throw new IllegalArgumentException("key must be a 32-byte (256-bit) AES key but was a " + key.getAlgorithm()
                    + " key of " + (encoded == null ? "unknown" : encoded.length) + " bytes");
        }
        SecretKey kek = new SecretKeySpec(encoded, "AES");
        return new KeyWrapper() {
            @Override
            public String scheme() {
                return "AES-KW";
            }

            @Override
            public String keyId() {
                return keyId;
            }

            @Override
            public byte[] wrap(byte[] dataKey) throws GeneralSecurityException {
                Cipher cipher = cipher();
                cipher.init(Cipher.WRAP_MODE, kek);
                return cipher.wrap(new SecretKeySpec(dataKey, "AES"));
            }

            @Override
            public byte[] unwrap(byte[] wrapped) throws GeneralSecurityException {
                Cipher cipher = cipher();
                cipher.init(Cipher.UNWRAP_MODE, kek);
                return cipher.unwrap(wrapped, "AES", Cipher.SECRET_KEY).getEncoded();
            }

            private Cipher cipher() throws NoSuchAlgorithmException, GeneralSecurityException {
                return Cipher.getInstance("AESWrap");
            }

            @Override
            public String toString() {
                return "AES-KW key '" + keyId + "'";
            }
        };
    }
}
