package dev.ballast.http.bulkhead;

import java.time.Duration;
import java.util.Objects;

/**
 * A fixed bulkhead: how many calls a dependency may have in flight and how long a further call waits
 * for a free slot. Immutable and thread-safe.
 *
 * <p>A dependency has no fixed bulkhead unless one is configured
 * ({@link dev.ballast.http.DependencyConfig.Builder#bulkhead(BulkheadConfig)}): by default its
 * {@linkplain dev.ballast.http.limit.ConcurrencyLimitConfig adaptive concurrency limit} bounds its calls
 * instead, because a fixed size that is right for one dependency refuses bursts another serves.
 * {@link #ofDefaults()} is the size to start from when a fixed one is wanted.
 */
public final class BulkheadConfig {

    /** Default of {@link #maxConcurrentCalls()}: {@value} calls. */
    public static final int DEFAULT_MAX_CONCURRENT_CALLS = 64;
    /** Default of {@link #maxWaitDuration()}: zero, a full bulkhead rejects at once. */
    public static final Duration DEFAULT_MAX_WAIT_DURATION = Duration.ZERO;

    private static final BulkheadConfig DEFAULTS =
            builder(DEFAULT_MAX_CONCURRENT_CALLS).build();
    private static final BulkheadConfig DISABLED = new BulkheadConfig(new Builder(Integer.MAX_VALUE), false);

    private final int maxConcurrentCalls;
    private final Duration maxWaitDuration;
    private final boolean enabled;

    private BulkheadConfig(Builder builder, boolean enabled) {
        this.maxConcurrentCalls = builder.maxConcurrentCalls;
        this.maxWaitDuration = builder.maxWaitDuration;
        this.enabled = enabled;
    }

    /**
     * Returns a builder for a bulkhead of the given size, waiting {@link #DEFAULT_MAX_WAIT_DURATION}
     * unless told otherwise.
     *
     * @param maxConcurrentCalls the limit of concurrent calls; at least 1 (checked by
     *                           {@link Builder#build()})
     * @return a new builder
     */
    public static Builder builder(int maxConcurrentCalls) {
        return new Builder(maxConcurrentCalls);
    }

    /**
     * Returns the defaults: {@value #DEFAULT_MAX_CONCURRENT_CALLS} concurrent calls, no waiting.
     *
     * @return the default configuration
     */
    public static BulkheadConfig ofDefaults() {
        return DEFAULTS;
    }

    /**
     * Returns the configuration of no fixed bulkhead, a dependency's default: any number of calls may
     * be in flight ({@link #maxConcurrentCalls()} is {@link Integer#MAX_VALUE}) and none waits.
     *
     * @return the disabled configuration
     */
    public static BulkheadConfig disabled() {
        return DISABLED;
    }

    /**
     * Tells whether this is a bulkhead at all.
     *
     * @return {@code false} only for {@link #disabled()}
     */
    public boolean enabled() {
        return enabled;
    }

    /**
     * Returns a builder starting from this configuration (of {@link Integer#MAX_VALUE} calls for
     * {@link #disabled()}, whose builder makes an enabled bulkhead of that size).
     *
     * @return a new builder
     */
    public Builder toBuilder() {
        return new Builder(maxConcurrentCalls).maxWaitDuration(maxWaitDuration);
    }

    /**
     * Returns the limit of calls in flight at once. Default {@value #DEFAULT_MAX_CONCURRENT_CALLS}.
     *
     * @return the limit; at least 1; {@link Integer#MAX_VALUE} for {@link #disabled()}
     */
    public int maxConcurrentCalls() {
        return maxConcurrentCalls;
    }

    /**
     * Returns how long a call waits for a free slot before it is rejected with
     * {@link dev.ballast.http.BulkheadFullException}. Default zero: reject at once, because a queue in
     * front of a saturated dependency only adds latency.
     *
     * @return the maximum wait; never negative
     */
    public Duration maxWaitDuration() {
        return maxWaitDuration;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BulkheadConfig other
                && maxConcurrentCalls == other.maxConcurrentCalls
                && maxWaitDuration.equals(other.maxWaitDuration)
                && enabled == other.enabled;
    }

    @Override
    public int hashCode() {
        return Objects.hash(maxConcurrentCalls, maxWaitDuration, enabled);
    }

    @Override
    public String toString() {
        return enabled
                ? "BulkheadConfig[maxConcurrentCalls=" + maxConcurrentCalls + ", maxWaitDuration=" + maxWaitDuration
                        + "]"
                : "BulkheadConfig[disabled]";
    }

    /** Builds a {@link BulkheadConfig}. Not thread-safe; validated in {@link #build()}. */
    public static final class Builder {

        private final int maxConcurrentCalls;
        private Duration maxWaitDuration = DEFAULT_MAX_WAIT_DURATION;

        private Builder(int maxConcurrentCalls) {
            this.maxConcurrentCalls = maxConcurrentCalls;
        }

        /**
         * Sets how long a call waits for a free slot. Default zero.
         *
         * @param maxWait not negative (checked by {@link #build()})
         * @return this builder
         * @throws NullPointerException if {@code maxWait} is {@code null}
         */
        public Builder maxWaitDuration(Duration maxWait) {
            this.maxWaitDuration = Objects.requireNonNull(maxWait, "maxWaitDuration");
            return this;
        }

        /**
         * Validates and builds the configuration.
         *
         * @return the configuration
         * @throws IllegalArgumentException if {@code maxConcurrentCalls} is below 1 or the wait is
         *                                  negative or too long to express in nanoseconds
         */
        public BulkheadConfig build() {
            if (maxConcurrentCalls < 1) {
                throw new IllegalArgumentException("maxConcurrentCalls must be >= 1 but was " + maxConcurrentCalls);
            }
            if (maxWaitDuration.isNegative() || maxWaitDuration.compareTo(Duration.ofNanos(Long.MAX_VALUE)) > 0) {
                throw new IllegalArgumentException("maxWaitDuration must be >= 0 and <= "
                        + Duration.ofNanos(Long.MAX_VALUE) + " but was " + maxWaitDuration);
            }
            return new BulkheadConfig(this, true);
        }
    }
}
