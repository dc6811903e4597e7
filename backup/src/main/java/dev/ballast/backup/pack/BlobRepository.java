package dev.ballast.backup.pack;

import dev.ballast.backup.keys.MasterKey;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.StorageException;
import dev.ballast.storage.object.ListEntry;
import dev.ballast.storage.object.ObjectStore;
import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.ReentrantReadWriteLock;
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
 * number of threads at once; {@code flush}, {@code prune}, {@code planPrune}, {@code check},
 * {@code rebuildIndex} and {@code repair} wait for running {@code add}s and hold later ones back while
 * they run. {@code repair} reads the index into memory again (twice when it changed the store): a {@code read}
 * running at that moment in the same process may not find its blob, so repair while nothing reads.
 *
 * <p>This class holds the public entry points and the lock; the work is in package-private classes:
 * the in-memory index and where a blob is read ({@link IndexState}), reading it at open ({@link
 * IndexLoad}), writing index files ({@link IndexWrite}), packs written and read ({@link PackWriter},
 * {@link PackReader}, {@link ReadableCopies}), the threads ({@link PackThreads}), and the maintenance:
 * prune ({@link Repack}), check and rebuild ({@link PackCheck}), repair ({@link Salvage}).
 */
public final class BlobRepository implements AutoCloseable {
    /** The prefix of pack keys. */
    public static final String DATA_PREFIX = "data/";
    /** The prefix of index file keys. */
    public static final String INDEX_PREFIX = "index/";

    final ObjectStore store;
    final MasterKey key;
    final PackOptions options;
    final PackReader reader;

    /** What the index names, and what is missing or lost: read at open, kept up to date since. */
    final IndexState state = new IndexState(this);
    /**
     * Where else blobs can be read: the other packs the index names them in, and the packs no index file
     * names (looked at only when a read misses the index; never used to deduplicate).
     */
    final ReadableCopies readable = new ReadableCopies(this);

    final ReentrantReadWriteLock gate = new ReentrantReadWriteLock();
    private final PackWriter writer;

    private final PackThreads threads;
    final Executor uploadExecutor;
    final Executor readExecutor;
    private volatile boolean closed;
    /** Run before a flush writes an index file ({@link #beforeIndexing}); nothing by default. */
    private volatile Runnable beforeIndexing = () -> {};

    private BlobRepository(ObjectStore store, MasterKey key, PackOptions options) {
        this.store = store;
        this.key = key;
        this.options = options;
        this.reader = new PackReader(store, key, state::dataEnd, readable::fromOtherCopy);
        this.threads = new PackThreads(options);
        uploadExecutor = threads.upload;
        readExecutor = threads.read;
        this.writer = new PackWriter(store, key, options, uploadExecutor, threads.encoder);
    }

    /**
     * Opens the repository in {@code store}: reads and opens every {@code index/*} object, then lists
     * {@code data/} once: the blobs of a pack the index names but the store lacks are absent
     * ({@link #missingPacks()}), so a backup stores them again rather than naming a lost blob. When an
     * index file is damaged (and tolerated), the packs no intact index file names are found from their
     * headers.
     *
     * @throws IntegrityException naming the index file, if one does not open, decompress or parse
     *     (only when {@link PackOptions#tolerateDamagedIndex()} is false)
     * @throws StorageException if the store fails
     */
    public static BlobRepository open(ObjectStore store, MasterKey key, PackOptions options) {
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(options, "options");
        BlobRepository repo = new BlobRepository(store, key, options);
        try {
            repo.loadIndex(options.tolerateDamagedIndex());
        } catch (RuntimeException e) {
            repo.close();
            throw e;
        }
        return repo;
    }

    /** {@link #open(ObjectStore, MasterKey, PackOptions)} with {@link PackOptions#defaults()}. */
    public static BlobRepository open(ObjectStore store, MasterKey key) {
        return open(store, key, PackOptions.defaults());
    }

    private void loadIndex(boolean tolerateDamaged) {
        IndexLoad.load(this, tolerateDamaged);
    }

