package dev.ballast.storage.crypto;

import dev.ballast.storage.IntegrityException;
import java.io.IOException;
import java.io.InputStream;
import java.security.GeneralSecurityException;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.SecretKey;

/**
 * Plaintext of a run of segments, decrypted one segment at a time from the stored bytes: no byte of a
 * segment is handed over before its GCM tag has been checked, so a damaged byte fails the read of its
 * segment ({@link IntegrityException} naming it). After the last segment of the object it reads the
 * store's stream to its end, so that the store's own check of the stored bytes (their SHA-256) runs too.
 * Not thread-safe.
 */
final class Decrypting extends InputStream {
    private final InputStream in;
    private final StreamFormat format;
    private final SecretKey key;
    private final byte[] header;
    private final long streamLength;
    private final long segments;
    private final String objectKey;
    private final String versionId;
    private long index;
    private long skip;
    private long remaining;
    private final boolean wholeObject;
    private boolean drained;
    private byte[] plain = new byte[0];
    private int pos;

    /**
     * @param in the stored bytes, positioned at the start of segment {@code first}'s ciphertext
     * @param streamLength the stream's length, header included
     * @param first the first segment to decrypt
     * @param skip plaintext bytes of that segment not to hand over
     * @param length plaintext bytes to hand over
     */
    Decrypting(
            InputStream in,
            StreamFormat format,
            SecretKey key,
            byte[] header,
            long streamLength,
            long first,
            long skip,
            long length,
            String objectKey,
            String versionId) {
        this.in = in;
        this.format = format;
        this.key = key;
        this.header = header;
        this.streamLength = streamLength;
        this.segments = format.segmentsOfCiphertext(streamLength);
        this.index = first;
        this.skip = skip;
        this.remaining = length;
        this.wholeObject = first == 0 && skip == 0 && length == format.plaintextLength(streamLength);
        this.objectKey = objectKey;
        this.versionId = versionId;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        if (remaining == 0) {
            finish();
            return -1;
        }
        while (pos == plain.length) {
            nextSegment();
        }
        int n = (int) Math.min(Math.min(len, plain.length - pos), remaining);
        System.arraycopy(plain, pos, b, off, n);
        pos += n;
        remaining -= n;
        return n;
    }

    private void nextSegment() throws IOException {
        boolean last = index == segments - 1;
        long start = format.cipherStart(index);
        long end = last ? streamLength : (index + 1) * format.segmentSize;
        int size = (int) (end - start);
        byte[] sealed = in.readNBytes(size);
        if (sealed.length != size) {
            throw new IntegrityException(
                    objectKey,
                    "Object '" + objectKey + "' version " + versionId + " ended inside encrypted segment " + index
                            + " (" + sealed.length + " of its " + size + " bytes)");
        }
        try {
            plain = StreamFormat.cipher(Cipher.DECRYPT_MODE, key, header, index, last)
                    .doFinal(sealed);
        } catch (AEADBadTagException e) {
            long from = format.plainStart(index);
            throw new IntegrityException(
                    objectKey,
                    "Encrypted segment " + index + " (plaintext bytes " + from + " to "
                            + (from + size - StreamFormat.TAG_BYTES - (index == 0 ? StreamFormat.HEADER_BYTES : 0))
                            + ") of object '" + objectKey + "' version " + versionId
                            + " fails its AES-GCM tag: a stored byte is damaged or was changed",
                    e);
        } catch (GeneralSecurityException e) {
            throw new IOException("AES-GCM decryption failed", e);
        }
        index++;
        pos = (int) Math.min(skip, plain.length);
        skip -= pos;
    }

    /**
     * After the last byte of a whole-object read: every segment authenticated (an empty object's one
     * segment too), then the store's stream read to its end, so that its own check runs.
     */
    private void finish() throws IOException {
        if (!wholeObject || drained) {
            return;
        }
        while (index < segments) {
            nextSegment();
        }
        drained = true;
        if (in.read() >= 0) {
            throw new IntegrityException(
                    objectKey,
                    "Object '" + objectKey + "' version " + versionId
                            + " holds more bytes than its encrypted stream's last segment");
        }
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
