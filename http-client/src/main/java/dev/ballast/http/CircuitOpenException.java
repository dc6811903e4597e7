package dev.ballast.http;

import java.time.Duration;
import java.util.Objects;

/**
 * Thrown instead of sending a request when the dependency's circuit breaker does not permit calls:
 * it is OPEN, or it is HALF_OPEN and every probe slot is taken. Nothing was sent.
 *
 * <p>The message names the dependency and the remaining open time, for example
 * {@code Circuit breaker 'api.example.com:443' is OPEN and does not permit further calls (retry in 1234 ms)}.
 */
public final class CircuitOpenException extends CallRejectedException {

    private static final long serialVersionUID = 1L;

    private final Duration remainingOpenTime;

    /**
     * Creates the exception.
     *
     * @param dependency        the dependency key of the breaker; not {@code null}
     * @param remainingOpenTime how long the breaker stays open before it admits a probe;
     *                          {@link Duration#ZERO} when a probe may be admitted now (half-open slots
     *                          all taken); not {@code null}, not negative
     * @throws NullPointerException     if an argument is {@code null}
     * @throws IllegalArgumentException if {@code remainingOpenTime} is negative
     */
    public CircuitOpenException(String dependency, Duration remainingOpenTime) {
        super(dependency, message(dependency, remainingOpenTime));
        this.remainingOpenTime = remainingOpenTime;
    }

    private static String message(String dependency, Duration remainingOpenTime) {
        Objects.requireNonNull(dependency, "dependency");
        Objects.requireNonNull(remainingOpenTime, "remainingOpenTime");
        if (remainingOpenTime.isNegative()) {
            throw new IllegalArgumentException(
                    "remainingOpenTime must be >= 0 but was " + remainingOpenTime);
        }
        return "Circuit breaker '" + dependency + "' is OPEN and does not permit further calls (retry in "
                + remainingOpenTime.toMillis() + " ms)";
    }

    /**
     * Returns how long the breaker stays open before it admits a half-open probe, measured when the
     * call was rejected.
     *
     * @return the remaining open time; never {@code null} or negative
     */
    public Duration remainingOpenTime() {
        return remainingOpenTime;
    }
}
