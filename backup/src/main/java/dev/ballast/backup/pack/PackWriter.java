package dev.ballast.backup.pack;

import dev.ballast.backup.keys.MasterKey;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectStore;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * The writing side of a {@link BlobRepository}: blobs claimed since the last flush, the open packs,
 * and the uploads of full packs, at most {@code packsInFlight} held at once.
 *
 * <p>Each blob type has {@value #LANES} open packs (lanes): blobs shorter than
 * {@link #ENCODE_ELSEWHERE_BYTES} (small files, the ends of big ones) share lane 0; larger blobs go to
 * the lane of the thread that added them (one of the other {@value #BIG_LANES}, given out in turn), so
 * the chunks of a big file lie side by side in its packs instead of interleaved with those of the
 * files other threads read at the same time. A restore then reads a file's chunks as contiguous
 * stretches: with one shared pack, the JDK tree restored from an S3 endpoint fetched 1.6 to 1.7
 * times its packs' bytes (every stretch of one file's chunks also held other files' chunks, fetched
 * and dropped), and its files' chunks now cost one fetch each.
 *
 * <p>Thread-safe; {@link #drain} and {@link #committed} are called with no {@link #append} running.
 */
final class PackWriter {
    private final ObjectStore store;
    private final MasterKey key;
    private final PackOptions options;
    private final Executor executor;

    /** Blobs claimed since the last flush: in open packs, in upload, or uploaded but not indexed. */
    private final ConcurrentHashMap<BlobId, Boolean> pending = new ConcurrentHashMap<>();
    /** Packs uploaded since the last flush, by key. Guarded by itself. */
    private final Map<String, List<BlobLocation>> uploaded = new LinkedHashMap<>();
    /** Plain bytes of the data blobs in the packs this writer uploaded: see {@link #dataBytesUploaded}. */
    private final AtomicLong dataBytesUploaded = new AtomicLong();
    /** Bytes of the packs this writer uploaded, as stored: see {@link #packBytesUploaded}. */
    private final AtomicLong packBytesUploaded = new AtomicLong();

    /** Lanes of the larger blobs, per blob type. */
    static final int BIG_LANES = 4;
    /** Open packs per blob type: lane 0 for the small blobs, then {@link #BIG_LANES} lanes. */
    static final int LANES = 1 + BIG_LANES;

    /** The lock of each open pack, at {@code type.ordinal() * LANES + lane}. */
    private final Object[] openLocks = new Object[2 * LANES];
    /** The open packs, at {@code type.ordinal() * LANES + lane}. */
    private final Packs.@Nullable Builder[] open = new Packs.Builder[2 * LANES];
    /** Gives each thread that adds larger blobs its lane, in turn. */
    private final java.util.concurrent.atomic.AtomicInteger nextLane = new java.util.concurrent.atomic.AtomicInteger();

    private final ThreadLocal<Integer> threadLane =
            ThreadLocal.withInitial(() -> 1 + Math.floorMod(nextLane.getAndIncrement(), BIG_LANES));
    private final Semaphore inFlight;
    private final Set<CompletableFuture<Void>> uploads = ConcurrentHashMap.newKeySet();
    private final AtomicReference<@Nullable RuntimeException> failure = new AtomicReference<>();

    /** Compresses and seals blobs off the caller's thread, or null: on the caller's. */
    private final @Nullable Executor encoder;
    /** KiB of copied plain bytes handed to {@link #encoder} and not yet in a pack. */
    private final Semaphore encodeBudget;

    /** The size packs are closed at, bytes: {@link PackOptions#packSize()}, less on a small heap. */
    private final int packSize;

    /** KiB of plain bytes that may wait to be encoded: see {@link #ENCODE_BUDGET_KIB}. */
    private final int encodeBudgetKib;

    /** Buffers of finished packs kept for the next open packs, at most. */
    private final int spareBufferLimit;

    private final Set<CompletableFuture<Void>> encodes = ConcurrentHashMap.newKeySet();

    /**
     * Copies handed to {@link #encoder}, kept for the next ones once encoded: a fresh array per chunk
     * (about 1 MiB) was most of what a backup allocated. At most as many as {@link #encodeBudget} lets
     * wait at once, so at most {@link #encodeBudgetKib} KiB plus one chunk per encoder thread.
     */
    private final java.util.concurrent.ConcurrentLinkedDeque<byte[]> spareCopies =
            new java.util.concurrent.ConcurrentLinkedDeque<>();

    /** Buffers of finished packs, for the next open packs (at most {@link #spareBufferLimit}). */
    private final java.util.concurrent.ConcurrentLinkedQueue<byte[]> spareBuffers =
            new java.util.concurrent.ConcurrentLinkedQueue<>();

    /**
     * Smaller blobs are encoded on the caller's thread: a small file's chunk costs less to encode than
     * to copy and hand over, and small files are read by several transfer threads at once anyway.
     */
    static final int ENCODE_ELSEWHERE_BYTES = 256 * 1024;

    /**
     * Plain bytes waiting to be compressed and sealed, at most (KiB), on a heap of 512 MiB or more: a few
     * chunks per encoder thread. Less on a smaller heap: a sixteenth of its maximum, at least one largest
     * chunk.
     */
    static final int ENCODE_BUDGET_KIB = 32 * 1024;

    PackWriter(ObjectStore store, MasterKey key, PackOptions options, Executor executor, @Nullable Executor encoder) {
        this(store, key, options, executor, encoder, Runtime.getRuntime().maxMemory());
    }

    /**
     * A writer whose memory fits a heap of {@code maxHeapBytes}: packs of {@link PackOptions#packSize()}
     * but at most a 32nd of the heap (at least 1 MiB: 4 MiB packs on a heap of 128 MiB, the size the
     * options name from 512 MiB on); full packs in flight at most {@link PackOptions#packsInFlight()}
     * and at most a sixteenth of the heap in packs (at least one; each in flight holds its buffer and
     * its sealed bytes); plain bytes waiting to be encoded at most {@link #ENCODE_BUDGET_KIB} KiB and
     * at most a sixteenth of the heap (at least one largest chunk); spare pack buffers no more than the
     * packs in flight. Smaller packs are packs like any other: readers take each pack's size from the
     * index, not from the options.
     */
    PackWriter(
            ObjectStore store,
            MasterKey key,
            PackOptions options,
            Executor executor,
            @Nullable Executor encoder,
            long maxHeapBytes) {
        this.store = store;
        this.key = key;
        this.options = options;
        this.executor = executor;
        this.encoder = encoder;
        this.packSize = packSize(options, maxHeapBytes);
        int packs = packsInFlight(options, maxHeapBytes);
        this.inFlight = new Semaphore(packs);
        this.spareBufferLimit = Math.min(LANES, packs);
        this.encodeBudgetKib = encodeBudgetKib(maxHeapBytes);
        this.encodeBudget = new Semaphore(encodeBudgetKib);
        for (int i = 0; i < openLocks.length; i++) {
            openLocks[i] = new Object();
        }
    }

    /** The size of the packs written on a heap of {@code maxHeapBytes}, bytes: see the constructor. */
    static int packSize(PackOptions options, long maxHeapBytes) {
        return (int) Math.min(options.packSize(), Math.max(1024 * 1024, maxHeapBytes / 32));
    }

    /** Full packs held in flight at most on a heap of {@code maxHeapBytes}: see the constructor. */
    static int packsInFlight(PackOptions options, long maxHeapBytes) {
        return (int)
                Math.max(1, Math.min(options.packsInFlight(), maxHeapBytes / 16 / packSize(options, maxHeapBytes)));
    }

    /** KiB of plain bytes that may wait to be encoded on a heap of {@code maxHeapBytes}: see the constructor. */
    static int encodeBudgetKib(long maxHeapBytes) {
        return (int) Math.max(Chunker.MAX_SIZE / 1024, Math.min(ENCODE_BUDGET_KIB, maxHeapBytes / 16 / 1024));
    }

    /** The lane this thread's larger blobs go to (see the class comment): 1 to {@value #BIG_LANES}. */
    int threadLane() {
        return threadLane.get();
    }

    /** The lane of a blob of {@code length} bytes whose adder's lane is {@code lane}. */
    private static int laneOf(int length, int lane) {
        return length < ENCODE_ELSEWHERE_BYTES ? 0 : lane;
    }

    /**
     * {@link #append} on the encoder's threads, of a copy of the bytes (the caller may reuse
     * {@code plain} at once), blocking while {@link #encodeBudgetKib} KiB wait; on the caller's
     * thread when there is no encoder or the blob is shorter than {@link #ENCODE_ELSEWHERE_BYTES}. A failure there is the writer's failure: every later
     * {@code add} and {@code flush} throws it, as an upload failure.
     */
    void appendLater(BlobType type, BlobId id, byte[] plain, int offset, int length, int adderLane) {
        Executor e = encoder;
        int lane = laneOf(length, adderLane);
        if (e == null || length < ENCODE_ELSEWHERE_BYTES) {
            append(type, id, plain, offset, length, lane);
            return;
        }
        int kib = Math.min(encodeBudgetKib, Math.max(1, (length + 1023) / 1024));
        try {
            encodeBudget.acquire(kib);
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            pending.remove(id);
            throw new CancellationException("interrupted while waiting to compress a blob; it is not stored");
        }
        byte[] copy = spareCopy(length);
        System.arraycopy(plain, offset, copy, 0, length);
        CompletableFuture<Void> done = new CompletableFuture<>();
        encodes.add(done);
        Runnable task = () -> {
            try {
                append(type, id, copy, 0, length, lane);
            } catch (RuntimeException | Error ex) {
                failure.compareAndSet(null, ex instanceof RuntimeException r ? r : new IllegalStateException(ex));
            } finally {
                spareCopies.offerFirst(copy); // append kept no reference to it
                encodeBudget.release(kib);
                encodes.remove(done);
                done.complete(null);
            }
        };
        try {
            e.execute(task);
        } catch (RejectedExecutionException ex) {
            encodeBudget.release(kib);
            encodes.remove(done);
            done.complete(null);
            pending.remove(id);
            failure.compareAndSet(null, ex);
            throw ex;
        }
    }

    /**
     * An array of at least {@code length} bytes for a copy: a spare one when one is long enough (the
     * most recently returned first), else a new one of at least 1 MiB (a chunk's usual size).
     */
    private byte[] spareCopy(int length) {
        for (java.util.Iterator<byte[]> it = spareCopies.iterator(); it.hasNext(); ) {
            byte[] a = it.next();
            if (a.length >= length && spareCopies.removeFirstOccurrence(a)) {
                return a;
            }
        }
        if (spareCopies.size() >= encodeBudgetKib / 1024) {
            spareCopies.pollLast(); // too many short ones: let the collector have the oldest
        }
        return new byte[Math.max(length, 1024 * 1024)];
    }

    /** Waits for every blob handed to the encoder to be in a pack (or failed). */
    void awaitEncodes() {
        for (CompletableFuture<Void> f : List.copyOf(encodes)) {
            f.join();
        }
    }

    boolean pending(BlobId id) {
        return pending.containsKey(id);
    }

    /** Claims {@code id} for this caller to add; false if it is claimed already. */
    boolean claim(BlobId id) {
        return pending.putIfAbsent(id, Boolean.TRUE) == null;
    }

    /**
     * Compresses, seals and appends a claimed blob to the open pack of its type and {@code lane};
     * uploads the pack once it is full (blocking while {@code packsInFlight} packs are held). The claim
     * is withdrawn if this fails before the blob is in a pack.
     */
    void append(BlobType type, BlobId id, byte[] plain, int offset, int length, int lane) {
        Packs.Builder full = null;
        try {
            BlobCodec.Sealed sealed =
                    BlobCodec.encode(key, options.compressionLevel(), type, id, plain, offset, length);
            byte[] s = sealed.bytes();
            if (s.length >= packSize) {
                full = new Packs.Builder(s.length);
                full.append(type, id, s, 0, s.length, sealed.compressed(), length);
            } else {
                int t = type.ordinal() * LANES + lane;
                synchronized (openLocks[t]) {
                    Packs.Builder b = open[t];
                    if (b == null) {
                        b = newOpenPack();
                        open[t] = b;
                    }
                    b.append(type, id, s, 0, s.length, sealed.compressed(), length);
                    if (b.size() >= packSize) {
                        full = b;
                        open[t] = null;
                    }
                }
            }
        } catch (RuntimeException | Error e) {
            pending.remove(id);
            throw e;
        }
        if (full != null) {
            upload(full);
        }
    }

    /** The bytes an open pack's buffer holds: the pack size and room for the blob that passes it. */
    private int openPackBytes() {
        return packSize + Chunker.MAX_SIZE / 8;
    }

    /**
     * A new open pack, filled into a finished pack's buffer when one is spare, else into a new buffer
     * of the full {@link #openPackBytes} (a buffer that doubled from 1 MiB allocated and copied about
     * twice a pack's bytes before the pack was full).
     */
    private Packs.Builder newOpenPack() {
        byte[] spare = spareBuffers.poll();
        return new Packs.Builder(openPackBytes(), spare != null ? spare : new byte[openPackBytes()]);
    }

    /** Starts the upload of a closed pack, once fewer than packsInFlight are held. */
    private void upload(Packs.Builder pack) {
        try {
            inFlight.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            RuntimeException cancelled =
                    new CancellationException("interrupted while waiting to upload a pack; its blobs are not stored");
            fail(cancelled, pack);
            throw cancelled;
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        uploads.add(done);
        Runnable task = () -> {
            try {
                Packs.Finished finished = pack.finish(key);
                byte[] free = pack.takeBuffer();
                if (free.length >= openPackBytes() && spareBuffers.size() < spareBufferLimit) {
                    spareBuffers.offer(free);
                }
                store.put(finished.key(), ObjectContent.ofBytes(finished.bytes()));
                synchronized (uploaded) {
                    uploaded.put(finished.key(), finished.blobs());
                }
                dataBytesUploaded.addAndGet(dataBytes(finished.blobs()));
                packBytesUploaded.addAndGet(finished.bytes().length);
            } catch (RuntimeException | Error e) {
                fail(e instanceof RuntimeException r ? r : new IllegalStateException(e), pack);
            } finally {
                inFlight.release();
                uploads.remove(done);
                done.complete(null);
            }
        };
        try {
            executor.execute(task);
        } catch (RejectedExecutionException e) {
            inFlight.release();
            uploads.remove(done);
            done.complete(null);
            fail(e, pack);
            throw e;
        }
    }

    private static long dataBytes(List<BlobLocation> blobs) {
        long n = 0;
        for (BlobLocation b : blobs) {
            n += b.type() == BlobType.DATA ? b.plainLength() : 0;
        }
        return n;
    }

    /**
     * Plain bytes of the data blobs (file content) in the packs this writer stored, since it was made:
     * in the store whether or not an index names them yet (a run stopped before its index was written
     * left them for the next run, which indexes and reuses them).
     */
    long dataBytesUploaded() {
        return dataBytesUploaded.get();
    }

    /**
     * Bytes of the packs this writer stored, since it was made, as the store holds them: compressed,
     * encrypted, with their headers.
     */
    long packBytesUploaded() {
        return packBytesUploaded.get();
    }

    private void fail(RuntimeException e, Packs.Builder pack) {
        failure.compareAndSet(null, e);
        for (BlobId id : pack.ids()) {
            pending.remove(id);
        }
    }

    /** Throws the first upload failure, if any: once a pack is lost, the run must stop. */
    void throwIfFailed() {
        RuntimeException e = failure.get();
        if (e != null) {
            throw e;
        }
    }

    /** Waits for every blob being encoded, then for every upload started. */
    void awaitUploads() {
        awaitEncodes();
        for (CompletableFuture<Void> f : List.copyOf(uploads)) {
            f.join();
        }
    }

    /**
     * Closes the open packs, waits for every upload, and returns the packs uploaded and not yet
     * {@link #committed}.
     *
     * @throws RuntimeException the first upload failure
     */
    Map<String, List<BlobLocation>> drain() {
        awaitEncodes();
        throwIfFailed();
        for (int t = 0; t < open.length; t++) {
            Packs.Builder b;
            synchronized (openLocks[t]) {
                b = open[t];
                open[t] = null;
            }
            if (b != null && !b.isEmpty()) {
                upload(b);
            }
        }
        awaitUploads();
        throwIfFailed();
        synchronized (uploaded) {
            return new LinkedHashMap<>(uploaded);
        }
    }

    /** {@code batch}, from {@link #drain}, is indexed now (and registered in the in-memory index). */
    void committed(Map<String, List<BlobLocation>> batch) {
        synchronized (uploaded) {
            uploaded.keySet().removeAll(batch.keySet());
        }
        for (List<BlobLocation> blobs : batch.values()) {
            for (BlobLocation loc : blobs) {
                pending.remove(loc.id());
            }
        }
    }
}
