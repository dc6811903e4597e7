package dev.ballast.storage.crypto;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Settings of client-side envelope encryption ({@link EncryptedObjectStore}): the key new objects' data
 * keys are wrapped with, the older keys objects may still be read with, and the segment size. Immutable
 * and thread-safe; build with {@link #builder(KeyWrapper)}.
 *
 * <pre>{@code
 * SecretKey key = new SecretKeySpec(keyBytes, "AES");   // 32 bytes, kept away from the store
 * ClientSideEncryption encryption = ClientSideEncryption.builder(KeyWrapper.aesKeyWrap("app-2026", key))
 *         .build();
 * }</pre>
 */
public final class ClientSideEncryption {

    /** Default {@link #segmentSize()}: 64 KiB of ciphertext (65,520 bytes of plaintext and a 16-byte tag). */
    public static final int DEFAULT_SEGMENT_SIZE = 64 * 1024;

    private final KeyWrapper current;
    private final List<KeyWrapper> keys;
    private final int segmentSize;

    private ClientSideEncryption(Builder b) {
        this.current = b.current;
        List<KeyWrapper> all = new ArrayList<>();
        all.add(b.current);
        all.addAll(b.older);
        this.keys = List.copyOf(all);
        this.segmentSize = b.segmentSize;
    }

    /**
     * A builder whose new objects are encrypted under data keys wrapped by {@code current}.
     *
     * @param current the key that wraps every new object's data key; it also reads what it wrapped
     */
    public static Builder builder(KeyWrapper current) {
        return new Builder(Objects.requireNonNull(current, "current"));
    }

    /** The key new objects' data keys are wrapped with. */
    public KeyWrapper current() {
        return current;
    }

    /** Every key objects may be read with: {@link #current()} first, then the older ones in the order given. */
    public List<KeyWrapper> keys() {
        return keys;
    }

    /**
     * The ciphertext segment size of new objects, in bytes: the unit that a ranged read decrypts and that
     * each GCM tag authenticates. Recorded in each object, so objects of any size read back whatever this
     * is set to later. Default 64 KiB.
     */
    public int segmentSize() {
        return segmentSize;
    }

    /** The key with {@code scheme} and {@code keyId}, or null when none was given. */
    @Nullable
    KeyWrapper key(String scheme, String keyId) {
        for (KeyWrapper k : keys) {
            if (k.scheme().equals(scheme) && k.keyId().equals(keyId)) {
                return k;
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return "ClientSideEncryption[current=" + current.scheme() + " '" + current.keyId() + "', keys=" + keys.size()
                + ", segmentSize=" + segmentSize + "]";
    }

    /** Builder for {@link ClientSideEncryption}; not thread-safe. */
    public static final class Builder {
        private final KeyWrapper current;
        private final List<KeyWrapper> older = new ArrayList<>();
        private int segmentSize = DEFAULT_SEGMENT_SIZE;

        private Builder(KeyWrapper current) {
            this.current = current;
        }

        /**
         * Adds keys that objects written before a key rotation were wrapped with: they are read with these,
         * never written with them.
         */
        public Builder alsoDecryptWith(KeyWrapper... keys) {
            for (KeyWrapper k : keys) {
                older.add(Objects.requireNonNull(k, "keys"));
            }
            return this;
        }

        /** See {@link ClientSideEncryption#segmentSize()}; 57 bytes to 16 MiB. */
        public Builder segmentSize(int segmentSize) {
            this.segmentSize = segmentSize;
            return this;
        }

        /**
         * @throws IllegalArgumentException if the segment size is out of range, or two keys have the same
         *     scheme and ID
         */
        public ClientSideEncryption build() {
            if (segmentSize < StreamFormat.MIN_SEGMENT_SIZE || segmentSize > 16 * 1024 * 1024) {
                throw new IllegalArgumentException("segmentSize must be " + StreamFormat.MIN_SEGMENT_SIZE
                        + " to 16777216 bytes but was " + segmentSize);
            }
            Envelope.checkKeyId(current.keyId());
            List<String> seen = new ArrayList<>();
            seen.add(current.scheme() + " " + current.keyId());
            for (KeyWrapper k : older) {
                Envelope.checkKeyId(k.keyId());
                String id = k.scheme() + " " + k.keyId();
                if (seen.contains(id)) {
                    throw new IllegalArgumentException("two keys have scheme " + k.scheme() + " and ID '" + k.keyId()
                            + "'; each needs its own ID");
                }
                seen.add(id);
            }
            return new ClientSideEncryption(this);
        }
    }
}
