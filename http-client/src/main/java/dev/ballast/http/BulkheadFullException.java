package dev.ballast.http;

import java.time.Duration;
import java.util.Objects;

/**
 * Thrown instead of sending a request when the dependency's bulkhead had no free permit within its
 * maximum wait. Nothing was sent. Like every {@link CallRejectedException} it has no stack trace and
 * builds its message lazily, for example
 * {@code Bulkhead 'https://api.example.com:443' is full: 64 concurrent calls in flight and no permit became free within 0 ms}.
 */
public final class BulkheadFullException extends CallRejectedException {

    private static final long serialVersionUID = 1L;

    /** The bulkhead's limit of concurrent calls. */
    private final int maxConcurrentCalls;
    /** How long the rejected call waited. */
    private final Duration maxWait;

    /**
     * Creates the exception.
     *
     * @param dependency         the dependency key of the bulkhead
     * @param maxConcurrentCalls the bulkhead's limit of concurrent calls; at least 1
     * @param maxWait            how long the call waited for a permit; not negative
     * @throws NullPointerException     if {@code dependency} or {@code maxWait} is {@code null}
     * @throws IllegalArgumentException if {@code maxConcurrentCalls} is below 1 or {@code maxWait} is
     *                                  negative
     */
    public BulkheadFullException(String dependency, int maxConcurrentCalls, Duration maxWait) {
        super(dependency);
        Objects.requireNonNull(maxWait, "maxWait");
        if (maxConcurrentCalls < 1) {
            throw new IllegalArgumentException("maxConcurrentCalls must be >= 1 but was " + maxConcurrentCalls);
        }
        if (maxWait.isNegative()) {
            throw new IllegalArgumentException("maxWait must be >= 0 but was " + maxWait);
        }
        this.maxConcurrentCalls = maxConcurrentCalls;
        this.maxWait = maxWait;
    }

    @Override
    public String getMessage() {
        return "Bulkhead '" + dependency() + "' is full: " + maxConcurrentCalls
                + " concurrent calls in flight and no permit became free within " + maxWait.toMillis() + " ms";
    }

    /**
     * Returns the bulkhead's limit of concurrent calls.
     *
     * @return the limit; at least 1
     */
    public int maxConcurrentCalls() {
        return maxConcurrentCalls;
    }

    /**
     * Returns how long the rejected call waited for a permit.
     *
     * @return the maximum wait; never negative
     */
    public Duration maxWait() {
        return maxWait;
    }
}
