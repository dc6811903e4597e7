package dev.ballast.http;

import dev.ballast.http.breaker.BreakerConfig;
import dev.ballast.http.budget.RetryBudgetConfig;
import dev.ballast.http.bulkhead.BulkheadConfig;
import java.util.Objects;

/**
 * The isolation settings of one dependency: its circuit breaker, its bulkhead and its retry budget.
 * Each dependency (by default one per {@code scheme://host:port}) gets its own breaker, bulkhead and
 * budget built from the policy registered for it with
 * {@link ResilientHttpClient.Builder#dependency(String, DependencyPolicy)}, or from
 * {@link ResilientHttpClient.Builder#defaultPolicy(DependencyPolicy)} otherwise. Isolation is per
 * dependency, never per client or per page, so one slow or dead dependency cannot use up the
 * capacity of another.
 *
 * <p>Immutable and thread-safe. Builders are not thread-safe.
 *
 * @see BreakerConfig
 * @see BulkheadConfig
 * @see RetryBudgetConfig
 */
public final class DependencyPolicy {

    private static final DependencyPolicy DEFAULTS = builder().build();

    private final BreakerConfig breaker;
    private final BulkheadConfig bulkhead;
    private final RetryBudgetConfig retryBudget;

    private DependencyPolicy(Builder builder) {
        this.breaker = builder.breaker;
        this.bulkhead = builder.bulkhead;
        this.retryBudget = builder.retryBudget;
    }

    /**
     * Returns the default policy: {@link BreakerConfig#ofDefaults()}, {@link BulkheadConfig#ofDefaults()}
     * and {@link RetryBudgetConfig#ofDefaults()}.
     *
     * @return the default policy
     */
    public static DependencyPolicy ofDefaults() {
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
     * Returns a builder starting from this policy's values.
     *
     * @return a new builder
     */
    public Builder toBuilder() {
        return new Builder().breaker(breaker).bulkhead(bulkhead).retryBudget(retryBudget);
    }

    /**
     * Returns the circuit breaker settings.
     *
     * @return the breaker config, never null
     */
    public BreakerConfig breaker() {
        return breaker;
    }

    /**
     * Returns the bulkhead settings.
     *
     * @return the bulkhead config, never null
     */
    public BulkheadConfig bulkhead() {
        return bulkhead;
    }

    /**
     * Returns the retry budget settings.
     *
     * @return the retry budget config, never null
     */
    public RetryBudgetConfig retryBudget() {
        return retryBudget;
    }

    @Override
    public String toString() {
        return "DependencyPolicy[breaker=" + breaker + ", bulkhead=" + bulkhead + ", retryBudget=" + retryBudget + "]";
    }

    /** Builds a {@link DependencyPolicy}. Not thread-safe. */
    public static final class Builder {

        private BreakerConfig breaker = BreakerConfig.ofDefaults();
        private BulkheadConfig bulkhead = BulkheadConfig.ofDefaults();
        private RetryBudgetConfig retryBudget = RetryBudgetConfig.ofDefaults();

        private Builder() {
        }

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
         * Sets the bulkhead settings. If not set, {@link BulkheadConfig#ofDefaults()}.
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
         * Builds the policy.
         *
         * @return a new immutable policy
         */
        public DependencyPolicy build() {
            return new DependencyPolicy(this);
        }
    }
}
