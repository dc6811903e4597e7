package dev.ballast.http.internal;

import dev.ballast.http.BulkheadFullException;
import dev.ballast.http.ConcurrencyLimitExceededException;
import dev.ballast.http.bulkhead.BulkheadConfig;
import dev.ballast.http.limit.ConcurrencyLimitConfig;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The adaptive concurrency limit of one dependency (the algorithm is described in
 * {@link ConcurrencyLimitConfig}), and the count of its attempts in flight, which it keeps even when
 * the limit is {@linkplain ConcurrencyLimitConfig#disabled() disabled}.
 *
 * <p>Admission goes through a {@link Bulkhead} whose capacity follows the limit: an attempt that
 * finds the limit reached waits for a place in FIFO order, up to
 * {@link ConcurrencyLimitConfig#maxWaitDuration()} and what is left of its call's total timeout, as
 * Netflix concurrency-limits' {@code BlockingLimiter} makes a client wait; only a wait that runs out
 * (or finds {@link ConcurrencyLimitConfig#maxWaitingCalls()} waiting already) is refused, and costs
 * no network call. A disabled limit only counts, with one atomic addition. A sample is
 * three atomic additions and a store into a ring of the window's {@value #RING} most recent
 * latencies; the thread whose sample finds the window due closes it under a try-lock, so no sample
 * ever waits. Samples that race a window's close may land in either window: the median and the mean
 * are estimates, and one sample more or less does not move them.
 *
 * <p>A window that ends without enough samples, while fewer than half the limit are in flight and
 * nobody waits, is a quiet one: the limit doubles for each such window, so a dependency that was
 * queueing once and has been idle since relaxes back towards {@link ConcurrencyLimitConfig#maxLimit()}
 * (checked at admission and at each sample, from the ticker reading they are given).
 *
 * <p>State is bounded: a few counters, {@value #RING} latencies and at most
 * {@link ConcurrencyLimitConfig#maxWaitingCalls()} waiters per dependency. Time is read only
 * from the {@code nowNanos} its callers pass (the client's ticker), so tests drive it with a fake one.
 * Thread-safe.
 */
public final class ConcurrencyLimiter {

    /** How many of a window's latencies the median is taken over: the most recent ones. A power of two. */
    static final int RING = 64;

    private final String dependency;
    private final ConcurrencyLimitConfig config;
    private final long windowNanos;
    /** The attempts in flight under a disabled limit; an enabled one counts them as its gate's places held. */
    private final AtomicInteger inFlight = new AtomicInteger();
    /** The places under the limit and the queue of attempts waiting for one; null for a disabled limit. */
    private final @Nullable Bulkhead gate;

    private volatile int limit;

    private final AtomicInteger samples = new AtomicInteger();
    private final AtomicLongArray latencies = new AtomicLongArray(RING);
    private final AtomicLong inFlightSum = new AtomicLong();
    private final AtomicInteger peakInFlight = new AtomicInteger();
    private volatile long windowStartNanos;
    private final ReentrantLock closing = new ReentrantLock();

    // Guarded by closing.
    private double estimate;
    /** The no-load latency estimate in nanoseconds; not positive until the first window closed. */
    private double noLoadNanos;

    /**
     * Creates the limiter at its initial limit, its first window starting at {@code nowNanos}.
     *
     * @param dependency the dependency key, for rejections
     * @param config     the limit's configuration; a disabled one makes a limiter that only counts
     * @param nowNanos   a reading of the client's ticker
     * @throws NullPointerException if an argument is {@code null}
     */
    public ConcurrencyLimiter(String dependency, ConcurrencyLimitConfig config, long nowNanos) {
        this.dependency = Objects.requireNonNull(dependency, "dependency");
        this.config = Objects.requireNonNull(config, "config");
        this.windowNanos = Durations.saturatedNanos(config.window());
        this.limit = config.enabled() ? config.initialLimit() : Integer.MAX_VALUE;
        this.gate = config.enabled()
                ? new Bulkhead(
                        dependency,
                        BulkheadConfig.builder(limit)
                                .maxWaitDuration(config.maxWaitDuration())
                                .build(),
                        config.maxWaitingCalls())
                : null;
        this.estimate = limit;
        this.windowStartNanos = nowNanos;
    }

    /**
     * Whether the limit adapts (and so wants samples); {@code false} for a disabled limit.
     *
     * @return whether latencies are sampled
     */
    public boolean adaptive() {
        return config.enabled();
    }

    /**
     * Takes a place if fewer attempts than the limit are in flight and none waits for one; never
     * waits. Pair a success with {@link #release()}.
     *
     * @param nowNanos a reading of the client's ticker, to relax the limit after quiet windows
     * @return the number of attempts that were in flight before this one, or {@code -1} if the limit
     *     is reached (then nothing is held)
     */
    public int tryAcquire(long nowNanos) {
        Bulkhead g = gate;
        if (g == null) {
            return inFlight.getAndIncrement();
        }
        relaxIfQuiet(nowNanos);
        return g.tryTakeNow();
    }

    /**
     * Takes a place, blocking the calling thread in FIFO order up to {@code maxWait} while the limit
     * is reached. Pair a success with {@link #release()}.
     *
     * @param maxWait the longest wait; the caller passes the shorter of
     *                {@link ConcurrencyLimitConfig#maxWaitDuration()} and what its call has left
     * @return the number of attempts that were in flight before this one
     * @throws ConcurrencyLimitExceededException if no place came free within {@code maxWait}, or the
     *                                           queue of waiters was full
     * @throws InterruptedException              if interrupted while waiting; nothing is held then
     */
    public int acquire(Duration maxWait) throws ConcurrencyLimitExceededException, InterruptedException {
        Bulkhead g = gate;
        if (g == null) {
            return inFlight.getAndIncrement();
        }
        try {
            g.tryAcquire(maxWait);
        } catch (BulkheadFullException full) {
            throw rejection(full.maxWait());
        }
        return Math.max(0, g.held() - 1);
    }

    /**
     * Takes a place without blocking a thread: the future completes with the number of attempts in
     * flight before this one as soon as a place is free, in FIFO order, or exceptionally with
     * {@link ConcurrencyLimitExceededException} after {@code maxWait}. Cancelling it withdraws the
     * waiter. If it completes normally the caller holds a place: pair it with {@link #release()}.
     *
     * @param scheduler runs the wait's timeout
     * @param maxWait   the longest wait, as for {@link #acquire(Duration)}
     * @return the future
     */
    public CompletableFuture<Integer> acquireAsync(ScheduledExecutorService scheduler, Duration maxWait) {
        Bulkhead g = gate;
        if (g == null) {
            return CompletableFuture.completedFuture(inFlight.getAndIncrement());
        }
        CompletableFuture<Integer> place = new CompletableFuture<>();
        CompletableFuture<Bulkhead.Permit> waiter = g.acquireAsync(scheduler, maxWait);
        waiter.whenComplete((permit, failure) -> {
            if (failure == null) {
                if (!place.complete(Math.max(0, g.held() - 1))) {
                    release(); // the caller cancelled just as the place came
                }
                return;
            }
            Throwable cause = Pipeline.unwrap(failure);
            place.completeExceptionally(
                    cause instanceof BulkheadFullException full ? rejection(full.maxWait()) : cause);
        });
        place.whenComplete((n, failure) -> {
            if (failure != null) {
                waiter.cancel(false); // withdraws the waiter if it still waits
            }
        });
        return place;
    }

    /**
     * The longest wait an attempt may spend for a place: {@link ConcurrencyLimitConfig#maxWaitDuration()},
     * capped by {@code remainingNanos}.
     *
     * @param remainingNanos what is left of the call's total timeout
     * @return the wait; zero for a disabled limit
     */
    public Duration maxWait(long remainingNanos) {
        if (gate == null) {
            return Duration.ZERO;
        }
        Duration configured = config.maxWaitDuration();
        long remaining = Math.max(0, remainingNanos);
        return Durations.saturatedNanos(configured) <= remaining ? configured : Duration.ofNanos(remaining);
    }

    /** Gives back a place taken by {@link #tryAcquire}, {@link #acquire} or {@link #acquireAsync}. */
    public void release() {
        Bulkhead g = gate;
        if (g != null) {
            g.releaseHeld();
        } else {
            inFlight.decrementAndGet();
        }
    }

    /**
     * Returns how many attempts wait for a place now. For status and tests.
     *
     * @return the number of waiters; at least 0
     */
    public int waiting() {
        Bulkhead g = gate;
        return g == null ? 0 : g.waitingCalls();
    }

    /**
     * Doubles the limit once per quiet window that has passed since the current window started: one
     * that could not close for want of samples while fewer than half the limit were in flight and
     * nobody waited.
     */
    private void relaxIfQuiet(long nowNanos) {
        long elapsed = nowNanos - windowStartNanos;
        if (elapsed < 2 * windowNanos || limit >= config.maxLimit() || !closing.tryLock()) {
            return;
        }
        boolean changed = false;
        try {
            elapsed = nowNanos - windowStartNanos;
            if (elapsed < 2 * windowNanos
                    || samples.get() >= config.minWindowSamples()
                    || inFlight() * 2 >= limit
                    || waiting() > 0) {
                return;
            }
            long quiet = elapsed / windowNanos - 1; // the last, current window may yet see traffic
            windowStartNanos = nowNanos;
            samples.set(0);
            inFlightSum.set(0);
            peakInFlight.set(0);
            double next = estimate;
            for (long k = 0; k < quiet && next < config.maxLimit(); k++) {
                next *= 2;
            }
            estimate = Math.min(config.maxLimit(), next);
            limit = (int) estimate;
            changed = true;
        } finally {
            closing.unlock();
        }
        if (changed) {
            resizeGate();
        }
    }

    private void resizeGate() {
        Bulkhead g = gate;
        if (g != null) {
            g.resize(limit);
        }
    }

    /**
     * Records one attempt's latency and, when the window is due, closes it and adjusts the limit.
     * Does nothing for a disabled limit.
     *
     * @param latencyNanos    the attempt's latency to its response headers (or to its timeout)
     * @param inFlightBefore  what {@link #tryAcquire()} returned for it
     * @param nowNanos        a reading of the client's ticker
     */
    public void sample(long latencyNanos, int inFlightBefore, long nowNanos) {
        if (!config.enabled()) {
            return;
        }
        int i = samples.getAndIncrement();
        // A release store: the window's closer may read a slot's previous sample, a statistic's jitter.
        latencies.lazySet(i & (RING - 1), Math.max(0, latencyNanos));
        int inFlightThen = inFlightBefore + 1;
        inFlightSum.addAndGet(inFlightThen);
        if (inFlightThen > peakInFlight.get()) {
            peakInFlight.accumulateAndGet(inFlightThen, Math::max);
        }
        if (i + 1 >= config.minWindowSamples() && nowNanos - windowStartNanos >= windowNanos && closing.tryLock()) {
            try {
                closeWindow(nowNanos);
            } finally {
                closing.unlock();
            }
            resizeGate();
        }
    }

    private void closeWindow(long nowNanos) {
        int count = samples.get();
        if (count < config.minWindowSamples() || nowNanos - windowStartNanos < windowNanos) {
            return; // another thread closed it just before this one took the lock
        }
        windowStartNanos = nowNanos;
        count = samples.getAndSet(0);
        double meanInFlight = (double) inFlightSum.getAndSet(0) / count;
        int peak = peakInFlight.getAndSet(0);
        int held = Math.min(count, RING);
        long[] window = new long[held];
        for (int j = 0; j < held; j++) {
            window[j] = latencies.get(j);
        }
        Arrays.sort(window);
        double median = held % 2 == 1 ? window[held / 2] : (window[held / 2 - 1] + window[held / 2]) / 2.0;
        adjust(Math.max(1.0, median), meanInFlight, peak);
    }

    /** One closed window: the limit and the no-load estimate move as {@link ConcurrencyLimitConfig} says. */
    private void adjust(double median, double meanInFlight, int peak) {
        if (noLoadNanos <= 0) {
            noLoadNanos = median; // the first window only learns the latency
            return;
        }
        double tolerance = config.latencyTolerance();
        double q = median / noLoadNanos;
        double next;
        if (q > tolerance) {
            // Queueing: Little's law, the concurrency that would have kept the median at tolerance × no-load.
            next = Math.min(estimate, meanInFlight * tolerance / q);
            noLoadNanos += (median - noLoadNanos) / 64;
        } else {
            if (peak * 2 >= estimate) {
                next = q <= (1 + tolerance) / 2 ? estimate * 1.5 : estimate + Math.sqrt(estimate);
            } else {
                next = estimate * 2; // nothing constrains the calls: relax towards the ceiling
            }
            noLoadNanos += (median - noLoadNanos) / (median < noLoadNanos ? 2 : 8);
        }
        estimate = Math.max(config.minLimit(), Math.min(config.maxLimit(), next));
        limit = (int) estimate;
    }

    /**
     * Returns the current limit.
     *
     * @return the limit; {@link Integer#MAX_VALUE} for a disabled one
     */
    public int limit() {
        return limit;
    }

    /**
     * Returns the attempts in flight now. For status and eviction; may be stale at once.
     *
     * @return the count; at least 0
     */
    public int inFlight() {
        Bulkhead g = gate;
        return g != null ? g.held() : inFlight.get();
    }

    /**
     * Returns the no-load latency estimate. For tests and logs.
     *
     * @return the estimate in nanoseconds, or {@code 0} before the first window closed
     */
    long noLoadNanos() {
        closing.lock();
        try {
            return (long) Math.max(0, noLoadNanos);
        } finally {
            closing.unlock();
        }
    }

    /**
     * Returns the rejection of an attempt that found the limit reached.
     *
     * @return the exception, without a stack trace
     */
    public ConcurrencyLimitExceededException rejection() {
        return rejection(Duration.ZERO);
    }

    /**
     * Returns the rejection of an attempt that waited {@code waited} for a place and found none.
     *
     * @param waited how long it waited; not negative
     * @return the exception, without a stack trace
     */
    public ConcurrencyLimitExceededException rejection(Duration waited) {
        return new ConcurrencyLimitExceededException(dependency, Math.max(1, Math.min(limit, 1 << 30)), waited);
    }

    @Override
    public String toString() {
        return "ConcurrencyLimiter['" + dependency + "' " + inFlight() + "/" + limit + " in flight]";
    }
}
