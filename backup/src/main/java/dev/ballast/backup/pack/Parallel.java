package dev.ballast.backup.pack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;

/** Runs a task over items, at most N at once on an executor, stopping at the first failure. */
final class Parallel {
    private Parallel() {}

    interface Task<T> {
        void run(T item) throws IOException;
    }

    /**
     * Runs {@code task} for every item, {@code width} workers pulling items in order; returns when all
     * ran, or rethrows the first failure once every worker stopped (no item is started after it).
     */
    static <T> void run(Executor executor, int width, List<T> items, Task<T> task) throws IOException {
        if (items.isEmpty()) {
            return;
        }
        Iterator<T> it = items.iterator();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        int workers = Math.min(width, items.size());
        CountDownLatch done = new CountDownLatch(workers);
        Runnable worker = () -> {
            try {
                while (failed.get() == null) {
                    T item;
                    synchronized (it) {
                        if (!it.hasNext()) {
                            return;
                        }
                        item = it.next();
                    }
                    task.run(item);
                }
            } catch (Throwable t) {
                failed.compareAndSet(null, t);
            } finally {
                done.countDown();
            }
        };
        int started = 0;
        try {
            for (; started < workers; started++) {
                executor.execute(worker);
            }
        } catch (RuntimeException e) {
            failed.compareAndSet(null, e);
            for (int i = started; i < workers; i++) {
                done.countDown();
            }
        }
        try {
            done.await();
        } catch (InterruptedException e) {
            failed.compareAndSet(null, e);
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted while reading packs");
        }
        Throwable t = failed.get();
        if (t == null) {
            return;
        }
        if (t instanceof IOException io) {
            throw io;
        }
        if (t instanceof UncheckedIOException u) {
            throw u;
        }
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error err) {
            throw err;
        }
        throw new IllegalStateException(t);
    }
}
