package dev.ballast.backup;

import java.util.List;

/**
 * How a backup walks and reads its directory. Immutable.
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

    /** These options with {@code patterns} left out. */
    public BackupOptions excluding(String... patterns) {
        return new BackupOptions(followSymlinks, checksum, List.of(patterns), excludeCaches);
    }

    /** These options reading and hashing every file. */
    public BackupOptions withChecksum() {
        return new BackupOptions(followSymlinks, true, excludes, excludeCaches);
    }
}
