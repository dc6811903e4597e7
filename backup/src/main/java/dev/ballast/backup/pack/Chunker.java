package dev.ballast.backup.pack;

import dev.ballast.backup.keys.MasterKey;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.util.Arrays;
import java.util.Objects;

/**
 * Content-defined chunking: FastCDC (Xia et al., "FastCDC: a Fast and Efficient Content-Defined
 * Chunking Approach for Data Deduplication", USENIX ATC 2016, and its 2020 journal version) with
 * normalized chunking and cut-point skipping. A boundary depends only on the bytes just before it
 * (a 64-byte gear-hash window), so inserting or changing bytes moves only the boundaries near the
 * change; the chunks before and after are cut, and deduplicated, as before.
 *
 * <p>The rolling hash is {@code fp = (fp << 1) + gear[byte]} over 64-bit words. The gear table's 256
 * words are the first 256 outputs of SplitMix64 seeded with {@link MasterKey#chunkerSeed()}, so each
 * repository cuts differently (chunk lengths do not tell which known file a store holds). No
 * boundary is looked for in a chunk's first {@code min} bytes; from there to {@code normal} (the
 * middle of {@code min} and {@code average}) a boundary is where the top {@code b + 2} bits of
 * {@code fp} are zero, after it where the top {@code b - 2} bits are, {@code b = log2(average)};
 * at {@code max} bytes a chunk is cut regardless. With the repository sizes ({@link #MIN_SIZE} 512
 * KiB, {@link #AVERAGE_SIZE} 1 MiB, {@link #MAX_SIZE} 8 MiB, restic's) chunks of random data average
 * about 1 MiB. These rules are the repository format's (docs/backup-format.md): a reader does not
 * need them, but a writer that wants to deduplicate against an existing repository does.
 *
 * <p>Not thread-safe: an instance holds its read buffer (reused; {@value #FIRST_BUFFER} bytes at
 * first, doubled while an input needs more, up to {@code 2 * max}); use one per thread. Cheap to make.
 */
public final class Chunker {
    /** The repository's minimum chunk length, 512 KiB: only the last chunk of a file is shorter. */
    public static final int MIN_SIZE = 512 * 1024;
    /** The repository's nominal average chunk length, 1 MiB. */
    public static final int AVERAGE_SIZE = 1024 * 1024;
    /** The repository's maximum chunk length, 8 MiB. */
    public static final int MAX_SIZE = 8 * 1024 * 1024;

    /** Receives each chunk, in order. */
    @FunctionalInterface
    public interface Sink {
        /**
         * One chunk: {@code buf[offset, offset + length)}, {@code length >= 1}. The bytes are valid only
         * during the call (the buffer is reused): copy what must outlive it.
         */
        void accept(byte[] buf, int offset, int length) throws IOException;
    }

    private final long[] gear;
    private final int min;
    private final int normal;
    private final int max;
    private final long maskSmall;
    private final long maskLarge;
    private byte[] buffer = new byte[0];

    /**
     * The read buffer's first length, 64 KiB: a small file (most files of a source tree) is read whole
     * into it. A buffer of {@code 2 * max} (16 MiB) for every transfer thread from the start cost a
     * backup of small files 64 MiB of zeroed memory and, being live, its copying by each young
     * collection until it was promoted.
     */
    static final int FIRST_BUFFER = 64 * 1024;

    /**
     * At most this many bytes are asked of the input per read, 1 MiB: the JDK reads a file channel into
     * a heap array through a temporary direct buffer as long as the read, cached per thread.
     */
    static final int MAX_READ = 1024 * 1024;

    /** A chunker with the repository sizes and the gear table of {@code seed}. */
    public Chunker(long seed) {
        this(seed, MIN_SIZE, AVERAGE_SIZE, MAX_SIZE);
    }

    /**
     * A chunker with other sizes (tests, benchmarks); a repository uses {@link #Chunker(long)}.
     *
     * @throws IllegalArgumentException unless {@code 64 <= min < average < max}, {@code average} a
     *     power of two between 256 and 2^30
     */
    public Chunker(long seed, int min, int average, int max) {
        if (Integer.bitCount(average) != 1 || average < 256 || average > (1 << 30)) {
            throw new IllegalArgumentException(
                    "average chunk size " + average + " is not a power of two between 256 and 2^30");
        }
        if (min < 64 || min >= average || average >= max) {
            throw new IllegalArgumentException("chunk sizes min " + min + ", average " + average + ", max " + max
                    + " are not 64 <= min < average < max");
        }
        this.gear = gearTable(seed);
        this.min = min;
        this.normal = min + (average - min) / 2;
        this.max = max;
        int bits = Integer.numberOfTrailingZeros(average);
        this.maskSmall = topBits(bits + 2);
        this.maskLarge = topBits(bits - 2);
    }

