package dev.ballast.backup;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Cooperative cancellation of a running command (Ctrl-C): the shutdown hook calls {@link #cancel()}
 * and waits in {@link #awaitFinished} while the command stops (starting no further file, and
 * interrupting the ones in progress through {@link #onCancel}), reports what
 * it stored and leaves no complete-looking manifest. Thread-safe.
 */
public final class Cancellation {
    private volatile boolean cancelled;

    /** A token not yet cancelled. */
    public Cancellation() {}

    private final CountDownLatch finished = new CountDownLatch(1);

    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();

    /** What {@link #onCancel} registered, until closed. */
    public interface Registration extends AutoCloseable {
        @Override
        void close();
    }

    /** Asks the running command to stop, and runs what {@link #onCancel} registered. */
    public void cancel() {
        cancelled = true;
        for (Runnable r : listeners) {
            try {
                r.run();
            } catch (RuntimeException ignored) {
                // a listener's failure must not keep the others from running
            }
        }
    }

    /**
     * Runs {@code action} when the command is cancelled (at once if it already is) until the returned
     * registration is closed: a command stops work in progress with it (a transfer thread in the
     * middle of a large file), instead of waiting for the work to end.
     */
    public Registration onCancel(Runnable action) {
        listeners.add(action);
        if (cancelled) {
            action.run();
        }
        return () -> listeners.remove(action);
    }

    /** Whether {@link #cancel()} was called. */
    public boolean cancelled() {
        return cancelled;
    }

    /** Called once the command has reported and released everything. */
    public void finished() {
        finished.countDown();
    }

    /** Waits for {@link #finished()}; returns false if {@code timeout} passed first. */
    public boolean awaitFinished(long timeout, TimeUnit unit) throws InterruptedException {
        return finished.await(timeout, unit);
    }
}