    /** Clears what was read at open and reads the index files and the listing again. */
    void reloadIndex(boolean tolerateDamaged) {
        IndexLoad.reload(this, tolerateDamaged);
    }

    /** The packs in the store ({@code data/}), by key: one listing. */
    Map<String, ListEntry> listPacks() {
        return IndexLoad.listPacks(this);
    }

    /** The blobs an index file names, checked: its name, its seal, its JSON. */
    Map<String, List<BlobLocation>> readIndexFile(String file) {
        return IndexLoad.readIndexFile(this, file);
    }

    /**
     * The packs in which a blob a read wanted did not open (twice) and was then read from another copy
     * (another pack the index names it in, or one no index file names), in key order: damage that
     * {@code ballast repair packs} ({@link #repair}) drops. Empty for most reads.
     */
    public Set<String> packsReadAround() {
        return readable.packsReadAround();
    }

    /** Every place the index names {@code id} in: the first ({@link #find}), then the others; empty if none. */
    public List<BlobLocation> locations(BlobId id) {
        return readable.locations(id);
    }

    /** The ID of {@code plain[offset, offset + length)} in this repository ({@link MasterKey#id}). */
    public BlobId id(byte[] plain, int offset, int length) {
        return BlobId.compute(key, plain, offset, length);
    }

    /**
     * Whether the blob is stored or being stored: named by an index file, or added to this repository
     * since it was opened (by any thread; durable after the next {@link #flush}).
     */
    public boolean has(BlobId id) {
        return state.index.containsKey(id) || writer.pending(id);
    }

    /**
     * Stores {@code plain[offset, offset + length)} as the blob {@code id}, unless it is already known
     * ({@link #has}). The bytes are compressed (zstd at {@link PackOptions#compressionLevel()}) when that
     * saves more than 1/32 of them, else stored as they are; then sealed and appended to an open pack.
     * With the repository's own threads (no {@link PackOptions#executor()}) that work runs on a pool of
     * one thread per core, on a copy of the bytes (at most 32 MiB of them waiting), for blobs of 256 KiB
     * and more; smaller blobs, and every blob with an executor given, on the caller's thread. Either way the caller may reuse {@code plain} once this returns.
     * Blocks while {@link PackOptions#packsInFlight()} full packs wait for upload. A failure to compress
     * or seal on the pool is thrown by the next {@code add} or {@link #flush}, as an upload failure.
     *
     * @param id the blob's ID: must be {@link #id} of the bytes (not checked here; every read checks it)
     * @return true if the blob was added; false if it was known already (dedup, including a blob another
     *     thread added or is adding)
     * @throws StorageException if an earlier pack of this repository failed to upload (every later
     *     {@code add} and {@code flush} throws it too: the run must stop)
     * @throws IllegalStateException if the repository is closed
     */
    public boolean add(BlobType type, BlobId id, byte[] plain, int offset, int length) {
        return add(type, id, plain, offset, length, lane());
    }

    /**
     * The open pack the calling thread's blobs of 256 KiB and more go to, one of a few (a lane): a
     * thread that adds a file's chunks on behalf of another (hashing them elsewhere) passes the
     * reading thread's lane to {@link #add(BlobType, BlobId, byte[], int, int, int)}, so that the
     * chunks of one file still lie side by side in its packs.
     *
     * @return a lane number, from 1 to a small bound; stable for the calling thread
     */
    public int lane() {
        return writer.threadLane();
    }

    /**
     * {@link #add(BlobType, BlobId, byte[], int, int)}, a blob of 256 KiB or more going to the open
     * pack of {@code lane} (a value {@link #lane()} returned) instead of the calling thread's.
     */
    public boolean add(BlobType type, BlobId id, byte[] plain, int offset, int length, int lane) {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(id, "id");
        Objects.checkFromIndexSize(offset, length, plain.length);
        gate.readLock().lock();
        try {
            ensureOpen();
            writer.throwIfFailed();
            if (state.index.containsKey(id) || !writer.claim(id)) {
                return false;
            }
            writer.appendLater(type, id, plain, offset, length, lane);
            if (state.lost.containsKey(id)) {
                state.storedAgain.add(id);
            }
            return true;
        } finally {
            gate.readLock().unlock();
        }
    }

