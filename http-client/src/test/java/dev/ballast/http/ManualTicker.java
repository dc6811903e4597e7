package dev.ballast.http;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A {@link Ticker} that moves only when a test advances it. Starts at an arbitrary negative reading. */
public final class ManualTicker implements Ticker {

    private final AtomicLong nanos = new AtomicLong(-7_000_000_000L);

    @Override
    public long read() {
        return nanos.get();
    }

    /**
     * Moves time forward.
     *
     * @param duration how far; not negative
     */
    public void advance(Duration duration) {
        if (duration.isNegative()) {
            throw new IllegalArgumentException("duration must be >= 0 but was " + duration);
        }
        nanos.addAndGet(duration.toNanos());
    }

    /**
     * Moves time forward by nanoseconds.
     *
     * @param delta how far, in nanoseconds; not negative
     */
    public void advanceNanos(long delta) {
        advance(Duration.ofNanos(delta));
    }
}
