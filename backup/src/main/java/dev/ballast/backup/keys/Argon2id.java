package dev.ballast.backup.keys;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicReference;
import org.bouncycastle.crypto.digests.Blake2bDigest;
import org.bouncycastle.crypto.generators.Argon2BytesGenerator;
import org.bouncycastle.crypto.params.Argon2Parameters;

/**
 * Argon2id version 0x13 as RFC 9106 defines it, with its lanes filled on several threads and its
 * memory one {@code long[]}. The hash function underneath, BLAKE2b (RFC 7693), is BouncyCastle's
 * {@link Blake2bDigest}; what is here is the memory filling of RFC 9106 section 3.2 steps 3 to 6, the
 * compression function G of section 3.5, the reference-block selection of section 3.4 and the
 * variable-length hash H' of section 3.3.
 *
 * <p>Why not BouncyCastle's {@code Argon2BytesGenerator}, which gives the same bytes (tested:
 * {@code Argon2idTest} checks RFC 9106 section 5.3's test vector and compares with it over many
 * parameter sets): it fills the lanes one after another, so the parallelism a key file records buys no
 * speed, and it holds the memory as 65,536 objects of 1 KiB, which a young generation of 32 MiB (the
 * {@code ./ballast} launcher's) copies to the old generation about three times per derivation. Every
 * command that opens a repository derives one key (64 MiB, 1 pass, 4 lanes by default); the time
 * this saves is measured in docs/backup-format.md, "KDF parameters". Lanes are independent within a segment (section 3.4: a block never references the
 * current segment of another lane), so filling them at once changes nothing in the result.
 *
 * <p>Thread-safe: each call has its own memory and threads. Memory: {@code memoryKiB} KiB on the heap,
 * allocated at once and zeroed before returning.
 */
final class Argon2id {
    private static final int BLOCK_LONGS = 128; // 1024-byte blocks
    private static final int SYNC_POINTS = 4; // slices per lane
    private static final int ADDRESSES_IN_BLOCK = 128;
    private static final int VERSION = 0x13;
    private static final int TYPE_ID = 2;

    /**
     * Memory {@link #prepare} allocates ahead (completed with null when the heap had no room), for the
     * first derivation to take if its size fits: a derivation that begins while the allocation is
     * under way waits for it rather than allocating 64 MiB more beside it. {@link #TAKEN} once a
     * derivation began or {@link #release} was called, so that nothing is held for the rest of the
     * process.
     */
    private static final AtomicReference<CompletableFuture<long[]>> SPARE = new AtomicReference<>();

    private static final CompletableFuture<long[]> TAKEN = CompletableFuture.completedFuture(null);

    private final int lanes;
    private final int iterations;
    private final int segmentLength;
    private final int laneLength;
    private final int blockCount;
    private final long[] memory;

    private Argon2id(int memoryKiB, int iterations, int lanes) {
        this.lanes = lanes;
        this.iterations = iterations;
        int blocks = Math.max(memoryKiB, 2 * SYNC_POINTS * lanes);
        this.segmentLength = blocks / (lanes * SYNC_POINTS);
        this.laneLength = segmentLength * SYNC_POINTS;
        this.blockCount = laneLength * lanes;
        CompletableFuture<long[]> prepared = SPARE.getAndSet(TAKEN);
        long[] spare = prepared == null ? null : prepared.join();
        if (spare == null || spare.length != blockCount * BLOCK_LONGS) {
            spare = null; // not held while the right size is allocated
            spare = new long[blockCount * BLOCK_LONGS];
        }
        this.memory = spare;
    }

    /**
     * Allocates, on the calling thread, the memory of a derivation with {@code memoryKiB} and
     * {@code lanes}, for the next {@link #hash} of that size to use instead of allocating its own. A
     * fresh JVM's heap has never been touched, so allocating 64 MiB is 16,384 page faults (about a
     * quarter of a second on the virtual machine Ballast is built on, async-profiler, 2026-12-02):
     * a command that will derive a key calls this on another thread while it parses its arguments and
     * opens the store. Only the first derivation of the process uses it (one that begins before this
     * returns allocates its own, and this array is then dropped); does nothing when the heap has no
     * room for it.
     */
    static void prepare(int memoryKiB, int lanes) {
        if (lanes < 1 || memoryKiB < 8 * lanes) {
            return;
        }
        int blocks = Math.max(memoryKiB, 2 * SYNC_POINTS * lanes);
        long longs = (long) (blocks / (lanes * SYNC_POINTS)) * SYNC_POINTS * lanes * BLOCK_LONGS;
        CompletableFuture<long[]> allocation = new CompletableFuture<>();
        if (longs > Integer.MAX_VALUE - 8 || !SPARE.compareAndSet(null, allocation)) {
            return; // too large for one array, or prepared already, or a derivation began
        }
        long[] memory = null;
        try {
            memory = new long[(int) longs];
        } catch (OutOfMemoryError e) {
            // the derivation allocates its own, and says so if that fails too
        } finally {
            allocation.complete(memory); // never left open: a derivation may be waiting for it
        }
    }

