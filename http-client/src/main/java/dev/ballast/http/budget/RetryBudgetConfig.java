package dev.ballast.http.budget;

import java.time.Duration;
import java.util.Objects;

/**
 * The size of a dependency's retry budget. Immutable and thread-safe.
 *
 * <p>Over any period of {@link #ttl()}, a dependency may see at most
 * {@code ratio * firstAttempts + minRetriesPerSecond * ttlSeconds} retries: with the defaults, 10% of
 * the first attempts of the last 10 s plus 100 (the floor of 10 per second), so that low-traffic
 * callers can still retry.
 */
public final class RetryBudgetConfig {

    /** Default of {@link #ratio()}: {@value}, retries may add 10% to the first attempts. */
    public static final double DEFAULT_RATIO = 0.1;
    /** Default of {@link #minRetriesPerSecond()}: {@value}. */
    public static final int DEFAULT_MIN_RETRIES_PER_SECOND = 10;
    /** Default of {@link #ttl()}: 10 s. */
    public static final Duration DEFAULT_TTL = Duration.ofSeconds(10);
    /** The shortest {@link #ttl()} accepted: 1 s. */
    public static final Duration MIN_TTL = Duration.ofSeconds(1);
    /** The longest {@link #ttl()} accepted: 60 s. */
    public static final Duration MAX_TTL = Duration.ofSeconds(60);
    /** The largest {@link #ratio()} accepted: {@value}. */
    public static final double MAX_RATIO = 1000.0;

    private static final RetryBudgetConfig DEFAULTS = new Builder().build();
    private static final RetryBudgetConfig DISABLED = new RetryBudgetConfig(new Builder(), false);

    private final double ratio;
    private final int minRetriesPerSecond;
    private final Duration ttl;
    private final boolean enabled;

    private RetryBudgetConfig(Builder builder, boolean enabled) {
        this.ratio = builder.ratio;
        this.minRetriesPerSecond = builder.minRetriesPerSecond;
        this.ttl = builder.ttl;
        this.enabled = enabled;
    }

    /**
     * Returns the defaults: ratio {@value #DEFAULT_RATIO}, floor {@value #DEFAULT_MIN_RETRIES_PER_SECOND}
     * retries per second, ttl 10 s.
     *
     * @return the default configuration
     */
    public static RetryBudgetConfig ofDefaults() {
        return DEFAULTS;
    }

    /**
     * Returns the unlimited budget: every retry is permitted. For tests and for dependencies whose
     * load a retry cannot hurt.
     *
     * @return the disabled configuration
     */
    public static RetryBudgetConfig disabled() {
        return DISABLED;
    }

    /**
     * Returns a builder starting from the defaults.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Returns a builder starting from this configuration's values (an enabled budget, even if this one
     * is {@link #disabled()}).
     *
     * @return a new builder
     */
    public Builder toBuilder() {
        return new Builder()
                .ratio(ratio)
                .minRetriesPerSecond(minRetriesPerSecond)
                .ttl(ttl);
    }

    /**
     * Returns the retries permitted per first attempt. Default {@value #DEFAULT_RATIO}.
     *
     * @return the ratio; in {@code [0, MAX_RATIO]}
     */
    public double ratio() {
        return ratio;
    }

    /**
     * Returns the floor: retries permitted per second of {@link #ttl()} regardless of traffic. Default
     * {@value #DEFAULT_MIN_RETRIES_PER_SECOND}.
     *
     * @return the floor; at least 0
     */
    public int minRetriesPerSecond() {
        return minRetriesPerSecond;
    }

    /**
     * Returns the window over which deposits and withdrawals count before they decay. Default 10 s.
     *
     * @return the ttl; in {@code [MIN_TTL, MAX_TTL]}
     */
    public Duration ttl() {
        return ttl;
    }

    /**
     * Tells whether the budget limits retries at all.
     *
     * @return {@code false} only for {@link #disabled()}
     */
    public boolean enabled() {
        return enabled;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RetryBudgetConfig other
                && Double.compare(ratio, other.ratio) == 0
                && minRetriesPerSecond == other.minRetriesPerSecond
                && ttl.equals(other.ttl)
                && enabled == other.enabled;
    }

    @Override
    public int hashCode() {
        return Objects.hash(ratio, minRetriesPerSecond, ttl, enabled);
    }

    @Override
    public String toString() {
        return enabled
                ? "RetryBudgetConfig[ratio=" + ratio + ", minRetriesPerSecond=" + minRetriesPerSecond + ", ttl=" + ttl
                        + "]"
                : "RetryBudgetConfig[disabled]";
    }

    /** Builds a {@link RetryBudgetConfig}. Not thread-safe; validated in {@link #build()}. */
    public static final class Builder {

        private double ratio = DEFAULT_RATIO;
        private int minRetriesPerSecond = DEFAULT_MIN_RETRIES_PER_SECOND;
        private Duration ttl = DEFAULT_TTL;

        private Builder() {}

        /**
         * Sets the retries permitted per first attempt. Default {@value RetryBudgetConfig#DEFAULT_RATIO}.
         *
         * @param ratio in {@code [0, 1000]} (checked by {@link #build()}); 0 leaves only the floor
         * @return this builder
         */
        public Builder ratio(double ratio) {
            this.ratio = ratio;
            return this;
        }

        /**
         * Sets the floor of retries per second. Default
         * {@value RetryBudgetConfig#DEFAULT_MIN_RETRIES_PER_SECOND}.
         *
         * @param minRetriesPerSecond at least 0 (checked by {@link #build()})
         * @return this builder
         */
        public Builder minRetriesPerSecond(int minRetriesPerSecond) {
            this.minRetriesPerSecond = minRetriesPerSecond;
            return this;
        }

        /**
         * Sets the decay window. Default 10 s.
         *
         * @param ttl in {@code [1 s, 60 s]} (checked by {@link #build()})
         * @return this builder
         * @throws NullPointerException if {@code ttl} is {@code null}
         */
        public Builder ttl(Duration ttl) {
            this.ttl = Objects.requireNonNull(ttl, "ttl");
            return this;
        }

        /**
         * Validates and builds the configuration.
         *
         * @return the configuration
         * @throws IllegalArgumentException if an option is outside its documented range
         */
        public RetryBudgetConfig build() {
            if (!(ratio >= 0 && ratio <= MAX_RATIO)) {
                throw new IllegalArgumentException("ratio must be >= 0 and <= " + MAX_RATIO + " but was " + ratio);
            }
            if (minRetriesPerSecond < 0) {
                throw new IllegalArgumentException("minRetriesPerSecond must be >= 0 but was " + minRetriesPerSecond);
            }
            if (ttl.compareTo(MIN_TTL) < 0 || ttl.compareTo(MAX_TTL) > 0) {
                throw new IllegalArgumentException(
                        "ttl must be >= " + MIN_TTL + " and <= " + MAX_TTL + " but was " + ttl);
            }
            return new RetryBudgetConfig(this, true);
        }
    }
}
