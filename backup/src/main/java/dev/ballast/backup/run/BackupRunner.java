package dev.ballast.backup.run;

import dev.ballast.backup.Advice;
import dev.ballast.backup.Cancellation;
import dev.ballast.backup.Messages;
import dev.ballast.backup.ProgressCounter;
import dev.ballast.backup.content.PackedContent;
import dev.ballast.backup.content.Transfers;
import dev.ballast.backup.run.RunTally.Uploaded;
import dev.ballast.backup.snapshot.DamagedVersions;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.ManifestEntry;
import dev.ballast.backup.snapshot.ManifestTree;
import dev.ballast.backup.tree.FileStat;
import dev.ballast.backup.tree.Glob;
import dev.ballast.backup.tree.LocalHost;
import dev.ballast.backup.tree.Names;
import dev.ballast.storage.StorageException;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.object.ObjectStore;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * One backup run of a directory into {@code NAME/} of an {@link ObjectStore}, reading each file's
 * bytes once.
 *
 * <ol>
 *   <li>Read the previous manifest, then walk the tree; each file is dealt with as the walk finds
 *       it, while the walk goes on.
 *   <li>Before any version of the previous manifest is kept, the name's prefix is listed once and the
 *       store asked once, for all of them, whether their bytes are still held
 *       ({@link ObjectStore#missingContent}); a file whose version is gone is stored again, as is every
 *       file when the record of damaged versions cannot be read ({@link DamagedVersions}).
 *   <li>A file whose size, mtime, ctime and inode equal its previous entry is unchanged and not read
 *       (as restic and rclone decide); {@code --checksum} reads and hashes every file instead.
 *   <li>A file whose size equals its previous entry's but whose stat differs (touched, copied,
 *       restored) is hashed first: if the SHA-256 is the same, the previous version is kept and
 *       nothing is uploaded.
 *   <li>Every other file is handed to the store with {@link ObjectStore#putAsync}, which reads it
 *       once and computes the SHA-256 the manifest records from those very bytes. A store that does
 *       not confirm what it stored ({@link ObjectStore#confirmsWrites()} false) gets each new version
 *       read back and hashed.
 *   <li>A file whose stat changed while it was read was changed mid-backup: it is reported not
 *       stored rather than recorded with bytes that may be torn.
 *   <li>A new manifest version lists every file stored or unchanged.
 * </ol>
 *
 * Up to {@code transfers} files are read at once on their own threads; a local store commits the
 * small ones together. Not thread-safe; one instance per run.
 */
public final class BackupRunner {

    /**
     * How one run behaves.
     *
     * @param excludes {@code --exclude} and {@code --exclude-file} patterns
     * @param excludeCaches whether directories tagged with {@code CACHEDIR.TAG} are left out
     * @param oneFileSystem whether the walk stays on the source's file system (restic's {@code
     *     --one-file-system}): a directory on another (a mount point, or where a followed link leads) is
     *     recorded empty and not entered, a file on another is left out, each listed as skipped
     */
    public record Settings(
            boolean followSymlinks,
            int transfers,
            boolean checksum,
            List<Glob> excludes,
            boolean excludeCaches,
            boolean oneFileSystem) {
        public Settings {
            excludes = List.copyOf(excludes);
        }

        public Settings(
                boolean followSymlinks, int transfers, boolean checksum, List<Glob> excludes, boolean excludeCaches) {
            this(followSymlinks, transfers, checksum, excludes, excludeCaches, false);
        }

        public Settings(boolean followSymlinks, int transfers, boolean checksum) {
            this(followSymlinks, transfers, checksum, List.of(), false);
        }
    }

    /**
     * A file found in the source tree, with the stat taken while walking.
     *
     * @param fileKey what identifies the file on its device ({@link BasicFileAttributes#fileKey()}), or null
     */
    public record SourceFile(String path, Path file, FileStat stat, Object fileKey) {
        public long size() {
            return stat.size();
        }

        /** This file as read: {@code size} bytes where its stat said another number (a /proc file's 0). */
        SourceFile withSize(long size) {
            FileStat s = stat;
            return new SourceFile(
                    path, file, new FileStat(size, s.mtime(), s.ctime(), s.inode(), s.attrs(), s.links()), fileKey);
        }
    }

    /** A file the run did not store, with the reason. */
    public record Failure(String path, @Nullable String reason) {}

    /**
     * What a run did.
     *
     * @param bytesUploaded the new data stored: the plain bytes of the new chunks in the packs uploaded
     *     (encrypted repository) or of the objects uploaded (earlier format)
     * @param bytesStored what the new data takes in the store: the packs' bytes, compressed and encrypted
     *     (encrypted repository), or {@code bytesUploaded} (earlier format)
     * @param storeFailed why the store failed a write of this run (a refused upload, a pack or index not
     *     written): the run's manifest, if written, is then marked incomplete; null when none failed
     */
    public record Result(
            int stored,
            int unchanged,
            long bytesRead,
            long bytesUploaded,
            long bytesStored,
            long bytesTotal,
            List<String> skipped,
            List<Failure> failed,
            List<String> notAttempted,
            @Nullable String manifestVersionId,
            boolean manifestComplete,
            @Nullable String manifestProblem,
            @Nullable StorageUnavailableException unavailable,
            boolean cancelled,
            Duration elapsed,
            List<Manifest.Stale> stale,
            int repaired,
            int reused,
            @Nullable String storeFailed) {

        public boolean ok() {
            return failed.isEmpty()
                    && notAttempted.isEmpty()
                    && unavailable == null
                    && !cancelled
                    && manifestVersionId != null
                    && manifestComplete;
        }
    }

    /** Files in flight beyond those being read: what a group commit can gather. */
    private static final int MAX_AWAITING_COMMIT = 1024;
    /**
     * A stat this close to the run's start is not trusted to prove a file unchanged next time: a
     * change within the same timestamp tick after the walk would leave size and times equal (git's
     * "racily clean" files). Such a file is hashed again by the next run.
     */
    private static final Duration RACY_WINDOW = Duration.ofSeconds(2);

    private final ObjectStore store;
    private final String name;
    private final Path source;
    private final Settings settings;
    private final Cancellation cancellation;
    private final Clock clock;
    private final Consumer<String> err;
    private final Supplier<ProgressCounter> progressFactory;
    private final Duration manifestGrace;
    private final Consumer<String> onStored;

    /** What the run has done so far, shared with its transfer threads ({@link RunTally}). */
    private final RunTally tally = new RunTally();
    /** Records the files not stored in {@link #tally}, with their reasons. */
    private final RunFailures runFailures;
    /** The run's marker, which tells whether a prune took the run for dead; null when unguarded (tests). */
    private @Nullable Guard guard;
    /** A local store's directory inside the source tree, never backed up (null: none). */
    private @Nullable Path storeDirectory;
    /** The walk of the source tree, once {@link #run} started it (for {@link #excluded}). */
    private @Nullable SourceWalk sourceWalk;
    /**
     * The previous manifests' entries, damaged versions and what other runs left: made by {@link #run}
     * before the threads that read it start.
     */
    private PreviousManifest previousManifest;
    /** Stores the files the walk found changed or new: made by {@link #run} before the transfers start. */
    private FileBackup fileBackup;

    private boolean nameFromDirectory;

    /** Where file contents go in a repository of format 3, or null in a store of the earlier formats. */
    private @Nullable PackedContent packed;

    /**
     * Stores file contents as chunks in packs of a repository of format 3 ({@link PackedBackup}),
     * and the manifest in format {@link Manifest#PACKED_FORMAT_VERSION}, instead of one object per
     * file: {@code store} is then the repository's {@link dev.ballast.backup.snapshot.SealedStore}.
     * The packs are flushed (stored and indexed) before the manifest is written.
     */
    public BackupRunner packedInto(PackedContent content) {
        this.packed = Objects.requireNonNull(content, "content");
        return this;
    }

    /**
     * What a run's marker tells the run ({@link RunMarker}): whether a prune took it for dead, and
     * whether another run of the name had left its marker when this one started.
     */
    public interface Guard {
        /**
         * Makes sure the marker stands (written again, or, written recently, checked to be still there:
         * {@link RunMarker#refresh}) and returns how many times so far a prune was found to have removed
         * it.
         *
         * @throws StorageException if the store cannot be written
         */
        int refresh();

        /** Whether another run's marker of the name was in the store just after this run wrote its own. */
        boolean othersAtStart();
    }

    /**
     * Guards the run with its marker: before its manifest is written the marker is written again, and
     * if a prune removed it meanwhile (the run was paused past {@link RunMarker#STALE}), every file the
     * run stored is stored again, since the prune may have deleted it; a manifest written while a prune
     * removed the marker is withdrawn. When {@code guard} found another run's marker at the start, the
     * versions that run stored (a killed first backup's uploads, say) are reused for files with the
     * same SHA-256 instead of being uploaded again.
     */
    public BackupRunner guardedBy(@Nullable Guard guard) {
        this.guard = guard;
        return this;
    }

    /**
     * Leaves {@code dir} (the local store the backup is written to) out of the walk, with a note,
     * when it lies inside the source tree.
     */
    public BackupRunner skippingStore(@Nullable Path dir) {
        this.storeDirectory = dir == null ? null : dir.toAbsolutePath().normalize();
        return this;
    }

    /**
     * This run's name was not given but taken from the directory's base name: if the name's newest
     * backup is of another directory, the run stops before storing anything (two directories called
     * {@code src} would otherwise become one history, and {@code restore src} would give back the
     * other one).
     */
    public BackupRunner nameFromDirectory() {
        this.nameFromDirectory = true;
        return this;
    }

    public BackupRunner(
            ObjectStore store,
            String name,
            Path source,
            Settings settings,
            Cancellation cancellation,
            Clock clock,
            Consumer<String> err,
            Supplier<ProgressCounter> progressFactory,
            Duration manifestGrace,
            Consumer<String> onStored) {
        this.store = Objects.requireNonNull(store, "store");
        this.name = Objects.requireNonNull(name, "name");
        this.source = Objects.requireNonNull(source, "source");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.cancellation = Objects.requireNonNull(cancellation, "cancellation");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.err = Objects.requireNonNull(err, "err");
        this.progressFactory = Objects.requireNonNull(progressFactory, "progressFactory");
        this.manifestGrace = Objects.requireNonNull(manifestGrace, "manifestGrace");
        this.onStored = Objects.requireNonNull(onStored, "onStored");
        this.runFailures = new RunFailures(tally, cancellation, settings.followSymlinks());
    }

    public Result run() {
        long start = System.nanoTime();
        Instant createdAt = clock.instant();
        List<String> skipped = new ArrayList<>();
        PreviousManifest previousManifest =
                new PreviousManifest(store, name, source, nameFromDirectory, err, packed, guard);
        this.previousManifest = previousManifest;
        FileBackup fileBackup = new FileBackup(
                store,
                name,
                packed,
                previousManifest,
                tally,
                runFailures,
                this::stopping,
                onStored,
                createdAt.minus(RACY_WINDOW));
        this.fileBackup = fileBackup;
        SourceWalk walk = new SourceWalk(source, settings, storeDirectory, tally.failed);
        sourceWalk = walk;
        // The previous manifest is read on another thread while the tree is walked: files found before it
        // is ready wait in a list, the rest are dealt with as they are found.
        CompletableFuture<Map<String, ManifestEntry>> previousRead = new CompletableFuture<>();
        Thread reader = new Thread(
                () -> {
                    try {
                        previousRead.complete(previousManifest.read());
                    } catch (RuntimeException | Error e) {
                        previousRead.completeExceptionally(e);
                    }
                },
                "ballast-previous-manifest");
        reader.setDaemon(true);
        reader.start();
        List<ManifestEntry> entries = Collections.synchronizedList(new ArrayList<>());
        AtomicLong total = new AtomicLong();
        // Format 3: what the packs' uploads sent, chunks of a file cut short by Ctrl-C included (the next
        // run reuses them), not the sum of the files done.
        long uploadedBefore = packed == null ? 0 : packed.bytesUploaded();
        long storedBefore = packed == null ? 0 : packed.bytesStored();

        try (ProgressCounter progress = progressFactory.get();
                Transfers transfers = new Transfers(settings.transfers(), settings.transfers() + MAX_AWAITING_COMMIT);
                Cancellation.Registration stopTransfers = cancellation.onCancel(transfers::interrupt)) {
            List<SourceFile> waiting = new ArrayList<>();
            Map<String, ManifestEntry>[] previous = newMapHolder();
            Consumer<SourceFile> decide = f -> {
                ManifestEntry before = previous[0].get(f.path());
                if (!settings.checksum() && f.stat().sameAs(before)) {
                    entries.add(before.withAttrs(f.stat().attrs()));
                    tally.unchangedCount.incrementAndGet();
                    tally.keptFromPrevious.add(f);
                    progress.addBytes(f.size());
                    progress.fileDone();
                } else if (stopping()) {
                    tally.notAttempted.add(f.path());
                } else {
                    transfers.submit(done -> fileBackup.backUp(f, before, entries, progress, done));
                }
            };
            walk.walk(skipped, f -> {
                total.addAndGet(f.size());
                progress.addTotal(1, f.size());
                if (previous[0] == null && previousRead.isDone()) {
                    previous[0] = joinPrevious(previousRead);
                    waiting.forEach(decide);
                    waiting.clear();
                }
                if (previous[0] == null) {
                    waiting.add(f);
                } else {
                    decide.accept(f);
                }
            });
            if (previous[0] == null) {
                previous[0] = joinPrevious(previousRead);
                waiting.forEach(decide);
            }
            transfers.awaitAll();
        }
        if (packed != null) {
            if (guard != null) {
                PackedBackup.indexOnlyWhileAlive(packed, guard);
            }
            PackedBackup.confirmPacked(
                    packed, entries, tally, cancellation, manifestGrace, runFailures::failedByStore, onStored);
        }

        StoreAgain storeAgain = new StoreAgain(
                store, name, guard, previousManifest, tally, err, packed, this::stopping, this::backUpAgain);
        int losses = storeAgain.storeAgainIfTakenForDead(entries);
        // A run that walked the whole tree and attempted every file is a snapshot, even if some files
        // could not be read: those keep their previous version, marked stale. A run cut short (Ctrl-C, the
        // store gone) is incomplete, and so is one whose writes the store failed (a refused upload, a pack
        // not written): restic ends such a run without a snapshot; this one's is kept, marked incomplete,
        // so that nothing takes a backup the store did not hold for a complete one.
        StorageUnavailableException down = tally.unavailable.get();
        String storeFailed = tally.storeFailed.get();
        boolean complete =
                tally.notAttempted.isEmpty() && down == null && storeFailed == null && !cancellation.cancelled();
        List<ManifestEntry> listed = new ArrayList<>(entries);
        ManifestTree tree = walk.tree(listed);
        List<Failure> failures = new ArrayList<>(tally.failed);
        failures.sort(Comparator.comparing(Failure::path));
        List<Manifest.Stale> stale = List.of();
        if (complete) {
            PreviousManifest.Kept kept = previousManifest.keepPrevious(failures, listed, tree);
            stale = kept.stale();
            tree = kept.tree();
        }
        listed.sort(Comparator.comparing(ManifestEntry::path));
        List<String> skippedFiles = new ArrayList<>(tally.notAttempted);
        Collections.sort(skippedFiles);
        List<String> notStored = new ArrayList<>();
        failures.forEach(x -> notStored.add(x.path()));
        notStored.addAll(skippedFiles);
        String incompleteBecause = complete
                ? null
                : cancellation.cancelled()
                        ? "it was interrupted"
                        : down != null
                                ? Messages.unavailableReason(down, "the store became unavailable")
                                : storeFailed != null
                                        ? "the store failed to write what it was given (" + storeFailed + ")"
                                        : "not every file was attempted";
        Manifest manifest = new Manifest(
                packed == null ? Manifest.FORMAT_VERSION : Manifest.PACKED_FORMAT_VERSION,
                name,
                createdAt,
                complete,
                listed,
                notStored,
                stale,
                incompleteBecause,
                tree,
                Names.name(source),
                LocalHost.nameOrNull());
        ManifestWrite.Outcome written = new ManifestWrite(store, name, packed, err, manifestGrace)
                .write(manifest, complete, losses, storeAgain, down);
        down = written.unavailable();
        saveDamagedRecord();
        return new Result(
                tally.stored.get(),
                tally.unchangedCount.get(),
                tally.read.get(),
                packed == null ? tally.uploaded.get() : packed.bytesUploaded() - uploadedBefore,
                packed == null ? tally.uploaded.get() : packed.bytesStored() - storedBefore,
                total.get(),
                skipped,
                failures,
                skippedFiles,
                written.versionId(),
                complete,
                written.problem(),
                down,
                cancellation.cancelled(),
                Duration.ofNanos(System.nanoTime() - start),
                stale,
                tally.repaired.get(),
                tally.reused.get(),
                storeFailed);
    }

    /**
     * Stores {@code files} again on transfer threads of their own, as the walk's files were, and waits
     * for them: the upload half of {@link StoreAgain#storeAgain}.
     */
    private void backUpAgain(List<Uploaded> files, List<ManifestEntry> entries) {
        try (ProgressCounter progress = progressFactory.get();
                Transfers transfers = new Transfers(settings.transfers(), settings.transfers() + MAX_AWAITING_COMMIT);
                Cancellation.Registration stopTransfers = cancellation.onCancel(transfers::interrupt)) {
            for (Uploaded u : files) {
                progress.addTotal(1, u.file().size());
                transfers.submit(done -> fileBackup.backUp(u.file(), null, entries, progress, done));
            }
            transfers.awaitAll();
        }
    }

    /** Saves the record of damaged versions when this run stored a replacement for one. */
    private void saveDamagedRecord() {
        DamagedVersions d = previousManifest.damaged();
        if (d == null || tally.repaired.get() == 0) {
            return;
        }
        try {
            d.save(store);
        } catch (RuntimeException e) {
            err.accept("Warning: the good copies this backup stored of " + tally.repaired.get()
                    + " damaged version(s) could not "
                    + "be recorded (" + Messages.rootMessage(e)
                    + "); older backups naming them stay damaged " + Advice.VERIFY_RECORDS.text() + ".");
        }
    }

    /** How many files and directories the exclusions left out (after {@link #run}). */
    public int excluded() {
        SourceWalk w = sourceWalk;
        return w == null ? 0 : w.excluded();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, ManifestEntry>[] newMapHolder() {
        return (Map<String, ManifestEntry>[]) new Map<?, ?>[1];
    }

    private static Map<String, ManifestEntry> joinPrevious(CompletableFuture<Map<String, ManifestEntry>> read) {
        return dev.ballast.backup.Futures.join(read);
    }

    /** Whether no further file should be started: the store went away, or Ctrl-C. */
    private boolean stopping() {
        return tally.unavailable.get() != null || cancellation.cancelled();
    }
}
