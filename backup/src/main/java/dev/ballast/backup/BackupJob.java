package dev.ballast.backup;

import dev.ballast.backup.content.PackedContent;
import dev.ballast.backup.run.BackupRunner;
import dev.ballast.backup.run.LocalStoreDirectory;
import dev.ballast.backup.run.RunMarker;
import dev.ballast.backup.snapshot.Manifests;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** {@link Backups#backup(String, java.nio.file.Path, BackupOptions)}: one backup run. */
final class BackupJob extends Job {
    BackupJob(Settings settings) {
        super(settings);
    }

    /** See {@link Backups#backup(String, Path, BackupOptions)}. */
    BackupResult backup(String name, Path source, BackupOptions options) {
        Manifests.checkName(name);
        if (!Files.isDirectory(source)) {
            throw new BackupException(
                    BackupException.Kind.INVALID_INPUT,
                    "'" + source + "' is not a directory; pass the directory to back up.");
        }
        BackupRunner.Settings settings = new BackupRunner.Settings(
                options.followSymlinks(),
                transfers,
                options.checksum(),
                globs("exclude", options.excludes()),
                options.excludeCaches());
        BackupRunner runner = new BackupRunner(
                view,
                name,
                source.toAbsolutePath().normalize(),
                settings,
                cancellation,
                clock,
                listener::notice,
                () -> counter(0, 0),
                manifestGrace,
                path -> {});
        runner.skippingStore(LocalStoreDirectory.of(store));
        BackupRunner.Result r;
        try (RunMarker marker = RunMarker.start(view, name, clock);
                PackedContent content = packedContentAfterMarker()) {
            if (content != null) {
                runner.packedInto(content);
            }
            r = runner.guardedBy(marker).run();
            if (r.unavailable() != null) {
                marker.abandon();
            }
        }
        List<FileProblem> failed = new ArrayList<>();
        r.failed().forEach(f -> failed.add(new FileProblem(f.path(), f.reason())));
        return new BackupResult(
                r.manifestVersionId(),
                r.manifestComplete(),
                r.stored(),
                r.unchanged(),
                r.bytesUploaded(),
                r.bytesStored(),
                r.bytesTotal(),
                r.skipped(),
                failed,
                r.notAttempted(),
                r.manifestProblem(),
                r.cancelled(),
                r.elapsed());
    }
}
