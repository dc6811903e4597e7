package dev.ballast.backup.content;

import dev.ballast.backup.pack.BlobId;
import dev.ballast.backup.pack.BlobRepository;
import dev.ballast.backup.pack.BlobType;
import dev.ballast.backup.pack.Chunker;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;

/**
 * Takes the keyed hash ({@link BlobRepository#id}) of a file's large chunks, and their
 * {@link BlobRepository#add}, off the thread that reads the file, cuts it and hashes it whole: that
 * thread's work on one large file (SHA-256 of every byte, then HMAC-SHA256 of every byte again, and
 * the cut) otherwise ran on one core while the other waited. A chunk of at least
 * {@link #ASYNC_BYTES} is copied and handed to {@link #THREADS} threads; a smaller one (a small file's)
 * is hashed and added on the caller's thread, where copying and handing over would cost more than the
 * hash. At most {@link #budgetBytes} bytes of copies wait at once (the reader then waits), and up to
 * {@link #spareLimit} bytes of copies are kept for reuse: 24 MiB in all on a heap of 256 MiB or more,
 * down to one largest chunk (8 MiB) waiting and 4 MiB of usual chunks kept on a heap of 128 MiB, so that a command held to a
 * small heap ({@code -Xmx128m}) still backs up a file of 8 MiB chunks (a disk image's runs of zeros)
 * beside the chunker's and the pack writer's buffers. One instance per repository; thread-safe.
 */
final class ChunkAdder implements AutoCloseable {
    /** Chunks this long or longer are hashed and added elsewhere: 256 KiB (a chunk of a large file is 512 KiB to 8 MiB). */
    static final int ASYNC_BYTES = 256 * 1024;

    /** Bytes of copies of chunks waiting at most, on a heap of 256 MiB or more: 16 MiB (two of the largest chunks, a dozen usual ones). */
    static final int BUDGET_BYTES = 16 * 1024 * 1024;

    /** Bytes of spare copies kept for the next chunks at most, on a heap of 256 MiB or more: 8 MiB (one of the largest chunks, eight usual ones). */
    static final int SPARE_BYTES = 8 * 1024 * 1024;

    /** Bytes of copies waiting at most: a sixteenth of the heap's maximum, at least one largest chunk, at most {@link #BUDGET_BYTES}. */
    private final int budgetBytes;

    /** Bytes of spare copies kept at most: half of {@link #budgetBytes}, at most {@link #SPARE_BYTES}. */
    private final long spareLimit;

    /** Threads hashing and adding: two, the machine's usual cores beside the readers. */
    static final int THREADS = 2;

    private final BlobRepository blobs;
    private final Semaphore budget;
    private final ConcurrentLinkedDeque<byte[]> spares = new ConcurrentLinkedDeque<>();
    /** Bytes of the arrays in {@link #spares}, at most {@link #spareLimit}. */
    private final java.util.concurrent.atomic.AtomicLong spareBytes = new java.util.concurrent.atomic.AtomicLong();

    private final ExecutorService executor = Executors.newFixedThreadPool(THREADS, r -> {
        Thread t = new Thread(r, "ballast-chunk-id");
        t.setDaemon(true);
        return t;
    });

    ChunkAdder(BlobRepository blobs) {
        this(blobs, Runtime.getRuntime().maxMemory());
    }

    /** As {@link #ChunkAdder(BlobRepository)}, for a heap whose maximum is {@code maxHeapBytes}. */
    ChunkAdder(BlobRepository blobs, long maxHeapBytes) {
        this.blobs = blobs;
        long share = maxHeapBytes / 16;
        this.budgetBytes = (int) Math.max(Chunker.MAX_SIZE, Math.min(BUDGET_BYTES, share));
        this.spareLimit = Math.min(SPARE_BYTES, budgetBytes / 2);
        this.budget = new Semaphore(budgetBytes);
    }

    /** Bytes of copies that may wait at once (the reader waits beyond them). */
    int budgetBytes() {
        return budgetBytes;
    }

    /** Bytes of spare copies kept for reuse at most. */
    long spareLimit() {
        return spareLimit;
    }

