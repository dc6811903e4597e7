package dev.ballast.http.internal;

import dev.ballast.http.Ticker;
import dev.ballast.http.budget.RetryBudgetConfig;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The retry budget of one dependency: a token bucket in the manner of Finagle's {@code RetryBudget},
 * Envoy's retry budgets and gRPC's retry throttling.
 *
 * <p>Each first attempt deposits {@link RetryBudgetConfig#ratio()} tokens; each retry withdraws one
 * token and is permitted only while at least one is available. A constant reserve of
 * {@code minRetriesPerSecond * ttl} tokens is always counted, so low-traffic callers can still retry.
 * Deposits and withdrawals decay: each counts for {@link RetryBudgetConfig#ttl()} after it was made
 * (kept in ten time slices, so it leaves the window between {@code 0.9 * ttl} and {@code ttl} after
 * it was made), and then no longer. In short, over any {@code ttl} the retries are bounded by
 * {@code ratio * firstAttempts + minRetriesPerSecond * ttlSeconds}.
 *
 * <p>Tokens are counted in millionths, so ratios with up to six decimals add up exactly (ten
 * deposits of 0.1 make one whole retry).
 *
 * <p>Thread-safe. Time comes from the injected {@link Ticker}.
 */
public final class RetryBudget {

    /** How many time slices the ttl window is divided into. */
    private static final int SLICES = 10;
    /** Millionths of a token: one retry costs this many units. */
    private static final long UNITS_PER_RETRY = 1_000_000L;

    private final RetryBudgetConfig config;
    private final Ticker ticker;
    private final long depositUnits;
    private final long reserveUnits;
    private final long sliceNanos;
    private final long origin;

    private final ReentrantLock lock = new ReentrantLock();
    // Guarded by lock: the net units deposited in each slice, and which absolute slice each holds.
    private final long[] sliceUnits = new long[SLICES];
    private final long[] sliceIndex = new long[SLICES];
    // Guarded by lock: retries withdrawn in each slice and not refunded, so a refund never exceeds them.
    private final long[] sliceWithdrawals = new long[SLICES];

    /**
     * Creates a budget with only the reserve available.
     *
     * @param config the budget's size
     * @param ticker the source of elapsed time
     * @throws NullPointerException if an argument is {@code null}
     */
    public RetryBudget(RetryBudgetConfig config, Ticker ticker) {
        this.config = Objects.requireNonNull(config, "config");
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.depositUnits = Math.round(config.ratio() * UNITS_PER_RETRY);
        double ttlSeconds = config.ttl().toNanos() / 1e9;
        this.reserveUnits = Math.round(config.minRetriesPerSecond() * ttlSeconds * UNITS_PER_RETRY);
        this.sliceNanos = config.ttl().toNanos() / SLICES;
        this.origin = ticker.read();
        Arrays.fill(sliceIndex, Long.MIN_VALUE);
    }

    /**
     * Returns the configuration.
     *
     * @return the configuration
     */
    public RetryBudgetConfig config() {
        return config;
    }

    /** Records the first attempt of a logical call: deposits {@link RetryBudgetConfig#ratio()} tokens. */
    public void recordFirstAttempt() {
        recordFirstAttempt(ticker.read());
    }

    /**
     * Records the first attempt of a logical call made at {@code nowNanos}: deposits
     * {@link RetryBudgetConfig#ratio()} tokens. For a caller that has just read the ticker, so that a
     * call reads it once fewer.
     *
     * @param nowNanos a reading of this budget's ticker, taken when the attempt started
     */
    public void recordFirstAttempt(long nowNanos) {
        if (!config.enabled()) {
            return;
        }
        lock.lock();
        try {
            long slice = sliceAt(nowNanos);
            add(slice, depositUnits);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Withdraws one token for a retry, if one is available.
     *
     * @return {@code true} if the retry may proceed; {@code false} if the budget is empty and the
     *         failure should be returned unretried
     */
    public boolean tryAcquireRetry() {
        if (!config.enabled()) {
            return true;
        }
        lock.lock();
        try {
            long slice = currentSlice();
            if (balance(slice) < UNITS_PER_RETRY) {
                return false;
            }
            add(slice, -UNITS_PER_RETRY);
            sliceWithdrawals[Math.floorMod(slice, SLICES)]++;
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Gives back the token of a retry that {@link #tryAcquireRetry()} granted but that never ran (the
     * caller cancelled during the backoff): a retry that sends nothing must not shrink the budget.
     * The token returns to the time slice it was withdrawn from, the most recent first, so the balance
     * is never higher than if that withdrawal had not happened. Bounded: once every withdrawal still
     * inside the ttl window has been refunded, further calls change nothing; a withdrawal that has
     * already decayed out of the window has nothing left to refund.
     *
     * @return {@code true} if a token was given back; {@code false} if there was no withdrawal left to
     *         refund, or the budget is disabled
     */
    public boolean refundRetry() {
        if (!config.enabled()) {
            return false;
        }
        lock.lock();
        try {
            long slice = currentSlice();
            for (long s = slice; s > slice - SLICES; s--) {
                int i = Math.floorMod(s, SLICES);
                if (sliceIndex[i] == s && sliceWithdrawals[i] > 0) {
                    sliceWithdrawals[i]--;
                    sliceUnits[i] += UNITS_PER_RETRY;
                    return true;
                }
            }
            return false;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Returns how many retries the budget would permit now. For logs and tests.
     *
     * @return the available retries, fractional, never negative;
     *         {@link Double#POSITIVE_INFINITY} for a disabled budget
     */
    public double availableRetries() {
        if (!config.enabled()) {
            return Double.POSITIVE_INFINITY;
        }
        lock.lock();
        try {
            return Math.max(0, balance(currentSlice())) / (double) UNITS_PER_RETRY;
        } finally {
            lock.unlock();
        }
    }

    private long currentSlice() {
        return sliceAt(ticker.read());
    }

    private long sliceAt(long nowNanos) {
        return Math.floorDiv(nowNanos - origin, sliceNanos);
    }

    private void add(long slice, long units) {
        int i = Math.floorMod(slice, SLICES);
        if (sliceIndex[i] > slice) {
            return; // a deposit read a whole ttl before another got the lock: it has decayed already
        }
        if (sliceIndex[i] != slice) {
            sliceIndex[i] = slice;
            sliceUnits[i] = 0;
            sliceWithdrawals[i] = 0;
        }
        sliceUnits[i] += units;
    }

    private long balance(long slice) {
        long sum = reserveUnits;
        for (int i = 0; i < SLICES; i++) {
            if (sliceIndex[i] > slice - SLICES && sliceIndex[i] <= slice) {
                sum += sliceUnits[i];
            }
        }
        return sum;
    }

    @Override
    public String toString() {
        return "RetryBudget[" + config + ", available=" + availableRetries() + "]";
    }
}
