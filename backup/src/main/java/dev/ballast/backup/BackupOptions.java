package dev.ballast.backup;

import java.util.List;

/**
 * How a backup walks and reads its directory. Immutable. {@link #builder()} names what it sets and
 * leaves the rest at the {@link #defaults()}:
 *
 * <pre>{@code
 * BackupOptions options = BackupOptions.builder().excludes("*.tmp", "/build").excludeCaches(true).build();
 * }</pre>
 *
 * @param followSymlinks whether symbolic links are followed (false: stored as links, as by default)
 * @param checksum whether every file is read and hashed, even one whose size, times and inode are
 *     unchanged since the previous backup (false by default: such a file is kept without reading it)
 * @param excludes patterns of paths left out, as {@code --exclude} takes them ({@code *.tmp},
 *     {@code cache}, {@code /build}; a leading {@code !} re-includes), in order
 * @param excludeCaches whether directories tagged with {@code CACHEDIR.TAG} are left out
 */
public record BackupOptions(boolean followSymlinks, boolean checksum, List<String> excludes, boolean excludeCaches) {
    /** Copies {@code excludes}. */
    public BackupOptions {
        excludes = List.copyOf(excludes);
    }

    /** The command's defaults: links stored as links, unchanged files not read, nothing excluded. */
    public static BackupOptions defaults() {
        return new BackupOptions(false, false, List.of(), false);
    }

    /** A builder starting from {@link #defaults()}. */
    public static Builder builder() {
        return defaults().toBuilder();
    }

    /** A builder starting from these options. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.followSymlinks = followSymlinks;
        b.checksum = checksum;
        b.excludes = excludes;
        b.excludeCaches = excludeCaches;
        return b;
    }

    /** Sets backup options by name. Not thread-safe: one builder per thread. */
    public static final class Builder {
        private boolean followSymlinks;
        private boolean checksum;
        private List<String> excludes = List.of();
        private boolean excludeCaches;

        private Builder() {}

        /** Whether symbolic links are followed (default false: stored as links). */
        public Builder followSymlinks(boolean follow) {
            this.followSymlinks = follow;
            return this;
        }

        /** Whether every file is read and hashed, even one unchanged since the previous backup (default false). */
        public Builder checksum(boolean checksum) {
            this.checksum = checksum;
            return this;
        }

        /** The patterns of paths left out, in order, replacing those set before (default none). */
        public Builder excludes(String... patterns) {
            return excludes(List.of(patterns));
        }

        /** The patterns of paths left out, in order, replacing those set before (default none). */
        public Builder excludes(List<String> patterns) {
            this.excludes = List.copyOf(patterns);
            return this;
        }

        /** Whether directories tagged with {@code CACHEDIR.TAG} are left out (default false). */
        public Builder excludeCaches(boolean exclude) {
            this.excludeCaches = exclude;
            return this;
        }

        /** The options. */
        public BackupOptions build() {
            return new BackupOptions(followSymlinks, checksum, excludes, excludeCaches);
        }
    }

    /** These options with {@code patterns} left out. */
    public BackupOptions excluding(String... patterns) {
        return new BackupOptions(followSymlinks, checksum, List.of(patterns), excludeCaches);
    }

    /** These options reading and hashing every file. */
    public BackupOptions withChecksum() {
        return new BackupOptions(followSymlinks, true, excludes, excludeCaches);
    }
}
