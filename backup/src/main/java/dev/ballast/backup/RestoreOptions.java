package dev.ballast.backup;

import java.util.List;

/**
 * What a restore takes from a backup and how it writes it. Immutable.
 *
 * @param version the manifest version to restore: {@code "latest"} (the newest intact complete
 *     backup), a version ID or the 8-hex-digit short ID {@code ballast list} shows
 * @param paths paths in the backup to restore (a file, or a directory and everything under it);
 *     empty: everything
 * @param includes patterns of paths to restore, as {@code --include} takes them; empty: all
 * @param excludes patterns of paths not to restore, as {@code --exclude} takes them
 * @param overwrite whether existing files that differ are replaced (false: the restore is refused
 *     with a {@link BackupException.Kind#CONFLICT} naming them, and nothing is written)
 */
public record RestoreOptions(
        String version, List<String> paths, List<String> includes, List<String> excludes, boolean overwrite) {
    /** Copies the lists. */
    public RestoreOptions {
        paths = List.copyOf(paths);
        includes = List.copyOf(includes);
        excludes = List.copyOf(excludes);
    }

    /** Everything of the newest intact backup, refusing to replace differing files. */
    public static RestoreOptions latest() {
        return new RestoreOptions("latest", List.of(), List.of(), List.of(), false);
    }

    /** These options for manifest version {@code id} instead. */
    public RestoreOptions version(String id) {
        return new RestoreOptions(id, paths, includes, excludes, overwrite);
    }

    /** These options restoring only {@code selected} paths. */
    public RestoreOptions only(String... selected) {
        return new RestoreOptions(version, List.of(selected), includes, excludes, overwrite);
    }

    /** These options replacing existing files that differ. */
    public RestoreOptions overwriting() {
        return new RestoreOptions(version, paths, includes, excludes, true);
    }
}
