package dev.ballast.storage.internal;

import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.object.ByteRange;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The bytes of a resolved range, read from a stream of the whole blocks around it and checked block
 * by block against the digests recorded at write time ({@link BlockDigests}): each block is read in
 * full and hashed before any of its bytes are handed over, so a damaged block raises
 * {@link IntegrityException}, naming the block, its bytes and the version, and none of its bytes
 * reaches the caller. Holds one block (1 MiB) at a time. Not thread-safe.
 */
public final class RangeInputStream extends InputStream {
    private final String key;
    private final String versionId;
    private final InputStream blocks;
    private final BlockDigests digests;
    private final long size;
    private final long end;
    private final byte[] buffer;
    private long block;
    private long position;
    private int bufferStart;
    private int bufferEnd;

    /**
     * @param key the object key, for messages
     * @param versionId the version read, for messages
     * @param blocks the stored bytes from {@link #alignedStart(ByteRange)} to
     *     {@link #alignedEnd(ByteRange, long)}
     * @param digests the digests recorded for the version
     * @param range the range to hand over, resolved against the version's size
     */
    public RangeInputStream(String key, String versionId, InputStream blocks, BlockDigests digests, ByteRange range) {
        this.key = Objects.requireNonNull(key, "key");
        this.versionId = Objects.requireNonNull(versionId, "versionId");
        this.blocks = Objects.requireNonNull(blocks, "blocks");
        this.digests = Objects.requireNonNull(digests, "digests");
        this.size = digests.size();
        this.block = range.offset() / BlockDigests.BLOCK_SIZE;
        this.position = range.offset();
        this.end = range.offset() + range.length();
        this.buffer = new byte[(int) Math.min(BlockDigests.BLOCK_SIZE, Math.max(1, size))];
        this.bufferStart = 0;
        this.bufferEnd = 0;
    }

    /** The first byte to fetch for {@code range}: the start of its first block. */
    public static long alignedStart(ByteRange range) {
        return range.offset() / BlockDigests.BLOCK_SIZE * BlockDigests.BLOCK_SIZE;
    }

    /** The byte after the last one to fetch for {@code range} in an object of {@code size} bytes: the end of its last block. */
    public static long alignedEnd(ByteRange range, long size) {
        long last = (range.offset() + range.length() - 1) / BlockDigests.BLOCK_SIZE;
        return Math.min(size, (last + 1) * BlockDigests.BLOCK_SIZE);
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
        if (position >= end) {
            return -1;
        }
        if (bufferStart == bufferEnd) {
            fill();
        }
        int n = (int) Math.min(Math.min(len, bufferEnd - bufferStart), end - position);
        System.arraycopy(buffer, bufferStart, b, off, n);
        bufferStart += n;
        position += n;
        return n;
    }

    /** Reads and checks the next block, leaving the bytes of it within the range in the buffer. */
    private void fill() throws IOException {
        long blockStart = block * BlockDigests.BLOCK_SIZE;
        int blockLength = (int) Math.min(BlockDigests.BLOCK_SIZE, size - blockStart);
        int n = blocks.readNBytes(buffer, 0, blockLength);
        if (n < blockLength) {
            throw new IntegrityException(
                    key,
                    describe(blockStart, blockLength) + " ends after " + n
                            + " bytes: the stored object is shorter than the " + size + " bytes recorded");
        }
        MessageDigest digest = Sha256.newDigest();
        digest.update(buffer, 0, blockLength);
        if (!digests.matches(block, digest.digest())) {
            throw new IntegrityException(
                    key,
                    describe(blockStart, blockLength)
                            + " does not match the SHA-256 recorded for it at write time: the stored bytes are damaged");
        }
        bufferStart = (int) (position - blockStart);
        bufferEnd = blockLength;
        block++;
    }

    private String describe(long blockStart, int blockLength) {
        return "Block " + block + " (bytes " + blockStart + "-" + (blockStart + blockLength - 1) + ") of '" + key
                + "' version " + versionId;
    }

    @Override
    public void close() throws IOException {
        blocks.close();
    }

    /** At most {@code n} bytes of {@code in}; closing it closes {@code in}. */
    public static InputStream limited(InputStream in, long n) {
        return new java.io.FilterInputStream(in) {
            private long left = n;

            @Override
            public int read() throws IOException {
                if (left <= 0) {
                    return -1;
                }
                int b = super.read();
                if (b >= 0) {
                    left--;
                }
                return b;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (left <= 0) {
                    return -1;
                }
                int r = super.read(b, off, (int) Math.min(len, left));
                if (r > 0) {
                    left -= r;
                }
                return r;
            }

            @Override
            public long skip(long count) throws IOException {
                long s = super.skip(Math.min(count, left));
                left -= s;
                return s;
            }
        };
    }

    /**
     * The stream of a range: checked block by block when {@code digests} is given, else the stored
     * bytes of exactly the range, checked for length only.
     *
     * @param stored with digests, the bytes from {@link #alignedStart} on (at least to
     *     {@link #alignedEnd}); without, the bytes from the range's first on (at least its length)
     */
    public static InputStream of(
            String key, String versionId, InputStream stored, @Nullable BlockDigests digests, ByteRange range) {
        return digests == null
                ? new VerifyingInputStream(key, limited(stored, range.length()), range.length(), null)
                : new RangeInputStream(key, versionId, stored, digests, range);
    }
}