    /** What one chunk came to: its ID, plain length, and whether {@code add} stored it (false: known already). */
    record Added(BlobId id, int length, boolean added) {}

    /** The chunks of one file, in order. Used by one thread. */
    final class File {
        private final List<CompletableFuture<Added>> chunks = new ArrayList<>();
        /** The reading thread's open pack: the file's chunks go there whichever thread adds them. */
        private final int lane = blobs.lane();

        /**
         * Hashes and adds {@code buf[off, off + len)}, here or elsewhere; the bytes may be reused once
         * this returns.
         *
         * @throws InterruptedIOException if interrupted while waiting for room
         */
        void accept(byte[] buf, int off, int len) throws InterruptedIOException {
            if (len < ASYNC_BYTES) {
                BlobId id = blobs.id(buf, off, len);
                chunks.add(CompletableFuture.completedFuture(
                        new Added(id, len, blobs.add(BlobType.DATA, id, buf, off, len))));
                return;
            }
            byte[] copy = spare(len);
            int permits = Math.min(copy.length, budgetBytes);
            try {
                budget.acquire(permits);
            } catch (InterruptedException e) {
                keep(copy);
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while waiting to hash a chunk");
            }
            System.arraycopy(buf, off, copy, 0, len);
            CompletableFuture<Added> done = new CompletableFuture<>();
            try {
                executor.execute(() -> {
                    try {
                        BlobId id = blobs.id(copy, 0, len);
                        done.complete(new Added(id, len, blobs.add(BlobType.DATA, id, copy, 0, len, lane)));
                    } catch (RuntimeException | Error e) {
                        done.completeExceptionally(e);
                    } finally {
                        keep(copy); // add copied what it keeps
                        budget.release(permits);
                    }
                });
            } catch (RejectedExecutionException e) {
                keep(copy);
                budget.release(permits);
                throw new CancellationException("the repository is closed; the chunk is not stored");
            }
            chunks.add(done);
        }

        /**
         * Waits for every chunk: their results in order.
         *
         * @throws RuntimeException the first chunk's failure, as {@code add} threw it
         */
        List<Added> results() {
            List<Added> out = new ArrayList<>(chunks.size());
            RuntimeException failure = null;
            for (CompletableFuture<Added> c : chunks) {
                try {
                    out.add(c.join());
                } catch (CompletionException e) {
                    if (failure == null) {
                        Throwable cause = e.getCause();
                        failure = cause instanceof RuntimeException r
                                ? r
                                : cause instanceof Error err ? new IllegalStateException(err) : e;
                    }
                }
            }
            if (failure != null) {
                throw failure;
            }
            return out;
        }

        /** Waits for the chunks handed over, ignoring their outcome (the file is abandoned). */
        void abandon() {
            for (CompletableFuture<Added> c : chunks) {
                try {
                    c.join();
                } catch (CompletionException | CancellationException e) {
                    // abandoned: its failure is not this file's to report
                }
            }
        }
    }

    File file() {
        return new File();
    }

    /** A spare copy of at least {@code length} bytes (the most recently returned first), else a new one. */
    private byte[] spare(int length) {
        for (java.util.Iterator<byte[]> it = spares.iterator(); it.hasNext(); ) {
            byte[] a = it.next();
            if (a.length >= length && spares.removeFirstOccurrence(a)) {
                spareBytes.addAndGet(-a.length);
                return a;
            }
        }
        return new byte[Math.max(length, 1024 * 1024)];
    }

    /** Keeps {@code copy} for reuse while the spares stay within {@link #spareLimit}; the oldest go first. */
    private void keep(byte[] copy) {
        while (spareBytes.get() + copy.length > spareLimit) {
            byte[] oldest = spares.pollLast();
            if (oldest == null) {
                return; // larger than the spares may hold: the collector has it
            }
            spareBytes.addAndGet(-oldest.length);
        }
        spares.offerFirst(copy);
        spareBytes.addAndGet(copy.length);
    }

    @Override
    public void close() {
        executor.shutdown();
    }
}
