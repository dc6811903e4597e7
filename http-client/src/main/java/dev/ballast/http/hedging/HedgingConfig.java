package dev.ballast.http.hedging;

import java.time.Duration;
import java.util.Objects;

/**
 * When a dependency's calls are hedged. Immutable and thread-safe; builders are not thread-safe.
 *
 * <p>A hedged call sends its first attempt as usual. If no answer has arrived after the hedging
 * delay, it sends the same request again, alongside (a <em>hedged attempt</em>), up to
 * {@link #maxHedgedAttempts()} times. The call commits to the first attempt whose response headers
 * show an answer the retry layer would not retry (a success, or any final answer such as a 404), as
 * gRPC (proposal A6) and Envoy commit a hedged call: every other attempt still in flight is cancelled,
 * no further hedge is sent, and the caller's {@code BodyHandler} runs for the committed response only,
 * never for a response the call drops (headers of a losing attempt that still arrive are discarded
 * unread). An attempt that fails retryably while another is still in flight is not retried: the call
 * waits for the other. Once none is in flight, the call retries as any other.
 *
 * <p>Hedged attempts are attempts: each asks the circuit breaker and takes a bulkhead permit (if
 * either refuses, no hedge is sent), each counts towards {@code maxAttempts} (so with
 * {@code maxAttempts} 1 no hedge is ever sent), and each withdraws a
 * token from the dependency's retry budget, so hedging can add no more load than retries can. Only a
 * request that may be sent twice is hedged: an idempotent method (RFC 9110 §9.2.2) with a body that
 * can be replayed, or a request carrying an idempotency key; never a non-idempotent, unkeyed one. A
 * {@code send} of a hedged call runs its attempts on the client's scheduler and waits for the
 * winner, since one thread cannot wait on two exchanges.
 *
 * <p>The delay is either fixed ({@link #fixedDelay(Duration)}) or derived from the dependency's
 * recent latency ({@link #percentileDelay(double, Duration)}): the given percentile of the last
 * {@value #LATENCY_SAMPLES} answered attempts' latencies (from sending the request to its answer),
 * so that only that share of calls, the slowest, is hedged; until {@value #MIN_LATENCY_SAMPLES}
 * latencies are known, the initial delay applies.
 *
 * @see dev.ballast.http.DependencyConfig.Builder#hedging(HedgingConfig)
 */
public final class HedgingConfig {

    /** Default of {@link #maxHedgedAttempts()}: {@value}, as the .NET standard hedging handler. */
    public static final int DEFAULT_MAX_HEDGED_ATTEMPTS = 1;
    /** How many of a dependency's most recent attempt latencies the percentile is taken over. */
    public static final int LATENCY_SAMPLES = 128;
    /** How many latencies must be known before the percentile replaces the initial delay. */
    public static final int MIN_LATENCY_SAMPLES = 20;

    private final Duration delay;
    private final double percentile;
    private final int maxHedgedAttempts;

    private HedgingConfig(Builder builder) {
        this.delay = builder.delay;
        this.percentile = builder.percentile;
        this.maxHedgedAttempts = builder.maxHedgedAttempts;
    }

    /**
     * Returns a config that hedges after a fixed delay, once ({@link #DEFAULT_MAX_HEDGED_ATTEMPTS}).
     *
     * @param delay how long to wait for an answer before sending a hedged attempt; positive
     * @return the config
     * @throws NullPointerException if {@code delay} is null
     * @throws IllegalArgumentException if {@code delay} is zero or negative
     */
    public static HedgingConfig fixedDelay(Duration delay) {
        return builder(delay).build();
    }

    /**
     * Returns a config that hedges after the given percentile of the dependency's recent latencies,
     * once ({@link #DEFAULT_MAX_HEDGED_ATTEMPTS}); {@code percentileDelay(95, ...)} hedges the slowest
     * 5% of calls.
     *
     * @param percentile the latency percentile, in {@code (0, 100)}
     * @param initialDelay the delay until enough latencies are known; positive
     * @return the config
     * @throws NullPointerException if {@code initialDelay} is null
     * @throws IllegalArgumentException if an argument is out of range
     */
    public static HedgingConfig percentileDelay(double percentile, Duration initialDelay) {
        return builder(initialDelay).delayPercentile(percentile).build();
    }

