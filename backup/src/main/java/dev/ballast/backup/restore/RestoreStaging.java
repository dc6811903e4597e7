package dev.ballast.backup.restore;

import dev.ballast.backup.BackupException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A restore into a directory that does not exist yet: the tree is written into a hidden directory
 * beside it, named {@code .ballast-TOKEN-N} by the run's {@link RestoreTemporaries}, each file under
 * its own name, and that directory is renamed to the target once, at the end ({@link #publish}), after
 * what it holds is durable. No file under the target's path is ever half-written, and a file's rename
 * from a temporary name, one {@code renameat(2)} per file (0.24–0.28 s of system time per 20,000 files
 * on ext4), becomes one rename per restore.
 *
 * <p>Used only where a killed run's hidden directory is sure to be removed: the run is recorded
 * ({@link RestoreTemporaries#recorded()}), so the next run into the same target removes it with all it
 * holds. The target's parent must exist (it is a directory, links followed); otherwise the run writes
 * into the target itself, as into one that exists. Not thread-safe; one instance per run.
 */
final class RestoreStaging {
    private final Path target;
    private final Path directory;

    private RestoreStaging(Path target, Path directory) {
        this.target = target;
        this.directory = directory;
    }

    /**
     * Records the run ({@link RestoreTemporaries#begin}, which also removes what killed runs into this
     * target left) and creates the hidden directory beside {@code target}; null where the run writes into
     * the target itself: it exists (or a link stands there), its parent does not exist, the run cannot
     * be recorded, or the directory cannot be created (the run then says why, as without staging).
     *
     * @param target the restore's target, absolute and normalised
     */
    static @Nullable RestoreStaging begin(Path target, RestoreTemporaries temporaries) {
        Objects.requireNonNull(target, "target");
        Path parent = target.getParent();
        if (parent == null || Files.exists(target, LinkOption.NOFOLLOW_LINKS) || !Files.isDirectory(parent)) {
            return null;
        }
        temporaries.begin(List.of());
        if (!temporaries.recorded()) {
            return null;
        }
        try {
            return new RestoreStaging(target, temporaries.create(target, Files::createDirectory));
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** The hidden directory the tree is written into, absolute. */
    Path directory() {
        return directory;
    }

    /**
     * Renames the hidden directory to the target ({@code rename(2)}, which never follows a link there
     * and never replaces anything but an empty directory made there meanwhile), then syncs the parent's
     * entry for it. Called once, after the run made what it wrote durable, whatever its outcome (a run
     * that failed files, or was cancelled, leaves what it completed, as a run into an existing target does).
     *
     * @throws BackupException of kind {@link BackupException.Kind#INCOMPLETE} when the rename fails
     *     (something else was put at the target while the run wrote): the restored tree stays in the
     *     hidden directory, which the message names, and no later run removes it
     */
    void publish() {
        try {
            Files.move(directory, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | RuntimeException e) {
            throw new BackupException(
                    BackupException.Kind.INCOMPLETE,
                    "The restore wrote its files into '" + directory + "' but could not rename it to '" + target
                            + "' (" + RestoreDirectories.reason(e) + "; something was put there while the restore"
                            + " ran); move it there yourself, or run the restore again into an empty directory.",
                    e);
        }
        RestoreLinks.syncDirectory(Objects.requireNonNull(target.getParent()));
    }
}
