package dev.ballast.backup.snapshot;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Runs the writes of a manifest's new parts a few at once ({@link SealedStore}): each part is
 * compressed, sealed and put on its own, and a store that syncs each object (the local store syncs a
 * part's file and its directory before its commit) otherwise did so one part after the other while
 * the backup waited, at the very end of the run. Stateless; each call uses threads of its own.
 */
final class PartWrites {
    /** Parts written at once, at most: 4, {@code --transfers}' default. */
    static final int AT_ONCE = 4;

    private PartWrites() {}

    /**
     * Runs every one of {@code writes}, up to {@link #AT_ONCE} at once (on the caller's thread when
     * there is only one), and returns once all have returned or failed.
     *
     * @throws RuntimeException the failure of the first write (in list order) that failed, as it
     *     threw it, after every write has ended
     */
    static void runAll(List<Runnable> writes) {
        if (writes.size() <= 1) {
            writes.forEach(Runnable::run);
            return;
        }
        ExecutorService threads = Executors.newFixedThreadPool(Math.min(AT_ONCE, writes.size()), r -> {
            Thread t = new Thread(r, "ballast-manifest-part");
            t.setDaemon(true);
            return t;
        });
        try {
            List<CompletableFuture<Void>> running = new ArrayList<>(writes.size());
            for (Runnable w : writes) {
                running.add(CompletableFuture.runAsync(w, threads));
            }
            RuntimeException first = null;
            for (CompletableFuture<Void> f : running) {
                try {
                    f.join();
                } catch (CompletionException e) {
                    if (first == null) {
                        first = e.getCause() instanceof RuntimeException r ? r : e;
                    }
                }
            }
            if (first != null) {
                throw first;
            }
        } finally {
            threads.shutdown();
        }
    }
}
