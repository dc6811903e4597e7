package dev.ballast.storage.crypto;

import java.io.InputStream;
import javax.crypto.SecretKey;

/**
 * What reading an encrypted object's envelope and stream header gives: the segment key and where the
 * segments lie. Immutable.
 *
 * @param envelopeBytes the envelope's length in bytes; the stream starts there in the stored object
 * @param format the stream's segment layout
 * @param segmentKey the key every segment is decrypted with
 * @param header the stream header (its salt and nonce prefix)
 * @param streamLength the stream's length, header included: the stored size less the envelope
 */
record Unlocked(int envelopeBytes, StreamFormat format, SecretKey segmentKey, byte[] header, long streamLength) {

    /** The plaintext's length. */
    long plaintextLength() {
        return format.plaintextLength(streamLength);
    }

    /** Reads and checks the envelope and stream header of one stored object. */
    @FunctionalInterface
    interface Unlocker {
        /**
         * @param key the object key
         * @param version the stored version (its whole stored size)
         * @param in the stored bytes from the object's start; left at the first segment's ciphertext
         */
        Unlocked unlock(String key, dev.ballast.storage.object.ObjectVersion version, InputStream in);
    }
}
