package dev.ballast.backup.content;

import dev.ballast.backup.keys.MasterKey;
import dev.ballast.backup.pack.BlobId;
import dev.ballast.backup.pack.BlobLocation;
import dev.ballast.backup.pack.BlobRepository;
import dev.ballast.backup.pack.CheckReport;
import dev.ballast.backup.pack.Chunker;
import dev.ballast.backup.pack.MaxUnused;
import dev.ballast.backup.pack.PackOptions;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.object.ObjectStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;
import org.jspecify.annotations.Nullable;

/**
 * {@link PackedContent} over a {@link BlobRepository}: files cut by the repository's FastCDC
 * {@link Chunker} (seeded by {@link MasterKey#chunkerSeed()}), each chunk's ID its keyed
 * {@link MasterKey#id}, chunks added once ({@link BlobRepository#add} deduplicates) and read back
 * grouped by pack ({@link BlobRepository#readAll}).
 *
 * <p>Reading holds at most twice {@value #READ_BATCH_BYTES} bytes of one file's chunks in memory at a
 * time (the batch being consumed and the next, each of whole chunks, at least one). Thread-safe.
 */
public final class PackedBlobs implements PackedContent {
    /**
     * Plain bytes of chunks one read of a file asks for at once: a pack's worth, read as several spans
     * in parallel; one batch is consumed while the next is read.
     */
    static final int READ_BATCH_BYTES = 16 * 1024 * 1024;

