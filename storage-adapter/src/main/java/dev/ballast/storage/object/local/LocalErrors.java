package dev.ballast.storage.object.local;

import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.StorageException;
import dev.ballast.storage.StorageUnavailableException;
import org.jspecify.annotations.Nullable;

/** How a failure of the local store's files or index is reported. Thread-safe (static). */
final class LocalErrors {
    private LocalErrors() {}

    /**
     * The failure of an I/O or index operation: out of space and everything else the store cannot do
     * now are {@link StorageUnavailableException}s; an index SQLite finds damaged
     * ({@code SQLITE_CORRUPT}, {@code SQLITE_NOTADB}) is an {@link IntegrityException}, since no
     * retry can repair it.
     */
    static StorageException unavailable(@Nullable String key, String what, Throwable cause) {
        String message = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
        if (indexDamaged(cause)) {
            return IntegrityException.inStoreIndex(
                    key != null ? key : LocalObjectStore.INDEX_FILE,
                    what + " failed: the store's index is damaged (" + message + "); rebuild it from the store's"
                            + " journal (LocalObjectStore.rebuildIndex) or restore the store's directory from a copy",
                    cause);
        }
        if (outOfSpace(cause)) {
            return new StorageUnavailableException(
                    key, what + " failed: the store is out of space (" + message + ")", cause);
        }
        return new StorageUnavailableException(key, what + " failed (" + message + ")", cause);
    }

    /** Whether SQLite reported the index file damaged or not a database at all. */
    private static boolean indexDamaged(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof java.sql.SQLException sql
                    && ((sql.getErrorCode() & 0xff) == 11 || (sql.getErrorCode() & 0xff) == 26)) {
                return true; // SQLITE_CORRUPT, SQLITE_NOTADB
            }
        }
        return false;
    }

    private static boolean outOfSpace(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            String m = c.getMessage();
            if (m != null
                    && (m.contains("No space left on device")
                            || m.contains("SQLITE_FULL")
                            || m.contains("database or disk is full"))) {
                return true;
            }
        }
        return false;
    }
}
