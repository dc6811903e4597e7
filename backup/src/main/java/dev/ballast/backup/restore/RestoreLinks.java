package dev.ballast.backup.restore;

import dev.ballast.backup.snapshot.ManifestTree;
import dev.ballast.backup.tree.Attributes;
import dev.ballast.backup.tree.FileStat;
import dev.ballast.backup.tree.Names;
import dev.ballast.backup.tree.SafePaths;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;

/**
 * The file system steps of a restore beside writing files ({@link RestoreRunner}): hard and
 * symbolic links, the root check that decides whether owners are restored, and directory syncs.
 * Stateless; thread-safe.
 */
public final class RestoreLinks {
    private RestoreLinks() {}

    /** Makes {@code dest} a hard link to the restored file {@code h} names, inside {@code target}. */
    public static void hardLink(Path target, ManifestTree.HardLink h, Path dest) throws IOException {
        hardLink(SafePaths.resolveInside(target, h.target()), h.target(), dest);
    }

    /** Makes {@code dest} a hard link to {@code first}, the restored file the backup names {@code firstName}. */
    static void hardLink(Path first, String firstName, Path dest) throws IOException {
        if (!Files.isRegularFile(first, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException("'" + firstName + "', the name it is a hard link to, was not restored");
        }
        if (Files.isDirectory(dest, LinkOption.NOFOLLOW_LINKS)) {
            throw directoryInTheWay();
        }
        if (Files.exists(dest, LinkOption.NOFOLLOW_LINKS)) {
            if (Files.isSameFile(dest, first)) {
                return;
            }
            Files.delete(dest); // checked before anything was written: --overwrite was given
        }
        Files.createLink(dest, first);
    }

    /**
     * Whether the regular file at {@code dest} has no name but {@code dest} and those of {@code links} that
     * are hard links to it: its link count ({@code st_nlink}) is one more than the number of them that are.
     * A file of the target that shares its inode with another name (a hard link to a file outside the
     * target, as an {@code rsnapshot} or {@code cp -al} tree holds, or to a file the backup holds apart)
     * is not: giving it the backup's owner, mode and mtime would give them to that other name too. Always
     * true where the platform has no link counts.
     *
     * @param links where the backup's hard links to this file are restored
     * @throws IOException if {@code dest} cannot be looked at
     */
    static boolean namedOnlyBy(Path dest, List<Path> links) throws IOException {
        if (!FileStat.UNIX) {
            return true;
        }
        int count = (Integer) Files.getAttribute(dest, "unix:nlink", LinkOption.NOFOLLOW_LINKS);
        if (count == 1) {
            return true;
        }
        Object inode = Files.readAttributes(dest, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                .fileKey();
        int named = 1;
        for (Path l : links) {
            try {
                BasicFileAttributes a = Files.readAttributes(l, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                if (a.isRegularFile() && inode != null && inode.equals(a.fileKey())) {
                    named++;
                }
            } catch (java.nio.file.NoSuchFileException absent) {
                // not linked yet: the restore makes it
            }
        }
        return count == named;
    }

    /** Creates the link under a temporary name, sets its owner and mtime, then renames it into place. */
    public static void symlink(ManifestTree.Symlink l, Path dest, boolean ownership, RestoreTemporaries temporaries)
            throws IOException {
        if (Files.isSymbolicLink(dest)
                && Names.name(Files.readSymbolicLink(dest)).equals(l.target())) {
            Attributes.setMtime(dest, l.mtime());
            return;
        }
        if (Files.isDirectory(dest, LinkOption.NOFOLLOW_LINKS)) {
            // Renaming the new link over it would fail naming the link's temporary name, not the user's path.
            throw directoryInTheWay();
        }
        // The target from its bytes (any locale), exactly as it was read.
        Path linkTarget = Names.linkTarget(l.target());
        Path tmp = temporaries.create(dest, t -> Files.createSymbolicLink(t, linkTarget));
        try {
            if (ownership && l.attrs() != null) {
                Attributes.chown(tmp, l.attrs());
            }
            Attributes.setMtime(tmp, l.mtime());
            Files.move(tmp, dest, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
    }

    /**
     * A directory where the backup has a link, with {@code --overwrite} (without it the restore was
     * refused): left as it is, as a directory where the backup has a file is.
     */
    private static RestoreFileWriter.TypeInTheWay directoryInTheWay() {
        return new RestoreFileWriter.TypeInTheWay("a directory stands where the backup has this link; it was left"
                + " as it is (--overwrite never replaces a directory): remove it and run the restore again");
    }

    /** Whether this process runs as root, from the owner of a file it creates in {@code dir}. */
    public static boolean runsAsRoot(Path dir) {
        try {
            Path probe = Files.createTempFile(dir, ".ballast-", ".probe");
            try {
                return ((Integer) Files.getAttribute(probe, "unix:uid", LinkOption.NOFOLLOW_LINKS)) == 0;
            } finally {
                Files.deleteIfExists(probe);
            }
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** Syncs a directory's entries to disk, where the file system can. */
    public static void syncDirectory(Path dir) {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException ignored) {
            // some file systems cannot sync a directory; every file in it was synced before its rename
        }
    }
}
