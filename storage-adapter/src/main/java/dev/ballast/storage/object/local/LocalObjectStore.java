package dev.ballast.storage.object.local;

import dev.ballast.storage.AlreadyExistsException;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.PreconditionFailedException;
import dev.ballast.storage.StorageException;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.internal.ObjectKeys;
import dev.ballast.storage.internal.Sha256;
import dev.ballast.storage.internal.VerifyingInputStream;
import dev.ballast.storage.object.Freshness;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.Source;
import dev.ballast.storage.object.StoreCapabilities;
import dev.ballast.storage.object.VersionEntry;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.random.RandomGenerator;
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
    static final long MAX_QUEUED_BYTES = 16L * 1024 * 1024;
    private static final int MAX_BATCH = 4096;
    /** A batch this large commits at once, without waiting for writers still reading their content. */
    private static final int FULL_BATCH = 512;
    /** The longest a committer waits for writers still reading their content to join its batch. */
    private static final long GATHER_NANOS = 2_000_000;
    /** Writes arriving less than this apart count as a stream worth gathering into one commit. */
    private static final long ARRIVAL_GAP_NANOS = 300_000;

    private static final int MAX_IDLE_READERS = 8;
    private static final HexFormat HEX = HexFormat.of();

    private final Path root;
    private final LocalStoreConfig config;
    private final Blobs blobs;
    private final Packs packs;
    private final IndexReaders indexReaders;
    private final SpaceReserve reserve;
    /** The journal of every version written and removed, shared by this process's writers of the directory; null for a reader. */
    private final @Nullable Journal journal;

    /**
     * Small contents this writer put in a pack, by address, so that the same bytes put again (a copy
     * in the tree being backed up) only count a reference; at most {@value #MAX_REMEMBERED} are kept.
     */
    private final Map<ByteBuffer, VersionIndex.Location> writtenThisSession = new ConcurrentHashMap<>();

    private static final int MAX_REMEMBERED = 100_000;

    /**
     * Whether the store held no content when this writer opened it: then no stored copy can match
     * what it puts except one it wrote itself, and the lookup (a query per small content, about a
     * tenth of a first backup of many small files) is skipped.
     */
    private final boolean emptyWhenOpened;

    private final int inlineThreshold;
    private final StoreCapabilities capabilities;
    private final @Nullable SharedDirectory shared;
    private final @Nullable VersionIndex writer;
    private final ReentrantLock writeLock = new ReentrantLock();
    private final ConcurrentLinkedQueue<VersionIndex> idleReaders = new ConcurrentLinkedQueue<>();
    private final RandomGenerator versionIds;
    private int versionCounter;

    private final Object queueLock = new Object();
    private final ArrayDeque<Pending> queue = new ArrayDeque<>();
    private long queuedBytes;
    private int staging;
    private long lastArrivalNanos;
    private boolean committing;
    private volatile boolean closed;
    /** Runs the commits {@link #putAsync} starts: one thread, ended after a second without work. */
    private final ThreadPoolExecutor committer;

    /** Syncs a batch's pack file and directories while the committer inserts its rows. */
    private final ThreadPoolExecutor syncer;

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
        this.indexReaders = indexReaders;
        this.reserve = new SpaceReserve(root);
        this.journal = shared == null ? null : shared.journal(inlineThreshold);
        this.emptyWhenOpened = emptyWhenOpened;
        this.config = config;
        this.blobs = blobs;
        this.packs = new Packs(root, config.packSize());
        this.inlineThreshold = inlineThreshold;
        this.shared = shared;
        this.writer = writer;
        this.capabilities = new StoreCapabilities(root.toUri(), "", true, true, true);
        this.versionIds = config.random().get();
        this.committer = new ThreadPoolExecutor(1, 1, 1, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "ballast-local-commit");
            t.setDaemon(true);
            return t;
        });
        this.committer.allowCoreThreadTimeOut(true);
        this.syncer = new ThreadPoolExecutor(1, 1, 1, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "ballast-local-sync");
            t.setDaemon(true);
            return t;
        });
        this.syncer.allowCoreThreadTimeOut(true);
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
                LocalObjectStore store =
                        new LocalObjectStore(dir, config, blobs, probe.inlineThreshold(), null, null, false, readers);
                store.idleReaders.add(probe);
                return store;
            } catch (SQLException e) {
                if (probe != null) {
                    probe.closeQuietly();
                }
                readers.close();
                throw unavailable(null, "Opening the index of the local object store '" + dir + "'", e);
            }
        }
        boolean existed = Files.isRegularFile(index);
        if (!existed) {
            refuseForeignDirectory(dir);
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
            refuseEmptiedIndex(index);
            try {
                writer = VersionIndex.openWriter(index, config.inlineThreshold(), config.forRemoval());
            } catch (SQLException e) {
                if (!mayUseReserve(dir, config, reserve)) {
                    throw e;
                }
                writer = VersionIndex.openWriter(index, config.inlineThreshold(), true);
            }
            reserve.ensure();
            Journal.journalEveryVersion(dir, writer, shared.journal(writer.inlineThreshold()));
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

    /** Whether {@code root} holds a local object store (its index exists). */
    public static boolean exists(Path root) {
        return Files.isRegularFile(root.toAbsolutePath().normalize().resolve(INDEX_FILE));
    }

    /**
     * Whether {@code root} holds stored content (files under {@code blobs/}, {@code packs/} or
     * {@code journal/}) but no index: the index
     * was deleted or lost. Such a store must not be taken for an empty one (its versions would be
     * reported as none) nor get a new, empty index (they would be lost for good); it is refused until
     * its index is rebuilt ({@link #rebuildIndex(Path)}) or its directory is restored from a copy.
     */
    public static boolean holdsContentWithoutIndex(Path root) {
        Path dir = root.toAbsolutePath().normalize();
        if (exists(dir)) {
            return false;
        }
        try (var packFiles = Files.newDirectoryStream(dir.resolve(Packs.PACKS))) {
            if (packFiles.iterator().hasNext()) {
                return true;
            }
        } catch (IOException e) {
            // no packs directory: no small contents
        }
        try (var journalFiles = Files.newDirectoryStream(dir.resolve(Journal.DIR))) {
            if (journalFiles.iterator().hasNext()) {
                return true; // versions are recorded: rebuildIndex brings them back
            }
        } catch (IOException e) {
            // no journal
        }
        try (var shards = Files.newDirectoryStream(dir.resolve(Blobs.BLOBS))) {
            for (Path shard : shards) {
                if (Files.isDirectory(shard)) {
                    try (var files = Files.newDirectoryStream(shard)) {
                        if (files.iterator().hasNext()) {
                            return true;
                        }
                    }
                }
            }
            return false;
        } catch (IOException e) {
            return false; // no blobs directory: no content
        }
    }

    /**
     * Refuses an index file of 0 bytes, with no write-ahead log to hold its schema, in a store that has
     * written versions: the writer would otherwise give it a new, empty schema over every version.
     */
    private static void refuseEmptiedIndex(Path index) throws SQLException, IOException {
        Path wal = index.resolveSibling(index.getFileName() + "-wal");
        if (Files.isRegularFile(index, LinkOption.NOFOLLOW_LINKS)
                && Files.size(index) == 0
                && (!Files.exists(wal) || Files.size(wal) == 0)
                && holdsRecords(index.getParent())) {
            throw IndexReaders.damaged(new SQLException("the index has no schema"));
        }
    }

    /** Whether the store in {@code dir} has written anything: a journal file or a pack file exists. */
    static boolean holdsRecords(Path dir) {
        for (String sub : List.of(Journal.DIR, Packs.PACKS)) {
            try (var files = Files.newDirectoryStream(dir.resolve(sub))) {
                if (files.iterator().hasNext()) {
                    return true;
                }
            } catch (IOException e) {
                // no such directory
            }
        }
        return false;
    }

    private static void refuseForeignDirectory(Path dir) {
        if (!Files.isDirectory(dir)) {
            try {
                Files.createDirectories(dir);
            } catch (IOException e) {
                throw unavailable(null, "Creating the local object store directory '" + dir + "'", e);
            }
            restrictToOwner(dir);
            return;
        }
        if (holdsContentWithoutIndex(dir)) {
            throw new IllegalArgumentException("'" + dir + "' holds stored content but no index (" + INDEX_FILE
                    + "): the index was deleted or lost; rebuild it (LocalObjectStore.rebuildIndex, 'ballast repair index')"
                    + " or restore the directory from a copy rather than start a new, empty index over it");
        }
        try (var entries = Files.list(dir)) {
            List<String> names = entries.map(p -> p.getFileName().toString()).toList();
            Set<String> ours = Set.of(
                    LOCK_FILE,
                    Blobs.BLOBS,
                    Blobs.TMP,
                    Packs.PACKS,
                    SpaceReserve.FILE,
                    Journal.DIR,
                    INDEX_FILE + "-wal",
                    INDEX_FILE + "-shm",
                    INDEX_FILE + "-journal");
            if (!ours.containsAll(names)) {
                throw new IllegalArgumentException("'" + dir + "' is not empty and holds no local object store (no "
                        + INDEX_FILE + "); pass an empty or new directory, or one that holds a store");
            }
            if (names.isEmpty()) {
                restrictToOwner(dir);
            }
        } catch (IOException e) {
            throw unavailable(null, "Reading the directory '" + dir + "'", e);
        }
    }

    /**
     * A new store's directory is readable by its owner only (mode 700 where the file system has POSIX
     * permissions), as restic and borg create their repositories: a store holds copies of files that
     * may be private, and the copies must not be more readable than the originals.
     */
    private static void restrictToOwner(Path dir) {
        try {
            Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        } catch (UnsupportedOperationException ignored) {
            // no POSIX permissions here (Windows): the directory keeps what its parent gives it
        } catch (IOException e) {
            throw unavailable(null, "Restricting the local object store directory '" + dir + "' to its owner", e);
        }
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
        return join(write(key, content, Condition.NONE, null, true));
    }

    @Override
    public ObjectVersion putIfAbsent(String key, ObjectContent content) {
        return join(write(key, content, Condition.IF_ABSENT, null, true));
    }

    @Override
    public ObjectVersion putIfMatch(String key, String eTag, ObjectContent content) {
        Objects.requireNonNull(eTag, "eTag");
        return join(write(key, content, Condition.IF_MATCH, eTag, true));
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
        return write(key, content, Condition.NONE, null, false);
    }

    private enum Condition {
        NONE,
        IF_ABSENT,
        IF_MATCH
    }

    @SuppressWarnings("unchecked")
    private CompletableFuture<ObjectVersion> write(
            String key, ObjectContent content, Condition condition, @Nullable String eTag, boolean callerWaits) {
        validate(key);
        Objects.requireNonNull(content, "content");
        requireWritable();
        if (condition != Condition.NONE) {
            VersionIndex.Row current = read(ix -> ix.current(key), key, "Reading '" + key + "'");
            RuntimeException refused = refusal(key, current, condition, eTag);
            if (refused != null) {
                throw refused; // before reading a byte of content
            }
        }
        Pending pending;
        synchronized (queueLock) {
            staging++;
        }
        try {
            pending = stage(key, content, condition, eTag);
        } catch (RuntimeException e) {
            synchronized (queueLock) {
                staging--;
                queueLock.notifyAll();
            }
            throw e;
        }
        enqueue(pending, callerWaits);
        return (CompletableFuture<ObjectVersion>) (CompletableFuture<?>) pending.result;
    }

    /** Reads the content once and, above the inline threshold, publishes its file. */
    private Pending stage(String key, ObjectContent content, Condition condition, @Nullable String eTag) {
        Blobs.Staged staged;
        try {
            staged = blobs.stage(content, config.ownFiles().test(key) ? -1 : inlineThreshold);
        } catch (Blobs.SourceFailure e) {
            throw new UncheckedIOException(
                    "Could not read the content to store as '" + key + "' ("
                            + e.getCause().getMessage() + ")",
                    e.getCause());
        } catch (IOException e) {
            throw unavailable(key, "Writing the content of '" + key + "' to the local object store '" + root + "'", e);
        }
        Pending pending = new Pending(key, condition, eTag, staged);
        if (staged.inline() != null && staged.size() > 0) {
            VersionIndex.Location written = writtenThisSession.get(ByteBuffer.wrap(staged.address()));
            if (written != null) {
                pending.existing = sameBytesAt(written, staged);
            } else if (!emptyWhenOpened) {
                pending.existing = storedCopy(staged);
            }
        }
        if (staged.temporary() != null) {
            shared.addPending(staged.address());
            try {
                pending.directoryToSync = blobs.publish(staged);
            } catch (IOException e) {
                shared.removePending(staged.address());
                blobs.discard(staged);
                throw unavailable(
                        key, "Storing the content of '" + key + "' in the local object store '" + root + "'", e);
            }
        }
        return pending;
    }

    /**
     * Where the store already holds the small content {@code s}, read back and compared byte for byte
     * (so a damaged copy is written anew, which heals it), or null: identical small contents are
     * stored once, as larger ones are (a file moved or copied in a backed-up tree costs no space).
     * Runs on the writer's thread, on a read connection, so the commit thread only counts the
     * reference.
     */
    private VersionIndex.@Nullable Location storedCopy(Blobs.Staged s) {
        try {
            VersionIndex.Location at = read(ix -> ix.location(s.address()), null, "Looking up stored content");
            return at == null ? null : sameBytesAt(at, s);
        } catch (RuntimeException e) {
            return null; // unreadable: the bytes are written again
        }
    }

    /** {@code at} if the copy there holds exactly {@code s}'s bytes; null if it differs or cannot be read. */
    private VersionIndex.@Nullable Location sameBytesAt(VersionIndex.Location at, Blobs.Staged s) {
        try {
            byte[] stored = at.data() != null ? at.data() : packs.read(at.pack(), at.offset(), (int) s.size());
            return Arrays.equals(stored, s.inline()) ? at : null;
        } catch (IOException | RuntimeException e) {
            return null; // damaged or unreadable: the bytes are written again, which heals the copy
        }
    }

    /** Writes a delete marker, which becomes the key's current version; earlier versions stay readable. */
    @Override
    public VersionEntry delete(String key) {
        validate(key);
        requireWritable();
        Pending marker = new Pending(key, Condition.NONE, null, null);
        synchronized (queueLock) {
            staging++;
        }
        enqueue(marker, true);
        return (VersionEntry) join(marker.result);
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
        validate(key);
        Objects.requireNonNull(versionId, "versionId");
        requireWritable();
        byte[] unreferenced = null;
        writeLock.lock();
        try {
            for (int attempt = 1; ; attempt++) {
                try {
                    writer.begin();
                    VersionIndex.Row row = writer.version(key, versionId);
                    if (row == null) {
                        writer.rollback();
                        return false;
                    }
                    unreferenced = writer.removeVersion(row);
                    journal.remove(key, versionId);
                    journal.write();
                    journal.force();
                    writer.commit();
                    journal.committed();
                    break;
                } catch (SQLException | IOException e) {
                    rollbackQuietly();
                    journal.rolledBack();
                    if (attempt > 1 || !mayUseReserve(root, config, reserve)) {
                        throw unavailable(key, "Removing version '" + versionId + "' of '" + key + "'", e);
                    }
                }
            }
        } finally {
            writeLock.unlock();
        }
        if (unreferenced != null) {
            deleteContentFileIfUnreferenced(unreferenced);
        }
        return true;
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
        requireWritable();
        writeLock.lock();
        try {
            try {
                return new PackCompactor(root, writer, packs, journal).run();
            } catch (StorageException e) {
                if (!mayUseReserve(root, config, reserve)) {
                    throw e;
                }
                return new PackCompactor(root, writer, packs, journal).run();
            }
        } finally {
            writeLock.unlock();
        }
    }

    /**
     * Whether an index or file operation that failed may be retried in the space reserve: the writer
     * was opened {@link LocalStoreConfig#forRemoval()}, the disk has less than the reserve's size
     * free, and the reserve file was there to release.
     */
    private static boolean mayUseReserve(Path root, LocalStoreConfig config, SpaceReserve reserve) {
        if (!config.forRemoval()) {
            return false;
        }
        try {
            if (Files.getFileStore(root).getUsableSpace() >= SpaceReserve.BYTES) {
                return false; // not a full disk: the failure is reported as it is
            }
        } catch (IOException e) {
            // cannot tell: release the reserve, the retry says whether it helped
        }
        return reserve.release();
    }

    /**
     * Queues a staged write (counted in {@code staging} until now) and, if no commit is running, starts
     * one: on this thread when {@code callerWaits} (it waits for the commit anyway), else on the commit
     * thread.
     */
    private void enqueue(Pending pending, boolean callerWaits) {
        boolean lead;
        synchronized (queueLock) {
            staging--;
            boolean interrupted = false;
            while (committing && queuedBytes > MAX_QUEUED_BYTES && !closed) {
                try {
                    queueLock.wait();
                } catch (InterruptedException e) {
                    interrupted = true; // the content is read: queue it rather than drop a write half done
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            if (closed) {
                pending.fail(new IllegalStateException("This LocalObjectStore is closed"));
                releaseStaging(List.of(pending));
                return;
            }
            queue.add(pending);
            queuedBytes += pending.queuedBytes();
            lead = !committing;
            committing = true;
            if (!lead) {
                lastArrivalNanos = System.nanoTime();
                // A gathering committer wakes on its own within a millisecond or so (Object.wait's
                // granularity); wake it early only when its batch is full or no writer is left reading.
                if (queue.size() >= FULL_BATCH || staging == 0 || queuedBytes >= MAX_QUEUED_BYTES / 2) {
                    queueLock.notifyAll();
                }
            }
        }
        if (lead) {
            if (callerWaits) {
                drain();
            } else {
                committer.execute(this::drain);
            }
        }
    }

    /**
     * The committer's loop: commit batch after batch until nothing is queued. Before each batch, while
     * other writers keep arriving (less than {@value #ARRIVAL_GAP_NANOS} ns apart) or are still
     * reading their content, and the batch is small, it waits for them, at most
     * {@value #GATHER_NANOS} ns, so that concurrent writers share one commit and its sync. A lone
     * writer, or writers that each wait for their own write, never wait.
     */
    private void drain() {
        while (true) {
            List<Pending> batch = new ArrayList<>();
            synchronized (queueLock) {
                gather();
                if (queue.isEmpty()) {
                    committing = false;
                    queueLock.notifyAll();
                    return;
                }
                while (!queue.isEmpty() && batch.size() < MAX_BATCH) {
                    Pending p = queue.poll();
                    queuedBytes -= p.queuedBytes();
                    batch.add(p);
                }
                queueLock.notifyAll();
            }
            try {
                commit(batch);
            } catch (RuntimeException | Error e) {
                for (Pending p : batch) {
                    p.fail(e instanceof StorageException s ? s : unavailable(p.key, "Committing '" + p.key + "'", e));
                }
            }
            releaseStaging(batch);
            for (Pending p : batch) {
                p.complete();
            }
        }
    }

    /** Waits, holding the queue's monitor between waits, while more writes are about to join the batch. */
    private void gather() {
        long start = System.nanoTime();
        boolean interrupted = false;
        while (queue.size() < FULL_BATCH && queuedBytes < MAX_QUEUED_BYTES / 2 && !closed) {
            long now = System.nanoTime();
            long left = start + GATHER_NANOS - now;
            boolean streaming = now - lastArrivalNanos < ARRIVAL_GAP_NANOS;
            if (left <= 0 || (staging == 0 && !streaming)) {
                break;
            }
            long wait = Math.min(left, ARRIVAL_GAP_NANOS);
            try {
                queueLock.wait(wait / 1_000_000, (int) (wait % 1_000_000));
            } catch (InterruptedException e) {
                interrupted = true;
                break;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void commit(List<Pending> batch) {
        writeLock.lock();
        try {
            Set<Path> directories = new LinkedHashSet<>();
            for (Pending p : batch) {
                if (p.directoryToSync != null) {
                    directories.add(p.directoryToSync);
                }
            }
            writer.begin();
            // Small contents get their place in the pack file first (a conditional write refused below
            // leaves bytes no row names, reclaimed by compact()), then the rows are inserted; the pack's
            // bytes (all of them in one write) and the journal's frames naming the versions are written,
            // synced on the sync thread with the directories of new content files, and the transaction
            // commits once they are on disk.
            long pack = 0;
            for (Pending p : batch) {
                Blobs.Staged s = p.staged;
                if (s != null && s.inline() != null && s.size() > 0 && p.existing == null) {
                    if (pack == 0) {
                        pack = packs.beginBatch(writer);
                    }
                    p.packOffset = packs.add(s.inline());
                }
            }
            long now = config.clock().millis();
            List<Pending> appended = new ArrayList<>(batch.size());
            List<String> versionIds = new ArrayList<>(batch.size());
            List<Pending> late = new ArrayList<>();
            for (Pending p : batch) {
                if (p.condition != Condition.NONE) {
                    RuntimeException refused = refusal(p.key, writer.current(p.key), p.condition, p.eTag);
                    if (refused != null) {
                        p.outcome = refused;
                        continue;
                    }
                }
                String versionId = newVersionId(now);
                Blobs.Staged s = p.staged;
                if (s == null) {
                    writer.append(p.key, versionId, true, 0, null, null, now, null, 0, 0, false);
                } else {
                    boolean packed = s.inline() != null && s.size() > 0;
                    boolean counted = false;
                    if (p.existing != null) {
                        counted = true;
                        // Gone or moved since it was read (removed and compacted in this process): written below.
                        p.late = !writer.addReference(s.address(), p.existing);
                    }
                    writer.append(
                            p.key,
                            versionId,
                            false,
                            s.size(),
                            s.address(),
                            s.address(),
                            now,
                            packed ? null : s.inline(),
                            packed ? pack : 0,
                            p.packOffset,
                            counted && !p.late);
                    if (p.late) {
                        late.add(p);
                    }
                }
                appended.add(p);
                versionIds.add(versionId);
            }
            long[] generations = appended.isEmpty() ? new long[0] : writer.generationsOfNewest(appended.size());
            for (int i = 0; i < appended.size(); i++) {
                Pending p = appended.get(i);
                Blobs.Staged s = p.staged;
                long at = 0;
                long atOffset = 0;
                if (s != null && s.inline() != null && s.size() > 0) {
                    VersionIndex.Location where = p.existing;
                    at = where == null ? pack : where.pack();
                    atOffset = where == null ? p.packOffset : where.offset();
                }
                journal.version(new Journal.Version(
                        p.key,
                        versionIds.get(i),
                        s == null,
                        s == null ? 0 : s.size(),
                        s == null ? null : s.address(),
                        s == null ? null : s.address(),
                        generations[i],
                        now,
                        at,
                        atOffset));
            }
            if (pack != 0) {
                packs.writeBatch();
            }
            journal.write();
            // The pack and the directories are synced on the sync thread while this one syncs the journal.
            boolean packWritten = pack != 0;
            Future<Void> synced = !packWritten && directories.isEmpty()
                    ? null
                    : syncer.submit(() -> {
                        if (packWritten) {
                            packs.force();
                        }
                        for (Path dir : directories) {
                            Blobs.syncDirectory(dir);
                        }
                        return null;
                    });
            try {
                journal.force();
            } finally {
                if (synced != null) {
                    awaitSync(synced); // never leave the sync thread writing for a batch that failed
                }
            }
            for (int i = 0; i < appended.size(); i++) {
                Pending p = appended.get(i);
                String versionId = versionIds.get(i);
                Blobs.Staged s = p.staged;
                p.outcome = s == null
                        ? new VersionEntry(p.key, versionId, null, 0, Instant.ofEpochMilli(now), true, true)
                        : new ObjectVersion(
                                p.key,
                                versionId,
                                eTag(versionId),
                                s.size(),
                                s.sha256Hex(),
                                generations[i],
                                Instant.ofEpochMilli(now));
            }
            if (!late.isEmpty()) {
                writeLate(late, pack);
            }
            writer.commit();
            journal.committed();
            for (Pending p : appended) {
                Blobs.Staged st = p.staged;
                if (st != null
                        && st.inline() != null
                        && st.size() > 0
                        && p.existing == null
                        && writtenThisSession.size() < MAX_REMEMBERED) {
                    writtenThisSession.put(
                            ByteBuffer.wrap(st.address()), new VersionIndex.Location(null, pack, p.packOffset));
                }
            }
        } catch (IOException | SQLException e) {
            rollbackQuietly();
            packs.batchFailed();
            journal.rolledBack();
            for (Pending p : batch) {
                p.outcome = unavailable(
                        p.key, "Committing the write of '" + p.key + "' to the local object store '" + root + "'", e);
            }
        } catch (RuntimeException | Error e) {
            rollbackQuietly();
            packs.batchFailed();
            journal.rolledBack();
            throw e;
        } finally {
            writeLock.unlock();
        }
    }

    /**
     * Writes to the pack, syncs and records the contents whose stored copy was gone by the commit
     * (their versions are appended already, in this transaction).
     */
    private void writeLate(List<Pending> late, long batchPack) throws IOException, SQLException {
        long pack = batchPack != 0 ? batchPack : packs.beginBatch(writer);
        long[] offsets = new long[late.size()];
        for (int i = 0; i < late.size(); i++) {
            offsets[i] = packs.add(late.get(i).staged.inline());
        }
        packs.writeBatch();
        packs.force();
        for (int i = 0; i < late.size(); i++) {
            Blobs.Staged s = late.get(i).staged;
            writer.putContent(s.address(), s.size(), null, pack, offsets[i]);
            journal.locate(s.address(), pack, offsets[i]);
        }
        journal.write();
        journal.force();
    }

    /** Waits for the sync thread's syncs of a batch; their failure fails the batch. */
    private static void awaitSync(Future<Void> synced) throws IOException {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    synced.get();
                    return;
                } catch (InterruptedException e) {
                    interrupted = true; // the rows are inserted: finish the batch rather than leave it half done
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof IOException io) {
                        throw io;
                    }
                    throw new IOException(e.getCause());
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** After a batch: content files of writes that did not commit go unless something else holds them. */
    private void releaseStaging(List<Pending> batch) {
        for (Pending p : batch) {
            if (p.staged != null && p.staged.temporary() != null) {
                shared.removePending(p.staged.address());
                if (!(p.outcome instanceof ObjectVersion)) {
                    deleteContentFileIfUnreferenced(p.staged.address());
                }
            }
        }
    }

    private void deleteContentFileIfUnreferenced(byte[] address) {
        writeLock.lock();
        try {
            if (writer.inline(address) == null && !shared.isPending(address)) {
                blobs.delete(address);
            }
        } catch (IOException | SQLException e) {
            LOG.warn("Could not remove unreferenced content {} from '{}': {}", Sha256.hex(address), root, e.toString());
        } finally {
            writeLock.unlock();
        }
    }

    /**
     * A version ID: the wall clock in milliseconds (48 bits), a counter (16 bits) and 64 random bits,
     * in hex. Mostly increasing, so the index of version IDs grows at its end instead of taking a
     * random page per write; unique by the random bits. Drawn only by the committer, under the write
     * lock.
     */
    private String newVersionId(long nowMillis) {
        long high = (nowMillis << 16) | (versionCounter++ & 0xffff);
        return HEX.toHexDigits(high) + HEX.toHexDigits(versionIds.nextLong());
    }

    private void rollbackQuietly() {
        try {
            writer.rollback();
        } catch (SQLException ignored) {
            // the connection is unusable; the transaction is gone with it
        }
    }

    /** Why a conditional write must be refused given the key's current version, or null to proceed. */
    private static @Nullable RuntimeException refusal(
            String key, VersionIndex.@Nullable Row current, Condition condition, @Nullable String eTag) {
        boolean live = current != null && !current.deleteMarker();
        if (condition == Condition.IF_ABSENT && live) {
            return new AlreadyExistsException(key, null);
        }
        if (condition == Condition.IF_MATCH) {
            if (!live) {
                return new ObjectNotFoundException(key, null, current != null, null);
            }
            if (!eTag(current.versionId()).equals(eTag)) {
                return new PreconditionFailedException(
                        key,
                        "Object '" + key + "' no longer has ETag " + eTag
                                + "; a conditional write (If-Match) was refused: read the current version and retry the edit",
                        null);
            }
        }
        return null;
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
        validate(key);
        Objects.requireNonNull(options, "options");
        String versionId = options.versionId();
        VersionIndex.Row row = read(
                ix -> versionId == null ? ix.currentWithContent(key) : ix.version(key, versionId),
                key,
                "Reading '" + key + "'");
        if (row == null || row.deleteMarker()) {
            throw new ObjectNotFoundException(key, versionId, row != null, null);
        }
        String recorded = row.sha256() == null ? null : Sha256.hex(row.sha256());
        InputStream raw = open(key, row);
        // Without a recorded SHA-256 the bytes are still checked against their address, the SHA-256 of
        // what was stored, so damage at rest is caught either way.
        String expected = recorded != null ? recorded : Sha256.hex(row.content());
        ObjectVersion version = new ObjectVersion(
                key,
                row.versionId(),
                eTag(row.versionId()),
                row.size(),
                recorded == null ? "" : recorded,
                row.generation(),
                Instant.ofEpochMilli(row.modifiedMillis()));
        Freshness freshness = row.generation() == 0 ? Freshness.UNKNOWN : Freshness.FRESH;
        return new ObjectRead(
                version,
                new VerifyingInputStream(key, raw, row.size(), expected),
                Source.LIVE,
                freshness,
                Duration.ZERO,
                null);
    }

    private InputStream open(String key, VersionIndex.Row row) {
        if (row.size() == 0) {
            return InputStream.nullInputStream();
        }
        if (row.inlineData() != null) {
            return new ByteArrayInputStream(row.inlineData());
        }
        if (row.packed()) {
            return openPacked(key, row);
        }
        try {
            return blobs.open(row.content());
        } catch (NoSuchFileException e) {
            throw new IntegrityException(
                    key,
                    "Version '" + row.versionId() + "' of '" + key + "' is damaged: its content file "
                            + blobs.path(row.content()) + " is missing");
        } catch (Blobs.NotAContentFile e) {
            throw new IntegrityException(
                    key,
                    "Version '" + row.versionId() + "' of '" + key + "' is damaged: its content file "
                            + blobs.path(row.content()) + " is not a regular file");
        } catch (IOException e) {
            throw unavailable(key, "Opening the content of '" + key + "'", e);
        }
    }

    private InputStream openPacked(String key, VersionIndex.Row row) {
        Path file = packs.path(row.pack());
        try {
            return new ByteArrayInputStream(packs.read(row.pack(), row.packOffset(), (int) row.size()));
        } catch (NoSuchFileException e) {
            // A compaction may have moved the content and deleted the pack since the row was read.
            VersionIndex.Row now = read(ix -> ix.version(key, row.versionId()), key, "Reading '" + key + "'");
            if (now != null && now.packed() && (now.pack() != row.pack() || now.packOffset() != row.packOffset())) {
                return openPacked(key, now);
            }
            throw new IntegrityException(
                    key,
                    "Version '" + row.versionId() + "' of '" + key + "' is damaged: its pack file " + file
                            + " is missing");
        } catch (Blobs.NotAContentFile e) {
            throw new IntegrityException(
                    key,
                    "Version '" + row.versionId() + "' of '" + key + "' is damaged: its pack file " + file
                            + " is not a regular file");
        } catch (java.io.EOFException e) {
            throw new IntegrityException(
                    key,
                    "Version '" + row.versionId() + "' of '" + key + "' is damaged: its pack file " + e.getMessage());
        } catch (IOException e) {
            throw unavailable(key, "Reading the content of '" + key + "' from " + file, e);
        }
    }

    @Override
    public List<VersionEntry> versions(String key) {
        validate(key);
        List<VersionIndex.Row> rows = read(ix -> ix.history(key), key, "Listing the versions of '" + key + "'");
        return entries(rows);
    }

    /** The index rows as version entries, in their order. */
    private List<VersionEntry> entries(List<VersionIndex.Row> rows) {
        List<VersionEntry> entries = new ArrayList<>(rows.size());
        for (VersionIndex.Row r : rows) {
            entries.add(new VersionEntry(
                    r.key(),
                    r.versionId(),
                    r.deleteMarker() ? null : eTag(r.versionId()),
                    r.size(),
                    Instant.ofEpochMilli(r.modifiedMillis()),
                    r.latest(),
                    r.deleteMarker()));
        }
        return List.copyOf(entries);
    }

    /** One index query per page ({@link LocalListing}). */
    @Override
    public java.util.stream.Stream<dev.ballast.storage.object.ListEntry> listing(
            dev.ballast.storage.object.ListRequest request) {
        Objects.requireNonNull(request, "request");
        return LocalListing.listing(
                request,
                (from, to, limit) -> read(
                        ix -> ix.currentPage(from, to, limit), null, "Listing keys under '" + request.prefix() + "'"));
    }

    @Override
    public List<String> list(String prefix) {
        Objects.requireNonNull(prefix, "prefix");
        return List.copyOf(read(ix -> ix.list(prefix), null, "Listing keys under '" + prefix + "'"));
    }

    /** Every version and delete marker of the keys under {@code prefix}, by key in UTF-8 binary order, newest first. */
    @Override
    public List<VersionEntry> listVersions(String prefix) {
        Objects.requireNonNull(prefix, "prefix");
        List<VersionIndex.Row> rows =
                read(ix -> ix.historyUnder(prefix), null, "Listing the versions under '" + prefix + "'");
        return entries(rows);
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
        Objects.requireNonNull(listed, "listed");
        List<VersionEntry> toCheck = new ArrayList<>(listed.size());
        for (VersionEntry v : listed) {
            if (!v.deleteMarker() && v.size() != 0) {
                toCheck.add(v);
            }
        }
        java.util.Map<VersionEntry, String> missing = new java.util.LinkedHashMap<>();
        if (toCheck.isEmpty()) {
            return missing;
        }
        List<VersionIndex.Row> rows = read(
                ix -> {
                    List<VersionIndex.Row> found = new ArrayList<>(toCheck.size());
                    for (VersionEntry v : toCheck) {
                        found.add(ix.version(v.key(), v.versionId()));
                    }
                    return found;
                },
                null,
                "Looking up " + toCheck.size() + " versions");
        java.util.Map<Path, java.util.Optional<BasicFileAttributes>> looked = new java.util.HashMap<>();
        for (int i = 0; i < toCheck.size(); i++) {
            VersionIndex.Row row = rows.get(i);
            String why = row == null ? "it is no longer in the index" : contentProblem(row, looked);
            if (why != null) {
                missing.put(toCheck.get(i), why);
            }
        }
        return missing;
    }

    /**
     * What is wrong with where the bytes of {@code row} are kept, seen without reading them; null if
     * nothing. {@code looked} keeps the files already looked at (empty: missing).
     */
    private @Nullable String contentProblem(
            VersionIndex.Row row, java.util.Map<Path, java.util.Optional<BasicFileAttributes>> looked) {
        if (row.inlineData() != null) {
            return row.inlineData().length == row.size()
                    ? null
                    : "its content in the index has " + row.inlineData().length + " bytes, not " + row.size();
        }
        Path file = row.packed() ? packs.path(row.pack()) : blobs.path(row.content());
        String what = row.packed() ? "pack file " : "content file ";
        java.util.Optional<BasicFileAttributes> seen = looked.get(file);
        if (seen == null) {
            try {
                seen = java.util.Optional.of(
                        Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS));
            } catch (NoSuchFileException e) {
                seen = java.util.Optional.empty();
            } catch (IOException e) {
                throw unavailable(row.key(), "Looking at " + file, e);
            }
            looked.put(file, seen);
        }
        if (seen.isEmpty()) {
            return "its " + what + file + " is missing";
        }
        BasicFileAttributes attrs = seen.get();
        if (!attrs.isRegularFile()) {
            return "its " + what + file + " is not a regular file";
        }
        if (row.packed()) {
            long end = row.packOffset() + row.size();
            return attrs.size() >= end
                    ? null
                    : "its pack file " + file + " ends at byte " + attrs.size() + ", before the content's end at "
                            + end;
        }
        return attrs.size() == row.size()
                ? null
                : "its content file " + file + " has " + attrs.size() + " bytes but " + row.size() + " are recorded";
    }

    /** One index query on an idle read connection (opening one if none is idle). */
    private <T> T read(IndexQuery<T> query, @Nullable String key, String what) {
        ensureOpen();
        VersionIndex ix = idleReaders.poll();
        try {
            if (ix != null && ix.outdated()) {
                ix.closeQuietly(); // opened on the earlier schema, which a writer has upgraded since
                ix = null;
            }
            if (ix == null) {
                ix = indexReaders.open();
            }
            T result = query.run(ix);
            if (closed || idleReaders.size() >= MAX_IDLE_READERS) {
                ix.closeQuietly();
            } else {
                idleReaders.add(ix);
            }
            return result;
        } catch (SQLException e) {
            if (ix != null) {
                ix.closeQuietly();
            }
            throw unavailable(key, what + " in the local object store '" + root + "'", e);
        }
    }

    @FunctionalInterface
    private interface IndexQuery<T> {
        T run(VersionIndex index) throws SQLException;
    }

    // ------------------------------------------------------------------------------------------ common

    /**
     * Waits for queued writes to commit, then closes the index and releases the writer lock.
     * Idempotent.
     */
    @Override
    public void close() {
        synchronized (queueLock) {
            if (closed) {
                return;
            }
            closed = true;
            while (committing) {
                try {
                    queueLock.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        committer.shutdown();
        syncer.shutdown();
        packs.closeReaders();
        VersionIndex ix;
        while ((ix = idleReaders.poll()) != null) {
            ix.closeQuietly();
        }
        indexReaders.close();
        if (writer != null) {
            writeLock.lock();
            try {
                packs.close();
                writer.checkpointAndClose();
                reserve.ensure();
            } finally {
                writeLock.unlock();
            }
            shared.release();
        }
    }

    @Override
    public String toString() {
        return "LocalObjectStore[" + root + (writer == null ? ", read-only" : "") + "]";
    }

    private void validate(String key) {
        ObjectKeys.validate(key, config.allowDotSegmentsAndLeadingSlash());
    }

    private void requireWritable() {
        ensureOpen();
        if (writer == null) {
            throw new IllegalStateException("The local object store '" + root + "' was opened read-only");
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("This LocalObjectStore is closed");
        }
    }

    /** The ETag of a version: its version ID, quoted, so it changes with every write (never an MD5). */
    static String eTag(String versionId) {
        return "\"" + versionId + "\"";
    }

    private static <T> T join(CompletableFuture<T> future) {
        try {
            return future.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw e;
        }
    }

    /**
     * The failure of an I/O or index operation: out of space and everything else the store cannot do
     * now are {@link StorageUnavailableException}s; an index SQLite finds damaged
     * ({@code SQLITE_CORRUPT}, {@code SQLITE_NOTADB}) is an {@link IntegrityException}, since no
     * retry can repair it.
     */
    static StorageException unavailable(@Nullable String key, String what, Throwable cause) {
        String message = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
        if (indexDamaged(cause)) {
            return new IntegrityException(
                    key != null ? key : INDEX_FILE,
                    what + " failed: the store's index is damaged (" + message + "); restore the"
                            + " store's directory from a copy",
                    cause);
        }
        if (outOfSpace(cause)) {
            return new StorageUnavailableException(
                    key, what + " failed: the store is out of space (" + message + ")", cause);
        }
        return new StorageUnavailableException(key, what + " failed (" + message + ")", cause);
    }

    /** Whether SQLite reported the index file damaged or not a database at all. */
    private static boolean indexDamaged(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof java.sql.SQLException sql
                    && ((sql.getErrorCode() & 0xff) == 11 || (sql.getErrorCode() & 0xff) == 26)) {
                return true; // SQLITE_CORRUPT, SQLITE_NOTADB
            }
        }
        return false;
    }

    private static boolean outOfSpace(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            String m = c.getMessage();
            if (m != null
                    && (m.contains("No space left on device")
                            || m.contains("SQLITE_FULL")
                            || m.contains("database or disk is full"))) {
                return true;
            }
        }
        return false;
    }

    /** A write waiting for its commit. */
    private static final class Pending {
        final String key;
        final Condition condition;
        final @Nullable String eTag;
        final Blobs.@Nullable Staged staged;
        final CompletableFuture<Object> result = new CompletableFuture<>();

        @Nullable
        Path directoryToSync;

        /** Where in the batch's pack file the content was written. */
        long packOffset;

        /** Where the store already holds these very bytes (checked byte for byte), or null. */
        VersionIndex.@Nullable Location existing;

        /** Whether the copy found at {@link #existing} was gone by the commit, so the bytes are written after all. */
        boolean late;

        @Nullable
        Object outcome;

        Pending(String key, Condition condition, @Nullable String eTag, Blobs.@Nullable Staged staged) {
            this.key = key;
            this.condition = condition;
            this.eTag = eTag;
            this.staged = staged;
        }

        long queuedBytes() {
            return staged == null || staged.inline() == null ? 0 : staged.inline().length;
        }

        void fail(RuntimeException e) {
            outcome = e;
            complete();
        }

        void complete() {
            if (outcome instanceof RuntimeException e) {
                result.completeExceptionally(e);
            } else {
                result.complete(outcome);
            }
        }
    }
}
