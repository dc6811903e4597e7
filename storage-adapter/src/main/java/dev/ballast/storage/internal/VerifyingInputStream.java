package dev.ballast.storage.internal;

import dev.ballast.storage.IntegrityException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Passes an object's bytes through while checking them against the length and SHA-256 recorded at
 * write time. The check runs inside the read that reaches the expected length, before that read
 * returns: on a mismatch the read throws {@link IntegrityException} instead of handing over the
 * final bytes, so a caller that reads to the end never accepts corrupt content. A stream that ends
 * early (truncation) or runs past the expected length fails the same way. Without a recorded
 * SHA-256 (objects not written by Ballast) only the length is checked.
 *
 * <p>Not thread-safe, like any {@code InputStream}.
 */
public final class VerifyingInputStream extends FilterInputStream {
    private final String key;
    private final long expectedLength;
    private final byte @Nullable [] expectedSha256;
    /** Null when only the length is checked: hashing bytes no one compares cost a restore a second SHA-256 of every byte. */
    private final @Nullable MessageDigest digest;

    private long position;
    private boolean verified;

    /**
     * @param key the object key, for messages
     * @param in the raw content
     * @param expectedLength the content length the server announced
     * @param expectedSha256Hex the recorded SHA-256 in hex, or null to check the length only
     */
    public VerifyingInputStream(String key, InputStream in, long expectedLength, @Nullable String expectedSha256Hex) {
        super(Objects.requireNonNull(in, "in"));
        this.key = Objects.requireNonNull(key, "key");
        if (expectedLength < 0) {
            throw new IllegalArgumentException("expectedLength must be >= 0 but was " + expectedLength);
        }
        this.expectedLength = expectedLength;
        this.expectedSha256 = expectedSha256Hex == null ? null : Sha256.fromHex(expectedSha256Hex);
        this.digest = expectedSha256Hex == null ? null : Sha256.newDigest();
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n == -1 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        if (len == 0) {
            return 0;
        }
        if (verified) {
            // Anything after the expected end means the object is not the one recorded.
            if (in.read() != -1) {
                throw new IntegrityException(
                        key, "Object '" + key + "' is longer than its recorded length of " + expectedLength + " bytes");
            }
            return -1;
        }
        long remaining = expectedLength - position;
        int n = in.read(b, off, (int) Math.min(len, Math.max(remaining, 1)));
        if (n == -1) {
            if (position < expectedLength) {
                throw new IntegrityException(
                        key,
                        "Object '" + key + "' was truncated: the stream ended after " + position + " of "
                                + expectedLength + " bytes");
            }
            verify();
            return -1;
        }
        if (n > remaining) {
            throw new IntegrityException(
                    key, "Object '" + key + "' is longer than its recorded length of " + expectedLength + " bytes");
        }
        if (digest != null) {
            digest.update(b, off, n);
        }
        position += n;
        if (position == expectedLength) {
            verify();
        }
        return n;
    }

    private void verify() {
        if (verified) {
            return;
        }
        byte[] actual = digest == null ? null : digest.digest();
        if (expectedSha256 != null && actual != null && !MessageDigest.isEqual(actual, expectedSha256)) {
            throw new IntegrityException(
                    key,
                    "Object '" + key + "' failed verification: recorded SHA-256 " + Sha256.hex(expectedSha256)
                            + " but the " + expectedLength + " bytes read hash to " + Sha256.hex(actual));
        }
        verified = true;
    }

    @Override
    public long skip(long n) throws IOException {
        // Skipped bytes must still be hashed, so skip by reading.
        byte[] buf = new byte[(int) Math.min(Math.max(n, 0), 8192)];
        long skipped = 0;
        while (skipped < n) {
            int r = read(buf, 0, (int) Math.min(buf.length, n - skipped));
            if (r == -1) {
                break;
            }
            skipped += r;
        }
        return skipped;
    }

    @Override
    public boolean markSupported() {
        return false;
    }

    @Override
    public synchronized void mark(int readlimit) {
        // Not supported: a reset would corrupt the running digest.
    }

    @Override
    public synchronized void reset() throws IOException {
        throw new IOException("mark/reset not supported");
    }

    /** Bytes handed to the caller so far. */
    public long position() {
        return position;
    }
}
