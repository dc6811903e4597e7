package dev.ballast.backup.snapshot;

import dev.ballast.backup.tree.PosixAttrs;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a manifest records beside its files: every directory (empty ones included, with its mode,
 * owner and mtime), every symbolic link (stored as a link: its target as it reads, never followed)
 * and every further name of a hard-linked file. Each list is sorted by path. A manifest written
 * before these were recorded has all three empty, and restores as it always did.
 *
 * @param directories the directories under the backed-up one (not the backed-up directory itself)
 * @param symlinks the symbolic links
 * @param hardLinks names that are hard links to a file listed in the manifest's files
 */
public record ManifestTree(List<Directory> directories, List<Symlink> symlinks, List<HardLink> hardLinks) {
    public static final ManifestTree EMPTY = new ManifestTree(List.of(), List.of(), List.of());

    public ManifestTree {
        directories = directories == null ? List.of() : List.copyOf(directories);
        symlinks = symlinks == null ? List.of() : List.copyOf(symlinks);
        hardLinks = hardLinks == null ? List.of() : List.copyOf(hardLinks);
    }

    /**
     * A directory.
     *
     * @param path its path relative to the backed-up directory
     * @param mtime its modification time
     * @param attrs its mode and owner, or null where the platform has none
     */
    public record Directory(
            String path, Instant mtime, @Nullable PosixAttrs attrs) {
        public Directory {
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(mtime, "mtime");
        }
    }

    /**
     * A symbolic link.
     *
     * @param path its path relative to the backed-up directory
     * @param target what it points to, exactly as {@code readlink(2)} returns it (relative or absolute)
     * @param mtime the link's own modification time
     * @param attrs the link's owner (its mode is meaningless on Linux and not applied), or null
     */
    public record Symlink(
            String path,
            String target,
            Instant mtime,
            @Nullable PosixAttrs attrs) {
        public Symlink {
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(target, "target");
            Objects.requireNonNull(mtime, "mtime");
        }
    }

    /**
     * A further name of a file with several hard links: restore makes it a hard link to {@code target}.
     *
     * @param path this name, relative to the backed-up directory
     * @param target the name under which the file's content is listed among the manifest's files
     */
    public record HardLink(String path, String target) {
        public HardLink {
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(target, "target");
        }
    }

    public boolean isEmpty() {
        return directories.isEmpty() && symlinks.isEmpty() && hardLinks.isEmpty();
    }
}