    void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("the blob repository is closed");
        }
    }

    /**
     * Closes the open packs, waits for every upload and writes one new index file naming every blob
     * added since the last flush (nothing when there is none). When it returns, each of those blobs is
     * durable and findable by any process that opens the repository.
     *
     * @throws StorageException if a pack could not be uploaded (this and every later {@code add} and
     *     {@code flush} throw it: the run must stop; a repository opened anew stores those blobs again),
     *     or the index file could not be written (a later {@code flush} writes it)
     */
    public void flush() {
        gate.writeLock().lock();
        try {
            ensureOpen();
            flushLocked();
        } finally {
            gate.writeLock().unlock();
        }
    }

    /**
     * Runs {@code check} in every later {@link #flush} after the packs were uploaded and before the index
     * file naming them is written, and again once it is written; when it throws, no index file is written
     * (or the one written is deleted again), the flush throws what it threw, and the blobs of those packs
     * stay unindexed (never found, so never deduplicated against or
     * referenced). A backup passes a look at its run marker: a prune that took the run for dead while it
     * was paused may have deleted the packs it had uploaded, and an index file naming them made every
     * later {@code check} report them missing and every prune refuse (a fault tester's). Set once,
     * before the flush; thread-safe.
     */
    public void beforeIndexing(Runnable check) {
        this.beforeIndexing = Objects.requireNonNull(check, "check");
    }

    void flushLocked() {
        Map<String, List<BlobLocation>> batch = writer.drain();
        if (batch.isEmpty()) {
            return;
        }
        beforeIndexing.run();
        List<String> written = IndexWrite.write(this, batch);
        try {
            // again once written: a prune that took the run for dead between the look and the write (a fault
            // tester's pause there) deleted what the index files just written name
            beforeIndexing.run();
        } catch (RuntimeException dead) {
            withdraw(written);
            throw dead;
        }
        batch.forEach(state::register);
        writer.committed(batch);
    }

    /**
     * Deletes every version of the index files {@code keys}, just written by a flush whose check then
     * failed ({@link #beforeIndexing}), and forgets them; what cannot be deleted stays (a later {@code
     * check} names its missing packs, {@code repair index} rewrites it).
     */
    private void withdraw(List<String> keys) {
        for (String k : keys) {
            try {
                for (var v : store.versions(k)) {
                    store.deleteVersion(k, v.versionId());
                }
                state.indexFiles.remove(k);
            } catch (RuntimeException e) {
                // left; the flush still fails with the check's reason
            }
        }
    }

    /**
     * Plain bytes of the data blobs (file content) in the packs uploaded since the repository was
     * opened, indexed or not yet: what a backup really sent, also when it was stopped before its
     * files were done.
     */
    public long dataBytesUploaded() {
        return writer.dataBytesUploaded();
    }

    /**
     * Bytes of the packs uploaded since the repository was opened, as the store holds them (compressed,
     * encrypted, with their headers), indexed or not yet.
     */
    public long packBytesUploaded() {
        return writer.packBytesUploaded();
    }

    /** Where the index says the blob is; empty if no index names it (or it is not flushed yet). */
    public Optional<BlobLocation> find(BlobId id) {
        return Optional.ofNullable(state.index.get(id));
    }

    /**
     * The plain bytes of a blob: a ranged GET of its stored bytes, opened, decompressed and matched
     * against its ID. Found where {@link #findReadable} finds it.
     *
     * @throws ObjectNotFoundException naming the blob, if no index names it and no pack in the store no
     *     index names holds it, or naming the pack, if the pack is missing
     * @throws IntegrityException naming the pack (its {@link IntegrityException#key()}) and the blob, if the
     *     bytes do not open, do not decompress to the indexed length, or do not match the ID, or if the blob
     *     lies past the end of a pack the listing at open found cut short
     * @throws StorageException if the store fails
     */
    public byte[] read(BlobId id) {
        BlobLocation at = state.locate(id);
        try {
            return reader.read(at);
        } catch (IntegrityException damaged) {
            IntegrityException.rethrowIfInStoreIndex(damaged); // the store's index, not what was read
            return readable.fromOtherCopy(at, damaged);
        }
    }

    /**
     * Where the blob can be read: where the index says ({@link #find}), or else in a pack in the store
     * that no index file names, as that pack's own header says (a lost index file leaves its packs
     * readable this way). The first lookup that misses the index lists {@code data/} and reads the header
     * of each pack no index file names, once per open; the packs a blob was found in are
     * {@link #unindexedPacksRead()}. For reads only: what is found this way is never used to deduplicate.
     *
     * @throws dev.ballast.storage.StorageException if the store fails during that search
     */
    public Optional<BlobLocation> findReadable(BlobId id) {
        return readable.findReadable(id);
    }

    /**
     * The packs in the store that no index file names from which {@link #findReadable} (and so
     * {@link #read}, {@link #readAll}) took a blob since open, in key order: an index file is missing,
     * and {@code ballast repair index} ({@link #rebuildIndex}) writes them into the index again.
     */
    public Set<String> unindexedPacksRead() {
        return readable.unindexedPacksRead();
    }

    /**
     * The packs in the store that no index file names whose header did not open when a lookup that
     * missed the index ({@link #findReadable}) read them, in key order: a blob no index names may be in
     * one of them. Empty until such a lookup.
     */
    public Set<String> unindexedPacksUnreadable() {
        return readable.unindexedPacksUnreadable();
    }

    /**
     * Reads every blob of {@code ids} (each distinct ID once) and hands it to {@code sink}: grouped by
     * pack, each pack in the ranges covering the wanted blobs (wanted blobs less than 1 MiB apart share
     * one GET), up to {@link PackOptions#readThreads()} GETs at once. The sink is called from those
     * threads. Stops at the first failure; IDs no index names are refused before anything is read.
     *
     * @throws ObjectNotFoundException naming the first blob not in the index
     * @throws IntegrityException naming the pack and blob, as {@link #read}
     * @throws IOException from {@code sink}
     * @throws StorageException if the store fails
     */
    public void readAll(Collection<BlobId> ids, BlobSink sink) throws IOException {
        Objects.requireNonNull(sink, "sink");
        Parallel.run(readExecutor, options.readThreads(), state.spansOf(ids), span -> reader.readSpan(span, sink));
    }

    /**
     * {@link #readAll}, each blob handed to {@code sink} in a buffer its read thread reuses for the
     * next ({@link BorrowedBlobSink}): for a caller that writes the bytes somewhere at once (a
     * restore), which then allocates nothing per blob. Same order of checks, same exceptions.
     */
    public void readAllBorrowed(Collection<BlobId> ids, BorrowedBlobSink sink) throws IOException {
        Objects.requireNonNull(sink, "sink");
        Parallel.run(
                readExecutor, options.readThreads(), state.spansOf(ids), span -> reader.readSpanBorrowed(span, sink));
    }

    /**
     * Removes what no live blob needs. First {@link #flush}es; then reads the index files again (so
     * blobs other processes indexed meanwhile count) and lists {@code data/}. A pack that {@code keep}
     * accepts is never touched (the caller's grace period: packs of runs that may be about to index
     * them, or may have deduplicated against them). Of the others: a pack that holds no blob of
     * {@code live}, or no index names, is deleted; of those holding live and unused blobs, the ones
     * with the most unused bytes are repacked first (their live blobs read, checked, and copied into
     * new packs; equal ones with the fewest live bytes first, then in key order) until the unused
     * bytes left in the packs, those {@code keep} accepts included, are within {@code maxUnused}, or
     * none is left. The order makes a crash at any point lose nothing live: new packs, then new index
     * files naming every blob kept, then the index files they replace are deleted, then the packs no
     * longer named. Deleting an object removes all its versions.
     *
     * @param live every blob some backup needs
     * @param keep packs not to touch
     * @param maxUnused the unused space the packs may keep ({@link MaxUnused#DEFAULT}: 5 %, restic's)
     * @return what was done, with the unused bytes left ({@link PruneStats#unusedBytesLeft()})
     * @throws IllegalStateException if the repository was opened tolerating a damaged index file and
     *     one is damaged (a blob it names would look dead)
     * @throws IntegrityException naming the pack and blob, if a live blob to be repacked is damaged
     *     (nothing is deleted then)
     * @throws PruneRefusedException before anything is written or deleted, if a pack no index names
     *     (whether {@code keep} keeps it or not) holds a blob of {@code live} that no index names: an index
     *     file is missing ({@link #rebuildIndex} indexes the pack again). Such packs are looked at only when
     *     some live blob is in no index; one whose header does not open is then kept. Where the index
     *     names a live blob in several packs, the copy kept is the first that opens (each is read).
     * @throws StorageException if the store fails (what was done so far is safe)
     */
    public PruneStats prune(Set<BlobId> live, Predicate<PackFile> keep, MaxUnused maxUnused) {
        Objects.requireNonNull(live, "live");
        Objects.requireNonNull(keep, "keep");
        Objects.requireNonNull(maxUnused, "maxUnused");
        return exclusively(() -> {
            flushLocked();
            return new Repack(this, false).prune(live, keep, maxUnused);
        });
    }

    /**
     * What {@link #prune} would do now, writing and deleting nothing (not even a flush): the packs it
     * would delete and repack, from the index files read again and one listing of {@code data/}. The
     * packs it would write and the bytes it would give back are estimated from the live blobs' stored
     * lengths (exact but for the new packs' headers); the unused and stored bytes left are exact;
     * {@code indexFilesReplaced} is 0.
     *
     * @throws IllegalStateException as {@link #prune}, if an index file is damaged
     * @throws PruneRefusedException as {@link #prune}
     * @throws StorageException if the store fails
     */
    public PruneStats planPrune(Set<BlobId> live, Predicate<PackFile> keep, MaxUnused maxUnused) {
        Objects.requireNonNull(live, "live");
        Objects.requireNonNull(keep, "keep");
        Objects.requireNonNull(maxUnused, "maxUnused");
        return exclusively(() -> new Repack(this, true).prune(live, keep, maxUnused));
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
        Objects.requireNonNull(readData, "readData");
        return exclusively(() -> new PackCheck(this).check(readData));
    }

    /**
     * Reads the header of every pack in the store that no (undamaged) index file names and writes
     * index files naming their blobs; then deletes the index files found damaged at {@code open}: what
     * makes a store whose index files were lost or damaged readable again, and keeps the packs of a
     * killed first run (whose index was never written) for the next run to deduplicate against. Packs
     * whose header does not open are left and reported as damage.
     *
     * @return {@code packsChecked}: the unindexed packs whose headers were read; {@code damage}: the
     *     packs whose header did not open; {@code unindexedPacks}: those still unindexed (the damaged)
     * @throws StorageException if the store fails
     */
    public CheckReport rebuildIndex() {
        return exclusively(() -> {
            flushLocked();
            return new PackCheck(this).rebuild();
        });
    }

    /**
     * Makes the index name exactly the intact blobs of the packs in the store (restic's
     * {@code repair index} and {@code repair packs} in one): packs no intact index file names are indexed
     * from their headers; packs the index names that are missing are dropped from it; every pack
     * {@code readData} accepts is read whole and every blob opened, and a pack found damaged (by that
     * read, or by its size) has its intact blobs copied into new packs and is then deleted. Then new
     * index files naming every blob kept are written and the old ones (damaged ones included) deleted.
     * The blobs no pack holds any more are absent: the next backup stores them again from its source,
     * and every snapshot naming them reads again. Nothing is written when nothing is wrong.
     *
     * <p>Write order: new packs, new index files, old index files deleted, damaged packs deleted; a kill
     * at any point leaves a store that reads as before the repair, and running it again finishes it. The
     * caller keeps backups and prunes away while it runs (the engine holds the prune marker).
     *
     * @param readData which packs (by key) to read whole; {@code k -> false} for the index alone
     * @throws StorageException if the store fails (what was done so far is safe)
     */
    public RepairReport repair(Predicate<String> readData) {
        Objects.requireNonNull(readData, "readData");
        return exclusively(() -> new Salvage(this).repair(readData));
    }

    /**
     * Runs {@code work} under the write lock, once running {@code add}s end, holding later ones back:
     * the maintenance entry points ({@link #prune}, {@link #planPrune}, {@link #check}, {@link
     * #rebuildIndex}, {@link #repair}).
     *
     * @throws IllegalStateException if the repository is closed
     */
    private <T> T exclusively(java.util.function.Supplier<T> work) {
        gate.writeLock().lock();
        try {
            ensureOpen();
            return work.get();
        } finally {
            gate.writeLock().unlock();
        }
    }

    /**
     * The packs the index names that the listing at {@code open} did not find, each with how many blobs
     * the index names in it, in key order. Their blobs are absent ({@link #has} is false) unless another
     * pack holds them too.
     */
    public Map<String, Integer> missingPacks() {
        return state.missingPackCounts();
    }

    /** The missing (or cut) pack that held {@code id}, when only such a pack held it (the blob is absent). */
    public Optional<String> missingPackOf(BlobId id) {
        return Optional.ofNullable(state.lost.get(id));
    }

    /**
     * How many blobs only the {@link #missingPacks()} held, or held past the end of a pack the listing
     * found shorter than its index entry implies (cut): absent now, to be stored again.
     */
    public int lostBlobs() {
        return state.lost.size();
    }

    /** How many of the {@link #lostBlobs()} were in {@code pack}. */
    public long lostBlobsOf(String pack) {
        return state.lostBlobsOf(pack);
    }

    /** The missing and cut packs the {@link #lostBlobs()} were in, in key order. */
    public Set<String> lostPacks() {
        return state.lostPacks();
    }

    /**
     * Of the {@link #lostBlobs()}, those {@link #add}ed again since open: how many, and from how many of
     * the {@link #lostPacks()}. Durable once {@link #flush} has returned.
     */
    public StoredAgain storedAgain() {
        return state.storedAgainSoFar();
    }

    /**
     * Blobs of missing packs stored again.
     *
     * @param blobs blobs added again
     * @param packs how many missing packs had held them
     */
    public record StoredAgain(int blobs, int packs) {}

    /** Index files that did not open at {@code open} (only with {@link PackOptions#tolerateDamagedIndex()}). */
    public List<CheckReport.Damage> damagedIndexFiles() {
        return state.damagedIndexFiles();
    }

    /** Each pack the index names (by key, in key order) with the size its index entry implies. */
    public Map<String, Long> packSizes() {
        return state.packSizes();
    }

    /**
     * Whether the index names {@code pack} (by key), also when the store lacks it: false for a pack no
     * index file names (deleted by a prune, or never indexed).
     */
    public boolean indexes(String pack) {
        return state.indexes(pack);
    }

    /** What the index names now (flushed blobs only). */
    public RepositoryStats stats() {
        return state.stats();
    }

    /**
     * Stops the repository's own threads after the uploads already started end. Blobs added since the
     * last {@link #flush} are not indexed (their uploaded packs are garbage for {@link #prune}): call
     * {@code flush} first to keep them. Idempotent.
     */
    @Override
    public void close() {
        gate.writeLock().lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            writer.awaitUploads();
            threads.shutdown();
        } finally {
            gate.writeLock().unlock();
        }
    }
}
