package dev.ballast.backup.restore;

import dev.ballast.backup.Cancellation;
import dev.ballast.backup.Messages;
import dev.ballast.backup.ProgressCounter;
import dev.ballast.backup.content.PackedContent;
import dev.ballast.backup.content.Sha256;
import dev.ballast.backup.content.Transfers;
import dev.ballast.backup.run.BackupRunner;
import dev.ballast.backup.snapshot.DamagedVersions;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.ManifestEntry;
import dev.ballast.backup.tree.Attributes;
import dev.ballast.backup.tree.FileStat;
import dev.ballast.backup.tree.SafePaths;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.StorageException;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ReadOptions;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Restores the files of one manifest into a target directory, {@code transfers} files at a time.
 * Every path is checked before anything is written ({@link SafePaths}); every file is written to a
 * short temporary name in its directory while the store checks its SHA-256 as the bytes stream in
 * (the manifest's SHA-256 must be the one the store recorded), then renamed into place atomically,
 * so a reader never sees a half-written or unverified file. A target that does not exist yet is
 * written instead in a staging directory beside it ({@link RestoreTemporaries#stage()}, where the run
 * records its temporary names), each file created at its own name there and removed if it fails its
 * check; once everything is written and durable the directory takes the target's name with one
 * rename. A killed run's staging directory is taken over by the next run into the same target. Everything written is made durable once
 * at the end, before the run returns ({@link RestoreSync}, by default the file system's sync; a
 * failure there is a {@link dev.ballast.backup.BackupException}); where that sync is not available,
 * each file is synced before its rename on a pool of sync threads and each directory at the end
 * ({@link RestoreDurability}). A killed run's renamed files are complete in the kernel's cache (a
 * run again keeps them, checked by size and SHA-256); a crash of the system before the end sync
 * can leave one short or empty, which a run again finds different and replaces with {@code overwrite}. Runs of 64 KiB of
 * zeros are not written, so a sparse file comes back sparse. An existing file is kept when it already
 * matches, and never replaced when it differs unless {@code overwrite} is set. At most {@value
 * #MAX_AWAITING_SYNC} written files wait for their sync thread. Not thread-safe; one instance per run.
 */
public final class RestoreRunner {

    /** The reason given for a file an interruption left unattempted. */
    public static final String NOT_ATTEMPTED = "not attempted";

    /** What a restore did. */
    public record Result(
            int restored,
            int alreadyPresent,
            long bytes,
            List<BackupRunner.Failure> failed,
            @Nullable StorageUnavailableException unavailable,
            int degradedReads,
            boolean cancelled,
            Duration elapsed,
            int damagedCopies) {
        public boolean ok() {
            return failed.isEmpty() && unavailable == null && !cancelled;
        }
    }

    private static final int BUFFER_BYTES = 1024 * 1024;
    public static final int MAX_AWAITING_SYNC = 256;
    private static final int SPARSE_BLOCK = 64 * 1024;
    private static final byte[] ZEROS = new byte[SPARSE_BLOCK];
    /** One copy buffer per transfer thread: a fresh 1 MiB array per file would be zeroed and collected 20,000 times for 20,000 small files. */
    private static final ThreadLocal<byte[]> BUFFERS = ThreadLocal.withInitial(() -> new byte[BUFFER_BYTES]);

    private final ObjectStore store;
    private final Manifest manifest;

    private final Path target;
    private final boolean overwrite;
    private final int transfers;
    private final Cancellation cancellation;
    private final Function<Manifest, ProgressCounter> progressFactory;
    private final DamagedVersions damaged;

    private final AtomicInteger restored = new AtomicInteger();
    private final AtomicInteger degraded = new AtomicInteger();
    private final AtomicInteger damagedCopies = new AtomicInteger();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicReference<StorageUnavailableException> unavailable = new AtomicReference<>();
    private final List<BackupRunner.Failure> failed = Collections.synchronizedList(new ArrayList<>());
    /** Whether owners are restored: only a process running as root may give files away. */
    private boolean ownership;
    /** Where runs record their temporary names' token (null: nowhere, and no leftovers are removed). */
    private @Nullable Path temporaryRecords;

    private @Nullable RestoreTemporaries temporaries;

    private RestoreSync sync = RestoreSync.fileSystems();
    /** How this run's writes reach the disk, chosen once the target exists. */
    private RestoreDurability durability;

    /**
     * Makes what this run writes durable with {@code sync} at its end (default {@link
     * RestoreSync#fileSystems()}).
     */
    public RestoreRunner syncingWith(RestoreSync sync) {
        this.sync = Objects.requireNonNull(sync, "sync");
        return this;
    }

    /**
     * Records this run's temporary names in {@code dir} (the CLI's cache directory), so that a later
     * run into the same target removes them if this one is killed; see {@link RestoreTemporaries}.
     */
    public RestoreRunner recordingTemporariesIn(@Nullable Path dir) {
        this.temporaryRecords = dir;
        return this;
    }

    public RestoreRunner(
            ObjectStore store,
            Manifest manifest,
            Path target,
            boolean overwrite,
            int transfers,
            Cancellation cancellation,
            Function<Manifest, ProgressCounter> progressFactory) {
        this(
                store,
                manifest,
                target,
                overwrite,
                transfers,
                cancellation,
                progressFactory,
                DamagedVersions.empty(manifest.name()));
    }

    /**
     * @param damaged the versions verify found damaged: a file whose version has a recorded good copy
     *     is read from that copy (same SHA-256)
     */
    public RestoreRunner(
            ObjectStore store,
            Manifest manifest,
            Path target,
            boolean overwrite,
            int transfers,
            Cancellation cancellation,
            Function<Manifest, ProgressCounter> progressFactory,
            DamagedVersions damaged) {
        this.damaged = Objects.requireNonNull(damaged, "damaged");
        this.store = Objects.requireNonNull(store, "store");
        this.manifest = Objects.requireNonNull(manifest, "manifest");
        this.target = Objects.requireNonNull(target, "target").toAbsolutePath().normalize();
        this.overwrite = overwrite;
        this.transfers = transfers;
        this.cancellation = Objects.requireNonNull(cancellation, "cancellation");
        this.progressFactory = Objects.requireNonNull(progressFactory, "progressFactory");
    }

    /**
     * Writes the files whose stored path is a key of {@code writtenAs} under the path it maps to
     * (a hard-linked file whose stored name was not selected: {@link RestoreSelection.Selected}).
     */
    public RestoreRunner writingAs(java.util.Map<String, String> writtenAs) {
        this.writtenAs = java.util.Map.copyOf(writtenAs);
        return this;
    }

    private java.util.Map<String, String> writtenAs = java.util.Map.of();

    /** Whether something stood at each file's destination when the run looked, before writing. */
    private boolean[] occupied = new boolean[0];

    /** Where the content of packed entries is read from (format 3), or null. */
    private @Nullable PackedContent packed;

    /**
     * Reads the content of entries of format 3 ({@link ManifestEntry#packed()}) from {@code content}:
     * their chunks are read from the packs, each checked against its keyed ID as it is opened, and the
     * whole file's length checked before it takes its name ({@link PackedRestore}).
     */
    public RestoreRunner readingFrom(PackedContent content) {
        this.packed = Objects.requireNonNull(content, "content");
        return this;
    }

    /** {@code target}, or the nearest directory above it that exists, absolute; null if none does. */
    @Nullable
    static Path nearestExisting(Path target) {
        for (Path p = target.toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
                return p;
            }
        }
        return null;
    }

    /**
     * The directories whose entries this run made outside the tree's own directories: the target (the
     * tree's top directories and files are entries of it) and, where the run created the target, each
     * directory it created above it and the existing one it created the first of them in. A sync per
     * directory (where {@code sync -f} does not run) covers these too, so that no entry on the way to
     * a restored file can be lost after the run said complete.
     */
    static List<Path> entriesAbove(Path realTarget, @Nullable Path existingAbove) {
        List<Path> dirs = new ArrayList<>();
        dirs.add(realTarget);
        if (existingAbove == null) {
            return dirs;
        }
        Path stop;
        try {
            stop = existingAbove.toRealPath();
        } catch (IOException e) {
            return dirs;
        }
        if (stop.equals(realTarget)) {
            return dirs; // the target existed
        }
        for (Path p = realTarget.getParent(); p != null && p.startsWith(stop); p = p.getParent()) {
            dirs.add(p);
        }
        return dirs;
    }

    /** The path {@code e} is written at, as messages name it. */
    private String shown(ManifestEntry e) {
        return writtenAs.getOrDefault(e.path(), e.path());
    }

    /**
     * Where this run writes the tree: the target, or, for a target that does not exist yet (and a run
     * that records its temporary names), a staging directory beside it that takes the target's name
     * once every file is written and durable ({@link RestoreTemporaries#stage()}).
     */
    private Path root;
    /** Whether existing files under {@link #root} may be replaced: {@code overwrite}, or a killed run's staging directory. */
    private boolean replacing;

    public Result run() throws IOException {
        try (RestoreTemporaries t = new RestoreTemporaries(target, temporaryRecords)) {
            temporaries = t;
            Path existingAbove = nearestExisting(target);
            root = target;
            replacing = overwrite;
            if (temporaryRecords != null && !target.equals(existingAbove) && target.getParent() != null) {
                // A new target is written in a staging directory beside it and renamed once: each file is
                // then created at its own name (one directory entry, where a temporary name and a rename
                // per file take two), and the target's name never holds a partly written tree.
                Files.createDirectories(target.getParent());
                RestoreTemporaries.Staging staging = t.stage();
                if (staging != null) {
                    root = staging.path();
                    replacing = overwrite || staging.adopted();
                }
            }
            boolean promoted = root.equals(target);
            try {
                Result result = runWithTemporaries(existingAbove);
                promote();
                promoted = true;
                return result;
            } finally {
                if (!promoted && !promoteQuietly()) {
                    t.keepRecord(); // a later run into this target takes the staging directory over
                }
            }
        }
    }

    /**
     * Gives a staging directory the target's name, then makes that rename durable (an fsync of their
     * parent directory); the files in it already are.
     *
     * @throws IOException when something took the target's name while the run wrote (the tree is
     *     left complete in the staging directory, and the message names it), or the rename fails
     */
    private void promote() throws IOException {
        if (root.equals(target)) {
            return;
        }
        if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
            temporaries.keepRecord();
            throw new IOException("'" + target + "' was created by something else while the restore ran; the restored "
                    + "tree is in '" + root + "': move it into place, or remove '" + target
                    + "' and run the restore again (it keeps what is already written)");
        }
        Files.move(root, target, StandardCopyOption.ATOMIC_MOVE);
        root = target;
        try (FileChannel parent = FileChannel.open(target.getParent(), StandardOpenOption.READ)) {
            parent.force(true);
        }
    }

    /**
     * After a run that threw: a staging directory with nothing in it (the manifest was refused before a
     * byte was written) is removed, one with files (each complete) gets the target's name; false if it
     * is still staged.
     */
    private boolean promoteQuietly() {
        if (root.equals(target)) {
            return true;
        }
        try {
            if (Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) {
                boolean empty;
                try (java.util.stream.Stream<Path> entries = Files.list(root)) {
                    empty = entries.findAny().isEmpty();
                }
                if (empty) {
                    Files.delete(root);
                    root = target;
                } else {
                    promote();
                }
            }
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private Result runWithTemporaries(@Nullable Path existingAbove) throws IOException {
        long start = System.nanoTime();
        // Every path first: one unsafe path refuses the whole manifest before a byte is written.
        List<Path> destinations = new ArrayList<>();
        for (ManifestEntry e : manifest.files()) {
            destinations.add(SafePaths.resolveInside(root, writtenAs.getOrDefault(e.path(), e.path())));
        }
        RestoreConflicts conflicts = new RestoreConflicts();
        boolean[] present = new boolean[destinations.size()];
        occupied = new boolean[destinations.size()];
        // Nothing can stand at a path whose directory is not (yet) a directory: one look per directory,
        // not a failed lstat (and the JDK's exception for it) per file of a restore into a new folder.
        java.util.Map<Path, Boolean> directoryExists = new java.util.HashMap<>();
        for (int i = 0; i < destinations.size() && !cancellation.cancelled(); i++) {
            Path dest = destinations.get(i);
            ManifestEntry e = manifest.files().get(i);
            if (directoryExists.computeIfAbsent(dest.getParent(), d -> Files.isDirectory(d))
                    && Files.exists(dest, LinkOption.NOFOLLOW_LINKS)) {
                occupied[i] = true;
                boolean unreadable = false;
                try {
                    present[i] = Files.isRegularFile(dest, LinkOption.NOFOLLOW_LINKS)
                            && Files.size(dest) == e.size()
                            && Sha256.ofFile(dest, n -> {}).equals(e.sha256());
                } catch (java.nio.file.AccessDeniedException denied) {
                    // A file of mode 000 or 0200 an earlier run of this user restored: not known to be the
                    // backup's, so in the way like a different one (--overwrite replaces it), not a failed run.
                    present[i] = false;
                    unreadable = true;
                }
                if (!present[i] && !replacing) {
                    conflicts.add(
                            shown(e),
                            Files.isDirectory(dest, LinkOption.NOFOLLOW_LINKS)
                                    ? RestoreConflicts.Kind.DIRECTORY_WHERE_FILE
                                    : unreadable
                                            ? RestoreConflicts.Kind.UNREADABLE_FILE
                                            : Files.isRegularFile(dest, LinkOption.NOFOLLOW_LINKS)
                                                    ? RestoreConflicts.Kind.DIFFERENT_FILE
                                                    : RestoreConflicts.Kind.OTHER_WHERE_FILE);
                }
            }
        }
        RestoreTree tree = RestoreTree.plan(manifest.tree(), root, replacing, conflicts);
        if (!conflicts.isEmpty()) {
            throw conflicts.refusal(target);
        }
        Files.createDirectories(root);
        Path realTarget = root.toRealPath();
        ownership = FileStat.UNIX && RestoreLinks.runsAsRoot(realTarget);
        Set<Path> directories = new LinkedHashSet<>();
        tree.directories().forEach(d -> directories.add(d.dest()));
        for (int i = 0; i < destinations.size(); i++) {
            if (!present[i]) {
                directories.add(destinations.get(i).getParent());
            }
        }
        tree.links().forEach(l -> directories.add(l.dest().getParent()));
        RestoreDirectories prepared = new RestoreDirectories(root, realTarget, replacing, cancellation);
        for (Path dir : directories) {
            prepared.prepare(dir);
        }
        removeTemporaryFiles(destinations, prepared, temporaries);

        int already = 0;
        int[] order = PackedRestore.writeOrder(packed == null ? null : packed::storedAt, manifest);
        AutoCloseable readAhead = packed == null ? null : PackedRestore.readAhead(packed, manifest, present, order);
        // A staging directory is named in no message: the tree is restored into the target.
        Path shownAs = root.equals(target) ? realTarget : realTarget.resolveSibling(target.getFileName());
        durability = RestoreDurability.choose(sync, realTarget, shownAs, cancellation::cancelled);
        ExecutorService syncers = durability.fileSyncers();
        try (ProgressCounter progress = progressFactory.apply(manifest);
                Transfers pool = new Transfers(transfers, transfers + MAX_AWAITING_SYNC)) {
            for (int i : order) {
                ManifestEntry e = manifest.files().get(i);
                Path dest = destinations.get(i);
                if (unavailable.get() != null || cancellation.cancelled()) {
                    failed.add(new BackupRunner.Failure(shown(e), NOT_ATTEMPTED));
                    continue;
                }
                if (present[i]) {
                    already++;
                    progress.addBytes(e.size());
                    progress.fileDone();
                    continue;
                }
                String blocked = blocked(prepared, dest.getParent());
                if (blocked != null) {
                    failed.add(new BackupRunner.Failure(shown(e), blocked));
                    continue;
                }
                boolean occupiedAtStart = occupied[i];
                pool.submit(done -> restoreOne(e, dest, occupiedAtStart, progress, syncers, () -> {
                    progress.fileDone();
                    done.run();
                }));
            }
            pool.awaitAll();
        } finally {
            syncers.shutdown();
            PackedRestore.close(readAhead);
        }
        RestoreDurability.awaitTermination(syncers);
        for (int i = 0; i < destinations.size() && !cancellation.cancelled(); i++) {
            if (present[i]) {
                applyQuietly(manifest.files().get(i), destinations.get(i));
            }
        }
        if (!cancellation.cancelled()) {
            tree.restore(root, prepared, ownership, temporaries, cancellation, failed);
        }
        List<Path> written = new ArrayList<>(entriesAbove(realTarget, existingAbove));
        for (Path dir : directories) {
            if (prepared.stateOf(dir) instanceof RestoreDirectories.Usable
                    && !(cancellation.cancelled() && durability.eachFile())) {
                written.add(dir);
            }
        }
        durability.complete(written);
        List<BackupRunner.Failure> failures = new ArrayList<>(failed);
        failures.sort(Comparator.comparing(BackupRunner.Failure::path));
        return new Result(
                restored.get(),
                already,
                bytes.get(),
                failures,
                unavailable.get(),
                degraded.get(),
                cancellation.cancelled(),
                Duration.ofNanos(System.nanoTime() - start),
                damagedCopies.get());
    }

    /**
     * Records this run and removes the temporary files a killed restore into this target left in these
     * directories (a finished restore leaves none), so a restore run again after a crash leaves the tree
     * as one that was never interrupted. Only names carrying a recorded run's token are removed: no
     * name a user's file may have is taken ({@link RestoreTemporaries}).
     */
    private static void removeTemporaryFiles(
            List<Path> destinations, RestoreDirectories prepared, RestoreTemporaries temporaries) {
        Set<Path> dirs = new LinkedHashSet<>();
        for (Path dest : destinations) {
            Path dir = dest.getParent();
            if (prepared.stateOf(dir) instanceof RestoreDirectories.Usable
                    && Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                dirs.add(dir);
            }
        }
        temporaries.begin(dirs);
    }

    /**
     * Why nothing can be written into {@code dir} (a link in the target leads outside it, or the
     * directory could not be created), as a failure's reason, or null when it is usable.
     */
    static @Nullable String blocked(RestoreDirectories prepared, Path dir) {
        RestoreDirectories.State state = prepared.stateOf(dir);
        if (state instanceof RestoreDirectories.Unsafe) {
            return "its directory resolves outside the target directory; it was not written";
        }
        if (state instanceof RestoreDirectories.Failed f) {
            return f.reason() + "; it was not written";
        }
        return null;
    }

    /**
     * Fetches one file into a temporary file on this thread and renames it into place, here or, when
     * each file is synced first, on a sync thread; {@code done} runs once its outcome is recorded.
     */
    private void restoreOne(
            ManifestEntry e,
            Path dest,
            boolean occupiedAtStart,
            ProgressCounter progress,
            ExecutorService syncers,
            Runnable done) {
        Written written;
        try {
            written = write(e, dest, occupiedAtStart, progress);
        } catch (RuntimeException | IOException | Error ex) {
            // An Error too (a heap too small, say): a file this run did not write is a failure it reports,
            // never a file left out of a restore that says it is complete.
            fail(e, ex);
            done.run();
            return;
        }
        Runnable complete = () -> {
            try {
                finish(written);
                degraded.addAndGet(written.degraded() ? 1 : 0);
                restored.incrementAndGet();
                bytes.addAndGet(e.size());
            } catch (RuntimeException | IOException | Error ex) {
                fail(e, ex);
            } finally {
                done.run();
            }
        };
        if (!durability.syncBeforeRename(e.size())) {
            complete.run();
            return;
        }
        try {
            syncers.execute(complete);
        } catch (RuntimeException ex) {
            written.discard();
            fail(e, ex);
            done.run();
        }
    }

    private void fail(ManifestEntry e, Throwable ex) {
        if (ex instanceof Interrupted) {
            failed.add(new BackupRunner.Failure(
                    shown(e), "interrupted before it was complete; nothing was written for it"));
        } else if (ex instanceof StorageUnavailableException su) {
            unavailable.compareAndSet(null, su);
            failed.add(new BackupRunner.Failure(shown(e), "the store became unavailable"));
        } else if (ex instanceof ObjectNotFoundException) {
            // The manifest references a version the store no longer has: the backup is damaged, as verify
            // reports it (exit 4 from both), not a file this restore failed to write.
            damagedCopies.incrementAndGet();
            failed.add(new BackupRunner.Failure(
                    shown(e),
                    e.packed()
                            ? "a chunk of it is missing from the repository (" + ex.getMessage()
                                    + "); nothing was written for it"
                            : "its stored version " + e.versionId()
                                    + " is missing from the store; nothing was written for it"));
        } else if (ex instanceof StorageException) {
            if (ex instanceof IntegrityException) {
                damagedCopies.incrementAndGet();
            }
            failed.add(new BackupRunner.Failure(shown(e), ex.getMessage()));
        } else if (ex instanceof TypeInTheWay) {
            failed.add(new BackupRunner.Failure(shown(e), ex.getMessage() + "; nothing was written for it"));
        } else if (ex instanceof StoreReadFailure) {
            failed.add(new BackupRunner.Failure(
                    shown(e),
                    "its stored copy could not be read (" + Messages.rootMessage(ex)
                            + "); nothing was written for it"));
        } else if (ex instanceof IOException || ex instanceof java.io.UncheckedIOException) {
            failed.add(new BackupRunner.Failure(
                    shown(e), "it could not be written (" + RestoreDirectories.reason(ex) + ")"));
        } else {
            failed.add(
                    new BackupRunner.Failure(shown(e), "it could not be restored (" + Messages.rootMessage(ex) + ")"));
        }
    }

    /** Replacing a whole directory tree is more than --overwrite promises; says what is in the way. */
    private static TypeInTheWay directoryInTheWay() {
        return new TypeInTheWay("a directory stands where the backup has this file; remove the directory "
                + "(or restore into an empty one) and run the restore again");
    }

    /** An entry of another kind (a directory where a file goes, a file where a directory goes) in the target. */
    private static final class TypeInTheWay extends IOException {
        public TypeInTheWay(String message) {
            super(message);
        }
    }

    /** A file written and verified under its temporary name, its channel still open for the sync. */
    private record Written(Path tmp, Path dest, ManifestEntry entry, FileChannel channel, boolean degraded) {
        public void discard() {
            try {
                channel.close();
                Files.deleteIfExists(tmp);
            } catch (IOException ignored) {
                // the temporary name is unique; nothing else refers to it
            }
        }
    }

    /**
     * Fetches one file into a temporary file next to its destination, verified; not yet synced. A
     * directory in its place is looked for only where something stood when the run began (a directory
     * that appears meanwhile makes the rename fail, and {@link #finish} says so the same way).
     */
    private Written write(ManifestEntry e, Path dest, boolean occupiedAtStart, ProgressCounter progress)
            throws IOException {
        if (occupiedAtStart && Files.isDirectory(dest, LinkOption.NOFOLLOW_LINKS)) {
            throw directoryInTheWay();
        }
        if (e.packed()) {
            return writePacked(e, dest, occupiedAtStart, progress);
        }
        String key = manifest.objectKeyOf(e.path());
        FileChannel out = null;
        Path tmp = null;
        try (ObjectRead read = store.get(key, ReadOptions.version(damaged.versionToRead(e)));
                InputStream in = read.stream()) {
            String recorded = read.version().sha256();
            if (read.version().size() != e.size()) {
                throw new IntegrityException(
                        key,
                        "'" + e.path() + "' is stored with " + read.version().size() + " bytes but "
                                + "the manifest records " + e.size() + "; it was not written");
            }
            // The store verifies the bytes against the SHA-256 it recorded as they stream; a version
            // without one (written by another program) is hashed here instead.
            MessageDigest digest = recorded.isEmpty() ? Sha256.newDigest() : null;
            if (!recorded.isEmpty() && !recorded.equals(e.sha256())) {
                throw new IntegrityException(
                        key,
                        "'" + e.path() + "' is stored with SHA-256 " + recorded + " but the manifest" + " records "
                                + e.sha256() + "; it was not written");
            }
            Path[] created = new Path[1];
            out = create(dest, occupiedAtStart, created);
            tmp = created[0];
            copySparse(in, out, digest, progress);
            if (digest != null && !HexFormat.of().formatHex(digest.digest()).equals(e.sha256())) {
                throw new IntegrityException(
                        key,
                        "'" + e.path() + "' does not match the SHA-256 the manifest records (" + e.sha256()
                                + "); it was not written");
            }
            return new Written(tmp, dest, e, out, read.degraded());
        } catch (IOException | RuntimeException | Error ex) {
            if (out != null) {
                out.close();
            }
            if (tmp != null) {
                Files.deleteIfExists(tmp);
            }
            throw ex;
        }
    }

    /**
     * Creates the file a destination's bytes are written to, and puts its path in {@code created[0]}:
     * the destination itself in a staging directory where nothing stood when the run began (no one
     * sees the staging directory's files before they are all complete), else a short temporary name of
     * this run beside it (every name the file system allowed at backup fits), renamed into place once
     * verified.
     */
    private FileChannel create(Path dest, boolean occupiedAtStart, Path[] created) throws IOException {
        if (!occupiedAtStart && !root.equals(target)) {
            try {
                FileChannel c = FileChannel.open(dest, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                created[0] = dest;
                return c;
            } catch (java.nio.file.FileAlreadyExistsException appeared) {
                // another name of a hard-linked file, say: written beside it and renamed, as in a target
            }
        }
        return temporaries.create(dest, t -> {
            FileChannel c = FileChannel.open(t, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            created[0] = t;
            return c;
        });
    }

    /** Writes an entry of format 3 from its chunks into a temporary file next to its destination, verified. */
    private Written writePacked(ManifestEntry e, Path dest, boolean occupiedAtStart, ProgressCounter progress)
            throws IOException {
        if (packed == null) {
            throw new IllegalStateException("'" + e.path() + "' is stored as chunks but no repository was given");
        }
        FileChannel out = null;
        Path tmp = null;
        try {
            Path[] created = new Path[1];
            out = create(dest, occupiedAtStart, created);
            tmp = created[0];
            // Each chunk is checked against its ID before it is handed here, and written at its place.
            PackedRestore.check(
                    e, PackedRestore.write(packed, e, out, progress, cancellation::cancelled, Interrupted::new));
            return new Written(tmp, dest, e, out, false);
        } catch (IOException | RuntimeException | Error ex) {
            if (out != null) {
                out.close();
            }
            if (tmp != null) {
                Files.deleteIfExists(tmp);
            }
            throw ex;
        }
    }

    /** Syncs a written file (unless the run syncs at its end), sets its modification time and renames it into place. */
    private void finish(Written w) throws IOException {
        try (FileChannel out = w.channel()) {
            if (cancellation.cancelled()) {
                throw new Interrupted();
            }
            if (durability.syncBeforeRename(w.entry().size())) {
                out.force(false);
            }
        } catch (IOException | RuntimeException | Error ex) {
            Files.deleteIfExists(w.tmp());
            throw ex;
        }
        try {
            Attributes.applyToOwnFile(w.tmp(), w.entry().attrs(), w.entry().mtime(), ownership);
            if (w.tmp().equals(w.dest())) {
                return; // created at its own name in a staging directory
            }
            try {
                Files.move(w.tmp(), w.dest(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException ex) {
                Files.move(w.tmp(), w.dest(), StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException ex) {
            Files.deleteIfExists(w.tmp());
            if (Files.isDirectory(w.dest(), LinkOption.NOFOLLOW_LINKS)) {
                throw directoryInTheWay(); // one appeared after the run began (rename(2) refuses it)
            }
            throw ex;
        }
    }

    /** Gives a file that was already present the recorded mode, owner and mtime; a failure is reported. */
    private void applyQuietly(ManifestEntry e, Path dest) {
        try {
            Attributes.apply(dest, e.attrs(), e.mtime(), ownership);
        } catch (IOException | RuntimeException ex) {
            fail(e.path(), ex);
        }
    }

    private void fail(String path, Exception ex) {
        failed.add(attributesNotRestored(path, ex));
    }

    /** The failure of a file, directory or link whose attributes (or the link itself) could not be restored. */
    static BackupRunner.Failure attributesNotRestored(String path, Exception ex) {
        return new BackupRunner.Failure(
                path, "its attributes or link could not be restored (" + Messages.describeIo(ex) + ")");
    }

    /** Copies to the end, leaving 64 KiB blocks of zeros unwritten, and extends the file to its length. */
    private void copySparse(InputStream in, FileChannel out, @Nullable MessageDigest digest, ProgressCounter progress)
            throws IOException {
        byte[] buffer = BUFFERS.get();
        long position = 0;
        while (true) {
            int n;
            try {
                n = in.readNBytes(buffer, 0, buffer.length);
            } catch (IOException ex) {
                throw new StoreReadFailure(ex);
            }
            if (n == 0) {
                break;
            }
            if (digest != null) {
                digest.update(buffer, 0, n);
            }
            for (int block = 0; block < n; block += SPARSE_BLOCK) {
                int len = Math.min(SPARSE_BLOCK, n - block);
                if (Arrays.mismatch(buffer, block, block + len, ZEROS, 0, len) != -1) {
                    ByteBuffer bb = ByteBuffer.wrap(buffer, block, len);
                    long at = position + block;
                    while (bb.hasRemaining()) {
                        at += out.write(bb, at);
                    }
                }
            }
            position += n;
            progress.addBytes(n);
            // Ctrl-C stops a large file at once: the process may not outlive the shutdown hook's wait,
            // and a temporary file must not be left behind in the target.
            if (cancellation.cancelled()) {
                throw new Interrupted();
            }
        }
        if (out.size() < position) {
            out.write(ByteBuffer.wrap(new byte[1]), position - 1);
        }
    }

    /** Reading a stored copy failed (not writing the restored file). */
    public static final class StoreReadFailure extends IOException {
        private static final long serialVersionUID = 1L;

        public StoreReadFailure(IOException cause) {
            super(cause.getMessage(), cause);
        }
    }

    /** Cancellation noticed while a file's bytes were being written. */
    private static final class Interrupted extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public Interrupted() {
            super("interrupted", null, false, false);
        }
    }
}
