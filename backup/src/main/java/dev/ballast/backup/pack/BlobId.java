package dev.ballast.backup.pack;

import dev.ballast.backup.keys.MasterKey;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * A blob's ID: {@link MasterKey#id} of its plain bytes, 32 bytes (HMAC-SHA256 under the repository's
 * ID key), written as 64 lowercase hex digits. Equal bytes, equal IDs: the ID is what dedup compares.
 * Immutable and thread-safe; ordered by unsigned bytes (the order of the hex form).
 */
public final class BlobId implements Comparable<BlobId> {
    /** Bytes in an ID. */
    public static final int LENGTH = 32;

    private final byte[] bytes;
    private final int hash;

    private BlobId(byte[] bytes) {
        this.bytes = bytes;
        this.hash = (bytes[0] & 0xFF) << 24 | (bytes[1] & 0xFF) << 16 | (bytes[2] & 0xFF) << 8 | (bytes[3] & 0xFF);
    }

    /**
     * The ID of these 32 bytes (copied).
     *
     * @throws IllegalArgumentException if {@code bytes} is not 32 bytes long
     */
    public static BlobId of(byte[] bytes) {
        Objects.requireNonNull(bytes, "bytes");
        if (bytes.length != LENGTH) {
            throw new IllegalArgumentException("a blob ID is 32 bytes, not " + bytes.length);
        }
        return new BlobId(bytes.clone());
    }

    /** The ID of {@code bytes[offset, offset + 32)} (copied). */
    public static BlobId of(byte[] bytes, int offset) {
        Objects.checkFromIndexSize(offset, LENGTH, bytes.length);
        return new BlobId(Arrays.copyOfRange(bytes, offset, offset + LENGTH));
    }

    /** The ID of {@code plain[offset, offset + length)} under {@code key}: {@code key.id(...)}. */
    public static BlobId compute(MasterKey key, byte[] plain, int offset, int length) {
        return new BlobId(key.id(plain, offset, length));
    }

    /**
     * The ID of its 64-hex form (either case).
     *
     * @throws IllegalArgumentException if {@code hex} is not 64 hex digits, naming it
     */
    public static BlobId parse(String hex) {
        Objects.requireNonNull(hex, "hex");
        if (hex.length() != 2 * LENGTH) {
            throw new IllegalArgumentException("blob ID '" + hex + "' is not 64 hex digits");
        }
        // By hand rather than HexFormat.parseHex: a backup parses every chunk ID of its manifest once
        // more to check the index holds it, a few per file, and HexFormat's checks per digit cost more;
        // a table rather than a method per digit, which C1 (this code's compiler, see the launcher's
        // compiler directives) does not inline: 20,000 files' IDs took about 40 ms of a restore's start.
        byte[] bytes = new byte[LENGTH];
        for (int i = 0; i < LENGTH; i++) {
            char h = hex.charAt(2 * i);
            char l = hex.charAt(2 * i + 1);
            int hi = h < DIGITS.length ? DIGITS[h] : -1;
            int lo = l < DIGITS.length ? DIGITS[l] : -1;
            if ((hi | lo) < 0) {
                throw new IllegalArgumentException("blob ID '" + hex + "' is not 64 hex digits");
            }
            bytes[i] = (byte) (hi << 4 | lo);
        }
        return new BlobId(bytes);
    }

    /** The value of each hex digit (either case) by its character, -1 for every other ASCII character. */
    private static final byte[] DIGITS = new byte[128];

    static {
        java.util.Arrays.fill(DIGITS, (byte) -1);
        for (int c = 0; c < 10; c++) {
            DIGITS['0' + c] = (byte) c;
        }
        for (int c = 0; c < 6; c++) {
            DIGITS['a' + c] = (byte) (10 + c);
            DIGITS['A' + c] = (byte) (10 + c);
        }
    }

    /** A copy of the 32 bytes. */
    public byte[] bytes() {
        return bytes.clone();
    }

    /** Copies the 32 bytes to {@code out[offset, offset + 32)}. */
    public void copyTo(byte[] out, int offset) {
        System.arraycopy(bytes, 0, out, offset, LENGTH);
    }

    /** 64 lowercase hex digits. */
    public String hex() {
        return HexFormat.of().formatHex(bytes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BlobId other && hash == other.hash && Arrays.equals(bytes, other.bytes);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public int compareTo(BlobId o) {
        return Arrays.compareUnsigned(bytes, o.bytes);
    }

    /** The hex form. */
    @Override
    public String toString() {
        return hex();
    }
}
