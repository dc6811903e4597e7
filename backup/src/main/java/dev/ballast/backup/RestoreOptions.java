package dev.ballast.backup;

import java.util.List;

/**
 * What a restore takes from a backup and how it writes it. Immutable. {@link #builder()} names what
 * it sets and leaves the rest as {@link #latest()} has it:
 *
 * <pre>{@code
 * RestoreOptions options = RestoreOptions.builder().version("3dc7957f").paths("docs").overwrite(true).build();
 * }</pre>
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

    /** A builder starting from {@link #latest()}: everything of the newest intact backup, nothing replaced. */
    public static Builder builder() {
        return latest().toBuilder();
    }

    /** A builder starting from these options. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.version = version;
        b.paths = paths;
        b.includes = includes;
        b.excludes = excludes;
        b.overwrite = overwrite;
        return b;
    }

    /** Sets restore options by name. Not thread-safe: one builder per thread. */
    public static final class Builder {
        private String version = "latest";
        private List<String> paths = List.of();
        private List<String> includes = List.of();
        private List<String> excludes = List.of();
        private boolean overwrite;

        private Builder() {}

        /** The snapshot: {@code "latest"} (the default), a version ID or a short ID. */
        public Builder version(String version) {
            this.version = java.util.Objects.requireNonNull(version, "version");
            return this;
        }

        /** The paths in the backup to restore, replacing those set before (default none: everything). */
        public Builder paths(String... paths) {
            this.paths = List.of(paths);
            return this;
        }

        /** The patterns of paths to restore, replacing those set before (default none: all). */
        public Builder includes(String... patterns) {
            this.includes = List.of(patterns);
            return this;
        }

        /** The patterns of paths not to restore, replacing those set before (default none). */
        public Builder excludes(String... patterns) {
            this.excludes = List.of(patterns);
            return this;
        }

        /** Whether existing files that differ are replaced (default false: such a restore is refused). */
        public Builder overwrite(boolean overwrite) {
            this.overwrite = overwrite;
            return this;
        }

        /** The options. */
        public RestoreOptions build() {
            return new RestoreOptions(version, paths, includes, excludes, overwrite);
        }
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
