package dev.ballast.backup.run;

import dev.ballast.backup.ProgressCounter;
import dev.ballast.backup.content.PackedContent;
import dev.ballast.backup.content.Sha256;
import dev.ballast.backup.run.BackupRunner.SourceFile;
import dev.ballast.backup.run.RunTally.Uploaded;
import dev.ballast.backup.snapshot.DamagedVersions;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.ManifestEntry;
import dev.ballast.backup.tree.FileStat;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.ReadOptions;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.jspecify.annotations.Nullable;

/**
 * How a backup run stores one file the walk found changed or new ({@link #backUp}), on a transfer
 * thread: a file of the same size as its previous entry is hashed first and kept when its SHA-256 is
 * the same; in a repository of format 3 its chunks go to packs ({@link PackedContent#store}); in a store
 * of the earlier formats a version a killed run left with the same SHA-256 is reused, else the file is
 * uploaded ({@link ObjectStore#putAsync}) and, on a store that does not confirm its writes, read back.
 * A file whose stat changed while it was read is a failure ({@link RunFailures#changed}), not an entry.
 * Also makes each such file's {@link ManifestEntry}, its stat kept only when old enough to be trusted,
 * and records a good copy of a version verify found damaged as that version's replacement.
 *
 * <p>Thread-safe: {@link #backUp} runs on any number of transfer threads at once, and its upload's
 * completion on a store's thread. Every field is final and set before those threads start; what they
 * write goes to the run's {@link RunTally} and synchronized list of entries, the record of damaged
 * versions is changed under its own lock, and {@link ObjectStore#prepareWrites} is called once, by the
 * first thread to win {@link #writesPrepared}. One instance per run, made by {@link BackupRunner#run}
 * once the previous manifest's reader was made.
 */
final class FileBackup {
    private final ObjectStore store;
    private final String name;
    /** Where file contents go in a repository of format 3, or null in a store of the earlier formats. */
    private final @Nullable PackedContent packed;
    /** What other runs left and the damaged versions: read by the run before the transfers start. */
    private final PreviousManifest previousManifest;

    private final RunTally tally;
    private final RunFailures runFailures;
    /** Whether no further file should be started: the store went away, or Ctrl-C. */
    private final BooleanSupplier stopping;
    /** Told each file stored in a store of the earlier formats, as its upload completes. */
    private final Consumer<String> onStored;
    /** A stat of this instant or later is not trusted to prove a file unchanged next time. */
    private final Instant trustedBefore;
    /** Whether {@link ObjectStore#prepareWrites} was called, at the first upload. */
    private final AtomicBoolean writesPrepared = new AtomicBoolean();

    FileBackup(
            ObjectStore store,
            String name,
            @Nullable PackedContent packed,
            PreviousManifest previousManifest,
            RunTally tally,
            RunFailures runFailures,
            BooleanSupplier stopping,
            Consumer<String> onStored,
            Instant trustedBefore) {
        this.store = store;
        this.name = name;
        this.packed = packed;
        this.previousManifest = previousManifest;
        this.tally = tally;
        this.runFailures = runFailures;
        this.stopping = stopping;
        this.onStored = onStored;
        this.trustedBefore = trustedBefore;
    }

    private boolean stopping() {
        return stopping.getAsBoolean();
    }

