package dev.ballast.http.internal;

import dev.ballast.http.BulkheadFullException;
import dev.ballast.http.bulkhead.BulkheadConfig;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The bulkhead of one dependency: at most {@link BulkheadConfig#maxConcurrentCalls()} calls hold a
 * {@link Permit} at once; further calls wait in a FIFO queue up to a maximum wait and are then
 * rejected with {@link BulkheadFullException}.
 *
 * <p>A released permit is handed straight to the longest-waiting call, so a newcomer never overtakes
 * a waiter. {@link #tryAcquireNow()} never waits and never throws: the fast path of every attempt.
 * The blocking path ({@link #tryAcquire(Duration)}) parks the calling thread; the
 * asynchronous path ({@link #acquireAsync(ScheduledExecutorService)}) holds no thread while it waits:
 * its timeout is a task on the given scheduler and cancelling its future withdraws the waiter.
 *
 * <p>The adaptive concurrency limit ({@link ConcurrencyLimiter}) waits in one of these too: its
 * capacity follows the limit ({@link #resize(int)}) and its queue is bounded
 * ({@link #Bulkhead(String, BulkheadConfig, int)}).
 *
 * <p>Thread-safe. Futures are completed outside the internal lock, so dependent actions of a caller
 * never run while the bulkhead is locked.
 */
public final class Bulkhead {

    private final String dependency;
    private final BulkheadConfig config;
    private final ReentrantLock lock = new ReentrantLock();

    private final int maxWaiters;

    // Invariant: held < capacity only while waiters is empty (but for a moment between a release or a
    // queued waiter and the hand-off that follows it).
    /** Written under lock, read without it. */
    private volatile int capacity;
    /**
     * The places held: taken and given back by compare-and-set, without the lock, while nobody waits
     * (the fast path of every attempt under the concurrency limit); under the lock when handed to a waiter.
     */
    @SuppressWarnings("unused") // accessed through HELD
    private volatile int held;
    /**
     * {@code waiters.size()}, written under lock whenever the queue changes, read without it: a taker
     * that sees a waiter queues behind it; a release that sees one hands its place on. A waiter is
     * written here before it looks for a free place, and a release gives its place back before it
     * looks here, so one of the two always sees the other (no place is left free while a call waits).
     */
    private volatile int waiting;

    private final ArrayDeque<CompletableFuture<Permit>> waiters = new ArrayDeque<>();

    /**
     * Creates a bulkhead with all permits free.
     *
     * @param dependency the dependency key, used in rejections
     * @param config     the limits
     * @throws NullPointerException if an argument is {@code null}
     */
    public Bulkhead(String dependency, BulkheadConfig config) {
        this(dependency, config, Integer.MAX_VALUE);
    }

    /**
     * Creates a bulkhead with all permits free and at most {@code maxWaiters} calls waiting: one more
     * is rejected at once, as if its wait had run out.
     *
     * @param dependency the dependency key, used in rejections
     * @param config     the limits
     * @param maxWaiters the most waiting calls; at least 0
     * @throws NullPointerException     if an argument is {@code null}
     * @throws IllegalArgumentException if {@code maxWaiters} is negative
     */
    Bulkhead(String dependency, BulkheadConfig config, int maxWaiters) {
        this.dependency = Objects.requireNonNull(dependency, "dependency");
        this.config = Objects.requireNonNull(config, "config");
        if (maxWaiters < 0) {
            throw new IllegalArgumentException("maxWaiters must be >= 0 but was " + maxWaiters);
        }
        this.maxWaiters = maxWaiters;
        this.capacity = config.maxConcurrentCalls();
    }

    /**
     * Sets how many permits may be held at once. Growing it hands the new places to the longest
     * waiting calls at once; shrinking it takes nothing back: the holders keep their permits, and
     * released ones go back to no one until fewer than {@code capacity} are held.
     *
     * @param capacity the new number of permits; at least 1
     */
    void resize(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be >= 1 but was " + capacity);
        }
        lock.lock();
        try {
            this.capacity = capacity;
        } finally {
            lock.unlock();
        }
        handOff();
    }

    /**
     * Returns the dependency key.
     *
     * @return the dependency key
     */
    public String dependency() {
        return dependency;
    }

    /**
     * Returns the configuration.
     *
     * @return the configuration
     */
    public BulkheadConfig config() {
        return config;
    }

    /**
     * Takes a permit if one is free now and nobody is waiting for one.
     *
     * @return the permit, to be closed when the call ends; {@code null} if the bulkhead is full
     */
    public @Nullable Permit tryAcquireNow() {
        return takeNow() >= 0 ? new BulkheadPermit() : null;
    }

    /**
     * Takes a place if one is free now and nobody is waiting for one, without a permit object: for the
     * concurrency limiter, which counts its places here and gives each back with {@link #releaseHeld()}.
     *
     * @return the places held before this one, or {@code -1} if none was taken
     */
    int tryTakeNow() {
        return takeNow();
    }

    /**
     * Takes a place if one is free and nobody waits: lock-free, one compare-and-set.
     *
     * @return the places held before this one, or {@code -1} if none was taken
     */
    private int takeNow() {
        while (true) {
            if (waiting != 0) {
                return -1; // FIFO: behind the calls that wait
            }
            int h = held;
            if (h >= capacity) {
                return -1;
            }
            if (HELD.compareAndSet(this, h, h + 1)) {
                return h;
            }
        }
    }

    /** The places held now; may be stale at once. */
    int held() {
        return (int) HELD.getVolatile(this);
    }

    /**
     * Takes a permit, blocking the calling thread up to {@code maxWait} while the bulkhead is full.
     *
     * @param maxWait how long to wait for a free permit; {@link Duration#ZERO} rejects at once when
     *                full; not negative
     * @return the permit, to be closed when the call ends
     * @throws BulkheadFullException    if no permit became free within {@code maxWait}
     * @throws InterruptedException     if the thread is interrupted while waiting (or before); no permit
     *                                  is held then
     * @throws NullPointerException     if {@code maxWait} is {@code null}
     * @throws IllegalArgumentException if {@code maxWait} is negative
     */
    public Permit tryAcquire(Duration maxWait) throws BulkheadFullException, InterruptedException {
        long waitNanos = waitNanos(maxWait);
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before acquiring a permit of bulkhead '" + dependency + "'");
        }
        CompletableFuture<Permit> waiter;
        lock.lock();
        try {
            Permit permit = takeIfFree();
            if (permit != null) {
                return permit;
            }
            if (waitNanos == 0 || waiters.size() >= maxWaiters) {
                throw full(Duration.ZERO); // refused without waiting
            }
            waiter = enqueue();
        } finally {
            lock.unlock();
        }
        handOff(); // a place given back while this queued goes to the longest waiter
        try {
            return waiter.get(waitNanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            if (withdraw(waiter)) {
                throw full(maxWait);
            }
            // A permit was handed to us while the wait expired: keep it.
            return waiter.join();
        } catch (InterruptedException e) {
            if (!withdraw(waiter)) {
                waiter.join().close();
            }
            throw e;
        } catch (ExecutionException e) {
            // Only a release completes a blocking waiter, and always normally.
            throw new IllegalStateException("bulkhead waiter failed", e);
        }
    }

    /**
     * Takes a permit without blocking any thread: the future completes with a permit as soon as one is
     * free (at once if one is free now), or exceptionally with {@link BulkheadFullException} after
     * {@link BulkheadConfig#maxWaitDuration()}. Cancelling the future withdraws the waiter; a permit is
     * then never handed to it. If the future completes normally, the caller owns the permit and must
     * close it.
     *
     * @param scheduler runs the wait timeout; not used when the call is admitted or rejected at once
     * @return the future permit. If the scheduler rejects the timeout task the
     *         future fails with its {@link RejectedExecutionException}
     * @throws NullPointerException if {@code scheduler} is {@code null}
     */
    public CompletableFuture<Permit> acquireAsync(ScheduledExecutorService scheduler) {
        return acquireAsync(scheduler, config.maxWaitDuration());
    }

    /**
     * As {@link #acquireAsync(ScheduledExecutorService)}, but waits at most {@code maxWait} instead of
     * the configured {@link BulkheadConfig#maxWaitDuration()}. The caller passes the shorter of that and
     * the time its call has left, so a queued call never outlives its own total timeout.
     *
     * @param scheduler runs the wait timeout
     * @param maxWait   how long to wait for a free permit; {@link Duration#ZERO} rejects at once when
     *                  full; not negative
     * @return the future permit
     * @throws NullPointerException     if an argument is {@code null}
     * @throws IllegalArgumentException if {@code maxWait} is negative
     */
    public CompletableFuture<Permit> acquireAsync(ScheduledExecutorService scheduler, Duration maxWait) {
        Objects.requireNonNull(scheduler, "scheduler");
        long maxWaitNanos = waitNanos(maxWait);
        CompletableFuture<Permit> waiter;
        lock.lock();
        try {
            Permit permit = takeIfFree();
            if (permit != null) {
                return CompletableFuture.completedFuture(permit);
            }
            if (maxWait.isZero() || waiters.size() >= maxWaiters) {
                return CompletableFuture.failedFuture(full(Duration.ZERO)); // refused without waiting
            }
            waiter = enqueue();
        } finally {
            lock.unlock();
        }
        handOff(); // a place given back while this queued goes to the longest waiter
        ScheduledFuture<?> timeout;
        try {
            timeout = scheduler.schedule(
                    () -> {
                        if (withdraw(waiter)) {
                            waiter.completeExceptionally(full(maxWait));
                        }
                    },
                    maxWaitNanos,
                    TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            if (withdraw(waiter)) {
                waiter.completeExceptionally(e);
            }
            return waiter;
        }
        waiter.whenComplete((permit, failure) -> {
            timeout.cancel(false);
            if (failure != null) {
                withdraw(waiter);
            }
        });
        return waiter;
    }

    /**
     * Returns how many permits are free now. For logs and tests; the answer may be stale at once.
     *
     * @return the number of free permits; in {@code [0, maxConcurrentCalls]}
     */
    public int availablePermits() {
        lock.lock();
        try {
            return Math.max(0, capacity - (int) HELD.getVolatile(this));
        } finally {
            lock.unlock();
        }
    }

    /**
     * Returns how many calls are waiting for a permit. For logs and tests.
     *
     * @return the number of waiters; at least 0
     */
    public int waitingCalls() {
        lock.lock();
        try {
            return waiters.size();
        } finally {
            lock.unlock();
        }
    }

    /** Called under lock. */
    private @Nullable Permit takeIfFree() {
        return waiters.isEmpty() && takeNow() >= 0 ? new BulkheadPermit() : null;
    }

    /**
     * Queues a waiter; called under lock. The caller calls {@link #handOff()} after leaving the lock:
     * a place given back between its look for a free one and this may have seen no waiter.
     */
    private CompletableFuture<Permit> enqueue() {
        CompletableFuture<Permit> waiter = new CompletableFuture<>();
        waiters.addLast(waiter);
        waiting = waiters.size();
        return waiter;
    }

    /** Removes a waiter that has not been handed a permit; false if it was (or is being) handed one. */
    private boolean withdraw(CompletableFuture<Permit> waiter) {
        lock.lock();
        try {
            boolean removed = waiters.remove(waiter);
            waiting = waiters.size();
            return removed;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Gives back a place held by a permit its taker dropped rather than closed (the concurrency
     * limiter counts its own places, and releases each exactly once).
     */
    void releaseHeld() {
        release();
    }

    private void release() {
        HELD.getAndAdd(this, -1);
        if (waiting != 0) {
            handOff(); // else a call that queues after this finds the place free (see enqueue)
        }
    }

    /** Hands free places, if any, to the longest-waiting calls; completes them outside the lock. */
    private void handOff() {
        while (true) {
            CompletableFuture<Permit> next;
            lock.lock();
            try {
                if (waiters.isEmpty()) {
                    return;
                }
                int h = held;
                if (h >= capacity) {
                    return;
                }
                if (!HELD.compareAndSet(this, h, h + 1)) {
                    continue; // a taker that had not seen the waiter yet took a place meanwhile
                }
                next = waiters.pollFirst();
                waiting = waiters.size();
            } finally {
                lock.unlock();
            }
            if (!next.complete(new BulkheadPermit())) {
                // That waiter was cancelled or completed meanwhile: the place goes to the next one.
                HELD.getAndAdd(this, -1);
            }
        }
    }

    /**
     * Returns the rejection of a call that found this bulkhead full after waiting {@code maxWait}.
     *
     * @param maxWait how long the call waited; not negative
     * @return the exception, without a stack trace
     */
    public BulkheadFullException full(Duration maxWait) {
        return new BulkheadFullException(dependency, config.maxConcurrentCalls(), maxWait);
    }

    private static long waitNanos(Duration maxWait) {
        Objects.requireNonNull(maxWait, "maxWait");
        if (maxWait.isNegative()) {
            throw new IllegalArgumentException("maxWait must be >= 0 but was " + maxWait);
        }
        return Durations.saturatedNanos(maxWait);
    }

    @Override
    public String toString() {
        return "Bulkhead['" + dependency + "' " + availablePermits() + "/" + config.maxConcurrentCalls() + " free]";
    }

    /**
     * One slot of the bulkhead. Closing it releases the slot; only the first close counts, so closing
     * twice (say, from a {@code finally} and a completion callback) never frees a slot held by another
     * call. Thread-safe.
     */
    public interface Permit extends AutoCloseable {
        /** Releases the slot; idempotent. */
        @Override
        void close();
    }

    private final class BulkheadPermit implements Permit {

        @SuppressWarnings("unused") // accessed through RELEASED
        private volatile int released;

        @Override
        public void close() {
            if (RELEASED.compareAndSet(this, 0, 1)) {
                release();
            }
        }
    }

    private static final VarHandle RELEASED;
    private static final VarHandle HELD;

    static {
        try {
            RELEASED = MethodHandles.lookup().findVarHandle(BulkheadPermit.class, "released", int.class);
            HELD = MethodHandles.lookup().findVarHandle(Bulkhead.class, "held", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
