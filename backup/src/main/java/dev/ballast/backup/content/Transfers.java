package dev.ballast.backup.content;

import dev.ballast.backup.Advice;
import dev.ballast.backup.BackupException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The {@code --transfers} threads of one command and a bound on the work in flight: at most
 * {@code threads} files are read or written at once, and at most {@code maxInFlight} files are
 * between being handed to a thread and having their outcome recorded (a file whose bytes were read
 * may wait for the store's group commit without holding a thread). The submitting thread waits when
 * the bound is reached, so memory stays bounded however many files there are. It is woken once a
 * quarter of the bound is free again, not as each task ends: with one wake-up per file, 20,000 small
 * files cost the transfer threads about 0.4 s of futex calls and the submitting thread as many
 * context switches (async-profiler, wall clock, a restore on two cores). {@link #submit} and {@link
 * #awaitAll} are called from one thread at a time.
 */
public final class Transfers implements AutoCloseable {

    /** Default of {@code --transfers}: files read and written at once. */
    public static final int DEFAULT_THREADS = 4;
    /** Largest {@code --transfers} accepted. */
    public static final int MAX_THREADS = 64;

    private final ExecutorService pool;
    private final Set<Thread> workers = ConcurrentHashMap.newKeySet();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final int maxInFlight;
    /** How many tasks may still be in flight when the waiting thread is woken ({@link #waitUntilAtMost}). */
    private volatile int wakeAt = -1;

    private volatile @Nullable Thread waiter;

    public Transfers(int threads, int maxInFlight) {
        if (threads < 1 || threads > MAX_THREADS) {
            throw new BackupException(
                    BackupException.Kind.INVALID_INPUT,
                    Advice.TRANSFERS.text() + " must be between 1 and " + MAX_THREADS + " but was " + threads
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
    }

    /**
     * Runs {@code task} on a transfer thread once fewer than {@code maxInFlight} tasks are in flight.
     * The task must call the {@code Runnable} it is given exactly once, when its outcome is recorded
     * (on its thread, or later on another); a task that throws is counted as done.
     */
    public void submit(Consumer<Runnable> task) {
        if (inFlight.get() >= maxInFlight) {
            waitUntilAtMost(maxInFlight - Math.max(1, maxInFlight / 4));
        }
        inFlight.incrementAndGet();
        try {
            pool.execute(() -> {
                Once done = new Once(this);
                try {
                    task.accept(done);
                } catch (RuntimeException | Error e) {
                    done.run();
                    throw e;
                }
            });
        } catch (RuntimeException e) {
            release();
            throw e;
        }
    }

    /**
     * Parks the calling thread until at most {@code level} tasks are in flight (uninterruptibly, as
     * {@link Semaphore#acquireUninterruptibly()} did: an interrupt is kept for the caller).
     */
    private void waitUntilAtMost(int level) {
        boolean interrupted = false;
        while (inFlight.get() > level) {
            wakeAt = level;
            waiter = Thread.currentThread();
            if (inFlight.get() > level) { // a task that ended before the waiter was set is seen here
                LockSupport.park(this);
                interrupted |= Thread.interrupted();
            }
            waiter = null;
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** One task's outcome is recorded: wakes the waiting thread once its level is reached. */
    private void release() {
        int left = inFlight.decrementAndGet();
        Thread w = waiter;
        if (w != null && left <= wakeAt) {
            LockSupport.unpark(w);
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
        waitUntilAtMost(0);
    }

    @Override
    public void close() {
        pool.shutdown();
    }

    /** Records one task's outcome, at most once. */
    private static final class Once implements Runnable {
        private final Transfers transfers;
        private final AtomicInteger runs = new AtomicInteger();

        public Once(Transfers transfers) {
            this.transfers = transfers;
        }

        @Override
        public void run() {
            if (runs.getAndIncrement() == 0) {
                transfers.release();
            }
        }
    }
}
