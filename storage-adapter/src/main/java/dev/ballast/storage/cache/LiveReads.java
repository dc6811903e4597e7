package dev.ballast.storage.cache;

import dev.ballast.storage.StorageListener;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.object.ObjectRead;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Live reads with a deadline ({@link LastKnownGoodConfig#readDeadline()}): each runs on a thread of its
 * own while the caller waits at most the deadline for its answer. A read that has not answered by then
 * is abandoned: the caller gets {@link StorageUnavailableException} (which the cache turns into its
 * fallback), and the answer, when it comes, is closed unread. At most
 * {@link LastKnownGoodConfig#maxWaitingReads()} reads wait at once; one beyond them is refused before
 * anything is sent. The read runs with the caller's SLF4J MDC (restored afterwards on the reading
 * thread) and inside whatever {@link StorageListener#propagateContext} wraps it in (a tracing
 * listener's current span), so its log lines and its operation's events carry the caller's context.
 * Thread-safe.
 */
final class LiveReads {

    private static final Logger LOG = LoggerFactory.getLogger(LiveReads.class);
    private static final AtomicInteger POOLS = new AtomicInteger();

    private final Duration deadline;
    private final Executor executor;
    /** Places for live reads running (waited for or abandoned): at most maxWaitingReads at once. */
    private final java.util.concurrent.Semaphore places;

    private final String dependency;
    private final StorageListener listener;

    private LiveReads(
            Duration deadline, Executor executor, int maxWaiting, String dependency, StorageListener listener) {
        this.deadline = deadline;
        this.places = new java.util.concurrent.Semaphore(maxWaiting);
        this.executor = executor;
        this.dependency = dependency;
        this.listener = listener;
    }

    /** The live reads of {@code config}, or null when it sets no deadline. */
    static @Nullable LiveReads of(LastKnownGoodConfig config, String dependency, StorageListener listener) {
        if (!config.enabled() || config.readDeadline().isZero()) {
            return null;
        }
        Executor executor = config.readExecutor();
        if (executor == null) {
            executor = ownPool(config.maxWaitingReads());
        }
        return new LiveReads(config.readDeadline(), executor, config.maxWaitingReads(), dependency, listener);
    }

    /**
     * Daemon threads started on demand, stopped after 60 s idle; no queue. How many reads run at once
     * is bounded by the places ({@code max}), not by the pool: a thread that has just finished a read
     * and is not yet taking the next must not make a read be refused.
     */
    private static Executor ownPool(int max) {
        int pool = POOLS.incrementAndGet();
        AtomicInteger threads = new AtomicInteger();
        ThreadFactory factory = r -> {
            Thread t = new Thread(r, "ballast-live-read-" + pool + "-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
        ThreadPoolExecutor executor =
                new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new SynchronousQueue<>(), factory);
        return executor;
    }

    /**
     * Runs {@code read} on another thread and returns its answer if it comes within the deadline.
     *
     * @throws StorageUnavailableException if it did not (outcome unknown: the request may have been
     *     sent), or if too many reads already wait (outcome known: nothing was sent)
     * @throws java.io.UncheckedIOException with an {@link java.io.InterruptedIOException} if the caller
     *     was interrupted while waiting (its interrupt status is kept): a cancellation, which no cached
     *     copy answers
     */
    ObjectRead get(String key, Supplier<ObjectRead> read) {
        if (!places.tryAcquire()) {
            throw new StorageUnavailableException(
                    key,
                    "GET of '" + key + "' was not sent: " + dependency
                            + " has not answered the live reads already waiting for it",
                    null,
                    false);
        }
        // The place is given back as soon as the store answers, before the answer is handed to the
        // caller: a caller that has its answer and reads again finds its place free.
        java.util.concurrent.atomic.AtomicBoolean held = new java.util.concurrent.atomic.AtomicBoolean(true);
        Runnable giveBack = () -> {
            if (held.compareAndSet(true, false)) {
                places.release();
            }
        };
        Waiting waiting = new Waiting(() -> {
            try {
                return read.get();
            } finally {
                giveBack.run();
            }
        });
        Runnable task = inCallersContext(waiting);
        try {
            executor.execute(() -> {
                try {
                    task.run();
                } finally {
                    giveBack.run();
                }
            });
        } catch (RejectedExecutionException e) {
            giveBack.run();
            throw new StorageUnavailableException(
                    key, "GET of '" + key + "' was not sent: the live-read executor refused it (" + e + ")", e, false);
        }
        return waiting.await(key);
    }

    /**
     * {@code task} wrapped, on the caller's thread, to run with the caller's MDC and in what the
     * listener carries of its context.
     */
    private Runnable inCallersContext(Runnable task) {
        Map<String, String> mdc = MDC.getCopyOfContextMap();
        Runnable withMdc = () -> {
            Map<String, String> previous = MDC.getCopyOfContextMap();
            setMdc(mdc);
            try {
                task.run();
            } finally {
                setMdc(previous);
            }
        };
        try {
            return listener.propagateContext(withMdc);
        } catch (RuntimeException e) {
            LOG.warn("StorageListener {} failed in propagateContext; the live read runs without it", listener, e);
            return withMdc;
        }
    }

    private static void setMdc(@Nullable Map<String, String> context) {
        if (context == null || context.isEmpty()) {
            MDC.clear();
        } else {
            MDC.setContextMap(context);
        }
    }

    /** {@code d} in nanoseconds, {@link Long#MAX_VALUE} for a duration too long to count in them. */
    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException tooLong) {
            return Long.MAX_VALUE;
        }
    }

    /** One live read and its answer, handed from the reading thread to the waiting one. */
    private final class Waiting implements Runnable {
        private final Supplier<ObjectRead> read;
        private @Nullable ObjectRead answer;
        private @Nullable Throwable failure;
        private boolean done;
        private boolean abandoned;

        Waiting(Supplier<ObjectRead> read) {
            this.read = read;
        }

        @Override
        public void run() {
            synchronized (this) {
                if (abandoned) {
                    return; // the caller has gone: nothing is sent
                }
            }
            ObjectRead r = null;
            Throwable f = null;
            try {
                r = read.get();
            } catch (RuntimeException | Error e) {
                f = e;
            }
            boolean late;
            synchronized (this) {
                late = abandoned;
                if (!late) {
                    answer = r;
                    failure = f;
                    done = true;
                    notifyAll();
                }
            }
            if (late && r != null) {
                try {
                    r.close(); // nobody will read it: give the connection back
                } catch (RuntimeException ignored) {
                    // closing an answer nobody wants; its failure concerns nobody either
                }
            }
        }

        synchronized ObjectRead await(String key) {
            long start = System.nanoTime();
            long bound = saturatedNanos(deadline);
            try {
                while (!done) {
                    long left = bound - (System.nanoTime() - start);
                    if (left <= 0) {
                        abandoned = true;
                        throw new StorageUnavailableException(
                                key,
                                dependency + " did not answer the GET of '" + key + "' within the read deadline "
                                        + deadline,
                                null,
                                true);
                    }
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                }
            } catch (InterruptedException e) {
                // The caller was cancelled, not the store: no fallback, and nothing counted against the store.
                abandoned = true;
                Thread.currentThread().interrupt();
                java.io.InterruptedIOException interrupted = new java.io.InterruptedIOException(
                        "Interrupted while waiting for " + dependency + " to answer the GET of '" + key + "'");
                interrupted.initCause(e);
                throw new java.io.UncheckedIOException(interrupted);
            }
            if (failure instanceof Error error) {
                throw error;
            }
            if (failure != null) {
                throw (RuntimeException) failure;
            }
            return answer;
        }
    }
}
