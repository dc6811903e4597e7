package dev.ballast.backup.content;

import dev.ballast.backup.pack.BlobId;
import dev.ballast.backup.pack.BlobLocation;
import dev.ballast.backup.pack.BlobRepository;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import org.jspecify.annotations.Nullable;

/**
 * Reads the chunks of a restore's small files ahead, many files' chunks in one
 * {@link BlobRepository#readAll} (one ranged read per run of neighbouring blobs in a pack, several
 * packs at once), in the order the files will be written: a thousand small files packed together
 * cost a few reads instead of a thousand. A file's reader {@link #take}s its chunk when it gets to
 * it, waiting if the read is under way; a chunk not read ahead (or whose read failed) is read by the
 * file's reader itself, so a failure is reported for the file it belongs to and nothing else.
 *
 * <p>At most {@link #MAX_AHEAD_BYTES} of chunks wait to be taken; a chunk read ahead and never taken
 * (its file was left out, say) is dropped at {@link #close}. Thread-safe.
 */
final class PackedPrefetch implements AutoCloseable {
    /** A file whose chunks hold at most this many plain bytes is read ahead; larger ones read themselves. */
    static final long SMALL_FILE_BYTES = 1024 * 1024;
    /** Plain bytes asked for in one read ahead. */
    static final long WINDOW_BYTES = 16L * 1024 * 1024;
    /** Plain bytes read ahead and not yet taken, at most (in KiB for the semaphore). */
    static final int MAX_AHEAD_BYTES = 64 * 1024 * 1024;

    private final BlobRepository blobs;
    private final Map<BlobId, CompletableFuture<byte[]>> ahead = new ConcurrentHashMap<>();
    private final Map<BlobId, Integer> permits = new ConcurrentHashMap<>();
    private final Semaphore budget = new Semaphore(MAX_AHEAD_BYTES / 1024);
    /** Chunks a reader asked for before they were announced: it read them itself, so they are not read ahead. */
    private final Set<BlobId> passed = ConcurrentHashMap.newKeySet();

    private final Thread reader;
    private volatile boolean closed;
    /**
     * Open once the first window's chunks are announced (or the reading ahead ended without any): a file's
     * reader that asked before would read its chunk itself, one request for a chunk the window reads with
     * its neighbours.
     */
    private final java.util.concurrent.CountDownLatch firstAnnounced = new java.util.concurrent.CountDownLatch(1);

    /**
     * Starts reading ahead the chunks of the small files of {@code files} (each a file's chunk IDs, in
     * the order the files are written). The windows are cut on the reading thread, from the index: the
     * caller goes on (making the restore's directories) meanwhile.
     */
    PackedPrefetch(BlobRepository blobs, List<List<String>> files) {
        this.blobs = blobs;
        this.reader = new Thread(
                () -> {
                    try {
                        List<List<BlobLocation>> windows;
                        try {
                            windows = windows(blobs, files);
                        } catch (RuntimeException | Error e) {
                            // The index could not say where the chunks are (a search of the packs it does not
                            // name failed, say): the files' readers read theirs and report what is wrong.
                            return;
                        }
                        run(windows);
                    } finally {
                        firstAnnounced.countDown();
                    }
                },
                "ballast-restore-read-ahead");
        reader.setDaemon(true);
        reader.start();
    }

