package dev.ballast.storage.object.local;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;
import java.util.Set;

/**
 * The store's directory before an index is opened on it: whether it holds a store, content without
 * an index, or something else, and the owner-only mode a new one gets. Static.
 */
final class StoreDirectory {
    private StoreDirectory() {}

    /** Whether {@code root} holds a local object store (its index exists). */
    static boolean exists(Path root) {
        return Files.isRegularFile(root.toAbsolutePath().normalize().resolve(LocalObjectStore.INDEX_FILE));
    }

    /**
     * Whether {@code root} holds stored content (files under {@code blobs/}, {@code packs/} or
     * {@code journal/}) but no index: the index
     * was deleted or lost. Such a store must not be taken for an empty one (its versions would be
     * reported as none) nor get a new, empty index (they would be lost for good); it is refused until
     * its index is rebuilt ({@link LocalObjectStore#rebuildIndex(Path)}) or its directory is restored from a copy.
     */
    static boolean holdsContentWithoutIndex(Path root) {
        Path dir = root.toAbsolutePath().normalize();
        if (exists(dir)) {
            return false;
        }
        try (var packFiles = Files.newDirectoryStream(dir.resolve(Packs.PACKS))) {
            if (packFiles.iterator().hasNext()) {
                return true;
            }
        } catch (IOException e) {
            // no packs directory: no small contents
        }
        try (var journalFiles = Files.newDirectoryStream(dir.resolve(Journal.DIR))) {
            if (journalFiles.iterator().hasNext()) {
                return true; // versions are recorded: rebuildIndex brings them back
            }
        } catch (IOException e) {
            // no journal
        }
        try (var shards = Files.newDirectoryStream(dir.resolve(Blobs.BLOBS))) {
            for (Path shard : shards) {
                if (Files.isDirectory(shard)) {
                    try (var files = Files.newDirectoryStream(shard)) {
                        if (files.iterator().hasNext()) {
                            return true;
                        }
                    }
                }
            }
            return false;
        } catch (IOException e) {
            return false; // no blobs directory: no content
        }
    }

    /**
     * Refuses an index file of 0 bytes, with no write-ahead log to hold its schema, in a store that has
     * written versions: the writer would otherwise give it a new, empty schema over every version.
     */
    static void refuseEmptiedIndex(Path index) throws SQLException, IOException {
        Path wal = index.resolveSibling(index.getFileName() + "-wal");
        if (Files.isRegularFile(index, LinkOption.NOFOLLOW_LINKS)
                && Files.size(index) == 0
                && (!Files.exists(wal) || Files.size(wal) == 0)
                && holdsRecords(index.getParent())) {
            throw IndexReaders.damaged(new SQLException("the index has no schema"));
        }
    }

    /** Whether the store in {@code dir} has written anything: a journal file or a pack file exists. */
    static boolean holdsRecords(Path dir) {
        for (String sub : List.of(Journal.DIR, Packs.PACKS)) {
            try (var files = Files.newDirectoryStream(dir.resolve(sub))) {
                if (files.iterator().hasNext()) {
                    return true;
                }
            } catch (IOException e) {
                // no such directory
            }
        }
        return false;
    }

    static void refuseForeignDirectory(Path dir) {
        if (!Files.isDirectory(dir)) {
            try {
                Files.createDirectories(dir);
            } catch (IOException e) {
                throw LocalErrors.unavailable(null, "Creating the local object store directory '" + dir + "'", e);
            }
            restrictToOwner(dir);
            return;
        }
        if (holdsContentWithoutIndex(dir)) {
            throw new IllegalArgumentException(
                    "'" + dir + "' holds stored content but no index (" + LocalObjectStore.INDEX_FILE
                            + "): the index was deleted or lost; rebuild it (LocalObjectStore.rebuildIndex, 'ballast repair index')"
                            + " or restore the directory from a copy rather than start a new, empty index over it");
        }
        try (var entries = Files.list(dir)) {
            List<String> names = entries.map(p -> p.getFileName().toString()).toList();
            if (names.contains(LocalObjectStore.INDEX_FILE)) {
                return; // another process made a store here since the caller looked: the caller opens it
            }
            Set<String> ours = Set.of(
                    LocalObjectStore.LOCK_FILE,
                    Blobs.BLOBS,
                    Blobs.TMP,
                    Packs.PACKS,
                    SpaceReserve.FILE,
                    Journal.DIR,
                    LocalObjectStore.INDEX_FILE + "-wal",
                    LocalObjectStore.INDEX_FILE + "-shm",
                    LocalObjectStore.INDEX_FILE + "-journal");
            if (!ours.containsAll(names)) {
                throw new IllegalArgumentException("'" + dir + "' is not empty and holds no local object store (no "
                        + LocalObjectStore.INDEX_FILE + "); pass an empty or new directory, or one that holds a store");
            }
            if (names.isEmpty()) {
                restrictToOwner(dir);
            }
        } catch (IOException e) {
            throw LocalErrors.unavailable(null, "Reading the directory '" + dir + "'", e);
        }
    }

    /**
     * A new store's directory is readable by its owner only (mode 700 where the file system has POSIX
     * permissions), as restic and borg create their repositories: a store holds copies of files that
     * may be private, and the copies must not be more readable than the originals.
     */
    static void restrictToOwner(Path dir) {
        try {
            Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        } catch (UnsupportedOperationException ignored) {
            // no POSIX permissions here (Windows): the directory keeps what its parent gives it
        } catch (IOException e) {
            throw LocalErrors.unavailable(
                    null, "Restricting the local object store directory '" + dir + "' to its owner", e);
        }
    }
}
