package dev.ballast.http.retry;

import dev.ballast.http.internal.Durations;
import java.time.Duration;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * Capped exponential backoff with a selectable {@link Jitter}: a pure function from the retry number
 * (and, for {@link Jitter#DECORRELATED}, the previous delay) to the wait before the next attempt.
 *
 * <p>The exponential delay is {@code d = min(cap, base * 2^(retryNumber - 1))}, computed in
 * nanoseconds without overflow for every {@code retryNumber} up to {@link Integer#MAX_VALUE}. Every
 * delay is in {@code [0, cap]}; see {@link Jitter} for each jitter's bounds.
 *
 * <p>Immutable and thread-safe; the randomness is the caller's.
 */
public final class Backoff {

    /**
     * The longest {@code cap} accepted: the longest duration whose nanoseconds fit a {@code long}
     * (about 292 years).
     */
    public static final Duration MAX_CAP = Durations.MAX_NANOS;

    private final Duration base;
    private final Duration cap;
    private final Jitter jitter;
    private final long baseNanos;
    private final long capNanos;

    private Backoff(Duration base, Duration cap, Jitter jitter) {
        this.base = base;
        this.cap = cap;
        this.jitter = jitter;
        this.baseNanos = base.toNanos();
        this.capNanos = cap.toNanos();
    }

    /**
     * Creates a capped exponential backoff.
     *
     * @param base   the exponential delay before the first retry; positive
     * @param cap    the longest delay; at least {@code base} and at most {@link #MAX_CAP}
     * @param jitter how the delay is randomized
     * @return the backoff
     * @throws NullPointerException     if an argument is {@code null}
     * @throws IllegalArgumentException if {@code base} is not positive, or {@code cap} is shorter than
     *                                  {@code base} or longer than {@link #MAX_CAP}
     */
    public static Backoff exponential(Duration base, Duration cap, Jitter jitter) {
        Objects.requireNonNull(base, "base");
        Objects.requireNonNull(cap, "cap");
        Objects.requireNonNull(jitter, "jitter");
        if (base.isNegative() || base.isZero()) {
            throw new IllegalArgumentException("base must be > 0 but was " + base);
        }
        if (cap.compareTo(MAX_CAP) > 0) {
            throw new IllegalArgumentException("cap must be <= " + MAX_CAP + " but was " + cap);
        }
        if (cap.compareTo(base) < 0) {
            throw new IllegalArgumentException("cap must be >= base (" + base + ") but was " + cap);
        }
        return new Backoff(base, cap, jitter);
    }

    /**
     * Computes the wait before the next attempt.
     *
     * @param retryNumber   which retry this wait precedes: 1 is the wait before attempt 2; at least 1
     * @param previousDelay the delay this method returned for the previous retry, or
     *                      {@link Duration#ZERO} before the first retry; used by
     *                      {@link Jitter#DECORRELATED} only; not negative
     * @param random        the source of randomness. Not used by {@link Jitter#NONE}
     * @return the delay, in {@code [0, cap]}
     * @throws NullPointerException     if an argument is {@code null}
     * @throws IllegalArgumentException if {@code retryNumber} is below 1 or {@code previousDelay} is
     *                                  negative
     */
    public Duration delay(int retryNumber, Duration previousDelay, RandomGenerator random) {
        Objects.requireNonNull(previousDelay, "previousDelay");
        Objects.requireNonNull(random, "random");
        if (retryNumber < 1) {
            throw new IllegalArgumentException("retryNumber must be >= 1 but was " + retryNumber);
        }
        if (previousDelay.isNegative()) {
            throw new IllegalArgumentException("previousDelay must be >= 0 but was " + previousDelay);
        }
        long exponential = exponentialNanos(retryNumber);
        long nanos = switch (jitter) {
            case NONE -> exponential;
            case FULL -> uniform(random, 0, exponential);
            case EQUAL -> {
                long half = exponential / 2;
                yield half + uniform(random, 0, exponential - half);
            }
            case DECORRELATED -> {
                long previous = Math.max(baseNanos, Durations.saturatedNanos(previousDelay));
                long upper = Math.min(capNanos, previous > capNanos / 3 ? capNanos : previous * 3);
                yield uniform(random, baseNanos, upper);
            }
        };
        return Duration.ofNanos(nanos);
    }

    /** {@code min(cap, base * 2^(retryNumber - 1))} without overflow. */
    private long exponentialNanos(int retryNumber) {
        int doublings = retryNumber - 1;
        if (doublings >= Long.SIZE - 1 || baseNanos > (capNanos >> doublings)) {
            return capNanos;
        }
        return Math.min(capNanos, baseNanos << doublings);
    }

    /** Uniform in {@code [low, high]}, both inclusive; {@code 0 <= low <= high}. */
    private static long uniform(RandomGenerator random, long low, long high) {
        if (low >= high) {
            return low;
        }
        if (high == Long.MAX_VALUE) {
            return random.nextLong(low, high);
        }
        return random.nextLong(low, high + 1);
    }

    /**
     * Returns the exponential delay before the first retry.
     *
     * @return the base delay; positive
     */
    public Duration base() {
        return base;
    }

    /**
     * Returns the longest delay this backoff ever returns.
     *
     * @return the cap; at least {@link #base()}
     */
    public Duration cap() {
        return cap;
    }

    /**
     * Returns how the delay is randomized.
     *
     * @return the jitter
     */
    public Jitter jitter() {
        return jitter;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Backoff other && base.equals(other.base) && cap.equals(other.cap) && jitter == other.jitter;
    }

    @Override
    public int hashCode() {
        return Objects.hash(base, cap, jitter);
    }

    /**
     * Describes this backoff, for logs.
     *
     * @return for example {@code Backoff[exponential base=PT0.1S cap=PT10S jitter=FULL]}
     */
    @Override
    public String toString() {
        return "Backoff[exponential base=" + base + " cap=" + cap + " jitter=" + jitter + "]";
    }
}
