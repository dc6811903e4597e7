package dev.ballast.backup.restore;

import dev.ballast.backup.BackupException;
import dev.ballast.backup.Cancellation;
import dev.ballast.backup.Messages;
import dev.ballast.backup.OpenFileLimit;
import dev.ballast.backup.ProgressCounter;
import dev.ballast.backup.content.PackedContent;
import dev.ballast.backup.content.Sha256;
import dev.ballast.backup.content.Transfers;
import dev.ballast.backup.run.BackupRunner;
import dev.ballast.backup.snapshot.DamagedVersions;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.ManifestEntry;
import dev.ballast.backup.snapshot.ManifestTree;
import dev.ballast.backup.tree.Attributes;
import dev.ballast.backup.tree.FileStat;
import dev.ballast.backup.tree.SafePaths;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.StorageException;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.object.ObjectStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
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
 * written as a whole into a hidden directory beside it, each file under its own name, and that
 * directory is renamed to the target once at the end, after the end sync ({@link RestoreStaging},
 * where the run is recorded: {@link #recordingTemporariesIn}). Everything written is made durable once
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

    /**
     * The reason given for each file not written once the target's file system refused a write for
     * all of them ({@link Result#unwritable()}: read-only, out of space, over quota).
     */
    public static final String TARGET_UNWRITABLE = "not written: the target's file system takes no more writes";

    /** How the reason given for a file of an encrypted repository a chunk of which no pack holds begins. */
    public static final String CHUNK_MISSING = "a chunk of it is missing from the repository";

    /**
     * What a restore did.
     *
     * @param damagedCopies files not restored because their stored copy is damaged or missing (a chunk
     *     that does not match its ID, a missing pack or object)
     * @param missingChunks of those, the files of an encrypted repository a chunk of which no pack holds:
     *     dropped by {@code verify} or {@code repair packs}, or lost with its pack; the next backup of a
     *     source that still holds the files stores them again, so there is nothing left to drop
     * @param unwritable why the target's file system took no more writes (read-only, out of space, over
     *     quota: {@code RestoreFailures.unwritableReason}), after which no further file was tried, or null; each file
     *     not written for it is failed with {@link #TARGET_UNWRITABLE}
     * @param notPlaced why the tree written into the hidden directory beside a new target is not at the
     *     target, in one sentence naming where it is ({@link RestoreStaging#publish}), or null
     */
    public record Result(
            int restored,
            int alreadyPresent,
            long bytes,
            List<BackupRunner.Failure> failed,
            @Nullable StorageUnavailableException unavailable,
            int degradedReads,
            boolean cancelled,
            Duration elapsed,
            int damagedCopies,
            int missingChunks,
            @Nullable String unwritable,
            @Nullable String notPlaced) {
        public boolean ok() {
            return failed.isEmpty() && unavailable == null && !cancelled && unwritable == null && notPlaced == null;
        }

        /** This result, its tree not at the target for {@code why}. */
        Result notPlaced(String why) {
            return new Result(
                    restored,
                    alreadyPresent,
                    bytes,
                    failed,
                    unavailable,
                    degradedReads,
                    cancelled,
                    elapsed,
                    damagedCopies,
                    missingChunks,
                    unwritable,
                    why);
        }
    }

    public static final int MAX_AWAITING_SYNC = 256;

    /**
     * How many written files may wait for their sync before their rename, each holding its descriptor
     * open: at most {@link #MAX_AWAITING_SYNC}, and no more than {@code room} descriptors
     * ({@link OpenFileLimit#room()}) leave beside {@code transfers} transfers and {@code heldDirectories}
     * directories held open (two descriptors each); at least 1. Under {@code ulimit -n 128} a restore of
     * 300 files of 1 MiB or more, each synced before its rename, failed dozens of them with "Too many open
     * files" even at the default 4 transfers (a fault tester's).
     */
    static int awaitingSync(int transfers, int heldDirectories, long room) {
        long left = room - (long) transfers * OpenFileLimit.PER_TRANSFER - 2L * heldDirectories;
        return (int) Math.max(1, Math.min(MAX_AWAITING_SYNC, left));
    }

    private final ObjectStore store;
    private final Manifest manifest;

    private final Path target;
    /**
     * Where this run writes the tree: the target, or the hidden directory beside a target that did not
     * exist, renamed to it at the end ({@link RestoreStaging}), in which each file is written under its
     * own name.
     */
    private Path root;

    private final boolean overwrite;
    private final int transfers;
    private final Cancellation cancellation;
    private final Function<Manifest, ProgressCounter> progressFactory;
    private final DamagedVersions damaged;

    private final AtomicInteger restored = new AtomicInteger();
    private final AtomicInteger degraded = new AtomicInteger();
    private final AtomicInteger damagedCopies = new AtomicInteger();
    private final AtomicInteger missingChunks = new AtomicInteger();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicReference<StorageUnavailableException> unavailable = new AtomicReference<>();
    /** Why the target's file system took no more writes ({@code RestoreFailures.unwritableReason}), or null. */
    private final AtomicReference<String> unwritable = new AtomicReference<>();

    private final List<BackupRunner.Failure> failed = Collections.synchronizedList(new ArrayList<>());
    /** Whether owners are restored: only a process running as root may give files away. */
    private boolean ownership;
    /** Where runs record their temporary names' token (null: nowhere, and no leftovers are removed). */
    private @Nullable Path temporaryRecords;

    private @Nullable RestoreTemporaries temporaries;

    private RestoreSync sync = RestoreSync.fileSystems();
    /** How this run's writes reach the disk, chosen once the target exists. */
    private RestoreDurability durability;
    /** Writes each file and renames it into place, made once the target, ownership and durability are known. */
    private RestoreFileWriter writer;

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
    /** What a run into a new target does right before it renames its hidden directory there: a seam for tests. */
    RestoreRunner beforeRenamingIntoPlace(Runnable hook) {
        this.beforeRename = Objects.requireNonNull(hook, "hook");
        return this;
    }

    private Runnable beforeRename = () -> {};

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
        this.root = this.target;
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

    /** The path {@code e} is written at, as messages name it. */
    private String shown(ManifestEntry e) {
        return writtenAs.getOrDefault(e.path(), e.path());
    }

    public Result run() throws IOException {
        try (RestoreTemporaries t =
                new RestoreTemporaries(target, temporaryRecords).stoppingWhen(cancellation::cancelled)) {
            temporaries = t;
            RestoreStaging staging = RestoreStaging.begin(target, t);
            if (staging == null) {
                root = target;
                return runWithTemporaries();
            }
            root = staging.directory();
            staging.beforeRename = beforeRename;
            Result result;
            try {
                result = runWithTemporaries();
            } catch (BackupException e) {
                // what it completed is put where it belongs, as a run into an existing target leaves it
                String notPlaced = staging.publish();
                if (notPlaced == null) {
                    throw e;
                }
                throw e.details().isEmpty()
                        ? new BackupException(e.kind(), e.getMessage() + " " + notPlaced, e)
                        : new BackupException(e.kind(), e.getMessage() + " " + notPlaced, e.details());
            } catch (IOException | RuntimeException | Error e) {
                String notPlaced = staging.publish();
                if (notPlaced != null) {
                    e.addSuppressed(new IOException(notPlaced));
                }
                throw e;
            }
            String notPlaced = staging.publish();
            return notPlaced == null ? result : result.notPlaced(notPlaced);
        }
    }

    private Result runWithTemporaries() throws IOException {
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
        ClosedDirectories looked = new ClosedDirectories(root);
        java.util.Map<String, List<Path>> linksTo = new java.util.HashMap<>();
        for (ManifestTree.HardLink h : manifest.tree().hardLinks()) {
            linksTo.computeIfAbsent(h.target(), k -> new ArrayList<>()).add(SafePaths.resolveInside(root, h.path()));
        }
        for (int i = 0; i < destinations.size() && !cancellation.cancelled(); i++) {
            Path dest = destinations.get(i);
            ManifestEntry e = manifest.files().get(i);
            if (looked.lookable(dest.getParent()) && Files.exists(dest, LinkOption.NOFOLLOW_LINKS)) {
                occupied[i] = true;
                boolean unreadable = false;
                boolean shared = false;
                try {
                    present[i] = Files.isRegularFile(dest, LinkOption.NOFOLLOW_LINKS)
                            && Files.size(dest) == e.size()
                            && Sha256.ofFile(dest, n -> {}).equals(e.sha256());
                    // The backup's bytes, but under another name too (a hard link to a file outside the target, or
                    // between files the backup holds apart): written anew and renamed over it, so that the other
                    // name keeps its inode and attributes. Nothing is lost, so --overwrite is not needed.
                    shared = present[i] && !RestoreLinks.namedOnlyBy(dest, linksTo.getOrDefault(e.path(), List.of()));
                    present[i] &= !shared;
                } catch (java.nio.file.AccessDeniedException denied) {
                    // A file of mode 000 or 0200 an earlier run of this user restored: not known to be the
                    // backup's, so in the way like a different one (--overwrite replaces it), not a failed run.
                    present[i] = false;
                    unreadable = true;
                }
                if (!present[i] && !shared && !overwrite) {
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
        RestoreTree tree = RestoreTree.plan(manifest.tree(), root, overwrite, conflicts);
        // and the backup's directories with no file of their own: their descriptors give them their mode
        tree.directories().forEach(d -> looked.lookable(d.dest()));
        if (!conflicts.isEmpty()) {
            looked.putBack(); // refused: nothing changed
            throw conflicts.refusal(target);
        }
        Path existingAbove = RestoreDirectories.nearestExisting(root);
        // A target that takes no writes (a read-only file system, a directory where nothing can be created) is
        // found before anything is tried: one reason, not a refused write (or attribute change) per file.
        String refused = existingAbove != null && RestoreFailures.readOnly(existingAbove)
                ? RestoreFailures.READ_ONLY
                : RestoreFailures.refusedWrites(root, temporaries);
        if (refused != null) {
            looked.putBack();
            unwritable.set(refused);
            manifest.files().forEach(f -> failed.add(new BackupRunner.Failure(shown(f), TARGET_UNWRITABLE)));
            return result(start, 0);
        }
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
        // The small files' chunks are read ahead while the directories are made: on an S3 endpoint the first
        // reads then overlap that work instead of following it.
        int[] order = PackedRestore.interleave(
                PackedRestore.writeOrder(packed == null ? null : packed::storedAt, manifest), transfers);
        AutoCloseable readAhead = packed == null ? null : PackedRestore.readAhead(packed, manifest, present, order);
        RestoreDirectories prepared = new RestoreDirectories(root, realTarget, overwrite, cancellation);
        prepared.adopt(looked.opened());
        try {
            for (Path dir : directories) {
                prepared.prepare(dir);
            }
            if (prepared.unwritable() != null) {
                unwritable.compareAndSet(null, prepared.unwritable());
            }
            temporaries.beginIn(destinations, directories, prepared);
        } catch (RuntimeException | Error e) {
            PackedRestore.close(readAhead);
            throw e;
        }

        int already = 0;
        durability = RestoreDurability.choose(sync, realTarget, target, cancellation::cancelled);
        // The target's directories, each held open by the writes into it until every file is in place.
        DirectoryIdentities held = new DirectoryIdentities(prepared.identities());
        Set<Path> moved;
        try {
            writer = new RestoreFileWriter(
                    store,
                    manifest,
                    damaged,
                    packed,
                    temporaries,
                    durability,
                    ownership,
                    cancellation,
                    held,
                    !root.equals(target));
            ExecutorService syncers = durability.fileSyncers();
            try (ProgressCounter progress = progressFactory.apply(manifest);
                    Transfers pool = new Transfers(
                            transfers,
                            transfers + awaitingSync(transfers, DirectoryIdentities.maxOpen(), OpenFileLimit.room()))) {
                for (int i : order) {
                    ManifestEntry e = manifest.files().get(i);
                    Path dest = destinations.get(i);
                    if (unavailable.get() != null || cancellation.cancelled()) {
                        failed.add(new BackupRunner.Failure(shown(e), NOT_ATTEMPTED));
                        continue;
                    }
                    if (unwritable.get() != null && !present[i]) {
                        // the first write the file system refused stops the run, as the store going away does
                        failed.add(new BackupRunner.Failure(shown(e), TARGET_UNWRITABLE));
                        continue;
                    }
                    if (present[i]) {
                        already++;
                        progress.addBytes(e.size());
                        progress.fileDone();
                        continue;
                    }
                    String blocked = prepared.blocked(dest.getParent());
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
                if (present[i] && held.unchanged(destinations.get(i).getParent())) {
                    applyQuietly(manifest.files().get(i), destinations.get(i));
                }
            }
            boolean treeToo = !cancellation.cancelled() && unwritable.get() == null;
            if (treeToo) {
                tree.restoreLinks(root, prepared, ownership, temporaries, cancellation, failed, held);
            }
            // Looked at by path before the directories get their modes: a directory of mode 0000 above
            // another kept a restore by a user other than root from looking at the one below, which it
            // then reported moved away.
            moved = held.movedAway();
            if (treeToo) {
                tree.applyDirectories(prepared, ownership, cancellation, failed, held);
            }
            already -= reportMovedAway(moved, destinations, present, tree);
        } finally {
            held.close();
            durability.stopWriteBack();
        }
        // directories the run opened for writing: those whose backup mode the tree applied keep it, the rest get
        // theirs back (not through a directory moved or replaced meanwhile)
        Set<Path> applied = new java.util.HashSet<>(moved);
        if (!cancellation.cancelled()) {
            tree.directories().forEach(d -> applied.add(d.dest()));
        }
        prepared.closeOpened(applied);
        List<Path> written = new ArrayList<>(RestoreDirectories.entriesAbove(realTarget, existingAbove));
        for (Path dir : directories) {
            if (prepared.stateOf(dir) instanceof RestoreDirectories.Usable
                    && !moved.contains(dir) // its files are reported not restored; something else stands there
                    && !(cancellation.cancelled() && durability.eachFile())) {
                written.add(dir);
            }
        }
        durability.complete(written);
        return result(start, already);
    }

    private Result result(long start, int already) {
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
                damagedCopies.get(),
                missingChunks.get(),
                unwritable.get(),
                null);
    }

    /**
     * Names as failed the files of a directory that was moved away or replaced while the run wrote
     * into it (those it wrote are in the directory it made, wherever that is now; those already
     * present went with it): none is where the backup has it, so none is counted restored or present.
     *
     * @return how many of them were counted as already present
     */
    private int reportMovedAway(Set<Path> moved, List<Path> destinations, boolean[] present, RestoreTree tree) {
        if (moved.isEmpty()) {
            return 0;
        }
        Set<String> alreadyFailed = new java.util.HashSet<>();
        synchronized (failed) {
            failed.forEach(f -> alreadyFailed.add(f.path()));
        }
        int wasPresent = 0;
        for (int i = 0; i < destinations.size(); i++) {
            ManifestEntry e = manifest.files().get(i);
            if (moved.contains(destinations.get(i).getParent()) && !alreadyFailed.contains(shown(e))) {
                failed.add(new BackupRunner.Failure(
                        shown(e),
                        "its directory was moved or replaced while the restore ran (something else stands at its"
                                + " path now), so it is not where the backup has it; run the restore again"));
                if (present[i]) {
                    wasPresent++;
                } else {
                    restored.decrementAndGet();
                    bytes.addAndGet(-e.size());
                }
            }
        }
        // The links made in it (through its descriptor, so in it wherever it is now), and the directories
        // that were moved or are below one that was.
        for (RestoreTree.Placed<Object> l : tree.links()) {
            String path =
                    l.entry() instanceof ManifestTree.HardLink h ? h.path() : ((ManifestTree.Symlink) l.entry()).path();
            if (moved.contains(l.dest().getParent()) && !alreadyFailed.contains(path)) {
                failed.add(new BackupRunner.Failure(
                        path,
                        "its directory was moved or replaced while the restore ran (something else stands at its"
                                + " path now), so it is not where the backup has it; run the restore again"));
            }
        }
        for (RestoreTree.Placed<ManifestTree.Directory> d : tree.directories()) {
            if (moved.contains(d.dest()) && !alreadyFailed.contains(d.entry().path())) {
                failed.add(new BackupRunner.Failure(
                        d.entry().path(),
                        "it was moved or replaced while the restore ran (something else stands at its path now);"
                                + " run the restore again"));
            }
        }
        return wasPresent;
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
        RestoreFileWriter.Written written;
        try {
            written = writer.write(e, dest, occupiedAtStart, progress);
        } catch (RuntimeException | IOException | Error ex) {
            // An Error too (a heap too small, say): a file this run did not write is a failure it reports,
            // never a file left out of a restore that says it is complete.
            fail(e, dest, ex);
            done.run();
            return;
        }
        Runnable complete = () -> {
            try {
                writer.finish(written);
                degraded.addAndGet(written.degraded() ? 1 : 0);
                restored.incrementAndGet();
                durability.written(e.size());
                bytes.addAndGet(e.size());
            } catch (RuntimeException | IOException | Error ex) {
                fail(e, dest, ex);
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
            fail(e, dest, ex);
            done.run();
        }
    }

    private void fail(ManifestEntry e, Path dest, Throwable ex) {
        if (ex instanceof RestoreFileWriter.Interrupted) {
            failed.add(new BackupRunner.Failure(
                    shown(e), "interrupted before it was complete; nothing was written for it"));
        } else if (ex instanceof StorageUnavailableException su) {
            unavailable.compareAndSet(null, su);
            failed.add(new BackupRunner.Failure(shown(e), "the store became unavailable"));
        } else if (ex instanceof ObjectNotFoundException) {
            // The manifest references a version the store no longer has: the backup is damaged, as verify
            // reports it (exit 4 from both), not a file this restore failed to write.
            damagedCopies.incrementAndGet();
            if (e.packed()) {
                missingChunks.incrementAndGet();
            }
            failed.add(new BackupRunner.Failure(
                    shown(e),
                    e.packed()
                            ? CHUNK_MISSING + " (" + ex.getMessage() + "); nothing was written for it"
                            : "its stored version " + e.versionId()
                                    + " is missing from the store; nothing was written for it"));
        } else if (ex instanceof StorageException) {
            if (ex instanceof IntegrityException) {
                damagedCopies.incrementAndGet();
            }
            failed.add(new BackupRunner.Failure(shown(e), ex.getMessage()));
        } else if (ex instanceof RestoreFileWriter.TypeInTheWay) {
            failed.add(new BackupRunner.Failure(shown(e), ex.getMessage() + "; nothing was written for it"));
        } else if (ex instanceof StoreReadFailure) {
            failed.add(new BackupRunner.Failure(
                    shown(e),
                    "its stored copy could not be read (" + Messages.rootMessage(ex)
                            + "); nothing was written for it"));
        } else if ((ex instanceof IOException || ex instanceof java.io.UncheckedIOException)
                && RestoreFailures.unwritableReason(ex) != null) {
            unwritable.compareAndSet(null, RestoreFailures.unwritableReason(ex));
            failed.add(new BackupRunner.Failure(shown(e), TARGET_UNWRITABLE));
        } else if (ex instanceof IOException || ex instanceof java.io.UncheckedIOException) {
            failed.add(new BackupRunner.Failure(
                    shown(e), "it could not be written (" + RestoreFailures.notWritten(ex, dest) + ")"));
        } else {
            failed.add(
                    new BackupRunner.Failure(shown(e), "it could not be restored (" + Messages.rootMessage(ex) + ")"));
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
        failed.add(RestoreFailures.attributesNotRestored(path, ex));
    }

    /** Reading a stored copy failed (not writing the restored file). */
    public static final class StoreReadFailure extends IOException {
        private static final long serialVersionUID = 1L;

        public StoreReadFailure(IOException cause) {
            super(cause.getMessage(), cause);
        }
    }
}
