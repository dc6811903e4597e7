package dev.ballast.storage.internal;

import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Objects;

/**
 * The SHA-256 of every block of an object, recorded at write time so that any range of it can be
 * verified without reading the rest: blocks are {@value #BLOCK_SIZE} bytes (1 MiB), the last one
 * shorter. An object of at most one block has one digest, the SHA-256 of the whole object, so its
 * table is the object's SHA-256 and needs no storing. The table is the digests one after another,
 * 32 bytes each. Immutable.
 */
public final class BlockDigests {

    /** Bytes per block: 1 MiB. */
    public static final int BLOCK_SIZE = 1 << 20;

    private static final int DIGEST = 32;

    private final long size;
    private final byte[] table;

    private BlockDigests(long size, byte[] table) {
        this.size = size;
        this.table = table;
    }

    /** How many blocks an object of {@code size} bytes has (0 for an empty one). */
    public static long blockCount(long size) {
        return (size + BLOCK_SIZE - 1) / BLOCK_SIZE;
    }

    /** Whether an object of {@code size} bytes has more than one block, so that its table must be stored. */
    public static boolean needsTable(long size) {
        return size > BLOCK_SIZE;
    }

    /**
     * The digests of an object of {@code size} bytes from its stored {@code table}.
     *
     * @throws IllegalArgumentException if the table's length is not 32 bytes per block
     */
    public static BlockDigests of(long size, byte[] table) {
        Objects.requireNonNull(table, "table");
        if (table.length != blockCount(size) * DIGEST) {
            throw new IllegalArgumentException("A block digest table for " + size + " bytes has "
                    + blockCount(size) * DIGEST + " bytes, not " + table.length);
        }
        return new BlockDigests(size, table.clone());
    }

    /** The one digest of an object of at most one block: its SHA-256 (hex). */
    public static BlockDigests single(long size, String sha256Hex) {
        if (needsTable(size)) {
            throw new IllegalArgumentException("An object of " + size + " bytes has more than one block");
        }
        return new BlockDigests(size, size == 0 ? new byte[0] : Sha256.fromHex(sha256Hex));
    }

    /** The object's size in bytes. */
    public long size() {
        return size;
    }

    /** The table: 32 bytes per block. */
    public byte[] table() {
        return table.clone();
    }

    /** Whether block {@code block}'s bytes have the recorded digest. */
    public boolean matches(long block, byte[] digest) {
        int at = Math.toIntExact(block * DIGEST);
        return Arrays.equals(table, at, at + DIGEST, digest, 0, DIGEST);
    }

    /** Computes the block digests of bytes handed over in order. Not thread-safe. */
    public static final class Builder {
        private final MessageDigest block = Sha256.newDigest();
        private final java.io.ByteArrayOutputStream table = new java.io.ByteArrayOutputStream();
        private long inBlock;
        private long total;

        /** Adds {@code len} bytes of {@code b} from {@code off}. */
        public void update(byte[] b, int off, int len) {
            while (len > 0) {
                int n = (int) Math.min(len, BLOCK_SIZE - inBlock);
                block.update(b, off, n);
                inBlock += n;
                total += n;
                off += n;
                len -= n;
                if (inBlock == BLOCK_SIZE) {
                    table.writeBytes(block.digest());
                    inBlock = 0;
                }
            }
        }

        /** The digests of the bytes added. */
        public BlockDigests build() {
            if (inBlock > 0) {
                table.writeBytes(block.digest());
                inBlock = 0;
            }
            return new BlockDigests(total, table.toByteArray());
        }
    }
}
