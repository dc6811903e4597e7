package dev.ballast.http;

import java.time.Duration;
import java.util.Objects;

/**
 * Thrown instead of sending a request when the dependency's adaptive concurrency limit
 * ({@link dev.ballast.http.limit.ConcurrencyLimitConfig}) had as many attempts in flight as its
 * latency allows and the attempt waited for a place in vain: for
 * {@link dev.ballast.http.limit.ConcurrencyLimitConfig#maxWaitDuration()} (or what was left of the
 * call's total timeout), or not at all when that many attempts were waiting already
 * ({@link dev.ballast.http.limit.ConcurrencyLimitConfig#maxWaitingCalls()}). Nothing was sent. Like
 * every {@link CallRejectedException} it has no stack trace and builds its message lazily, for example
 * {@code Concurrency limit of 'https://api.example.com:443' reached: 20 attempts in flight, as many as
 * its latency allows now; waited 2000 ms for a place}.
 *
 * <p>The limit came down because the dependency's median latency more than doubled (by default)
 * while calls piled up: it is queueing, and more calls would only wait in its queue. Shed the load
 * or degrade; the limit grows back as soon as the latency holds.
 */
public final class ConcurrencyLimitExceededException extends CallRejectedException {

    private static final long serialVersionUID = 1L;

    /** The limit at the time of the rejection. */
    private final int limit;

    /** How long the attempt waited for a place. */
    private final Duration waited;

    /**
     * Creates the exception.
     *
     * @param dependency the dependency key
     * @param limit      the limit at the time of the rejection; at least 1
     * @throws NullPointerException     if {@code dependency} is {@code null}
     * @throws IllegalArgumentException if {@code limit} is below 1
     */
    public ConcurrencyLimitExceededException(String dependency, int limit) {
        this(dependency, limit, Duration.ZERO);
    }

    /**
     * Creates the exception of an attempt that waited {@code waited} for a place.
     *
     * @param dependency the dependency key
     * @param limit      the limit at the time of the rejection; at least 1
     * @param waited     how long the attempt waited; not negative, {@link Duration#ZERO} if it did not
     * @throws NullPointerException     if an argument is {@code null}
     * @throws IllegalArgumentException if {@code limit} is below 1 or {@code waited} is negative
     */
    public ConcurrencyLimitExceededException(String dependency, int limit, Duration waited) {
        super(dependency);
        Objects.requireNonNull(waited, "waited");
        if (waited.isNegative()) {
            throw new IllegalArgumentException("waited must be >= 0 but was " + waited);
        }
        this.waited = waited;
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be >= 1 but was " + limit);
        }
        this.limit = limit;
    }

    @Override
    public String getMessage() {
        return "Concurrency limit of '" + dependency() + "' reached: " + limit
                + " attempts in flight, as many as its latency allows now"
                + (waited.isZero()
                        ? "; did not wait for a place"
                        : "; waited " + waited.toMillis() + " ms for a place");
    }

    /**
     * Returns how long the attempt waited for a place before it was refused.
     *
     * @return the wait; {@link Duration#ZERO} if it did not wait
     */
    public Duration waited() {
        return waited;
    }

    /**
     * Returns the limit at the time of the rejection.
     *
     * @return the limit; at least 1
     */
    public int limit() {
        return limit;
    }
}
