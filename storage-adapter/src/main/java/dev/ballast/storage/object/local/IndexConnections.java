package dev.ballast.storage.object.local;

import java.nio.file.Path;
import java.sql.SQLException;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.jspecify.annotations.Nullable;

/**
 * The read connections to the index of one {@link LocalObjectStore}: up to
 * {@value #MAX_IDLE_READERS} kept idle between queries, each query on one of them (or a new one).
 * Thread-safe.
 */
final class IndexConnections {
    private static final int MAX_IDLE_READERS = 8;

    private final Path root;
    private final IndexReaders indexReaders;
    private final ConcurrentLinkedQueue<VersionIndex> idleReaders = new ConcurrentLinkedQueue<>();
    private volatile boolean closed;

    IndexConnections(Path root, IndexReaders indexReaders) {
        this.root = root;
        this.indexReaders = indexReaders;
    }

    /** Keeps {@code ix}, an open read connection, for the next query. */
    void add(VersionIndex ix) {
        idleReaders.add(ix);
    }

    void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("This LocalObjectStore is closed");
        }
    }

    /** From now on queries are refused and connections are closed after their query. */
    void markClosed() {
        closed = true;
    }

    /** Closes the idle connections and the way they are opened. */
    void close() {
        closed = true;
        VersionIndex ix;
        while ((ix = idleReaders.poll()) != null) {
            ix.closeQuietly();
        }
        indexReaders.close();
    }

    /** One index query on an idle read connection (opening one if none is idle). */
    <T> T read(IndexQuery<T> query, @Nullable String key, String what) {
        ensureOpen();
        VersionIndex ix = idleReaders.poll();
        try {
            if (ix != null && ix.outdated()) {
                ix.closeQuietly(); // opened on the earlier schema, which a writer has upgraded since
                ix = null;
            }
            if (ix == null) {
                ix = indexReaders.open();
            }
            T result = query.run(ix);
            if (closed || idleReaders.size() >= MAX_IDLE_READERS) {
                ix.closeQuietly();
            } else {
                idleReaders.add(ix);
            }
            return result;
        } catch (SQLException e) {
            if (ix != null) {
                ix.closeQuietly();
            }
            throw LocalErrors.unavailable(key, what + " in the local object store '" + root + "'", e);
        }
    }

    @FunctionalInterface
    interface IndexQuery<T> {
        T run(VersionIndex index) throws SQLException;
    }
}
