package dev.ballast.storage.crypto;

import java.io.IOException;
import java.io.InputStream;
import java.security.GeneralSecurityException;
import javax.crypto.Cipher;
import javax.crypto.SecretKey;

/**
 * The stored bytes of one object, produced as they are read: the envelope and the stream header, then
 * each segment of the plaintext {@code source} encrypted as it is reached. The source must yield exactly
 * the plaintext length announced; a shorter one fails the read. Not thread-safe.
 */
final class Encrypting extends InputStream {
    private final InputStream source;
    private final StreamFormat format;
    private final SecretKey key;
    private final byte[] header;
    private final long plainLength;
    private final long segments;
    private byte[] out;
    private int pos;
    private long index;
    private long plainRead;
    private String misfit;
    private final boolean exact;

    Encrypting(byte[] prefix, InputStream source, StreamFormat format, SecretKey key, byte[] header, long plainLength) {
        this(prefix, source, format, key, header, plainLength, false);
    }

    /**
     * @param exact whether a source with more bytes than {@code plainLength} fails (a stream must yield
     *     exactly its declared length; a file may have grown, and its first bytes are stored)
     */
    Encrypting(
            byte[] prefix,
            InputStream source,
            StreamFormat format,
            SecretKey key,
            byte[] header,
            long plainLength,
            boolean exact) {
        this.exact = exact;
        this.source = source;
        this.format = format;
        this.key = key;
        this.header = header;
        this.plainLength = plainLength;
        this.segments = format.segments(plainLength);
        this.out = prefix;
    }

    /** Encrypts a whole plaintext held in memory. */
    static byte[] encrypt(byte[] prefix, byte[] plain, StreamFormat format, SecretKey key, byte[] header)
            throws IOException {
        long length = prefix.length + format.ciphertextLength(plain.length) - StreamFormat.HEADER_BYTES;
        if (length > Integer.MAX_VALUE - 8) {
            throw new IOException("too large to encrypt in memory: " + length + " bytes");
        }
        try (Encrypting e =
                new Encrypting(prefix, new java.io.ByteArrayInputStream(plain), format, key, header, plain.length)) {
            return e.readAllBytes();
        }
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
        while (pos == out.length) {
            if (index == segments) {
                return -1;
            }
            nextSegment();
        }
        int n = Math.min(len, out.length - pos);
        System.arraycopy(out, pos, b, off, n);
        pos += n;
        return n;
    }

    private void nextSegment() throws IOException {
        boolean last = index == segments - 1;
        int size =
                (int) (last ? plainLength - plainRead : (index == 0 ? format.firstPlainSegment : format.plainSegment));
        byte[] plain = source.readNBytes(size);
        if (plain.length != size) {
            misfit = "ended after " + (plainRead + plain.length) + " bytes";
            throw new IOException("the content ended after " + (plainRead + plain.length) + " of the " + plainLength
                    + " bytes announced");
        }
        if (last && exact && source.read() >= 0) {
            misfit = "had more";
            throw new IOException("the content had more than the " + plainLength + " bytes announced");
        }
        plainRead += size;
        try {
            byte[] sealed = StreamFormat.cipher(Cipher.ENCRYPT_MODE, key, header, index, last)
                    .doFinal(plain);
            if (index == 0) {
                byte[] first = new byte[header.length + sealed.length];
                System.arraycopy(header, 0, first, 0, header.length);
                System.arraycopy(sealed, 0, first, header.length, sealed.length);
                sealed = first;
            }
            out = sealed;
            pos = 0;
            index++;
        } catch (GeneralSecurityException e) {
            throw new IOException("AES-GCM encryption failed", e);
        }
    }

    /**
     * How the source missed its announced length ("ended after N bytes", "had more"), or null when it has
     * not (yet).
     */
    String misfit() {
        return misfit;
    }

    @Override
    public void close() throws IOException {
        source.close();
    }
}
