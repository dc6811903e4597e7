package dev.ballast.http;

/**
 * A source of elapsed time in nanoseconds, read by everything in Ballast that measures a duration
 * (the open-state window of a circuit breaker, the decay of a retry budget).
 *
 * <p>Only the difference between two readings of the same ticker is meaningful; a single reading has
 * no relation to wall time, exactly like {@link System#nanoTime()}. Wall time ({@code Retry-After}
 * dates) comes from an injected {@link java.time.Clock} instead. Tests pass a fake ticker that they
 * advance by hand, so no test sleeps.
 *
 * <p>Implementations must be thread-safe and monotonic (never go backwards).
 */
@FunctionalInterface
public interface Ticker {

    /**
     * Returns the current reading.
     *
     * @return elapsed time in nanoseconds since an arbitrary, fixed origin
     */
    long read();

    /**
     * Returns the ticker backed by {@link System#nanoTime()}.
     *
     * @return the system ticker
     */
    static Ticker systemTicker() {
        return SystemTicker.INSTANCE;
    }
}

/** The one system ticker instance; an enum so it is a serialization-safe singleton. */
enum SystemTicker implements Ticker {
    INSTANCE;

    @Override
    public long read() {
        return System.nanoTime();
    }
}
