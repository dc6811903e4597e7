package dev.ballast.http.internal;

import dev.ballast.http.Ticker;
import java.time.Duration;

/**
 * A point in time on one {@link Ticker}, by which something must be finished: the total timeout of
 * a call, the end of an attempt. The ticker decides: a deadline has passed when the ticker says so,
 * whatever any other clock reads. Readings are compared by subtraction, so a ticker may start
 * anywhere, negative values included (as {@link System#nanoTime()} may).
 *
 * @param ticker the clock the deadline is measured on
 * @param atNanos the ticker reading at which the deadline passes
 */
public record Deadline(Ticker ticker, long atNanos) {

    /**
     * Returns the deadline {@code timeout} after the ticker's {@code now}.
     *
     * @param ticker the clock
     * @param now a reading of {@code ticker}
     * @param timeout how long from {@code now}; saturated, so a very long timeout never wraps
     * @return the deadline
     */
    public static Deadline after(Ticker ticker, long now, Duration timeout) {
        return new Deadline(ticker, Durations.saturatedAdd(now, Durations.saturatedNanos(timeout)));
    }

    /** Nanoseconds left at the ticker's current reading; zero or negative once passed. */
    public long remainingNanos() {
        return remainingNanos(ticker.read());
    }

    /** Nanoseconds left at {@code now}, a reading of the same ticker. */
    public long remainingNanos(long now) {
        return atNanos - now;
    }

    /** Whether the deadline has passed at the ticker's current reading. */
    public boolean hasPassed() {
        return remainingNanos() <= 0;
    }

    /**
     * Whether {@code nanos} from now would reach or pass the deadline: a wait that long would end
     * too late.
     */
    public boolean isReachedWithin(long nanos) {
        return remainingNanos() <= nanos;
    }
}
