package dev.ballast.backup.content;

import dev.ballast.backup.BackupException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The {@code --transfers} threads of one command and a bound on the work in flight: at most
 * {@code threads} files are read or written at once, and at most {@code maxInFlight} files are
 * between being handed to a thread and having their outcome recorded (a file whose bytes were read
 * may wait for the store's group commit without holding a thread). The submitting thread waits when
 * the bound is reached, so memory stays bounded however many files there are.
 */
public final class Transfers implements AutoCloseable {

    /** Default of {@code --transfers}: files read and written at once. */
    public static final int DEFAULT_THREADS = 4;
    /** Largest {@code --transfers} accepted. */
    public static final int MAX_THREADS = 64;

    private final ExecutorService pool;
    private final Set<Thread> workers = ConcurrentHashMap.newKeySet();
    private final Semaphore permits;
    private final int maxInFlight;

    public Transfers(int threads, int maxInFlight) {
        if (threads < 1 || threads > MAX_THREADS) {
            throw new BackupException(
                    BackupException.Kind.INVALID_INPUT,
                    "--transfers must be between 1 and " + MAX_THREADS + " but was " + threads
                            + "; pass the number of files to transfer at once (default " + DEFAULT_THREADS + ").");
        }
        AtomicInteger n = new AtomicInteger();
        this.pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "ballast-transfer-" + n.incrementAndGet());
            t.setDaemon(true);
            workers.add(t);
            return t;
        });
        this.maxInFlight = maxInFlight;
        this.permits = new Semaphore(maxInFlight);
    }

    /**
     * Runs {@code task} on a transfer thread once fewer than {@code maxInFlight} tasks are in flight.
     * The task must call the {@code Runnable} it is given exactly once, when its outcome is recorded
     * (on its thread, or later on another); a task that throws is counted as done.
     */
    public void submit(Consumer<Runnable> task) {
        permits.acquireUninterruptibly();
        try {
            pool.execute(() -> {
                Once done = new Once(permits);
                try {
                    task.accept(done);
                } catch (RuntimeException | Error e) {
                    done.run();
                    throw e;
                }
            });
        } catch (RuntimeException e) {
            permits.release();
            throw e;
        }
    }

    /**
     * Interrupts every transfer thread: a file being read or written stops at once (an interruptible
     * channel closes, a request is abandoned) instead of running to its end. For Ctrl-C; the tasks
     * report what they did not finish.
     */
    public void interrupt() {
        workers.forEach(Thread::interrupt);
    }

    /** Waits until every submitted task has recorded its outcome. */
    public void awaitAll() {
        permits.acquireUninterruptibly(maxInFlight);
        permits.release(maxInFlight);
    }

    @Override
    public void close() {
        pool.shutdown();
    }

    /** Releases one permit, at most once. */
    private static final class Once implements Runnable {
        private final Semaphore permits;
        private final AtomicInteger runs = new AtomicInteger();

        public Once(Semaphore permits) {
            this.permits = permits;
        }

        @Override
        public void run() {
            if (runs.getAndIncrement() == 0) {
                permits.release();
            }
        }
    }
}
