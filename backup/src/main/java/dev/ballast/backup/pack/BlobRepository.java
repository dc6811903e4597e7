package dev.ballast.backup.pack;

import dev.ballast.backup.keys.MasterKey;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.StorageException;
import dev.ballast.storage.object.ObjectStore;
import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The blobs of a repository of format 3: content-addressed, deduplicated, compressed with zstd where
 * it pays, sealed with the {@link MasterKey}, packed into pack files {@code data/<2 hex>/<64 hex>}
 * and found through index files {@code index/<64 hex>} (layouts in docs/backup-format.md).
 *
 * <p><b>Writing.</b> {@link #add} compresses and seals a blob and appends it to an open pack; a full
 * pack is uploaded in the background while later blobs fill the next one, at most
 * {@link PackOptions#packsInFlight()} full packs waiting (then {@code add} blocks its caller, so memory
 * stays bounded). {@link #flush} closes the open packs, waits for every upload and writes one index
 * file naming them: only after {@code flush} returns is a blob durable and findable by another
 * process. The write order is packs, then the index naming them, then (the engine's part) the
 * manifest naming the blobs: a crash leaves at most packs no index names, which {@link #prune}
 * removes once they are older than the caller's grace period.
 *
 * <p><b>Reading.</b> {@link #read} fetches one blob with a ranged GET; {@link #readAll} reads many,
 * grouped by pack, several packs at once. Every blob read is opened (AES-256-GCM), decompressed and its
 * {@link MasterKey#id} compared with its ID: bytes that fail any step are never returned; an
 * {@link IntegrityException} names the pack and the blob.
 *
 * <p>Thread-safe: {@code add}, {@code has}, {@code read} and {@code readAll} may be called from any
 * number of threads at once; {@code flush}, {@code prune} and {@code check} wait for running
 * {@code add}s and hold later ones back while they run.
 */
public final class BlobRepository implements AutoCloseable {
    /** The prefix of pack keys. */
    public static final String DATA_PREFIX = "data/";
    /** The prefix of index file keys. */
    public static final String INDEX_PREFIX = "index/";

    private BlobRepository() {}

    /**
     * Opens the repository in {@code store}: reads and opens every {@code index/*} object.
     *
     * @throws IntegrityException naming the index file, if one does not open, decompress or parse
     *     (unless {@link PackOptions#tolerateDamagedIndex()})
     * @throws StorageException if the store fails
     */
    public static BlobRepository open(ObjectStore store, MasterKey key, PackOptions options) {
        throw new UnsupportedOperationException("skeleton");
    }

    /** {@link #open(ObjectStore, MasterKey, PackOptions)} with {@link PackOptions#defaults()}. */
    public static BlobRepository open(ObjectStore store, MasterKey key) {
        return open(store, key, PackOptions.defaults());
    }

    /** The ID of {@code plain[offset, offset + length)} in this repository ({@link MasterKey#id}). */
    public BlobId id(byte[] plain, int offset, int length) {
        throw new UnsupportedOperationException("skeleton");
    }

    /**
     * Whether the blob is stored or being stored: named by an index file, or added to this repository
     * since it was opened (by any thread; durable after the next {@link #flush}).
     */
    public boolean has(BlobId id) {
        throw new UnsupportedOperationException("skeleton");
    }

    /**
     * Stores {@code plain[offset, offset + length)} as the blob {@code id}, unless it is already known
     * ({@link #has}). The bytes are compressed (zstd at {@link PackOptions#compressionLevel()}) when that
     * saves more than 1/32 of them, else stored as they are; then sealed and appended to an open pack.
     * The caller may reuse {@code plain} once this returns. Blocks while
     * {@link PackOptions#packsInFlight()} full packs wait for upload.
     *
     * @param id the blob's ID: must be {@link #id} of the bytes (not checked here; every read checks it)
     * @return true if the blob was added; false if it was known already (dedup, including a blob another
     *     thread added or is adding)
     * @throws StorageException if an earlier pack of this repository failed to upload (every later
     *     {@code add} and {@code flush} throws it too: the run must stop)
     * @throws IllegalStateException if the repository is closed
     */
    public boolean add(BlobType type, BlobId id, byte[] plain, int offset, int length) {
        throw new UnsupportedOperationException("skeleton");
    }

    /**
     * Closes the open packs, waits for every upload and writes one new index file naming every blob
     * added since the last flush (nothing when there is none). When it returns, each of those blobs is
     * durable and findable by any process that opens the repository.
     *
     * @throws StorageException if a pack or the index file could not be written (the blobs of the packs
     *     that failed are then not known: a later {@code add} stores them again)
     */
    public void flush() {
        throw new UnsupportedOperationException("skeleton");
    }

    /** Where the index says the blob is; empty if no index names it (or it is not flushed yet). */
    public Optional<BlobLocation> find(BlobId id) {
        throw new UnsupportedOperationException("skeleton");
    }

    /**
     * The plain bytes of a blob: a ranged GET of its stored bytes, opened, decompressed and matched
     * against its ID.
     *
     * @throws ObjectNotFoundException naming the blob, if no index names it, or naming the pack, if
     *     the pack is missing
     * @throws IntegrityException naming the pack (its {@link IntegrityException#key()}) and the blob, if the
     *     bytes do not open, do not decompress to the indexed length, or do not match the ID
     * @throws StorageException if the store fails
     */
    public byte[] read(BlobId id) {
        throw new UnsupportedOperationException("skeleton");
    }

    /**
     * Reads every blob of {@code ids} (each distinct ID once) and hands it to {@code sink}: grouped by
     * pack, a pack read whole or in the ranges covering the wanted blobs (one GET per range), up to
     * {@link PackOptions#readThreads()} packs at once. The sink is called from those threads. Stops at
     * the first failure: IDs no index names are refused before anything is read.
     *
     * @throws ObjectNotFoundException naming the blobs, if an ID is not in the index
     * @throws IntegrityException naming the pack and blob, as {@link #read}
     * @throws IOException from {@code sink}
     * @throws StorageException if the store fails
     */
    public void readAll(Collection<BlobId> ids, BlobSink sink) throws IOException {
        throw new UnsupportedOperationException("skeleton");
    }

    /**
     * Removes what no live blob needs. First {@link #flush}es; then reads the index files again (so
     * blobs other processes indexed meanwhile count) and lists {@code data/}. A pack that {@code keep}
     * accepts is never touched (the caller's grace period: packs of runs that may be about to index
     * them, or may have deduplicated against them). Of the others: a pack that holds no blob of
     * {@code live}, or no index names, is deleted; a pack whose dead blobs are more than 20 % of its
     * bytes is repacked (its live blobs read, checked, and written into new packs). The order makes a
     * crash at any point lose nothing live: new packs, then one new index file naming every blob kept,
     * then the index files it replaces are deleted, then the packs no longer named. Deleting an object
     * removes all its versions.
     *
     * @param live every blob some backup needs
     * @param keep packs not to touch
     * @throws IllegalStateException if the repository was opened tolerating a damaged index file and
     *     one is damaged (a blob it names would look dead)
     * @throws IntegrityException naming the pack and blob, if a live blob to be repacked is damaged
     *     (nothing is deleted then)
     * @throws StorageException if the store fails (what was done so far is safe)
     */
    public PruneStats prune(Set<BlobId> live, Predicate<PackFile> keep) {
        throw new UnsupportedOperationException("skeleton");
    }

    /**
     * Checks the repository: every indexed pack exists with the size the index implies; each pack
     * {@code readData} accepts is read whole, its header opened and matched against the index, and
     * every blob in it opened, decompressed and matched against its ID. Damage is reported as values,
     * not thrown; index files skipped as damaged at {@code open} are reported too.
     *
     * @param readData which packs (by key) to read; {@code k -> true} for all, {@code k -> false} for a
     *     listing-only check
     * @throws StorageException if the store fails (not for a missing or damaged object: that is damage)
     */
    public CheckReport check(Predicate<String> readData) {
        throw new UnsupportedOperationException("skeleton");
    }

    /**
     * Reads the header of every pack in the store that no (undamaged) index file names and writes one
     * index file naming their blobs: what makes a store whose index files were lost or damaged
     * readable again, and keeps the packs of a killed first run (whose index was never written) for
     * the next run to deduplicate against. Packs whose header does not open are left and reported.
     *
     * @return the packs indexed and the packs whose header was damaged
     * @throws StorageException if the store fails
     */
    public CheckReport rebuildIndex() {
        throw new UnsupportedOperationException("skeleton");
    }

    /** Index files that did not open at {@code open} (only with {@link PackOptions#tolerateDamagedIndex()}). */
    public List<CheckReport.Damage> damagedIndexFiles() {
        throw new UnsupportedOperationException("skeleton");
    }

    /** What the index names now (flushed blobs only). */
    public RepositoryStats stats() {
        throw new UnsupportedOperationException("skeleton");
    }

    /**
     * Stops the repository's own threads after the uploads already started end. Blobs added since the
     * last {@link #flush} are not indexed (their uploaded packs are garbage for {@link #prune}): call
     * {@code flush} first to keep them. Idempotent.
     */
    @Override
    public void close() {
        throw new UnsupportedOperationException("skeleton");
    }
}