    /**
     * Drops memory {@link #prepare} allocated that no derivation will take (the store turned out to
     * be of the unencrypted format): the heap gets it back. Later calls of {@link #prepare} do
     * nothing. Thread-safe.
     */
    static void release() {
        SPARE.set(TAKEN);
    }

    /**
     * The Argon2id tag of {@code password} and {@code salt}, no secret and no associated data.
     *
     * @param memoryKiB memory in KiB (m), at least {@code 8 * lanes}
     * @param iterations passes (t), at least 1
     * @param lanes lanes (p), 1 to 2^24 - 1; filled on up to as many threads as there are processors
     * @param tagBytes bytes of the tag (T), at least 4
     * @throws IllegalArgumentException if a parameter is outside these ranges
     */
    static byte[] hash(byte[] password, byte[] salt, int memoryKiB, int iterations, int lanes, int tagBytes) {
        return hash(password, salt, new byte[0], new byte[0], memoryKiB, iterations, lanes, tagBytes);
    }

    /** As {@link #hash(byte[], byte[], int, int, int, int)}, with a secret (K) and associated data (X). */
    static byte[] hash(
            byte[] password,
            byte[] salt,
            byte[] secret,
            byte[] associatedData,
            int memoryKiB,
            int iterations,
            int lanes,
            int tagBytes) {
        if (lanes < 1 || lanes > 0xFFFFFF || iterations < 1 || tagBytes < 4 || memoryKiB < 8 * lanes) {
            throw new IllegalArgumentException("Argon2id parameters m=" + memoryKiB + " KiB, t=" + iterations + ", p="
                    + lanes + ", T=" + tagBytes + " bytes are outside RFC 9106's ranges");
        }
        Argon2id argon;
        try {
            argon = new Argon2id(memoryKiB, iterations, lanes);
        } catch (OutOfMemoryError e) {
            // No room for the memory as one array, where room for it in small pieces may remain (the
            // launcher's young generation is 32 MiB of the heap): BouncyCastle's generator, same bytes.
            return inPieces(password, salt, secret, associatedData, memoryKiB, iterations, lanes, tagBytes);
        }
        try {
            argon.firstBlocks(
                    initialHash(password, salt, secret, associatedData, memoryKiB, iterations, lanes, tagBytes));
            argon.fill(Math.min(lanes, Runtime.getRuntime().availableProcessors()));
            return argon.tag(tagBytes);
        } finally {
            Arrays.fill(argon.memory, 0L);
        }
    }

    /** Whether {@link #prepare}'s memory waits for a derivation (for tests). */
    static boolean hasSpare() {
        CompletableFuture<long[]> spare = SPARE.get();
        return spare != null && spare != TAKEN && spare.join() != null;
    }

    /** Back to the state of a new process: no memory prepared, no derivation begun (for tests). */
    static void forgetSpare() {
        SPARE.set(null);
    }

    /**
     * The same tag through BouncyCastle's {@link Argon2BytesGenerator}, which holds the memory as
     * blocks of 1 KiB and fills the lanes one after another: for a heap with no room for one array.
     *
     * @throws OutOfMemoryError if there is no room for the blocks either
     */
    static byte[] inPieces(
            byte[] password,
            byte[] salt,
            byte[] secret,
            byte[] associatedData,
            int memoryKiB,
            int iterations,
            int lanes,
            int tagBytes) {
        Argon2BytesGenerator generator = new Argon2BytesGenerator();
        generator.init(new Argon2Parameters.Builder(Argon2Parameters.ARGON2_id)
                .withVersion(Argon2Parameters.ARGON2_VERSION_13)
                .withSalt(salt)
                .withSecret(secret)
                .withAdditional(associatedData)
                .withMemoryAsKB(memoryKiB)
                .withIterations(iterations)
                .withParallelism(lanes)
                .build());
        byte[] tag = new byte[tagBytes];
        generator.generateBytes(password, tag);
        return tag;
    }