    /** A chunker with the repository sizes, seeded by {@code key}'s {@link MasterKey#chunkerSeed()}. */
    public static Chunker of(MasterKey key) {
        return new Chunker(key.chunkerSeed());
    }

    /** The length of the read buffer now (0 before the first input). */
    int bufferLength() {
        return buffer.length;
    }

    /** The largest chunk this chunker cuts. */
    public int maxSize() {
        return max;
    }

    private static long topBits(int n) {
        return -1L << (64 - n);
    }

    static long[] gearTable(long seed) {
        long[] table = new long[256];
        long state = seed;
        for (int i = 0; i < 256; i++) {
            state += 0x9E3779B97F4A7C15L;
            long z = state;
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            table[i] = z ^ (z >>> 31);
        }
        return table;
    }

    /**
     * The length of the chunk that starts at {@code buf[offset]}, given that {@code buf[offset,
     * offset + length)} is either at least {@code max} bytes or all that is left of the input.
     *
     * @return a length in {@code [1, min(length, max)]}; 0 only when {@code length} is 0
     */
    public int cut(byte[] buf, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, buf.length);
        if (length <= min) {
            return length;
        }
        int end = offset + Math.min(length, max);
        int mid = offset + Math.min(length, normal);
        long[] g = gear;
        long mask = maskSmall;
        long fp = 0;
        int i = offset + min;
        for (; i < mid; i++) {
            fp = (fp << 1) + g[buf[i] & 0xFF];
            if ((fp & mask) == 0) {
                return i + 1 - offset;
            }
        }
        mask = maskLarge;
        for (; i < end; i++) {
            fp = (fp << 1) + g[buf[i] & 0xFF];
            if ((fp & mask) == 0) {
                return i + 1 - offset;
            }
        }
        return end - offset;
    }

    /**
     * Cuts everything {@code in} yields into chunks, handed to {@code sink} in order. Does not close
     * {@code in}.
     *
     * @return the bytes read
     * @throws IOException from {@code in} or {@code sink}
     */
    public long chunk(InputStream in, Sink sink) throws IOException {
        Objects.requireNonNull(in, "in");
        return run(
                (buf, off, len) -> {
                    int n = in.read(buf, off, len);
                    return n;
                },
                sink);
    }

    /**
     * Cuts everything {@code in} yields (from its position to its end) into chunks, handed to
     * {@code sink} in order. Does not close {@code in}.
     *
     * @return the bytes read
     * @throws IOException from {@code in} or {@code sink}
     */
    public long chunk(ReadableByteChannel in, Sink sink) throws IOException {
        Objects.requireNonNull(in, "in");
        return run((buf, off, len) -> in.read(ByteBuffer.wrap(buf, off, len)), sink);
    }

    private interface Reader {
        int read(byte[] buf, int off, int len) throws IOException;
    }

    private long run(Reader reader, Sink sink) throws IOException {
        Objects.requireNonNull(sink, "sink");
        if (buffer.length == 0) {
            buffer = new byte[Math.min(FIRST_BUFFER, 2 * max)];
        }
        byte[] buf = buffer;
        int pos = 0;
        int limit = 0;
        boolean eof = false;
        long total = 0;
        while (true) {
            // Fill until the buffer holds a whole max-size window past pos, or the input ends.
            if (!eof && limit - pos < max) {
                if (pos > 0) {
                    System.arraycopy(buf, pos, buf, 0, limit - pos);
                    limit -= pos;
                    pos = 0;
                }
                while (true) {
                    if (limit == buf.length) {
                        if (limit >= max && buf.length >= 2 * max) {
                            break; // full, as a buffer of 2 * max is filled
                        }
                        // The input goes on past what the buffer holds: double it, up to 2 * max.
                        buf = Arrays.copyOf(buf, (int) Math.min(2L * max, 2L * buf.length));
                        buffer = buf;
                    }
                    int n = reader.read(buf, limit, Math.min(MAX_READ, buf.length - limit));
                    if (n < 0) {
                        eof = true;
                        break;
                    }
                    limit += n;
                    total += n;
                }
            }
            if (pos == limit) {
                return total;
            }
            int len = cut(buf, pos, limit - pos);
            sink.accept(buf, pos, len);
            pos += len;
        }
    }
}