    private final BlobRepository blobs;
    private final ChunkAdder adder;
    private final ThreadLocal<Chunker> chunkers;
    /** Reads the batches of open files' chunks (each waits for the repository's read threads). */
    private final ExecutorService batchExecutor = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "ballast-chunk-batch");
        t.setDaemon(true);
        return t;
    });
    /** What a restore reads ahead, or null. */
    private volatile @Nullable PackedPrefetch prefetch;

    private PackedBlobs(BlobRepository blobs, MasterKey key) {
        this.blobs = blobs;
        this.adder = new ChunkAdder(blobs);
        long seed = key.chunkerSeed();
        this.chunkers = ThreadLocal.withInitial(() -> new Chunker(seed));
    }

    /**
     * Opens the repository's blobs in {@code store} (reads every index file), reading up to
     * {@code threads} packs at once and uploading up to {@code threads} packs at once (at least
     * {@link PackOptions#defaults()}'s two): on an S3 endpoint each pack goes up in one request, so
     * the uploads are as many connections as {@code --transfers} gives the reads (restic's default is
     * five).
     *
     * @throws dev.ballast.storage.IntegrityException naming an index file that does not open
     * @throws dev.ballast.storage.StorageException if the store fails
     */
    public static PackedBlobs open(ObjectStore store, MasterKey key, int threads) {
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(key, "key");
        return new PackedBlobs(BlobRepository.open(store, key, options(threads)), key);
    }

    /** The pack options of {@link #open}: {@code threads} reads and uploads at once (uploads at least the default). */
    static PackOptions options(int threads) {
        PackOptions defaults = PackOptions.defaults();
        return defaults.withReadThreads(threads).withUploadThreads(Math.max(defaults.uploadThreads(), threads));
    }

    /** The blob repository underneath. */
    public BlobRepository blobs() {
        return blobs;
    }

    @Override
    public Stored store(Path file, LongConsumer read, BooleanSupplier stop) throws IOException {
        MessageDigest digest = Sha256.newDigest();
        // Large chunks are hashed and added on the adder's threads while this one reads on (ChunkAdder).
        ChunkAdder.File chunks = adder.file();
        long size;
        try (InputStream in = Files.newInputStream(file)) {
            size = chunkers.get().chunk(in, (buf, off, len) -> {
                if (stop.getAsBoolean()) {
                    throw new InterruptedIOException("stopped while '" + file + "' was being read");
                }
                digest.update(buf, off, len);
                chunks.accept(buf, off, len);
                read.accept(len);
            });
        } catch (IOException | RuntimeException e) {
            chunks.abandon();
            throw e;
        }
        List<String> ids = new ArrayList<>();
        long added = 0;
        for (ChunkAdder.Added a : chunks.results()) {
            ids.add(a.id().hex());
            // Only a whole chunk is added, so the bytes it adds are its plain length.
            added += a.added() ? a.length() : 0;
        }
        return new Stored(Sha256.hex(digest), ids, size, added);
    }

    @Override
    public void flush() {
        blobs.flush();
    }

    @Override
    public void beforeIndexing(Runnable check) {
        blobs.beforeIndexing(check);
    }

    @Override
    public AutoCloseable readAhead(List<List<String>> files) {
        PackedPrefetch started = new PackedPrefetch(blobs, files);
        prefetch = started;
        return () -> {
            prefetch = null;
            started.close();
        };
    }

    @Override
    public long bytesUploaded() {
        return blobs.dataBytesUploaded();
    }

    @Override
    public long bytesStored() {
        return blobs.packBytesUploaded();
    }

    @Override
    public int indexLeftBehind() {
        CheckReport r = blobs.rebuildIndex();
        return r.packsChecked() - r.damage().size();
    }

    @Override
    public boolean holdsAll(List<String> chunks) {
        for (String c : chunks) {
            if (!blobs.has(BlobId.parse(c))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean readableAll(List<String> chunks) {
        for (String c : chunks) {
            if (blobs.findReadable(BlobId.parse(c)).isEmpty()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public java.util.Set<String> packsOf(List<String> chunks) {
        java.util.Set<String> packs = new java.util.TreeSet<>();
        for (String c : chunks) {
            blobs.findReadable(BlobId.parse(c)).ifPresent(at -> packs.add(at.pack()));
        }
        return packs;
    }

    @Override
    public java.util.Set<String> unindexedPacksRead() {
        return blobs.unindexedPacksRead();
    }

    @Override
    public java.util.Set<String> unindexedPacksUnreadable() {
        return blobs.unindexedPacksUnreadable();
    }

    @Override
    public java.util.Set<String> packsReadAround() {
        return blobs.packsReadAround();
    }

    @Override
    public @Nullable StoredAt storedAt(List<String> chunks) {
        if (chunks.isEmpty()) {
            return null;
        }
        return blobs.findReadable(BlobId.parse(chunks.get(0)))
                .map(at -> new StoredAt(at.pack(), at.offset()))
                .orElse(null);
    }

    @Override
    public boolean indexedAll(List<String> chunks) {
        for (String c : chunks) {
            if (blobs.find(BlobId.parse(c)).isEmpty()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public InputStream open(List<String> chunks) {
        List<BlobId> ids = new ArrayList<>(chunks.size());
        chunks.forEach(c -> ids.add(BlobId.parse(c)));
        return new ChunkStream(ids);
    }

    @Override
    public long writeTo(List<String> chunks, ChunkSink sink) throws IOException {
        return ChunkPlacement.write(blobs, prefetch, chunks, sink);
    }

    /** An IOException of {@link BlobRepository#readAll} carried out of a batch's task, thrown again as it was. */
    private static final class SinkFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        SinkFailure(IOException cause) {
            super(cause);
        }

        @Override
        public synchronized IOException getCause() {
            return (IOException) super.getCause();
        }
    }

    /** Chunks of one batch, in the order the file lists them ({@code order} may name a chunk twice). */
    private record Batch(List<BlobId> order, Map<BlobId, byte[]> chunks, boolean last) {}

    @Override
    public Pruned prune(Set<String> live, Instant cutoff, MaxUnused maxUnused) {
        Set<BlobId> ids = new HashSet<>();
        live.forEach(c -> ids.add(BlobId.parse(c)));
        return Pruned.of(blobs.prune(ids, p -> p.lastModified().isAfter(cutoff), maxUnused));
    }

    @Override
    public void close() {
        batchExecutor.shutdown();
        adder.close();
        blobs.close();
    }

    /**
     * A file's chunks in order, read a batch at a time with {@link BlobRepository#readAll}, the next
     * batch read (and its chunks opened, on the repository's read threads) while this one is consumed.
     */
    private final class ChunkStream extends InputStream {
        private final List<BlobId> ids;
        /** The first chunk of {@link #ids} no batch has planned yet; touched only by batch tasks, one at a time. */
        private int next;

        private @Nullable CompletableFuture<Batch> ahead;
        private @Nullable Batch batch;
        private int inBatch;
        private byte[] current = new byte[0];
        private int pos;

        ChunkStream(List<BlobId> ids) {
            this.ids = ids;
        }

        /** Whether a chunk with bytes left is current; reads the next batch when needed. */
        private boolean advance() throws IOException {
            while (pos >= current.length) {
                if (batch != null && inBatch < batch.order.size()) {
                    current = batch.chunks.get(batch.order.get(inBatch++));
                    pos = 0;
                    continue;
                }
                if (batch != null && batch.last) {
                    return false;
                }
                if (ids.isEmpty()) {
                    return false;
                }
                CompletableFuture<Batch> f = ahead;
                if (f == null) {
                    // the first batch on this thread: a small file's only batch costs no hand-over
                    f = CompletableFuture.completedFuture(readHere());
                }
                batch = await(f);
                inBatch = 0;
                ahead = batch.last ? null : start(f);
            }
            return true;
        }

        /** Starts reading the batch after {@code previous} (its planning runs after that one's). */
        private CompletableFuture<Batch> start(CompletableFuture<Batch> previous) {
            return previous.thenApplyAsync(b -> readBatch(), batchExecutor);
        }

        /** {@link #readBatch} on this thread, its IOException thrown as it was. */
        private Batch readHere() throws IOException {
            try {
                return readBatch();
            } catch (SinkFailure e) {
                throw e.getCause();
            }
        }

        private Batch await(CompletableFuture<Batch> f) throws IOException {
            try {
                return f.join();
            } catch (java.util.concurrent.CompletionException e) {
                Throwable c = e.getCause();
                if (c instanceof SinkFailure u) {
                    throw u.getCause();
                }
                if (c instanceof RuntimeException r) {
                    throw r;
                }
                if (c instanceof Error err) {
                    throw err;
                }
                throw new IOException(c);
            }
        }

        private Batch readBatch() {
            Map<BlobId, byte[]> chunks = new ConcurrentHashMap<>();
            List<BlobId> order = new ArrayList<>();
            Set<BlobId> wanted = new LinkedHashSet<>();
            long bytes = 0;
            while (next < ids.size() && (order.isEmpty() || bytes < READ_BATCH_BYTES)) {
                BlobId id = ids.get(next);
                BlobLocation at = blobs.findReadable(id)
                        .orElseThrow(() -> new ObjectNotFoundException("chunk " + id, null, false, null));
                if (!order.isEmpty() && bytes + at.plainLength() > READ_BATCH_BYTES) {
                    break;
                }
                bytes += wanted.add(id) ? at.plainLength() : 0;
                order.add(id);
                next++;
            }
            PackedPrefetch prefetched = prefetch;
            if (prefetched != null) {
                for (java.util.Iterator<BlobId> it = wanted.iterator(); it.hasNext(); ) {
                    BlobId id = it.next();
                    byte[] plain = prefetched.take(id);
                    if (plain != null) {
                        chunks.put(id, plain);
                        it.remove();
                    }
                }
            }
            if (!wanted.isEmpty()) {
                try {
                    blobs.readAll(wanted, chunks::put);
                } catch (IOException e) {
                    throw new SinkFailure(e);
                }
            }
            return new Batch(order, chunks, next >= ids.size());
        }

        @Override
        public int read() throws IOException {
            if (!advance()) {
                return -1;
            }
            return current[pos++] & 0xFF;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            Objects.checkFromIndexSize(off, len, b.length);
            if (len == 0) {
                return 0;
            }
            int total = 0;
            while (total < len && advance()) {
                int n = Math.min(len - total, current.length - pos);
                System.arraycopy(current, pos, b, off + total, n);
                pos += n;
                total += n;
            }
            return total == 0 ? -1 : total;
        }
    }
}