    /** The chunks of the small files, distinct, cut into windows of about {@link #WINDOW_BYTES}. */
    private static List<List<BlobLocation>> windows(BlobRepository blobs, List<List<String>> files) {
        List<List<BlobLocation>> windows = new ArrayList<>();
        List<BlobLocation> window = new ArrayList<>();
        Set<BlobId> seen = new java.util.HashSet<>();
        long bytes = 0;
        for (List<String> chunks : files) {
            List<BlobLocation> file = new ArrayList<>();
            long size = 0;
            for (String c : chunks) {
                Optional<BlobLocation> at = blobs.findReadable(BlobId.parse(c));
                if (at.isEmpty()) {
                    size = Long.MAX_VALUE; // its reader reports the missing chunk
                    break;
                }
                file.add(at.get());
                size += at.get().plainLength();
            }
            if (size > SMALL_FILE_BYTES) {
                continue;
            }
            for (BlobLocation b : file) {
                if (seen.add(b.id())) {
                    window.add(b);
                    bytes += b.plainLength();
                }
            }
            if (bytes >= WINDOW_BYTES) {
                windows.add(window);
                window = new ArrayList<>();
                bytes = 0;
            }
        }
        if (!window.isEmpty()) {
            windows.add(window);
        }
        return windows;
    }

    private void run(List<List<BlobLocation>> windows) {
        for (List<BlobLocation> window : windows) {
            List<BlobLocation> wanted = new ArrayList<>();
            int windowKib = 0;
            for (BlobLocation b : window) {
                if (!passed.remove(b.id())) {
                    wanted.add(b);
                    windowKib += kib(b);
                }
            }
            // A whole window's budget at once, before any of its chunks is announced: a reader that finds
            // its chunk announced never waits on a window that waits for budget.
            // (A window holds at most WINDOW_BYTES + SMALL_FILE_BYTES, well under MAX_AHEAD_BYTES.)
            try {
                budget.acquire(windowKib);
            } catch (InterruptedException e) {
                return; // closed
            }
            if (closed) {
                budget.release(windowKib);
                return;
            }
            Set<BlobId> ids = new LinkedHashSet<>();
            // This window's futures, completed from here: a reader may already have taken one out of `ahead`.
            Map<BlobId, CompletableFuture<byte[]>> mine = new ConcurrentHashMap<>();
            for (BlobLocation b : wanted) {
                CompletableFuture<byte[]> f = new CompletableFuture<>();
                mine.put(b.id(), f);
                permits.put(b.id(), kib(b));
                ahead.put(b.id(), f);
                ids.add(b.id());
            }
            firstAnnounced.countDown();
            try {
                blobs.readAll(ids, (id, plain) -> {
                    CompletableFuture<byte[]> f = mine.get(id);
                    if (f != null) {
                        f.complete(plain);
                    }
                });
                IllegalStateException notRead = new IllegalStateException("not handed over by the read ahead");
                mine.values().forEach(f -> f.completeExceptionally(notRead)); // a no-op for those read
            } catch (Exception | Error e) {
                // The files' own readers read these again and report what is wrong with each.
                mine.values().forEach(f -> f.completeExceptionally(e));
                if (e instanceof Error) {
                    // Out of heap, say: reading ahead stops, and the files' readers read their chunks
                    // themselves, a file at a time, each failure reported for its file. Thrown on, the
                    // Error only printed a stack trace of this thread (tester's finding at -Xmx96m).
                    return;
                }
            }
        }
    }

    private static int kib(BlobLocation b) {
        return (b.plainLength() + 1023) / 1024;
    }

    /**
     * The chunk {@code id} if it was read ahead (waiting while its read is under way), or null when
     * it was not, or its read failed: the caller then reads it itself. Each chunk read ahead is
     * handed out once.
     */
    @Nullable
    byte[] take(BlobId id) {
        try {
            firstAnnounced.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
        CompletableFuture<byte[]> f = ahead.remove(id);
        if (f == null) {
            if (!closed) {
                passed.add(id);
            }
            return null;
        }
        try {
            return f.get();
        } catch (ExecutionException | java.util.concurrent.CancellationException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } finally {
            Integer kib = permits.remove(id);
            if (kib != null) {
                budget.release(kib);
            }
        }
    }

    /** Stops reading ahead and drops what was not taken. */
    @Override
    public void close() {
        closed = true;
        reader.interrupt();
        ahead.values().forEach(f -> f.cancel(false));
        ahead.clear();
    }
}