    /** Stores one file on a transfer thread; calls {@code done} once its outcome is recorded. */
    void backUp(
            SourceFile f,
            @Nullable ManifestEntry before,
            List<ManifestEntry> entries,
            ProgressCounter progress,
            Runnable done) {
        if (stopping()) {
            tally.notAttempted.add(f.path());
            progress.fileDone();
            done.run();
            return;
        }
        CompletableFuture<ObjectVersion> write;
        boolean changedWhileRead;
        SourceFile[] asRead = {f}; // the file as read: a /proc file's stat says 0 bytes
        // The file's bytes count in the progress as they are read, a chunk or a buffer at a time.
        ProgressCounter.FileBytes bytes = progress.file(f.size());
        LongConsumer read = n -> {
            tally.read.addAndGet(n);
            bytes.accept(n);
        };
        try {
            String sha = null;
            if (before != null && before.size() == f.size()) {
                // Same size, other stat: most likely the same bytes (touched, copied, restored). Hash them
                // first, so that an upload happens only when they differ.
                sha = Sha256.ofFile(f.file(), read);
                if (runFailures.changed(f)) {
                    throw new RunFailures.ChangedWhileReading();
                }
                if (sha.equals(before.sha256())) {
                    entries.add(entry(f, sha, before.versionId(), before.chunks()));
                    tally.unchangedCount.incrementAndGet();
                    tally.keptFromPrevious.add(f);
                    bytes.done();
                    progress.fileDone();
                    done.run();
                    return;
                }
                bytes.readAgain();
            }
            if (packed != null) {
                // One read: chunks cut, new ones added to packs, SHA-256 computed, on this transfer thread.
                GeneratedContent.Limit limit = new GeneratedContent.Limit(read);
                PackedContent.Stored s;
                try {
                    s = packed.store(
                            f.file(), limit, f.size() == 0 ? () -> stopping() || limit.exceeded() : this::stopping);
                } catch (java.io.InterruptedIOException e) {
                    throw limit.exceeded() ? new GeneratedContent.TooLarge() : e;
                }
                // A file of /proc or /sys gives another number of bytes than its stat says (0, or 4096 in
                // /sys): what was read is stored, as restic stores it, when the stat after the read is the one
                // before (GeneratedContent). A file written meanwhile has another size, mtime or ctime now.
                if (runFailures.changed(f)) {
                    throw new RunFailures.ChangedWhileReading();
                }
                entries.add(entry(s.size() == f.size() ? f : f.withSize(s.size()), s.sha256(), "", s.chunks()));
                tally.stored.incrementAndGet();
                tally.uploadedFiles.add(new Uploaded(f, false));
                bytes.done();
                // Told stored once its chunks' packs and index are written (PackedBackup.confirmPacked), not now.
                progress.fileDone();
                done.run();
                return;
            }
            LeftBehind.Candidate left = previousManifest
                    .leftBehind()
                    .candidate(Manifest.keyFor(name, f.path()), f.size(), previousManifest.damaged());
            if (left != null) {
                // A killed run stored a version of this key with this size: if it holds these bytes, reuse it.
                if (sha == null) {
                    sha = Sha256.ofFile(f.file(), read);
                    if (runFailures.changed(f)) {
                        throw new RunFailures.ChangedWhileReading();
                    }
                }
                if (sha.equals(left.sha256())) {
                    entries.add(entry(f, sha, left.versionId(), null));
                    tally.reused.incrementAndGet();
                    tally.uploadedFiles.add(new Uploaded(f, true));
                    bytes.done();
                    progress.fileDone();
                    done.run();
                    return;
                }
            }
            if (!writesPrepared.get() && writesPrepared.compareAndSet(false, true)) {
                // Most keys a backup writes are new: one listing of the name's prefix instead of a HEAD per
                // key, on a store that reads each key's version before a put. Not before the first upload, so
                // an unchanged backup lists nothing.
                store.prepareWrites(Manifest.objectKey(name, ""));
            }
            ObjectContent content = new ObjectContent.FileRegion(f.file(), f.size());
            if (f.size() == 0) {
                // maybe a file of /proc or /sys, whose content is stored as read (GeneratedContent)
                byte[] generated = GeneratedContent.read(f.file());
                if (generated.length > 0) {
                    content = ObjectContent.ofBytes(generated);
                    asRead[0] = f.withSize(generated.length);
                }
            }
            write = store.putAsync(Manifest.keyFor(name, f.path()), content);
            changedWhileRead = runFailures.changed(f);
            tally.read.addAndGet(asRead[0].size());
            // The earlier format: the store reads the file itself, so its bytes count once it has them.
            bytes.done();
        } catch (RuntimeException | IOException | Error e) {
            // An Error too (a heap too small, say): the transfer thread would end this task unrecorded, and
            // the snapshot would leave the file out while the run said complete.
            runFailures.fail(f, e);
            progress.fileDone();
            done.run();
            return;
        }
        if (!store.confirmsWrites()) {
            // A store that does not prove what it stored: read the new version back, on this thread.
            write = write.thenApply(v -> {
                readBack(v);
                return v;
            });
        }
        boolean changed = changedWhileRead;
        write.whenComplete((v, e) -> {
            try {
                if (e != null) {
                    runFailures.fail(f, e);
                } else if (changed) {
                    runFailures.fail(f, new RunFailures.ChangedWhileReading());
                } else {
                    entries.add(entry(asRead[0], v.sha256(), v.versionId(), null));
                    tally.stored.incrementAndGet();
                    tally.uploadedFiles.add(new Uploaded(f, false));
                    tally.uploaded.addAndGet(f.size());
                    recordReplacement(f.path(), v.sha256(), v.versionId());
                    onStored.accept(f.path());
                }
            } finally {
                progress.fileDone();
                done.run();
            }
        });
    }

    /** A good copy of a version verify found damaged was stored: record it as that version's replacement. */
    private void recordReplacement(String path, String sha256, String versionId) {
        DamagedVersions d = previousManifest.damaged();
        if (d != null && !d.isEmpty()) {
            synchronized (d) {
                tally.repaired.addAndGet(d.replace(path, sha256, versionId));
            }
        }
    }

    /** The manifest entry of a file stored or confirmed unchanged now, with its stat when trusted. */
    private ManifestEntry entry(SourceFile f, String sha256, String versionId, @Nullable List<String> chunks) {
        FileStat s = f.stat();
        boolean trusted = s.mtime().isBefore(trustedBefore)
                && (s.ctime() == null || s.ctime().isBefore(trustedBefore));
        return new ManifestEntry(
                f.path(),
                s.size(),
                sha256,
                versionId,
                s.mtime(),
                trusted ? s.ctime() : null,
                trusted ? s.inode() : null,
                s.attrs(),
                chunks);
    }

    private void readBack(ObjectVersion v) {
        ReadOptions options = ReadOptions.version(v.versionId()).withAllowCache(false);
        try (ObjectRead read = store.get(v.key(), options);
                InputStream in = read.stream()) {
            String stored = Sha256.copy(in, OutputStream.nullOutputStream(), n -> {});
            if (!stored.equals(v.sha256())) {
                throw new IntegrityException(v.key(), "read back SHA-256 " + stored + " but uploaded " + v.sha256());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
