package dev.ballast.backup.restore;

import dev.ballast.backup.tree.FileStat;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Which directories of the target a restore can look into before it writes, opening for the run those
 * this user owns but may not read or search: a directory of mode 0000, 0100 or 0300 that an earlier
 * restore of the backup made as it was recorded. A restore by a user other than root that did not look into such
 * a directory took every path under it for free (the {@code lstat} of a name in it is refused), gave
 * the directory its owner's write and search bits and wrote its files over what stood there, a file the
 * user had changed included, without {@code --overwrite} (a fault tester's finding). An opened directory
 * gets its owner's read, write and search bits, so that what stands in it is compared with the backup
 * and its descriptor can be opened to give it the backup's mode at the end; {@link #putBack} gives the
 * opened ones their permissions back when the restore stops before it writes (a refusal), and
 * {@link RestoreDirectories#adopt} takes them over otherwise.
 *
 * <p>The target itself is opened the same way when this user owns it but may not write to it (mode 0500,
 * say), as a directory below it is when the restore writes into it: its mode is put back at the end.
 *
 * <p>A directory this user cannot open (another user's) is left as it is: nothing is known to stand in
 * it, and a write into it fails and says why. Not thread-safe; one instance per restore.
 */
final class ClosedDirectories {
    private final Path target;
    private final Map<Path, Boolean> lookable = new HashMap<>();
    private final Map<Path, Set<PosixFilePermission>> opened = new LinkedHashMap<>();

    ClosedDirectories(Path target) {
        this.target = target;
    }

    /**
     * Whether {@code dir} (the target or a path under it) is a directory whose entries this user can
     * look at, after opening it and every closed directory above it that this user owns.
     */
    boolean lookable(Path dir) {
        Boolean known = lookable.get(dir);
        if (known != null) {
            return known;
        }
        boolean result =
                !dir.equals(target) && dir.startsWith(target) && !lookable(dir.getParent()) ? false : open(dir);
        lookable.put(dir, result);
        return result;
    }

    private boolean open(Path dir) {
        try {
            BasicFileAttributes a = Files.readAttributes(dir, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!a.isDirectory()) {
                return false; // nothing stands under a file; a link is looked through where the restore makes it
            }
        } catch (IOException | RuntimeException e) {
            return false; // absent, or not to be looked at
        }
        if (!FileStat.UNIX
                || (Files.isExecutable(dir)
                        && Files.isReadable(dir)
                        && (!dir.equals(target) || Files.isWritable(dir)))) {
            return true;
        }
        try {
            opened.put(dir, RestoreDirectories.openToOwner(dir));
            return true;
        } catch (IOException | RuntimeException e) {
            return false; // another user's
        }
    }

    /** The directories opened, with their permissions before, in the order they were opened. */
    Map<Path, Set<PosixFilePermission>> opened() {
        return Map.copyOf(opened);
    }

    /** Gives every opened directory its permissions back, deepest first; best effort. */
    void putBack() {
        java.util.List<Path> dirs = new java.util.ArrayList<>(opened.keySet());
        java.util.Collections.reverse(dirs);
        for (Path dir : dirs) {
            try {
                Files.setPosixFilePermissions(dir, opened.get(dir));
            } catch (IOException | RuntimeException e) {
                // left open to its owner; nothing else changed
            }
        }
        opened.clear();
        lookable.clear();
    }
}
