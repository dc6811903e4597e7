package dev.ballast.cli;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Cooperative cancellation of a running command (Ctrl-C): the shutdown hook calls {@link #cancel()}
 * and waits in {@link #awaitFinished} while the command stops after its current file, reports what
 * it stored and leaves no complete-looking manifest. Thread-safe.
 */
public final class Cancellation {
    private volatile boolean cancelled;

    /** A token not yet cancelled. */
    public Cancellation() {}

    private final CountDownLatch finished = new CountDownLatch(1);

    /** Asks the running command to stop after its current file. */
    public void cancel() {
        cancelled = true;
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