    /**
     * Returns a builder whose delay is {@code delay}: fixed, unless a percentile is set.
     *
     * @param delay the fixed delay, or the initial delay of a percentile-derived one; positive
     * @return a new builder
     * @throws NullPointerException if {@code delay} is null
     */
    public static Builder builder(Duration delay) {
        return new Builder(Objects.requireNonNull(delay, "delay"));
    }

    /**
     * Returns a builder starting from this config.
     *
     * @return a new builder
     */
    public Builder toBuilder() {
        return new Builder(delay).delayPercentile(percentile).maxHedgedAttempts(maxHedgedAttempts);
    }

    /**
     * Returns the fixed delay, or the initial delay of a percentile-derived one.
     *
     * @return the delay; positive
     */
    public Duration delay() {
        return delay;
    }

    /**
     * Returns the latency percentile the delay is derived from, or 0 for a fixed delay.
     *
     * @return the percentile, in {@code (0, 100)}, or 0
     */
    public double delayPercentile() {
        return percentile;
    }

    /**
     * Returns how many hedged attempts a call may send besides its first. Default
     * {@value #DEFAULT_MAX_HEDGED_ATTEMPTS}.
     *
     * @return at least 1
     */
    public int maxHedgedAttempts() {
        return maxHedgedAttempts;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof HedgingConfig other
                && delay.equals(other.delay)
                && Double.compare(percentile, other.percentile) == 0
                && maxHedgedAttempts == other.maxHedgedAttempts;
    }

    @Override
    public int hashCode() {
        return Objects.hash(delay, percentile, maxHedgedAttempts);
    }

    @Override
    public String toString() {
        return "HedgingConfig["
                + (percentile > 0 ? "p" + percentile + " of recent latencies, initially " + delay : "after " + delay)
                + ", maxHedgedAttempts=" + maxHedgedAttempts + "]";
    }

    /** Builds a {@link HedgingConfig}; validated in {@link #build()}. Not thread-safe. */
    public static final class Builder {

        private final Duration delay;
        private double percentile;
        private int maxHedgedAttempts = DEFAULT_MAX_HEDGED_ATTEMPTS;

        private Builder(Duration delay) {
            this.delay = delay;
        }

        /**
         * Derives the delay from the dependency's recent latencies: their {@code percentile}-th
         * percentile. If not set (or set to 0), the delay is fixed.
         *
         * @param percentile in {@code (0, 100)}, or 0 for a fixed delay (checked by {@link #build()})
         * @return this builder
         */
        public Builder delayPercentile(double percentile) {
            this.percentile = percentile;
            return this;
        }

        /**
         * Sets how many hedged attempts a call may send besides its first. Default
         * {@value HedgingConfig#DEFAULT_MAX_HEDGED_ATTEMPTS}.
         *
         * @param maxHedgedAttempts at least 1 (checked by {@link #build()})
         * @return this builder
         */
        public Builder maxHedgedAttempts(int maxHedgedAttempts) {
            this.maxHedgedAttempts = maxHedgedAttempts;
            return this;
        }

        /**
         * Validates and builds the config.
         *
         * @return the config
         * @throws IllegalArgumentException if the delay is not positive, the percentile is outside
         *     {@code (0, 100)} and not 0, or {@code maxHedgedAttempts} is below 1
         */
        public HedgingConfig build() {
            if (delay.isZero() || delay.isNegative()) {
                throw new IllegalArgumentException("hedging delay must be positive but was " + delay);
            }
            if (!(percentile == 0 || percentile > 0 && percentile < 100)) {
                throw new IllegalArgumentException(
                        "delayPercentile must be > 0 and < 100 (or 0 for a fixed delay)" + " but was " + percentile);
            }
            if (maxHedgedAttempts < 1) {
                throw new IllegalArgumentException("maxHedgedAttempts must be >= 1 but was " + maxHedgedAttempts);
            }
            return new HedgingConfig(this);
        }
    }
}
