package dev.ballast.storage.object.local;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.SQLException;
import java.util.Comparator;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens the read connections of a {@link LocalObjectStore}'s index so that reading needs neither
 * write access to the store's directory nor free space on its disk.
 *
 * <p>A WAL-mode SQLite database is read through its {@code -wal} and {@code -shm} files, which a
 * reader creates when they are absent, as they are after a writer closed the store (it empties and
 * removes them). On a read-only mount, in a directory the user cannot write, or on a full disk
 * (where the {@code -shm} cannot be grown: {@code SQLITE_IOERR_SHMSIZE}) that fails, so a reader
 * first opens the index the shared way and, only when that fails for want of those files, falls
 * back (see <a href="https://sqlite.org/wal.html#readonly">WAL: read-only databases</a> and
 * <a href="https://sqlite.org/uri.html#uriimmutable">URI filenames: immutable</a>):
 *
 * <ul>
 *   <li>when the {@code -wal} file is absent or empty, every committed version is in
 *       {@code index.db} itself, and the index is opened {@code immutable=1}: no lock, no
 *       {@code -shm}, nothing written. A writer cannot run in such a directory (it could not create
 *       its own {@code -wal}), so nothing changes under the reader;
 *   <li>when the {@code -wal} file holds frames (a writer was killed before it checkpointed), those
 *       frames hold committed versions that {@code immutable=1} would not see: {@code index.db}
 *       and its {@code -wal} are copied to a temporary directory (under {@code java.io.tmpdir}),
 *       once per store, and read there; the copy is deleted when the store is closed.
 * </ul>
 *
 * <p>The way found is kept for the store's lifetime. Thread-safe.
 */
final class IndexReaders {

    private static final Logger LOG = LoggerFactory.getLogger(IndexReaders.class);

    /** How a read connection is opened. */
    enum Mode {
        /** The usual way: shared with a writer through the {@code -wal} and {@code -shm} files. */
        SHARED,
        /** {@code immutable=1}: the database file alone, unlocked (nothing can write it). */
        IMMUTABLE,
        /** A private copy of the database and its {@code -wal} under {@code java.io.tmpdir}. */
        COPY
    }

    private final Path database;
    private volatile Mode mode = Mode.SHARED;
    private @Nullable Path copyDir;

    IndexReaders(Path database) {
        this.database = database;
    }

    /** The way connections are opened now (for messages and tests). */
    Mode mode() {
        return mode;
    }

    /**
     * Opens a read connection.
     *
     * @throws SQLException if the index cannot be read in any of the ways above, with the first
     *     way's failure as the cause when a fallback fails too
     */
    VersionIndex open() throws SQLException {
        try {
            return openAnyWay();
        } catch (SQLException e) {
            if (String.valueOf(e.getMessage()).contains("the index has no schema")
                    && LocalObjectStore.holdsRecords(database.getParent())) {
                // A store that has written (its journal or packs exist) has a schema: an index without one
                // was emptied (a 0-byte file) and is damage, not a store before its first write.
                throw damaged(e);
            }
            throw e;
        }
    }

    /** SQLITE_CORRUPT (11): an index that has lost its schema is damaged, not unavailable. */
    static SQLException damaged(SQLException noSchema) {
        SQLException damaged = new SQLException(
                "the index has no schema although the store has written versions (its journal or packs exist):"
                        + " the file was emptied or cut short",
                null,
                11);
        damaged.initCause(noSchema);
        return damaged;
    }

    private VersionIndex openAnyWay() throws SQLException {
        Mode m = mode;
        if (m == Mode.SHARED) {
            try {
                return VersionIndex.openReader("jdbc:sqlite:" + database);
            } catch (SQLException e) {
                if (!needsSharedFiles(e)) {
                    throw e;
                }
                return fallBack(e);
            }
        }
        return m == Mode.IMMUTABLE ? VersionIndex.openReader(immutable(database)) : openCopy();
    }

    private synchronized VersionIndex fallBack(SQLException shared) throws SQLException {
        try {
            if (mode == Mode.SHARED) {
                mode = walHoldsFrames(database) ? Mode.COPY : Mode.IMMUTABLE;
                LOG.info(
                        "The index {} cannot be read the shared way ({}); reading it {}",
                        database,
                        shared.getMessage(),
                        mode == Mode.IMMUTABLE
                                ? "as an immutable file (its write-ahead log is empty)"
                                : "from a copy (its write-ahead log holds versions not yet in the database file)");
            }
            return mode == Mode.IMMUTABLE ? VersionIndex.openReader(immutable(database)) : openCopy();
        } catch (SQLException e) {
            e.addSuppressed(shared);
            throw e;
        }
    }

    private synchronized VersionIndex openCopy() throws SQLException {
        if (copyDir == null) {
            Path dir = null;
            try {
                dir = Files.createTempDirectory("ballast-index-");
                Files.copy(database, dir.resolve(database.getFileName()), StandardCopyOption.COPY_ATTRIBUTES);
                Path wal = wal(database);
                if (Files.exists(wal)) {
                    Files.copy(wal, dir.resolve(wal.getFileName()));
                }
                copyDir = dir;
            } catch (IOException e) {
                deleteQuietly(dir);
                throw new SQLException(
                        "the index " + database + " could not be read in place and could not be copied to read it (" + e
                                + ")",
                        e);
            }
        }
        return VersionIndex.openReader("jdbc:sqlite:" + copyDir.resolve(database.getFileName()));
    }

    /** Deletes the copy, if one was made; the connections opened on it must be closed first. */
    synchronized void close() {
        deleteQuietly(copyDir);
        copyDir = null;
    }

    /**
     * Whether SQLite failed for want of the shared files: it cannot create or open them
     * ({@code SQLITE_CANTOPEN}, {@code SQLITE_READONLY_*}), or cannot grow the {@code -shm}
     * ({@code SQLITE_IOERR_SHMSIZE} and the other {@code SQLITE_IOERR}s of the shared memory, and
     * {@code SQLITE_FULL}).
     */
    static boolean needsSharedFiles(SQLException e) {
        int primary = e.getErrorCode() & 0xff;
        return primary == 14 || primary == 8 || primary == 10 || primary == 13;
    }

    /** Whether {@code database}'s write-ahead log exists and is not empty. */
    static boolean walHoldsFrames(Path database) {
        try {
            return Files.size(wal(database)) > 0;
        } catch (NoSuchFileException e) {
            return false;
        } catch (IOException e) {
            return true; // cannot tell: a copy reads whatever is there
        }
    }

    static Path wal(Path database) {
        return database.resolveSibling(database.getFileName() + "-wal");
    }

    /**
     * The JDBC URL of {@code database} as an immutable SQLite URI filename: {@code file:} and the
     * percent-encoded absolute path, so spaces, {@code ?}, {@code #} and {@code %} in the path stay
     * part of it.
     */
    static String immutable(Path database) {
        String uri = database.toAbsolutePath().toUri().getRawPath();
        return "jdbc:sqlite:file:" + uri + "?immutable=1";
    }

    private static void deleteQuietly(@Nullable Path dir) {
        if (dir == null) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            LOG.warn("Could not delete the index copy {}: {}", dir, e.toString());
        }
    }
}
