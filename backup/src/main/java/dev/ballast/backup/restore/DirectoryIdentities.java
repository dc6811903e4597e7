package dev.ballast.backup.restore;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The identity (device and inode, the JDK's file key) of each directory a restore prepared, taken
 * once before any file is written, so that a directory replaced while the restore runs is noticed
 * before a file is created in it or renamed into it. A restore names files by path: someone who may
 * write in the target could otherwise move a directory the restore made and put a symbolic link to
 * any other directory in its place, and every later file of it would be written there (as root,
 * with the backup's owners and modes; a tester's script wrote 3,000 files outside the target so).
 * Each check is one {@code stat} of the directory, following links as the write that follows does.
 * A swap between the check and the write is still possible; only a descent by descriptors
 * ({@code openat} with {@code O_NOFOLLOW}, which the JDK does not offer) would close that window.
 * Immutable after construction; thread-safe.
 */
final class DirectoryIdentities {
    private final Map<Path, Object> keys = new HashMap<>();

    /** Takes the identity of each of {@code dirs} that can be looked at and has a file key. */
    DirectoryIdentities(Iterable<Path> dirs) {
        for (Path dir : dirs) {
            Object key = keyOf(dir);
            if (key != null) {
                keys.put(dir, key);
            }
        }
    }

    /**
     * Holds each directory to the identity given for it: taken as {@link RestoreDirectories} created or
     * found it. Taken here, after every directory was made, a directory swapped for a link to another
     * one meanwhile had that one's identity recorded, and the restore wrote through it (a tester's run:
     * 100 files outside the target overwritten, the restore exit 1 naming only the directory).
     */
    DirectoryIdentities(java.util.Map<Path, Object> identities) {
        keys.putAll(identities);
    }

    private static @Nullable Object keyOf(Path dir) {
        try {
            return Files.readAttributes(dir, BasicFileAttributes.class).fileKey();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * Checks that {@code dir} is still the directory it was when the restore prepared it.
     *
     * @throws DirectoryReplacedException when something else stands there now (a symbolic link to
     *     another directory, another directory, nothing)
     */
    void check(Path dir) throws DirectoryReplacedException {
        Object was = keys.get(dir);
        if (was != null && !was.equals(keyOf(dir))) {
            throw new DirectoryReplacedException(dir);
        }
    }

    /** A directory of the restore was replaced while it ran; nothing was written through it. */
    static final class DirectoryReplacedException extends IOException {
        private static final long serialVersionUID = 1L;

        DirectoryReplacedException(Path dir) {
            super("its directory was replaced while the restore ran (a symbolic link or another directory"
                    + " stands there now), so nothing was written through it");
        }
    }
}