    /** H0 of RFC 9106 section 3.2 step 1 (64 bytes). */
    private static byte[] initialHash(
            byte[] password,
            byte[] salt,
            byte[] secret,
            byte[] associatedData,
            int memoryKiB,
            int iterations,
            int lanes,
            int tagBytes) {
        Blake2bDigest blake = new Blake2bDigest(512);
        for (int value : new int[] {lanes, tagBytes, memoryKiB, iterations, VERSION, TYPE_ID}) {
            updateInt(blake, value);
        }
        for (byte[] field : new byte[][] {password, salt, secret, associatedData}) {
            updateInt(blake, field.length);
            blake.update(field, 0, field.length);
        }
        byte[] h0 = new byte[64];
        blake.doFinal(h0, 0);
        return h0;
    }

    /** Section 3.2 steps 3 and 4: B[i][0] and B[i][1] of each lane from H0. */
    private void firstBlocks(byte[] h0) {
        byte[] input = Arrays.copyOf(h0, 72);
        try {
            for (int lane = 0; lane < lanes; lane++) {
                for (int column = 0; column < 2; column++) {
                    putInt(input, 64, column);
                    putInt(input, 68, lane);
                    byte[] block = variableHash(input, 1024);
                    int base = (lane * laneLength + column) * BLOCK_LONGS;
                    for (int i = 0; i < BLOCK_LONGS; i++) {
                        memory[base + i] = getLong(block, 8 * i);
                    }
                    Arrays.fill(block, (byte) 0);
                }
            }
        } finally {
            Arrays.fill(input, (byte) 0);
            Arrays.fill(h0, (byte) 0);
        }
    }

