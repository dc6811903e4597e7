package dev.ballast.backup;

import dev.ballast.backup.content.PackedContent;
import dev.ballast.backup.restore.RestoreRunner;
import dev.ballast.backup.restore.RestoreSelection;
import dev.ballast.backup.retention.PackedRepair;
import dev.ballast.backup.run.RestoreLock;
import dev.ballast.backup.snapshot.DamagedVersions;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.Manifests;
import dev.ballast.backup.snapshot.SealedStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** {@link Backups#restore(String, java.nio.file.Path, RestoreOptions)}: one restore. */
final class RestoreJob extends Job {
    RestoreJob(Settings settings) {
        super(settings);
    }

    /** Refuses a target that exists and is not a directory, or that cannot be created under what exists. */
    private static void checkRestoreTarget(Path target) {
        if (Files.exists(target, java.nio.file.LinkOption.NOFOLLOW_LINKS) && !Files.isDirectory(target)) {
            throw new BackupException(
                    BackupException.Kind.INVALID_INPUT,
                    "'" + target + "' exists and is not a directory; pass a directory to restore into.");
        }
        Path existing = target.toAbsolutePath();
        while (existing != null && !Files.exists(existing, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            existing = existing.getParent();
        }
        if (existing != null && !Files.isDirectory(existing)) {
            throw new BackupException(
                    BackupException.Kind.INVALID_INPUT,
                    "'" + target + "' cannot be created because '" + existing
                            + "' is not a directory; pass a directory to restore into.");
        }
    }

    /** See {@link Backups#restore(String, Path, RestoreOptions)}. */
    RestoreResult restore(String name, Path target, RestoreOptions options) {
        String n = Manifests.checkExistingName(name);
        checkRestoreTarget(target);
        RestoreSelection selection = new RestoreSelection(
                options.paths(), globs("include", options.includes()), globs("exclude", options.excludes()));
        // A prune or repair does not delete packs while this restore reads them (restic's shared lock).
        try (RestoreLock prunesWait = view instanceof SealedStore sealed
                ? RestoreLock.forReading(sealed, clock, "restore")
                : RestoreLock.shared(null)) {
            return restoreLocked(n, target, options, selection);
        }
    }

    private RestoreResult restoreLocked(String n, Path target, RestoreOptions options, RestoreSelection selection) {
        Manifests.Versioned chosen = Manifests.select(view, n, options.version(), "the object store", listener::notice);
        RestoreSelection.Selected selected = selection.selectOrRefuse(n, chosen);
        Manifest m = selected.manifest();
        DamagedVersions damaged = DamagedVersions.load(view, n, listener::notice);
        RestoreRunner.Result r;
        try (PackedContent content = packedContent()) {
            if (content != null) {
                PackedRepair.damageNotes(content, m).forEach(listener::notice);
            }
            RestoreRunner runner = new RestoreRunner(
                            view,
                            m,
                            target,
                            options.overwrite(),
                            transfers,
                            cancellation,
                            x -> counter(x.files().size(), x.totalBytes()),
                            damaged)
                    .writingAs(selected.writtenAs());
            if (content != null) {
                runner.readingFrom(content);
            }
            java.util.Set<String> unnamedAtStart = content == null ? java.util.Set.of() : content.unindexedPacksRead();
            r = runner.run();
            if (content != null) {
                PackedRepair.readNotes(content, unnamedAtStart).forEach(listener::notice);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<FileProblem> failed = new ArrayList<>();
        r.failed().forEach(f -> failed.add(new FileProblem(f.path(), f.reason())));
        return new RestoreResult(
                chosen.version().versionId(),
                chosen.olderThanNewest(),
                r.restored(),
                r.alreadyPresent(),
                r.bytes(),
                failed,
                r.damagedCopies(),
                r.missingChunks(),
                r.unavailable() != null,
                r.cancelled(),
                r.elapsed());
    }
}
