package dev.ballast.http.retry;

import java.time.Duration;
import java.util.Objects;

/**
 * How often and how patiently a logical call is retried. Immutable and thread-safe.
 *
 * <p><b>{@link #maxAttempts()} counts every attempt, the first one included</b>: the default of 3
 * means one call and at most two retries. Whether an attempt is retried at all is the
 * classification's decision ({@link dev.ballast.http.classify.Outcome#isRetryable(boolean)}), and each
 * retry also needs a token from the dependency's retry budget.
 *
 * <p>Between attempts the retry layer waits {@link #backoff()}'s delay, or the server's
 * {@code Retry-After} (RFC 9110 §10.2.3) when that is longer; a {@code Retry-After} longer than
 * {@link #maxRetryAfter()} stops retrying at once and the response is returned.
 */
public final class RetryConfig {

    /** Default of {@link #maxAttempts()}: {@value}, the first attempt included. */
    public static final int DEFAULT_MAX_ATTEMPTS = 3;
    /** Default base of {@link #backoff()}: 100 ms. */
    public static final Duration DEFAULT_BACKOFF_BASE = Duration.ofMillis(100);
    /** Default cap of {@link #backoff()}: 10 s. */
    public static final Duration DEFAULT_BACKOFF_CAP = Duration.ofSeconds(10);
    /** Default jitter of {@link #backoff()}: {@link Jitter#FULL}. */
    public static final Jitter DEFAULT_JITTER = Jitter.FULL;
    /** Default of {@link #backoff()}: exponential from 100 ms, capped at 10 s, with full jitter. */
    public static final Backoff DEFAULT_BACKOFF =
            Backoff.exponential(DEFAULT_BACKOFF_BASE, DEFAULT_BACKOFF_CAP, DEFAULT_JITTER);
    /** Default of {@link #maxRetryAfter()}: 30 s. */
    public static final Duration DEFAULT_MAX_RETRY_AFTER = Duration.ofSeconds(30);

    private static final RetryConfig DEFAULTS = new Builder().build();

    private final int maxAttempts;
    private final Backoff backoff;
    private final Duration maxRetryAfter;

    private RetryConfig(Builder builder) {
        this.maxAttempts = builder.maxAttempts;
        this.backoff = builder.backoff;
        this.maxRetryAfter = builder.maxRetryAfter;
    }

    /**
     * Returns the defaults: {@value #DEFAULT_MAX_ATTEMPTS} attempts, exponential backoff from 100 ms
     * capped at 10 s with full jitter, {@code Retry-After} honoured up to 30 s.
     *
     * @return the default configuration
     */
    public static RetryConfig ofDefaults() {
        return DEFAULTS;
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
     * Returns a builder starting from this configuration.
     *
     * @return a new builder
     */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /**
     * Returns the maximum number of attempts of one logical call, <b>counting the first attempt</b>:
     * 1 disables retrying. Default {@value #DEFAULT_MAX_ATTEMPTS}.
     *
     * @return the maximum number of attempts; at least 1
     */
    public int maxAttempts() {
        return maxAttempts;
    }

    /**
     * Returns the backoff between attempts. Default {@link #DEFAULT_BACKOFF}: exponential from 100 ms,
     * capped at 10 s, with full jitter.
     *
     * @return the backoff
     */
    public Backoff backoff() {
        return backoff;
    }

    /**
     * Returns the longest server-requested wait ({@code Retry-After}) the retry layer sleeps through.
     * A longer one ends the retries at once and the response is returned to the caller instead of
     * sleeping. Default 30 s.
     *
     * @return the maximum {@code Retry-After}; never negative
     */
    public Duration maxRetryAfter() {
        return maxRetryAfter;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RetryConfig other
                && maxAttempts == other.maxAttempts
                && backoff.equals(other.backoff)
                && maxRetryAfter.equals(other.maxRetryAfter);
    }

    @Override
    public int hashCode() {
        return Objects.hash(maxAttempts, backoff, maxRetryAfter);
    }

    /**
     * Describes this configuration, for logs.
     *
     * @return a description naming every option
     */
    @Override
    public String toString() {
        return "RetryConfig[maxAttempts=" + maxAttempts + ", backoff=" + backoff + ", maxRetryAfter=" + maxRetryAfter
                + "]";
    }

    /** Builds a {@link RetryConfig}. Not thread-safe; validated in {@link #build()}. */
    public static final class Builder {

        private int maxAttempts = DEFAULT_MAX_ATTEMPTS;
        private Backoff backoff = DEFAULT_BACKOFF;
        private Duration maxRetryAfter = DEFAULT_MAX_RETRY_AFTER;

        private Builder() {}

        private Builder(RetryConfig config) {
            this.maxAttempts = config.maxAttempts;
            this.backoff = config.backoff;
            this.maxRetryAfter = config.maxRetryAfter;
        }

        /**
         * Sets the maximum number of attempts, <b>the first one included</b>. Default
         * {@value RetryConfig#DEFAULT_MAX_ATTEMPTS}.
         *
         * @param maxAttempts at least 1 (checked by {@link #build()})
         * @return this builder
         */
        public Builder maxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
            return this;
        }

        /**
         * Sets the backoff between attempts. Default {@link RetryConfig#DEFAULT_BACKOFF}.
         *
         * @param backoff the backoff
         * @return this builder
         * @throws NullPointerException if {@code backoff} is {@code null}
         */
        public Builder backoff(Backoff backoff) {
            this.backoff = Objects.requireNonNull(backoff, "backoff");
            return this;
        }

        /**
         * Sets the longest {@code Retry-After} the retry layer waits out. Default 30 s.
         *
         * @param maxRetryAfter not negative (checked by {@link #build()}); {@link Duration#ZERO} means a
         *                      response with any positive {@code Retry-After} is returned unretried
         * @return this builder
         * @throws NullPointerException if {@code maxRetryAfter} is {@code null}
         */
        public Builder maxRetryAfter(Duration maxRetryAfter) {
            this.maxRetryAfter = Objects.requireNonNull(maxRetryAfter, "maxRetryAfter");
            return this;
        }

        /**
         * Validates and builds the configuration.
         *
         * @return the configuration
         * @throws IllegalArgumentException if {@code maxAttempts} is below 1 or {@code maxRetryAfter}
         *                                  is negative
         */
        public RetryConfig build() {
            if (maxAttempts < 1) {
                throw new IllegalArgumentException("maxAttempts must be >= 1 but was " + maxAttempts);
            }
            if (maxRetryAfter.isNegative()) {
                throw new IllegalArgumentException("maxRetryAfter must be >= 0 but was " + maxRetryAfter);
            }
            return new RetryConfig(this);
        }
    }
}
