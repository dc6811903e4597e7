package dev.ballast.backup.content;

import dev.ballast.backup.pack.BlobRepository;
import dev.ballast.backup.pack.MaxUnused;
import dev.ballast.backup.pack.PruneStats;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;
import org.jspecify.annotations.Nullable;

/**
 * Where the files of a repository of format 3 keep their content: cut into content-defined chunks,
 * each stored once as a sealed blob in a pack (docs/backup-format.md). What the backup, restore,
 * verify and prune of the engine ask of the blob repository, and nothing more.
 *
 * <p>Thread-safe: files are stored and read from several transfer threads at once.
 */
public interface PackedContent extends AutoCloseable {

    /**
     * One file stored.
     *
     * @param sha256 lowercase hex SHA-256 of the bytes read (the same pass that cut the chunks)
     * @param chunks the IDs of its chunks in order, 64 lowercase hex digits each; empty for an empty file
     * @param size how many bytes were read
     * @param bytesAdded plain bytes of the chunks that were new to the repository (what dedup did not find)
     */
    record Stored(String sha256, List<String> chunks, long size, long bytesAdded) {
        public Stored {
            chunks = List.copyOf(chunks);
        }
    }

    /**
     * Reads {@code file} once: cuts it into chunks, adds each chunk not yet in the repository, and
     * hashes the bytes with SHA-256.
     *
     * @param read told each number of bytes read
     * @param stop checked between chunks: when true, the file is abandoned with an
     *     {@link java.io.InterruptedIOException}
     * @throws IOException if the file cannot be read
     * @throws dev.ballast.storage.StorageException if a full pack cannot be stored
     */
    Stored store(Path file, LongConsumer read, BooleanSupplier stop) throws IOException;

    /**
     * Uploads every pack not yet stored and writes the index file naming them; after it returns,
     * every chunk {@link #store} returned is durable and found by the repository's index. Called
     * before a manifest referencing them is written.
     *
     * @throws dev.ballast.storage.StorageException if the store fails
     */
    void flush();

    /**
     * Has every later {@link #flush} run {@code check} after its packs were uploaded and before it writes
     * the index file naming them ({@link dev.ballast.backup.pack.BlobRepository#beforeIndexing}): when it
     * throws, nothing is indexed and the flush throws it. Nothing is checked by default.
     */
    default void beforeIndexing(Runnable check) {}

    /**
     * The content itself, opened: this one, or for content still being opened ({@link PendingContent})
     * the content once its opening ended (waiting for it; its failure thrown as itself). What a caller
     * asks before it looks for the blob repository under the content.
     */
    default PackedContent opened() {
        return this;
    }

    /**
     * Indexes the packs in the store that no index file names (what a run killed before its flush
     * left), so that their chunks are found and not stored again: how a killed backup is resumed.
     * Packs whose header does not open are left alone.
     *
     * @return how many packs were indexed
     * @throws dev.ballast.storage.StorageException if the store fails
     */
    int indexLeftBehind();

    /**
     * Plain bytes of the chunks stored in the packs uploaded since this content was opened, whether an
     * index names them yet or not: what a backup really sent (a stopped run's chunks are reused by the
     * next run). 0 where nothing tells.
     */
    default long bytesUploaded() {
        return 0;
    }

    /**
     * Bytes of the packs uploaded since this content was opened, as the store holds them: the chunks of
     * {@link #bytesUploaded} compressed and encrypted, with the packs' headers. 0 where nothing tells.
     */
    default long bytesStored() {
        return 0;
    }

    /** Whether the repository's index holds every one of {@code chunks}. */
    boolean holdsAll(List<String> chunks);

    /**
     * Whether every one of {@code chunks} can be read: {@link #holdsAll}, or found in a pack in the store
     * that no index file names (a lost index file), from that pack's header. For reads (restore, verify);
     * a backup deduplicates only against {@link #holdsAll}.
     *
     * @throws dev.ballast.storage.StorageException if the store fails
     */
    default boolean readableAll(List<String> chunks) {
        return holdsAll(chunks);
    }

    /**
     * The packs the chunks {@code chunks} would be read from ({@link #readableAll}); null where that is
     * not known. Says nothing of whether the store still holds them.
     *
     * @throws dev.ballast.storage.StorageException if the store fails
     */
    default @Nullable Set<String> packsOf(List<String> chunks) {
        return null;
    }

    /**
     * The packs no index file names from which this content's reads took a chunk since it was opened (see
     * {@link #readableAll}), in key order; empty when every chunk read was indexed.
     */
    default java.util.Set<String> unindexedPacksRead() {
        return java.util.Set.of();
    }

    /**
     * The packs no index file names whose header did not open when a read looked in them for a chunk no
     * index names ({@link #readableAll}), in key order: such a chunk may be in one of them.
     */
    default java.util.Set<String> unindexedPacksUnreadable() {
        return java.util.Set.of();
    }

    /**
     * The packs in which a chunk this content's reads wanted did not open, and was read from another copy
     * instead, in key order: damage to drop ({@code ballast repair packs}).
     */
    default java.util.Set<String> packsReadAround() {
        return java.util.Set.of();
    }

    /**
     * Whether every one of {@code chunks} is durable: named by an index file read at open or written by
     * a {@link #flush} that returned. Unlike {@link #holdsAll}, a chunk only added by this process (in an
     * open pack, in upload, or in a pack whose upload or index write failed) does not count.
     */
    boolean indexedAll(List<String> chunks);

