package dev.ballast.http;

import dev.ballast.http.breaker.BreakerConfig;
import dev.ballast.http.budget.RetryBudgetConfig;
import dev.ballast.http.bulkhead.BulkheadConfig;
import dev.ballast.http.hedging.HedgingConfig;
import dev.ballast.http.limit.ConcurrencyLimitConfig;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The isolation settings of one dependency: its circuit breaker, its adaptive concurrency limit, its
 * fixed bulkhead if it has one, its retry budget, and whether its calls are hedged.
 * Each dependency (by default one per {@code scheme://host:port}) gets its own breaker, limit, bulkhead and
 * budget built from the configuration registered for it with
 * {@link ResilientHttpClient.Builder#dependency(String, DependencyConfig)}, or from
 * {@link ResilientHttpClient.Builder#defaultDependency(DependencyConfig)} otherwise. Isolation is per
 * dependency, never per client or per page, so one slow or dead dependency cannot use up the
 * capacity of another.
 *
 * <p>Immutable and thread-safe. Builders are not thread-safe.
 *
 * @see BreakerConfig
 * @see ConcurrencyLimitConfig
 * @see BulkheadConfig
 * @see RetryBudgetConfig
 * @see HedgingConfig
 */
public final class DependencyConfig {

    private static final DependencyConfig DEFAULTS = builder().build();

    private final BreakerConfig breaker;
    private final BulkheadConfig bulkhead;
    private final ConcurrencyLimitConfig concurrencyLimit;
    private final RetryBudgetConfig retryBudget;
    private final @Nullable HedgingConfig hedging;

    private DependencyConfig(Builder builder) {
        this.breaker = builder.breaker;
        this.bulkhead = builder.bulkhead;
        this.concurrencyLimit = builder.concurrencyLimit;
        this.retryBudget = builder.retryBudget;
        this.hedging = builder.hedging;
    }

    /**
     * Returns the default configuration: {@link BreakerConfig#ofDefaults()},
     * {@link ConcurrencyLimitConfig#ofDefaults()}, no fixed bulkhead ({@link BulkheadConfig#disabled()}),
     * {@link RetryBudgetConfig#ofDefaults()}, no hedging.
     *
     * @return the default configuration
     */
    public static DependencyConfig ofDefaults() {
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
     * Returns a builder starting from this configuration's values.
     *
     * @return a new builder
     */
    public Builder toBuilder() {
        Builder builder = new Builder()
                .breaker(breaker)
                .bulkhead(bulkhead)
                .concurrencyLimit(concurrencyLimit)
                .retryBudget(retryBudget);
        builder.hedging = hedging;
        return builder;
    }

    /**
     * Returns the circuit breaker settings.
     *
     * @return the breaker config
     */
    public BreakerConfig breaker() {
        return breaker;
    }

    /**
     * Returns the fixed bulkhead settings.
     *
     * @return the bulkhead config; {@link BulkheadConfig#disabled()} (the default) for none
     */
    public BulkheadConfig bulkhead() {
        return bulkhead;
    }

    /**
     * Returns the adaptive concurrency limit settings.
     *
     * @return the limit's config; {@link ConcurrencyLimitConfig#ofDefaults()} unless set
     */
    public ConcurrencyLimitConfig concurrencyLimit() {
        return concurrencyLimit;
    }

    /**
     * Returns the retry budget settings.
     *
     * @return the retry budget config
     */
    public RetryBudgetConfig retryBudget() {
        return retryBudget;
    }

    /**
     * Returns the hedging settings, if this dependency's calls are hedged.
     *
     * @return the hedging config, or empty if calls are not hedged (the default)
     */
    public Optional<HedgingConfig> hedging() {
        return Optional.ofNullable(hedging);
    }

    @Override
    public String toString() {
        return "DependencyConfig[breaker=" + breaker + ", bulkhead=" + bulkhead + ", concurrencyLimit="
                + concurrencyLimit + ", retryBudget=" + retryBudget
                + (hedging == null ? "" : ", hedging=" + hedging) + "]";
    }

    /** Builds a {@link DependencyConfig}. Not thread-safe. */
    public static final class Builder {

        private BreakerConfig breaker = BreakerConfig.ofDefaults();
        private BulkheadConfig bulkhead = BulkheadConfig.disabled();
        private ConcurrencyLimitConfig concurrencyLimit = ConcurrencyLimitConfig.ofDefaults();
        private RetryBudgetConfig retryBudget = RetryBudgetConfig.ofDefaults();
        private @Nullable HedgingConfig hedging;

        private Builder() {}

        /**
         * Sets the circuit breaker settings. If not set, {@link BreakerConfig#ofDefaults()}.
         *
         * @param breaker the breaker config
         * @return this builder
         * @throws NullPointerException if {@code breaker} is null
         */
        public Builder breaker(BreakerConfig breaker) {
            this.breaker = Objects.requireNonNull(breaker, "breaker");
            return this;
        }

        /**
         * Sets a fixed bulkhead: at most {@link BulkheadConfig#maxConcurrentCalls()} attempts in flight,
         * whatever the dependency's latency. If not set, none ({@link BulkheadConfig#disabled()}): the
         * adaptive {@linkplain #concurrencyLimit(ConcurrencyLimitConfig) concurrency limit} bounds the
         * calls instead. With both, an attempt takes a bulkhead permit first (waiting for one if
         * configured), then a place under the limit.
         *
         * @param bulkhead the bulkhead config
         * @return this builder
         * @throws NullPointerException if {@code bulkhead} is null
         */
        public Builder bulkhead(BulkheadConfig bulkhead) {
            this.bulkhead = Objects.requireNonNull(bulkhead, "bulkhead");
            return this;
        }

        /**
         * Sets the adaptive concurrency limit, which grows while the dependency's latency holds and
         * comes down when it queues (see {@link ConcurrencyLimitConfig} for the algorithm). If not set,
         * {@link ConcurrencyLimitConfig#ofDefaults()}; {@link ConcurrencyLimitConfig#disabled()} turns
         * it off.
         *
         * @param concurrencyLimit the limit's config
         * @return this builder
         * @throws NullPointerException if {@code concurrencyLimit} is null
         */
        public Builder concurrencyLimit(ConcurrencyLimitConfig concurrencyLimit) {
            this.concurrencyLimit = Objects.requireNonNull(concurrencyLimit, "concurrencyLimit");
            return this;
        }

        /**
         * Sets the retry budget settings. If not set, {@link RetryBudgetConfig#ofDefaults()}.
         *
         * @param retryBudget the retry budget config
         * @return this builder
         * @throws NullPointerException if {@code retryBudget} is null
         */
        public Builder retryBudget(RetryBudgetConfig retryBudget) {
            this.retryBudget = Objects.requireNonNull(retryBudget, "retryBudget");
            return this;
        }

        /**
         * Hedges this dependency's calls (see {@link HedgingConfig}): when the first attempt has not
         * answered after the hedging delay, the request is sent again alongside it, the first good
         * answer wins and the other attempt is cancelled. Only requests that may be sent twice are
         * hedged (idempotent method or idempotency key). If not set, calls are not hedged.
         *
         * @param hedging the hedging config
         * @return this builder
         * @throws NullPointerException if {@code hedging} is null
         */
        public Builder hedging(HedgingConfig hedging) {
            this.hedging = Objects.requireNonNull(hedging, "hedging");
            return this;
        }

        /**
         * Builds the configuration.
         *
         * @return a new immutable configuration
         */
        public DependencyConfig build() {
            return new DependencyConfig(this);
        }
    }
}
