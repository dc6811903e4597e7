package dev.ballast.http.internal;

import dev.ballast.http.ConcurrencyLimitExceededException;
import dev.ballast.http.limit.ConcurrencyLimitConfig;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The adaptive concurrency limit of one dependency (the algorithm is described in
 * {@link ConcurrencyLimitConfig}), and the count of its attempts in flight, which it keeps even when
 * the limit is {@linkplain ConcurrencyLimitConfig#disabled() disabled}.
 *
 * <p>Admission is one compare-and-set on the in-flight count against the current limit, a volatile
 * read: a refusal costs no lock, no allocation but its exception, and no network call. A sample is
 * three atomic additions and a store into a ring of the window's {@value #RING} most recent
 * latencies; the thread whose sample finds the window due closes it under a try-lock, so no sample
 * ever waits. Samples that race a window's close may land in either window: the median and the mean
 * are estimates, and one sample more or less does not move them.
 *
 * <p>State is bounded: a few counters and {@value #RING} latencies per dependency. Time is read only
 * from the {@code nowNanos} its callers pass (the client's ticker), so tests drive it with a fake one.
 * Thread-safe.
 */
public final class ConcurrencyLimiter {

    /** How many of a window's latencies the median is taken over: the most recent ones. A power of two. */
    static final int RING = 64;

    private final String dependency;
    private final ConcurrencyLimitConfig config;
    private final long windowNanos;
    private final AtomicInteger inFlight = new AtomicInteger();
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
     * Takes a place if fewer attempts than the limit are in flight. Pair a success with
     * {@link #release()}.
     *
     * @return the number of attempts that were in flight before this one, or {@code -1} if the limit
     *     is reached (then nothing is held)
     */
    public int tryAcquire() {
        int max = limit;
        while (true) {
            int n = inFlight.get();
            if (n >= max) {
                return -1;
            }
            if (inFlight.compareAndSet(n, n + 1)) {
                return n;
            }
        }
    }

    /** Gives back a place taken by {@link #tryAcquire()}. */
    public void release() {
        inFlight.decrementAndGet();
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
        latencies.set(i & (RING - 1), Math.max(0, latencyNanos));
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
        return inFlight.get();
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
        return new ConcurrencyLimitExceededException(dependency, Math.max(1, limit));
    }

    @Override
    public String toString() {
        return "ConcurrencyLimiter['" + dependency + "' " + inFlight() + "/" + limit + " in flight]";
    }
}
