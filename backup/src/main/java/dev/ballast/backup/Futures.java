package dev.ballast.backup;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/** Waiting for work done on another thread, its failure rethrown as itself. */
public final class Futures {
    private Futures() {}

    /**
     * {@code future}'s value, waiting for it; the {@link RuntimeException} or {@link Error} it
     * completed with is thrown as it is (not wrapped in a {@link CompletionException}), so callers
     * translate it as if the work had run on their own thread.
     *
     * @throws CompletionException only for a checked cause (which work run here does not throw)
     * @throws java.util.concurrent.CancellationException if {@code future} was cancelled
     */
    public static <T> T join(CompletableFuture<T> future) {
        try {
            return future.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw e;
        }
    }
}