    /** Section 3.2 steps 5 and 6 on {@code threads} threads, which meet at each slice's end. */
    private void fill(int threads) {
        CyclicBarrier barrier = threads == 1 ? null : new CyclicBarrier(threads);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> helpers = new ArrayList<>();
        for (int t = 1; t < threads; t++) {
            int first = t;
            Thread helper = new Thread(() -> fillOrRecord(first, threads, barrier, failure), "argon2id-lane-" + t);
            helper.setDaemon(true);
            helpers.add(helper);
            helper.start();
        }
        fillOrRecord(0, threads, barrier, failure);
        for (Thread helper : helpers) {
            boolean interrupted = false;
            while (true) {
                try {
                    helper.join();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true; // the helpers end within the derivation's own time: wait for them
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        Throwable thrown = failure.get();
        if (thrown instanceof RuntimeException runtime) {
            throw runtime;
        }
        if (thrown instanceof Error error) {
            throw error;
        }
        if (thrown != null) {
            throw new IllegalStateException(thrown);
        }
    }

    private void fillOrRecord(int first, int step, CyclicBarrier barrier, AtomicReference<Throwable> failure) {
        try {
            new Filler().fillLanes(first, step, barrier);
        } catch (BrokenBarrierException e) {
            failure.compareAndSet(null, new IllegalStateException("another lane's thread failed"));
        } catch (InterruptedException e) {
            failure.compareAndSet(null, new IllegalStateException("interrupted while deriving a key"));
            barrier.reset(); // only a barrier's await throws it
            Thread.currentThread().interrupt();
        } catch (Throwable e) {
            failure.set(e);
            if (barrier != null) {
                barrier.reset(); // the others' await throws BrokenBarrierException
            }
        }
    }

    /** Section 3.2 step 7: H' of the XOR of every lane's last block. */
    private byte[] tag(int tagBytes) {
        long[] last = new long[BLOCK_LONGS];
        for (int lane = 0; lane < lanes; lane++) {
            int base = (lane * laneLength + laneLength - 1) * BLOCK_LONGS;
            for (int i = 0; i < BLOCK_LONGS; i++) {
                last[i] ^= memory[base + i];
            }
        }
        byte[] bytes = new byte[1024];
        for (int i = 0; i < BLOCK_LONGS; i++) {
            putLong(bytes, 8 * i, last[i]);
        }
        Arrays.fill(last, 0L);
        try {
            return variableHash(bytes, tagBytes);
        } finally {
            Arrays.fill(bytes, (byte) 0);
        }
    }

    /** One thread's share: lanes {@code first}, {@code first + step}, ..., slice by slice. */
    private final class Filler {
        private final long[] r = new long[BLOCK_LONGS];
        private final long[] q = new long[BLOCK_LONGS];
        private final long[] zero = new long[BLOCK_LONGS];
        private final long[] input = new long[BLOCK_LONGS];
        private final long[] addresses = new long[BLOCK_LONGS];

        void fillLanes(int first, int step, CyclicBarrier barrier) throws InterruptedException, BrokenBarrierException {
            try {
                for (int pass = 0; pass < iterations; pass++) {
                    for (int slice = 0; slice < SYNC_POINTS; slice++) {
                        for (int lane = first; lane < lanes; lane += step) {
                            fillSegment(pass, lane, slice);
                        }
                        if (barrier != null) {
                            barrier.await();
                        }
                    }
                }
            } finally {
                Arrays.fill(r, 0L);
                Arrays.fill(q, 0L);
                Arrays.fill(addresses, 0L);
            }
        }

        /** Section 3.4: one segment, its reference blocks data-independent in pass 0's first half. */
        private void fillSegment(int pass, int lane, int slice) {
            boolean independent = pass == 0 && slice < SYNC_POINTS / 2;
            int start = pass == 0 && slice == 0 ? 2 : 0;
            if (independent) {
                Arrays.fill(input, 0L);
                input[0] = pass;
                input[1] = lane;
                input[2] = slice;
                input[3] = blockCount;
                input[4] = iterations;
                input[5] = TYPE_ID;
                if (start != 0) {
                    nextAddresses();
                }
            }
            int laneBase = lane * laneLength;
            for (int index = start; index < segmentLength; index++) {
                int column = slice * segmentLength + index;
                int previous = laneBase + (column == 0 ? laneLength - 1 : column - 1);
                long pseudoRandom;
                if (independent) {
                    if (index % ADDRESSES_IN_BLOCK == 0) {
                        nextAddresses();
                    }
                    pseudoRandom = addresses[index % ADDRESSES_IN_BLOCK];
                } else {
                    pseudoRandom = memory[previous * BLOCK_LONGS];
                }
                int refLane = pass == 0 && slice == 0 ? lane : (int) ((pseudoRandom >>> 32) % lanes);
                int refColumn = referenceColumn(pass, slice, index, pseudoRandom & 0xFFFFFFFFL, refLane == lane);
                compress(
                        previous * BLOCK_LONGS,
                        (refLane * laneLength + refColumn) * BLOCK_LONGS,
                        (laneBase + column) * BLOCK_LONGS,
                        pass != 0);
            }
        }

        /** Section 3.4.2: the column of the reference block within its lane. */
        private int referenceColumn(int pass, int slice, int index, long j1, boolean sameLane) {
            long areaSize;
            int startColumn;
            if (pass == 0) {
                startColumn = 0;
                areaSize = sameLane ? slice * segmentLength + index - 1 : slice * segmentLength + (index == 0 ? -1 : 0);
            } else {
                startColumn = ((slice + 1) * segmentLength) % laneLength;
                areaSize = sameLane
                        ? laneLength - segmentLength + index - 1
                        : laneLength - segmentLength + (index == 0 ? -1 : 0);
            }
            long x = (j1 * j1) >>> 32;
            long relative = areaSize - 1 - ((areaSize * x) >>> 32);
            return (int) ((startColumn + relative) % laneLength);
        }

        /** Section 3.4.1.2: the next 128 addresses, G(zero, G(zero, input)) with the counter raised. */
        private void nextAddresses() {
            input[6]++;
            compressInto(zero, input, addresses);
            compressInto(zero, addresses, addresses);
        }

        /**
         * Section 3.5: the block at {@code out} = G(block at {@code x}, block at {@code y}), XORed
         * with its old content from the second pass on (version 0x13).
         */
        private void compress(int x, int y, int out, boolean withXor) {
            long[] m = memory;
            for (int i = 0; i < BLOCK_LONGS; i++) {
                long v = m[x + i] ^ m[y + i];
                r[i] = v;
                q[i] = withXor ? v ^ m[out + i] : v;
            }
            permute(r);
            for (int i = 0; i < BLOCK_LONGS; i++) {
                m[out + i] = q[i] ^ r[i];
            }
        }

        private void compressInto(long[] x, long[] y, long[] out) {
            for (int i = 0; i < BLOCK_LONGS; i++) {
                long v = x[i] ^ y[i];
                r[i] = v;
                q[i] = v;
            }
            permute(r);
            for (int i = 0; i < BLOCK_LONGS; i++) {
                out[i] = q[i] ^ r[i];
            }
        }
    }

    /** P applied to the eight rows, then to the eight columns, of a block seen as 8x8 pairs of words. */
    private static void permute(long[] v) {
        for (int i = 0; i < 8; i++) {
            int b = 16 * i;
            round(
                    v, b, b + 1, b + 2, b + 3, b + 4, b + 5, b + 6, b + 7, b + 8, b + 9, b + 10, b + 11, b + 12, b + 13,
                    b + 14, b + 15);
        }
        for (int i = 0; i < 8; i++) {
            int b = 2 * i;
            round(
                    v, b, b + 1, b + 16, b + 17, b + 32, b + 33, b + 48, b + 49, b + 64, b + 65, b + 80, b + 81, b + 96,
                    b + 97, b + 112, b + 113);
        }
    }

    /** The permutation P of section 3.6 on the sixteen words at these indices. */
    private static void round(
            long[] v,
            int v0,
            int v1,
            int v2,
            int v3,
            int v4,
            int v5,
            int v6,
            int v7,
            int v8,
            int v9,
            int v10,
            int v11,
            int v12,
            int v13,
            int v14,
            int v15) {
        mix(v, v0, v4, v8, v12);
        mix(v, v1, v5, v9, v13);
        mix(v, v2, v6, v10, v14);
        mix(v, v3, v7, v11, v15);
        mix(v, v0, v5, v10, v15);
        mix(v, v1, v6, v11, v12);
        mix(v, v2, v7, v8, v13);
        mix(v, v3, v4, v9, v14);
    }

    /** GB of section 3.6: BLAKE2b's G with each addition a + b replaced by a + b + 2 * lo(a) * lo(b). */
    private static void mix(long[] v, int ia, int ib, int ic, int id) {
        long a = v[ia];
        long b = v[ib];
        long c = v[ic];
        long d = v[id];
        a = a + b + 2 * (a & 0xFFFFFFFFL) * (b & 0xFFFFFFFFL);
        d = Long.rotateRight(d ^ a, 32);
        c = c + d + 2 * (c & 0xFFFFFFFFL) * (d & 0xFFFFFFFFL);
        b = Long.rotateRight(b ^ c, 24);
        a = a + b + 2 * (a & 0xFFFFFFFFL) * (b & 0xFFFFFFFFL);
        d = Long.rotateRight(d ^ a, 16);
        c = c + d + 2 * (c & 0xFFFFFFFFL) * (d & 0xFFFFFFFFL);
        b = Long.rotateRight(b ^ c, 63);
        v[ia] = a;
        v[ib] = b;
        v[ic] = c;
        v[id] = d;
    }

    /** H' of section 3.3: {@code length} bytes from BLAKE2b over LE32(length) || input. */
    private static byte[] variableHash(byte[] input, int length) {
        byte[] out = new byte[length];
        if (length <= 64) {
            Blake2bDigest blake = new Blake2bDigest(length * 8);
            updateInt(blake, length);
            blake.update(input, 0, input.length);
            blake.doFinal(out, 0);
            return out;
        }
        byte[] v = new byte[64];
        Blake2bDigest blake = new Blake2bDigest(512);
        updateInt(blake, length);
        blake.update(input, 0, input.length);
        blake.doFinal(v, 0);
        int r = (length + 31) / 32 - 2;
        System.arraycopy(v, 0, out, 0, 32);
        for (int i = 2; i <= r; i++) {
            blake.update(v, 0, 64);
            blake.doFinal(v, 0);
            System.arraycopy(v, 0, out, 32 * (i - 1), 32);
        }
        Blake2bDigest last = new Blake2bDigest((length - 32 * r) * 8);
        last.update(v, 0, 64);
        last.doFinal(out, 32 * r);
        Arrays.fill(v, (byte) 0);
        return out;
    }

    private static void updateInt(Blake2bDigest blake, int value) {
        byte[] le = new byte[4];
        putInt(le, 0, value);
        blake.update(le, 0, 4);
    }

    private static void putInt(byte[] b, int off, int value) {
        b[off] = (byte) value;
        b[off + 1] = (byte) (value >>> 8);
        b[off + 2] = (byte) (value >>> 16);
        b[off + 3] = (byte) (value >>> 24);
    }

    private static void putLong(byte[] b, int off, long value) {
        for (int i = 0; i < 8; i++) {
            b[off + i] = (byte) (value >>> (8 * i));
        }
    }

    private static long getLong(byte[] b, int off) {
        long value = 0;
        for (int i = 7; i >= 0; i--) {
            value = (value << 8) | (b[off + i] & 0xFFL);
        }
        return value;
    }
}
