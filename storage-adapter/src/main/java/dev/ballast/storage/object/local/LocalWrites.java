package dev.ballast.storage.object.local;

import dev.ballast.storage.AlreadyExistsException;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.PreconditionFailedException;
import dev.ballast.storage.StorageException;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.internal.ObjectKeys;
import dev.ballast.storage.internal.Sha256;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectMetadata;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.ServerSideEncryption;
import dev.ballast.storage.object.VersionEntry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * The write room of {@link LocalObjectStore}: puts, delete markers, version removal and compaction,
 * and the group commit that makes queued writes durable together (see
 * {@link LocalObjectStore#putAsync(String, ObjectContent)}). Thread-safe.
 */
final class LocalWrites {
    static final long MAX_QUEUED_BYTES = 16L * 1024 * 1024;
    private static final int MAX_BATCH = 4096;
    /** A batch this large commits at once, without waiting for writers still reading their content. */
    private static final int FULL_BATCH = 512;
    /** The longest a committer waits for writers still reading their content to join its batch. */
    private static final long GATHER_NANOS = 2_000_000;
    /** Writes arriving less than this apart count as a stream worth gathering into one commit. */
    private static final long ARRIVAL_GAP_NANOS = 300_000;

    private static final HexFormat HEX = HexFormat.of();

    private final Path root;
    private final LocalStoreConfig config;
    private final Blobs blobs;
    private final Packs packs;
    private final SpaceReserve reserve;
    private final IndexConnections connections;
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
    private final @Nullable SharedDirectory shared;
    private final @Nullable VersionIndex writer;
    private final ReentrantLock writeLock = new ReentrantLock();
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

    LocalWrites(
            Path root,
            LocalStoreConfig config,
            Blobs blobs,
            Packs packs,
            SpaceReserve reserve,
            IndexConnections connections,
            int inlineThreshold,
            @Nullable SharedDirectory shared,
            @Nullable VersionIndex writer,
            boolean emptyWhenOpened) {
        this.root = root;
        this.config = config;
        this.blobs = blobs;
        this.packs = packs;
        this.reserve = reserve;
        this.connections = connections;
        this.journal = shared == null ? null : shared.journal(inlineThreshold);
        this.emptyWhenOpened = emptyWhenOpened;
        this.inlineThreshold = inlineThreshold;
        this.shared = shared;
        this.writer = writer;
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

    boolean readOnly() {
        return writer == null;
    }

    ObjectVersion put(String key, ObjectContent content, ObjectMetadata metadata) {
        return join(write(key, content, Condition.NONE, null, true, metadata));
    }

    ObjectVersion putIfAbsent(String key, ObjectContent content, ObjectMetadata metadata) {
        return join(write(key, content, Condition.IF_ABSENT, null, true, metadata));
    }

    ObjectVersion putIfMatch(String key, String eTag, ObjectContent content, ObjectMetadata metadata) {
        Objects.requireNonNull(eTag, "eTag");
        return join(write(key, content, Condition.IF_MATCH, eTag, true, metadata));
    }

    CompletableFuture<ObjectVersion> putAsync(String key, ObjectContent content, ObjectMetadata metadata) {
        return write(key, content, Condition.NONE, null, false, metadata);
    }

    private enum Condition {
        NONE,
        IF_ABSENT,
        IF_MATCH
    }

    @SuppressWarnings("unchecked")
    private CompletableFuture<ObjectVersion> write(
            String key,
            ObjectContent content,
            Condition condition,
            @Nullable String eTag,
            boolean callerWaits,
            ObjectMetadata metadata) {
        validate(key);
        Objects.requireNonNull(content, "content");
        requireWritable();
        if (condition != Condition.NONE) {
            VersionIndex.Row current = connections.read(ix -> ix.current(key), key, "Reading '" + key + "'");
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
            pending = stage(key, content, condition, eTag, metadata);
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
    private Pending stage(
            String key, ObjectContent content, Condition condition, @Nullable String eTag, ObjectMetadata metadata) {
        Blobs.Staged staged;
        try {
            staged = blobs.stage(content, config.ownFiles().test(key) ? -1 : inlineThreshold);
        } catch (Blobs.SourceFailure e) {
            throw new UncheckedIOException(
                    "Could not read the content to store as '" + key + "' ("
                            + e.getCause().getMessage() + ")",
                    e.getCause());
        } catch (IOException e) {
            throw LocalErrors.unavailable(
                    key, "Writing the content of '" + key + "' to the local object store '" + root + "'", e);
        }
        Pending pending = new Pending(key, condition, eTag, staged, metadata);
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
                throw LocalErrors.unavailable(
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
            VersionIndex.Location at =
                    connections.read(ix -> ix.location(s.address()), null, "Looking up stored content");
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
    VersionEntry delete(String key) {
        validate(key);
        requireWritable();
        Pending marker = new Pending(key, Condition.NONE, null, null, ObjectMetadata.NONE);
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
    boolean deleteVersion(String key, String versionId) {
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
                    Journal.Position at = journal.record(writer);
                    writer.commit();
                    journal.committed(at);
                    break;
                } catch (SQLException | IOException e) {
                    rollbackQuietly();
                    journal.rolledBack();
                    if (attempt > 1 || !mayUseReserve(root, config, reserve)) {
                        throw LocalErrors.unavailable(key, "Removing version '" + versionId + "' of '" + key + "'", e);
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
    LocalObjectStore.Compaction compact(boolean fully) {
        requireWritable();
        writeLock.lock();
        try {
            try {
                return new PackCompactor(root, writer, packs, journal, fully).run();
            } catch (StorageException e) {
                if (!mayUseReserve(root, config, reserve)) {
                    throw e;
                }
                return new PackCompactor(root, writer, packs, journal, fully).run();
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
    static boolean mayUseReserve(Path root, LocalStoreConfig config, SpaceReserve reserve) {
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
                    p.fail(
                            e instanceof StorageException s
                                    ? s
                                    : LocalErrors.unavailable(p.key, "Committing '" + p.key + "'", e));
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
                    IndexAttributes.putMetadata(writer.connection(), versionId, p.metadata);
                    if (s.blockTable() != null) {
                        IndexAttributes.putBlockDigests(writer.connection(), s.address(), s.blockTable());
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
                                LocalObjectStore.eTag(versionId),
                                s.size(),
                                s.sha256Hex(),
                                generations[i],
                                Instant.ofEpochMilli(now),
                                p.metadata,
                                ServerSideEncryption.NONE);
            }
            if (!late.isEmpty()) {
                writeLate(late, pack);
            }
            Journal.Position at = journal.record(writer);
            writer.commit();
            journal.committed(at);
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
                p.outcome = LocalErrors.unavailable(
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
            LocalObjectStore.LOG.warn(
                    "Could not remove unreferenced content {} from '{}': {}", Sha256.hex(address), root, e.toString());
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
            if (!LocalObjectStore.eTag(current.versionId()).equals(eTag)) {
                return new PreconditionFailedException(
                        key,
                        "Object '" + key + "' no longer has ETag " + eTag
                                + "; a conditional write (If-Match) was refused: read the current version and retry the edit",
                        null);
            }
        }
        return null;
    }

    /**
     * Refuses new writes and waits for the commit running, then stops the commit and sync threads.
     *
     * @return false if the store was closed already
     */
    boolean closeQueue() {
        synchronized (queueLock) {
            if (closed) {
                return false;
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
        return true;
    }

    /** Closes the packs and the writer's index connection and releases the writer lock (writers only). */
    void closeWriter() {
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

    /** A write waiting for its commit. */
    private static final class Pending {
        final String key;
        final Condition condition;
        final @Nullable String eTag;
        final Blobs.@Nullable Staged staged;
        final ObjectMetadata metadata;
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

        Pending(
                String key,
                Condition condition,
                @Nullable String eTag,
                Blobs.@Nullable Staged staged,
                ObjectMetadata metadata) {
            this.metadata = metadata;
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
