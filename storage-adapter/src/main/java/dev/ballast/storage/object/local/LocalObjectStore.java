package dev.ballast.storage.object.local;

import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.StorageException;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.UnsupportedCapabilityException;
import dev.ballast.storage.internal.ObjectKeys;
import dev.ballast.storage.object.Freshness;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectMetadata;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.PutOptions;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.StoreCapabilities;
import dev.ballast.storage.object.StoreCapabilities.Feature;
import dev.ballast.storage.object.VersionEntry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@link ObjectStore} in a local directory, in this process: versions and version IDs, delete
 * markers, conditional writes, a SHA-256 recorded with every version and verified on every read,
 * generations, listing by prefix in UTF-8 binary order, and any key S3 accepts (a backslash, spaces,
 * {@code a//b} and {@code dir/} included). Open it with {@link #open(Path, LocalStoreConfig)}.
 *
 * <h2>Layout and durability</h2>
 * <pre>
 *   ROOT/index.db   the version index: SQLite in WAL mode, synchronous=FULL (plus -wal, -shm)
 *   ROOT/packs/     pack files: small contents appended one after another (NNNNNNNN.pack)
 *   ROOT/blobs/xx/  content files named by the SHA-256 of their bytes, xx its first two hex digits
 *   ROOT/journal/   every version written, removed or moved (NNNNNNNN.log; see docs/storage.md)
 *   ROOT/reserve    space kept for removing versions on a full disk (see {@link LocalStoreConfig#forRemoval()})
 *   ROOT/tmp/       content being written
 *   ROOT/lock       held (fcntl) by the one writer process
 * </pre>
 * Content is addressed by its SHA-256, so identical content is referred to by one index row however
 * many keys and versions hold it. Objects up to {@link LocalStoreConfig#inlineThreshold()} (64 KiB by
 * default) are appended to the current pack file, a whole commit's worth in one write, and located
 * by their index row (pack, offset); larger ones are written to {@code tmp/}, synced, renamed into
 * {@code blobs/xx/} and their directory synced (see {@link Blobs}). The pack and the directories are
 * synced before the index transaction naming their bytes commits, so every write becomes durable in
 * that one SQLite transaction: a crash at any point leaves the old or the new version, never a torn
 * one (bytes a crash left in a pack past its last commit belong to no row), and a write acknowledged
 * (its future completed, its {@code put} returned) survives a power cut. Concurrent writes are
 * committed together (group commit), so a burst of small writes costs a few syncs rather than one
 * each; see {@link #putAsync(String, ObjectContent)}. One write is O(log n) in the number of
 * versions, and opening a store of any size takes milliseconds (nothing is scanned). Space that
 * removed versions held in packs is given back by {@link #compact()}. A store written by an earlier
 * version of this class, which kept small contents inside the index (schema 1), is read as it is and
 * upgraded in place by its next writer (two columns added, no row rewritten).
 *
 * <h2>The index can be rebuilt</h2>
 * Every version a commit records, every removal and every content a compaction moves is appended to
 * the journal and synced before the index transaction commits, so {@link #rebuildIndex(Path)}
 * rebuilds a damaged, cut short, deleted or incomplete index from the store's own files. A store of
 * an earlier version of this class gets its journal (every version it holds) from its first writer.
 * Readers need neither write access to the directory nor free space on its disk (see
 * docs/storage.md).
 *
 * <h2>Writers and readers</h2>
 * One process writes a directory at a time: a writer holds an exclusive lock on {@code ROOT/lock}
 * (released by the operating system when the process dies, however it dies), and a second writer
 * process is refused with {@link StorageUnavailableException}. Stores opened with
 * {@link LocalStoreConfig#readOnly()} take no lock: any number of them, in any process, read beside
 * the writer and see each write once it is acknowledged. Several writers opened in one process share
 * the lock and are serialised by the index. When a writer opens the store it removes what a killed
 * writer left in {@code tmp/}, and pack files no index row names.
 *
 * <h2>Reads</h2>
 * A read streams the content (from its pack or its file, never held whole in memory beyond the
 * inline threshold) through a check against the recorded length and SHA-256: a damaged, cut short or
 * missing pack or content file raises {@link IntegrityException} before the last bytes are handed
 * over. A put of content already stored writes it again (to the pack, or over its file) and points
 * its index row at the new copy, which also heals a damaged one.
 *
 * <h2>Memory</h2>
 * A write streams its content through one buffer of at most 1 MiB; writes waiting for their commit
 * hold at most 16 MiB of small contents in all (a writer beyond that waits).
 *
 * <p>Failures of the directory (out of space, an I/O error, a damaged index) are
 * {@link StorageUnavailableException} naming the directory and the cause; a content source that
 * cannot be read is {@link UncheckedIOException}; a key that breaks the rules of {@link ObjectKeys}
 * is {@link IllegalArgumentException}. Thread-safe.
 */
public final class LocalObjectStore implements ObjectStore, AutoCloseable {

    /** The version index's file name in the store's directory. */
    public static final String INDEX_FILE = "index.db";
    /** The writer lock's file name in the store's directory. */
    public static final String LOCK_FILE = "lock";

    static final Logger LOG = LoggerFactory.getLogger(LocalObjectStore.class);
    static final long MAX_QUEUED_BYTES = LocalWrites.MAX_QUEUED_BYTES;

    private final Path root;
    private final LocalStoreConfig config;
    private final Packs packs;
    private final int inlineThreshold;
    private final StoreCapabilities capabilities;
    private final IndexConnections connections;
    private final LocalWrites writes;
    private final LocalReads reads;
    private final LocalListings listings;

    private LocalObjectStore(
            Path root,
            LocalStoreConfig config,
            Blobs blobs,
            int inlineThreshold,
            @Nullable SharedDirectory shared,
            @Nullable VersionIndex writer,
            boolean emptyWhenOpened,
            IndexReaders indexReaders) {
        this.root = root;
        this.config = config;
        this.packs = new Packs(root, config.packSize());
        this.inlineThreshold = inlineThreshold;
        this.capabilities = new StoreCapabilities(root.toUri(), "", true, true, true)
                .withFeatures(EnumSet.of(Feature.RANGED_READS, Feature.BLOCK_DIGESTS, Feature.METADATA));
        this.connections = new IndexConnections(root, indexReaders);
        this.writes = new LocalWrites(
                root,
                config,
                blobs,
                packs,
                new SpaceReserve(root),
                connections,
                inlineThreshold,
                shared,
                writer,
                emptyWhenOpened);
        this.reads = new LocalReads(root, config, blobs, packs, connections);
        this.listings = new LocalListings(config, blobs, packs, connections);
    }

    /** Opens (creating if absent) the store in {@code root} as its writer; see {@link #open(Path, LocalStoreConfig)}. */
    public static LocalObjectStore open(Path root) {
        return open(root, LocalStoreConfig.ofDefaults());
    }

    /**
     * Opens the store in {@code root}. A writer creates the directory and an empty store when there is
     * none, takes the writer lock and removes temporary files a killed writer left; a reader
     * ({@link LocalStoreConfig#readOnly()}) needs an existing store and takes no lock.
     *
     * @throws IllegalArgumentException if {@code root} exists, is not empty and holds no store (so a
     *     mistyped path never fills a directory holding something else), or a reader finds no store
     * @throws StorageUnavailableException if another process holds the writer lock, or the directory or
     *     its index cannot be created, read or written
     * @throws IntegrityException if the index is older than the store's journal (an older copy of
     *     {@code index.db} put in place of the current one; see {@link OlderIndex}): nothing is read or
     *     written until {@link #rebuildIndex(Path)} brings it up to date; also if the journal ends before
     *     the position the index recorded (a journal file cut short, or an older journal restored), until
     *     {@link #rebuildIndex(Path)} writes it anew from the index
     */
    public static LocalObjectStore open(Path root, LocalStoreConfig config) {
        Objects.requireNonNull(root, "root");
        Objects.requireNonNull(config, "config");
        Path dir = root.toAbsolutePath().normalize();
        Path index = dir.resolve(INDEX_FILE);
        Blobs blobs = new Blobs(dir);
        if (config.readOnly()) {
            if (!Files.isRegularFile(index)) {
                throw new IllegalArgumentException("'" + dir + "' holds no local object store (no " + INDEX_FILE + ")");
            }
            VersionIndex probe = null;
            IndexReaders readers = new IndexReaders(index);
            try {
                probe = readers.open();
                OlderIndex.refuse(dir, probe);
                LocalObjectStore store =
                        new LocalObjectStore(dir, config, blobs, probe.inlineThreshold(), null, null, false, readers);
                store.connections.add(probe);
                return store;
            } catch (SQLException | RuntimeException e) {
                if (probe != null) {
                    probe.closeQuietly();
                }
                readers.close();
                if (e instanceof RuntimeException r) {
                    throw r;
                }
                throw unavailable(null, "Opening the index of the local object store '" + dir + "'", e);
            }
        }
        boolean existed = Files.isRegularFile(index);
        if (!existed) {
            StoreDirectory.refuseForeignDirectory(dir);
            // Two commands making the same new store at once: the other one's index may have appeared
            // meanwhile, and is then opened as a store's (its lock decides who writes), not made again.
            existed = Files.isRegularFile(index);
        }
        SharedDirectory shared = SharedDirectory.acquire(dir);
        VersionIndex writer = null;
        try {
            if (!existed) {
                blobs.create();
            }
            if (shared.firstUser()) {
                int removed = blobs.removeTemporaryFiles();
                if (removed > 0) {
                    LOG.info("Removed {} temporary file(s) a writer of '{}' left when it stopped", removed, dir);
                }
            }
            SpaceReserve reserve = new SpaceReserve(dir);
            StoreDirectory.refuseEmptiedIndex(index);
            try {
                writer = VersionIndex.openWriter(index, config.inlineThreshold(), config.forRemoval());
            } catch (SQLException e) {
                if (!LocalWrites.mayUseReserve(dir, config, reserve)) {
                    throw e;
                }
                writer = VersionIndex.openWriter(index, config.inlineThreshold(), true);
            }
            // Before anything is written or deleted: an older index's writer would delete the pack files
            // its rows do not name, and contents only the versions it lacks still reference.
            OlderIndex.refuse(dir, writer);
            reserve.ensure();
            Journal.journalEveryVersion(dir, writer, shared.journal(writer.inlineThreshold()));
            if (shared.firstUser() && !config.forRemoval()) {
                foldJournal(dir, writer, shared.journal(writer.inlineThreshold()));
            }
            if (shared.firstUser()) {
                int orphans = new Packs(dir, config.packSize()).removeOrphans(writer.packs());
                if (orphans > 0) {
                    LOG.info("Removed {} pack file(s) no index row names from '{}'", orphans, dir);
                }
            }
            if (!existed) {
                Blobs.syncDirectory(dir);
            }
            LocalObjectStore store = new LocalObjectStore(
                    dir,
                    config,
                    blobs,
                    writer.inlineThreshold(),
                    shared,
                    writer,
                    writer.holdsNoContent(),
                    new IndexReaders(index));
            LOG.info(
                    "Local object store '{}' open for writing (contents up to {} bytes go to pack files)",
                    dir,
                    store.inlineThreshold);
            return store;
        } catch (IOException | SQLException | RuntimeException e) {
            if (writer != null) {
                writer.closeQuietly();
            }
            shared.release();
            if (e instanceof RuntimeException r) {
                throw r;
            }
            throw unavailable(null, "Opening the local object store '" + dir + "' for writing", e);
        }
    }

    /**
     * Folds the journal into one file when it has grown to many (see {@link JournalFold}): maintenance,
     * so a failure (a full disk) is logged at INFO, which a command line shows only when asked to, and the
     * store opens as it is; the next writer to open it tries again, and whatever step it stopped at leaves a
     * journal that rebuilds the index and tells an older one.
     */
    private static void foldJournal(Path dir, VersionIndex writer, Journal journal) {
        try {
            JournalFold.foldIfLong(dir, writer, journal, JournalFold.NO_STEPS);
        } catch (IOException | SQLException e) {
            LOG.info("Could not fold the journal of '{}' into one file; it stays as it is: {}", dir, e.toString());
        }
    }

    /**
     * Loads the index's SQLite driver and native library now rather than at the first
     * {@link #open}: a command-line program can do it on a second thread while it parses its
     * arguments, taking a few hundred milliseconds off its start. Idempotent and thread-safe; a
     * failure is left for {@code open} to meet and report.
     */
    public static void preload() {
        try {
            VersionIndex.preload();
        } catch (Exception | LinkageError ignored) {
            // open() reports the same failure with its context
        }
    }

    /**
     * The bytes the index ({@code index.db}) of the store in {@code root} takes once SQLite's write-ahead
     * log is copied into it, as every writer does when it closes: its pages times their size, read through
     * SQLite, so the changes still in the {@code -wal} file count and that file (and the {@code -shm}) do
     * not. While a store is open its log holds every page a transaction changed, once per transaction, up to
     * hundreds of KiB that are emptied when it closes; counting that would report growth that does not stay.
     *
     * @return the bytes, or -1 when there is no index or it cannot be read
     */
    public static long indexBytes(Path root) {
        Path index = root.toAbsolutePath().normalize().resolve(INDEX_FILE);
        if (!Files.isRegularFile(index, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return -1;
        }
        try (VersionIndex ix = VersionIndex.openReader("jdbc:sqlite:" + index);
                java.sql.Statement s = ix.connection().createStatement()) {
            long pages;
            try (java.sql.ResultSet r = s.executeQuery("PRAGMA page_count")) {
                pages = r.next() ? r.getLong(1) : -1;
            }
            try (java.sql.ResultSet r = s.executeQuery("PRAGMA page_size")) {
                return r.next() && pages >= 0 ? pages * r.getLong(1) : -1;
            }
        } catch (SQLException | RuntimeException e) {
            return -1;
        }
    }

    /** Whether {@code root} holds a local object store (its index exists). */
    public static boolean exists(Path root) {
        return StoreDirectory.exists(root);
    }

    /**
     * Whether {@code root} holds stored content (files under {@code blobs/}, {@code packs/} or
     * {@code journal/}) but no index: the index
     * was deleted or lost. Such a store must not be taken for an empty one (its versions would be
     * reported as none) nor get a new, empty index (they would be lost for good); it is refused until
     * its index is rebuilt ({@link #rebuildIndex(Path)}) or its directory is restored from a copy.
     */
    public static boolean holdsContentWithoutIndex(Path root) {
        return StoreDirectory.holdsContentWithoutIndex(root);
    }

    /**
     * Rebuilds the index of the store in {@code root} from the store's own files, as
     * {@code restic repair index} does: for an index that is damaged (SQLite calls it corrupt or not
     * a database), cut short, deleted, or missing rows. Every version and delete marker the store's
     * journal ({@code journal/}) records and no later removal removed is put back, with its version
     * ID, generation, time, size and SHA-256; its content is looked for in the pack the journal names
     * (checked against its SHA-256) and in its content file, and a version whose content is in
     * neither is kept and reported ({@link IndexRebuild#contentMissing()}), so a reader meets damage,
     * never a missing key; a content file is hashed and checked against its SHA-256 like a pack's
     * content. When the current index opens and SQLite's {@code PRAGMA quick_check} passes, every
     * version it holds is kept beside those the journal adds ({@link IndexRebuild#previousIndexKept()}):
     * a rebuild never makes a readable index worse. A journal frame that fails its CRC is skipped
     * (reading resumes at the next valid frame), and the version it named, when it is in the rebuilt
     * index neither, is reported ({@link IndexRebuild#unrecovered()}). The old index is renamed, never
     * deleted (a {@code -wal} or {@code -shm} without its database file is deleted), and the new one
     * is renamed into place only once complete.
     *
     * <p>A store whose every writer predates journals has none: nothing is changed, and the report
     * says so ({@link IndexRebuild#journalFound()} false). A store of the earlier format that a
     * writer of this version opened since has every version it held then in its journal.
     *
     * @throws IllegalArgumentException if {@code root} holds no store
     * @throws StorageUnavailableException if a writer holds the store, or its files cannot be read or
     *     written
     */
    public static IndexRebuild rebuildIndex(Path root) {
        Objects.requireNonNull(root, "root");
        Path dir = root.toAbsolutePath().normalize();
        if (!Files.isDirectory(dir)
                || !(exists(dir)
                        || Files.isDirectory(dir.resolve(Journal.DIR))
                        || Files.isDirectory(dir.resolve(Packs.PACKS))
                        || Files.isDirectory(dir.resolve(Blobs.BLOBS)))) {
            throw new IllegalArgumentException("'" + dir + "' holds no local object store");
        }
        SharedDirectory shared = SharedDirectory.acquire(dir);
        try {
            if (!shared.firstUser()) {
                throw new StorageUnavailableException(
                        null, "The local object store '" + dir + "' is open for writing in this process", null);
            }
            return IndexRepair.rebuild(dir);
        } catch (IOException | SQLException e) {
            throw unavailable(null, "Rebuilding the index of the local object store '" + dir + "'", e);
        } finally {
            shared.release();
        }
    }

    /** The store's directory, absolute. */
    public Path root() {
        return root;
    }

    /** The configuration it was opened with. */
    public LocalStoreConfig config() {
        return config;
    }

    /** Objects up to this many bytes are appended to pack files (fixed when the store was created). */
    public int inlineThreshold() {
        return inlineThreshold;
    }

    /**
     * Endpoint: the directory's {@code file:} URI; bucket: empty; versioning, conditional writes and
     * checksums: always (the store computes the SHA-256 of what it writes).
     */
    @Override
    public StoreCapabilities capabilities() {
        return capabilities;
    }

    /** True: the SHA-256 a put returns is computed from the very bytes the store wrote. */
    @Override
    public boolean confirmsWrites() {
        return true;
    }

    // ------------------------------------------------------------------------------------------ writes

    @Override
    public ObjectVersion put(String key, ObjectContent content) {
        return writes.put(key, content, ObjectMetadata.NONE);
    }

    @Override
    public ObjectVersion putIfAbsent(String key, ObjectContent content) {
        return writes.putIfAbsent(key, content, ObjectMetadata.NONE);
    }

    @Override
    public ObjectVersion putIfMatch(String key, String eTag, ObjectContent content) {
        return writes.putIfMatch(key, eTag, content, ObjectMetadata.NONE);
    }

    /**
     * Writes with metadata, kept in the index ({@code attributes}) and returned by reads and version
     * listings. Server-side encryption is refused ({@link UnsupportedCapabilityException}, before
     * anything is written): the local store does not encrypt at rest on request; encrypt on the
     * client side instead.
     */
    @Override
    public ObjectVersion put(String key, ObjectContent content, PutOptions options) {
        requireSupported(options);
        return writes.put(key, content, options.metadata());
    }

    /** As {@link #put(String, ObjectContent, PutOptions)}, if the key has no current version. */
    @Override
    public ObjectVersion putIfAbsent(String key, ObjectContent content, PutOptions options) {
        requireSupported(options);
        return writes.putIfAbsent(key, content, options.metadata());
    }

    /** As {@link #put(String, ObjectContent, PutOptions)}, if the key's current ETag is {@code eTag}. */
    @Override
    public ObjectVersion putIfMatch(String key, String eTag, ObjectContent content, PutOptions options) {
        requireSupported(options);
        return writes.putIfMatch(key, eTag, content, options.metadata());
    }

    private void requireSupported(PutOptions options) {
        Objects.requireNonNull(options, "options");
        options.requireSupportedBy(capabilities, "the local object store '" + root + "'");
    }

    /**
     * Reads and hashes the content on the calling thread (and, above the inline threshold, writes and
     * syncs its file), then queues the version for the next commit and returns without waiting for
     * it. The store's commit thread ({@code ballast-local-commit}, started when needed and ended after
     * a second without work) commits everything queued in one transaction, then the next batch, until
     * the queue is empty, completing each write's future as its batch commits: a caller that goes on
     * reading its next content while a commit runs has that write in the next commit, so even a single
     * thread's stream of writes shares syncs. The synchronous writes ({@code put}, the conditional puts,
     * {@code delete}) wait for their commit and run it on the calling thread when no commit is
     * running. Callers beyond 16 MiB of queued small contents wait before queueing.
     */
    @Override
    public CompletableFuture<ObjectVersion> putAsync(String key, ObjectContent content) {
        return writes.putAsync(key, content, ObjectMetadata.NONE);
    }

    /** As {@link #putAsync(String, ObjectContent)}, the metadata committed with the version. */
    @Override
    public CompletableFuture<ObjectVersion> putAsync(String key, ObjectContent content, PutOptions options) {
        requireSupported(options);
        return writes.putAsync(key, content, options.metadata());
    }

    /** Writes a delete marker, which becomes the key's current version; earlier versions stay readable. */
    @Override
    public VersionEntry delete(String key) {
        return writes.delete(key);
    }

    /**
     * Removes one version or delete marker of {@code key} for good, as S3's {@code DeleteObject} with
     * a {@code versionId} does: when it was the current version, the newest remaining one becomes
     * current (removing a delete marker brings the object back). Content no version refers to any more
     * is deleted.
     *
     * @return whether the version existed
     * @throws IllegalStateException if the store is read-only or closed
     */
    @Override
    public boolean deleteVersion(String key, String versionId) {
        return writes.deleteVersion(key, versionId);
    }

    /**
     * What {@link #compact()} did.
     *
     * @param packsRemoved pack files deleted (no content in them was referenced any more, or it was
     *     copied to another pack)
     * @param contentsMoved contents copied out of packs that were more than half unreferenced
     * @param bytesReclaimed disk space given back: the deleted packs' lengths minus what was copied
     */
    public record Compaction(int packsRemoved, int contentsMoved, long bytesReclaimed) {}

    /**
     * Gives back the space of small contents no version refers to any more (after
     * {@link #deleteVersion}), as {@code restic prune} repacks: a pack file none of whose bytes are
     * referenced is deleted; one less than half referenced has its referenced contents copied to the
     * newest pack (synced, then the index rows moved in one transaction) and is then deleted; when the
     * pack being appended to is among them, writes go on in a new one (this writer's and those of
     * other writers of the directory in this process, which append only to the pack the index names
     * as newest). A content that cannot be read from its pack
     * stays where it is, and so does its pack. Readers beside a compaction keep reading: one that
     * meets a pack deleted under it reads the content from its new place.
     *
     * <p>Costs one scan of the content rows, and holds one entry per content of the packs it
     * rewrites; writes wait while it runs.
     *
     * @throws IllegalStateException if the store is read-only or closed
     * @throws StorageUnavailableException if the index or a pack file cannot be read or written
     */
    public Compaction compact() {
        return writes.compact(false);
    }

    /**
     * As {@link #compact()}, but every pack file holding bytes no version refers to is rewritten, however
     * few they are, so that the pack files afterwards hold only referenced contents: what a prune that
     * deleted small objects (an encrypted repository's index files and manifest parts) reports as given
     * back is then given back. Copies up to the referenced bytes of every such pack.
     *
     * @throws IllegalStateException if the store is read-only or closed
     * @throws StorageUnavailableException if the index or a pack file cannot be read or written
     */
    public Compaction compactFully() {
        return writes.compact(true);
    }

    // ------------------------------------------------------------------------------------------- reads

    @Override
    public ObjectRead get(String key) {
        return get(key, ReadOptions.latest());
    }

    /**
     * Reads the latest version, or the one {@link ReadOptions#versionId()} names, verified as it is
     * read. The store is the single source of its versions, so a read is never stale and never comes
     * from a cache; a version without a recorded generation reads as {@link Freshness#UNKNOWN}.
     *
     * @throws ObjectNotFoundException if the key or version does not exist or is a delete marker
     * @throws StorageUnavailableException if the index cannot be read
     */
    @Override
    public ObjectRead get(String key, ReadOptions options) {
        return reads.get(key, options);
    }

    // ---------------------------------------------------------------------------------------- listings
    // Every listing reports what the files hold, not what the index recorded (docs/storage.md, "A file
    // deleted or cut by hand"): a version whose content or pack file is gone is not listed, one whose
    // file is cut short is listed at the bytes it still holds; one stat per content file listed and one
    // per pack file per listing (HeldBytes).

    /** {@inheritDoc} A version whose content or pack file is gone is left out; one cut short has the bytes held. */
    @Override
    public List<VersionEntry> versions(String key) {
        return listings.versions(key);
    }

    /**
     * One index query per page ({@link LocalListing}), and a look at the files it names: a key whose
     * current version's content or pack file is gone is not listed, one cut short is listed at the
     * bytes it still holds.
     */
    @Override
    public java.util.stream.Stream<dev.ballast.storage.object.ListEntry> listing(
            dev.ballast.storage.object.ListRequest request) {
        return listings.listing(request);
    }

    @Override
    public List<String> list(String prefix) {
        return listings.list(prefix);
    }

    /**
     * Every version and delete marker of the keys under {@code prefix}, by key in UTF-8 binary order,
     * newest first; a version whose content or pack file is gone is left out, one cut short has the
     * bytes held as its size.
     */
    @Override
    public List<VersionEntry> listVersions(String prefix) {
        return listings.listVersions(prefix);
    }

    /**
     * Checks each listed version's bytes without reading them: its index row still exists, and its
     * content file has the recorded length, or its pack file reaches past the end of its content. All
     * rows are looked up on one index connection, and each file is looked at once however many
     * versions it holds (a pack file holds many): for a backup's unchanged files, one query per
     * version and one stat per file.
     */
    @Override
    public java.util.Map<VersionEntry, String> missingContent(java.util.Collection<VersionEntry> listed) {
        return listings.missingContent(listed);
    }

    // ------------------------------------------------------------------------------------------ common

    /**
     * Waits for queued writes to commit, then closes the index and releases the writer lock.
     * Idempotent.
     */
    @Override
    public void close() {
        if (!writes.closeQueue()) {
            return;
        }
        connections.markClosed();
        packs.closeReaders();
        connections.close();
        writes.closeWriter();
    }

    @Override
    public String toString() {
        return "LocalObjectStore[" + root + (writes.readOnly() ? ", read-only" : "") + "]";
    }

    /** The ETag of a version: its version ID, quoted, so it changes with every write (never an MD5). */
    static String eTag(String versionId) {
        return "\"" + versionId + "\"";
    }

    /** See {@link LocalErrors#unavailable}. */
    static StorageException unavailable(@Nullable String key, String what, Throwable cause) {
        return LocalErrors.unavailable(key, what, cause);
    }

    /** Whether the store in {@code dir} has written anything: a journal file or a pack file exists. */
    static boolean holdsRecords(Path dir) {
        return StoreDirectory.holdsRecords(dir);
    }
}