    /**
     * The bytes of {@code chunks} in order, read from the store (never a cache), the chunks of each
     * pack read together and packs in parallel, every chunk checked against its ID as it is opened.
     * The stream throws {@link dev.ballast.storage.IntegrityException} (an unchecked exception)
     * naming the pack and the chunk when one is damaged, {@link dev.ballast.storage.ObjectNotFoundException}
     * when one is not in the index or its pack is gone.
     */
    InputStream open(List<String> chunks);

    /**
     * Hands the bytes of {@code chunks} to {@code sink}, each chunk with its position in the file they
     * make (the sum of the lengths of the chunks before it): the same bytes {@link #open} streams,
     * read from the store and checked against their IDs the same way, but without the stream's
     * arrays and copies, and in no particular order (several chunks at once, from the read threads).
     * A chunk listed twice is read once and handed on at each of its positions. Takes what
     * {@link #readAhead} read.
     *
     * @return the length of the file, bytes
     * @throws dev.ballast.storage.IntegrityException naming the pack and the chunk, when one is damaged
     *     (other chunks may have been handed on already: the caller drops what it wrote)
     * @throws dev.ballast.storage.ObjectNotFoundException when a chunk is not in the index or its pack
     *     is gone (before anything is handed on, for the index)
     * @throws IOException from {@code sink}
     */
    default long writeTo(List<String> chunks, ChunkSink sink) throws IOException {
        // What an implementation without a faster way does: the stream's bytes in order, 1 MiB at a time.
        byte[] buffer = new byte[1024 * 1024];
        long position = 0;
        try (InputStream in = open(chunks)) {
            int n;
            while ((n = in.readNBytes(buffer, 0, buffer.length)) > 0) {
                sink.accept(position, buffer, n);
                position += n;
            }
        }
        return position;
    }

    /** Where {@link #writeTo} hands a file's chunks. */
    @FunctionalInterface
    interface ChunkSink {
        /**
         * The chunk whose plain bytes are {@code plain[0, length)} goes at {@code position} of the file.
         * The array is valid only during the call (the reading thread reuses it). Called from several
         * threads at once: implementations must be thread-safe.
         *
         * @throws IOException to stop (rethrown by {@code writeTo})
         */
        void accept(long position, byte[] plain, int length) throws IOException;
    }

    /**
     * Starts reading ahead the chunks of the small files among {@code files} (each a file's chunk IDs,
     * in the order they will be {@link #open}ed), many files' chunks per read; {@link #open} then
     * takes them from what was read ahead. Closing the handle stops it and drops what was not taken.
     * A restore of many small files costs a few reads per pack instead of one per file.
     */
    AutoCloseable readAhead(List<List<String>> files);

    /**
     * Where the first of {@code chunks} is stored, as a key to sort files by: files whose keys sort
     * together have their chunks side by side in a pack (a backup stores files in the order its walk
     * met them, which is not the manifest's order by path). A restore that writes its files in this
     * order reads each stretch of a pack once; in the manifest's order, every read ahead of a few
     * megabytes of small files touched stretches of several packs of which it wanted a part, and the
     * same bytes were fetched two to three times. Null for no chunks or a chunk the index lacks.
     */
    @Nullable
    StoredAt storedAt(List<String> chunks);

    /**
     * A file's place in the repository: the pack holding its first chunk and that chunk's offset.
     * Ordered by pack, then offset.
     */
    record StoredAt(String pack, long offset) implements Comparable<StoredAt> {
        @Override
        public int compareTo(StoredAt o) {
            int c = pack.compareTo(o.pack);
            return c != 0 ? c : Long.compare(offset, o.offset);
        }
    }

    /**
     * Deletes the packs whose every chunk is dead and repacks those holding unused chunks until the
     * unused space left is within {@code maxUnused} ({@link BlobRepository#prune}), never touching a
     * pack written after {@code cutoff}.
     *
     * @param live the chunk IDs (64 lowercase hex digits) some manifest references
     * @param maxUnused the unused space the packs may keep
     * @return what was freed
     * @throws dev.ballast.storage.IntegrityException if a live chunk to be copied is damaged (nothing is
     *     deleted then)
     */
    Pruned prune(Set<String> live, Instant cutoff, MaxUnused maxUnused);

    /**
     * What a prune of the packs did.
     *
     * @param packsDeleted packs deleted (repacked ones included)
     * @param packsWritten packs written by repacking
     * @param bytesFreed stored bytes of the deleted packs, minus those written
     * @param liveMissing chunks some manifest references that no index names (those backups are damaged)
     * @param packsKeptYoung packs written after the cutoff that would otherwise have been deleted or repacked
     * @param unusedBytesLeft stored bytes of the chunks no snapshot needs left in the packs
     *     ({@link PruneStats#unusedBytesLeft()})
     * @param storedBytesLeft stored bytes of every chunk in the packs after the prune, of which
     *     {@code unusedBytesLeft} is a share ({@link PruneStats#storedBytesLeft()})
     */
    record Pruned(
            int packsDeleted,
            int packsWritten,
            long bytesFreed,
            long liveMissing,
            int packsKeptYoung,
            long unusedBytesLeft,
            long storedBytesLeft) {
        /** Nothing done: the prune was not attempted. */
        public static final Pruned NONE = new Pruned(0, 0, 0, 0, 0, 0, 0);

        /** What {@link BlobRepository#prune} (or {@link BlobRepository#planPrune}) said, as chunks and packs. */
        public static Pruned of(PruneStats s) {
            return new Pruned(
                    s.packsDeleted() + s.packsRepacked(),
                    s.packsWritten(),
                    s.bytesFreed(),
                    s.liveMissing(),
                    s.packsKeptYoung(),
                    s.unusedBytesLeft(),
                    s.storedBytesLeft());
        }
    }

    /** Releases what the repository holds (threads, buffers); nothing pending is flushed. */
    @Override
    void close();
}
