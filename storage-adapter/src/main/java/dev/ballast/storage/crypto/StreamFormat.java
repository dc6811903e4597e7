package dev.ballast.storage.crypto;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Tink's AES-GCM-HKDF streaming AEAD format (its {@code AesGcmHkdfStreaming} with a 32-byte key, HKDF
 * with HMAC-SHA256 and no first-segment offset), written and read with the JDK's AES-GCM:
 *
 * <ul>
 *   <li>a 40-byte header: its length (one byte, 40), a 32-byte random salt, a 7-byte random nonce prefix;
 *   <li>the segment key: HKDF-SHA256 of the data key, with the salt, and the associated data as info;
 *   <li>segments of {@code segmentSize} ciphertext bytes (the first counting the header), the last one
 *       shorter, each AES-256-GCM with a 16-byte tag and the nonce {@code prefix || segment index (4
 *       bytes, big-endian) || 1 for the last segment, else 0}: segments cannot be reordered, dropped or
 *       cut off at a boundary without failing a tag.
 * </ul>
 *
 * Immutable and thread-safe (each use makes its own {@link Cipher}).
 */
final class StreamFormat {
    static final int KEY_BYTES = 32;
    static final int TAG_BYTES = 16;
    static final int NONCE_PREFIX_BYTES = 7;
    static final int HEADER_BYTES = 1 + KEY_BYTES + NONCE_PREFIX_BYTES;
    /** Smallest segment size: a first segment with room for a byte of plaintext. */
    static final int MIN_SEGMENT_SIZE = HEADER_BYTES + TAG_BYTES + 1;

    private static final SecureRandom RANDOM = new SecureRandom();

    final int segmentSize;
    final int plainSegment;
    final int firstPlainSegment;

    StreamFormat(int segmentSize) {
        if (segmentSize < MIN_SEGMENT_SIZE) {
            throw new IllegalArgumentException(
                    "segmentSize must be >= " + MIN_SEGMENT_SIZE + " bytes but was " + segmentSize);
        }
        this.segmentSize = segmentSize;
        this.plainSegment = segmentSize - TAG_BYTES;
        this.firstPlainSegment = plainSegment - HEADER_BYTES;
    }

    /** Segments of a plaintext of {@code plain} bytes (at least one, empty for an empty plaintext). */
    long segments(long plain) {
        if (plain <= firstPlainSegment) {
            return 1;
        }
        return 1 + ceilDiv(plain - firstPlainSegment, plainSegment);
    }

    /** The stream's length for a plaintext of {@code plain} bytes, header included. */
    long ciphertextLength(long plain) {
        return HEADER_BYTES + plain + segments(plain) * TAG_BYTES;
    }

    /**
     * The segments of a stream of {@code ciphertext} bytes, header included, or -1 when no plaintext has
     * a stream of that length (cut short or grown).
     */
    long segmentsOfCiphertext(long ciphertext) {
        long n = ciphertext <= segmentSize ? 1 : 1 + ceilDiv(ciphertext - segmentSize, segmentSize);
        long plain = ciphertext - HEADER_BYTES - n * TAG_BYTES;
        return plain >= 0 && ciphertextLength(plain) == ciphertext ? n : -1;
    }

    /** The plaintext length of a valid stream of {@code ciphertext} bytes. */
    long plaintextLength(long ciphertext) {
        return ciphertext - HEADER_BYTES - segmentsOfCiphertext(ciphertext) * TAG_BYTES;
    }

    /** The segment holding plaintext byte {@code offset}. */
    long segmentOf(long offset) {
        return offset < firstPlainSegment ? 0 : 1 + (offset - firstPlainSegment) / plainSegment;
    }

    /** The plaintext offset where segment {@code i} starts. */
    long plainStart(long i) {
        return i == 0 ? 0 : firstPlainSegment + (i - 1) * plainSegment;
    }

    /** The stream offset (header included) where segment {@code i}'s ciphertext starts. */
    long cipherStart(long i) {
        return i == 0 ? HEADER_BYTES : i * segmentSize;
    }

    /** A new header: its length, a random salt, a random nonce prefix. */
    static byte[] newHeader() {
        byte[] header = new byte[HEADER_BYTES];
        header[0] = (byte) HEADER_BYTES;
        byte[] random = new byte[KEY_BYTES + NONCE_PREFIX_BYTES];
        RANDOM.nextBytes(random);
        System.arraycopy(random, 0, header, 1, random.length);
        return header;
    }

    /** The segment key for {@code header} (its salt) and {@code associatedData}: HKDF-SHA256 (RFC 5869). */
    static SecretKey segmentKey(byte[] dataKey, byte[] header, byte[] associatedData) throws GeneralSecurityException {
        if (header[0] != HEADER_BYTES) {
            throw new GeneralSecurityException("stream header length " + (header[0] & 0xff) + ", not " + HEADER_BYTES);
        }
        byte[] salt = Arrays.copyOfRange(header, 1, 1 + KEY_BYTES);
        Mac extract = Mac.getInstance("HmacSHA256");
        extract.init(new SecretKeySpec(salt, "HmacSHA256"));
        byte[] prk = extract.doFinal(dataKey);
        Mac expand = Mac.getInstance("HmacSHA256");
        expand.init(new SecretKeySpec(prk, "HmacSHA256"));
        expand.update(associatedData);
        expand.update((byte) 1);
        byte[] okm = expand.doFinal(); // 32 bytes: one block of HMAC-SHA256 is the key's length
        return new SecretKeySpec(okm, 0, KEY_BYTES, "AES");
    }

    /** A cipher for segment {@code index} of the stream whose header is {@code header}. */
    static Cipher cipher(int mode, SecretKey key, byte[] header, long index, boolean last)
            throws GeneralSecurityException {
        if (index > 0xFFFF_FFFFL) {
            throw new GeneralSecurityException("more than 2^32 segments");
        }
        ByteBuffer nonce = ByteBuffer.allocate(12);
        nonce.put(header, 1 + KEY_BYTES, NONCE_PREFIX_BYTES);
        nonce.putInt((int) index);
        nonce.put((byte) (last ? 1 : 0));
        Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
        cipher.init(mode, key, new GCMParameterSpec(TAG_BYTES * 8, nonce.array()));
        return cipher;
    }

    private static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }
}
