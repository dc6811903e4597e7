package dev.ballast.http;

import java.time.Duration;
import java.util.Objects;

/**
 * Thrown instead of sending a request when the dependency's circuit breaker does not permit calls:
 * it is OPEN, or it is HALF_OPEN and every probe slot is taken. Nothing was sent.
 *
 * <p>The message names the dependency and the remaining open time, for example
 * {@code Circuit breaker 'https://api.example.com:443' is OPEN and does not permit further calls (retry in 1234 ms)}.
 * Like every {@link CallRejectedException} it has no stack trace and builds its message lazily.
 */
public final class CircuitOpenException extends CallRejectedException {

    private static final long serialVersionUID = 1L;

    /** How long the breaker stays open, in nanoseconds, measured at the rejection. */
    private final long remainingOpenNanos;

    private final boolean halfOpen;

    /**
     * Creates the exception.
     *
     * @param dependency        the dependency key of the breaker
     * @param remainingOpenTime how long the breaker stays open before it admits a probe;
     *                          {@link Duration#ZERO} when a probe may be admitted now (half-open slots
     *                          all taken); not negative
     * @throws NullPointerException     if an argument is {@code null}
     * @throws IllegalArgumentException if {@code remainingOpenTime} is negative
     */
    public CircuitOpenException(String dependency, Duration remainingOpenTime) {
        this(dependency, nanos(remainingOpenTime), false);
    }

    private CircuitOpenException(String dependency, long remainingOpenNanos, boolean halfOpen) {
        super(dependency);
        this.remainingOpenNanos = remainingOpenNanos;
        this.halfOpen = halfOpen;
    }

    /**
     * Creates the rejection of an OPEN breaker without converting through {@link Duration}: the
     * allocation-free form for the breaker itself.
     *
     * @param dependency         the dependency key of the breaker
     * @param remainingOpenNanos how long the breaker stays open, in nanoseconds; not negative
     * @return the exception
     * @throws NullPointerException     if {@code dependency} is {@code null}
     * @throws IllegalArgumentException if {@code remainingOpenNanos} is negative
     */
    public static CircuitOpenException open(String dependency, long remainingOpenNanos) {
        if (remainingOpenNanos < 0) {
            throw new IllegalArgumentException("remainingOpenNanos must be >= 0 but was " + remainingOpenNanos);
        }
        return new CircuitOpenException(dependency, remainingOpenNanos, false);
    }

    /**
     * Creates the rejection of a HALF_OPEN breaker whose probe slots are all taken: the remaining open
     * time is zero, but calls are rejected until the probes in flight have reported. The message reads
     * {@code Circuit breaker 'host:port' is HALF_OPEN and all probe calls are in flight (retry in 0 ms)}.
     *
     * @param dependency the dependency key of the breaker
     * @return the exception
     * @throws NullPointerException if {@code dependency} is {@code null}
     */
    public static CircuitOpenException halfOpenProbesInFlight(String dependency) {
        return new CircuitOpenException(dependency, 0, true);
    }

    private static long nanos(Duration remainingOpenTime) {
        Objects.requireNonNull(remainingOpenTime, "remainingOpenTime");
        if (remainingOpenTime.isNegative()) {
            throw new IllegalArgumentException("remainingOpenTime must be >= 0 but was " + remainingOpenTime);
        }
        return remainingOpenTime.compareTo(Duration.ofNanos(Long.MAX_VALUE)) >= 0
                ? Long.MAX_VALUE
                : remainingOpenTime.toNanos();
    }

    @Override
    public String getMessage() {
        if (halfOpen) {
            return "Circuit breaker '" + dependency()
                    + "' is HALF_OPEN and all probe calls are in flight (retry in 0 ms)";
        }
        return "Circuit breaker '" + dependency() + "' is OPEN and does not permit further calls (retry in "
                + remainingOpenNanos / 1_000_000L + " ms)";
    }

    /**
     * Returns how long the breaker stays open before it admits a half-open probe, measured when the
     * call was rejected.
     *
     * @return the remaining open time; never negative
     */
    public Duration remainingOpenTime() {
        return Duration.ofNanos(remainingOpenNanos);
    }
}
