package dev.ballast.http.limit;

import java.time.Duration;
import java.util.Objects;

/**
 * How a dependency's adaptive concurrency limit sizes itself: the most attempts it lets be in flight
 * at once, learned from the dependency's latency. On by default for every dependency
 * ({@link #ofDefaults()}); {@link #disabled()} turns it off. Immutable and thread-safe.
 *
 * <h2>The algorithm</h2>
 * Every attempt that succeeds is a sample: its latency to the response headers (the body's
 * transfer, which the caller paces, is not counted) and the number of attempts in flight when it
 * started. An attempt our own attempt timeout cut is a sample of its elapsed time. Error answers (a
 * fast 503, a 404) have latencies of their own and failures without an answer say nothing about
 * queueing: neither is a sample. Samples are
 * gathered in windows; a window closes once it is at least {@link #window()} long and holds at least
 * {@link #minWindowSamples()} samples, and then, with {@code m} the window's median latency,
 * {@code n} the mean number in flight its samples saw, {@code b} the no-load latency estimate,
 * {@code q = m / b} and {@code τ} the {@link #latencyTolerance()}:
 * <ul>
 *   <li><b>The first window</b> only sets {@code b = m}.
 *   <li><b>Queueing</b> ({@code q > τ}): the limit comes down to the concurrency that, by Little's
 *       law, would have kept the median at {@code τ·b}: {@code limit = max(minLimit, min(limit, n·τ/q))}.
 *       The dependency serves {@code n/m} calls a second; at latency {@code τ·b} that rate needs
 *       {@code n·τ·b/m} calls in flight, and more only wait in its queue.
 *   <li><b>Latency holds</b> ({@code q ≤ τ}): the limit grows. If the window's calls came near the
 *       limit (at least half of it in flight at once): by half when the median shows no queue at all
 *       ({@code q ≤ (1+τ)/2}, the "aggressive increase" of TCP Vegas), otherwise by
 *       {@code √limit}, Envoy's headroom, probing for capacity. If they did not, nothing constrains
 *       the calls and the limit doubles, relaxing back towards {@link #maxLimit()}.
 *   <li>The limit never leaves {@code [minLimit, maxLimit]}.
 * </ul>
 * Windows close only on samples, so idle time is judged at admission: a window that passed without
 * enough samples to close, while fewer than half the limit were in flight and no attempt waited, is
 * a quiet one, and the limit doubles for each quiet window since the last window closed (the current
 * one not counted), relaxing back towards {@link #maxLimit()}: a dependency that queued once and has
 * been idle since does not keep the low limit of that burst.
 *
 * <h2>Over the limit</h2>
 * An attempt that finds the limit reached waits for a place, as Netflix's {@code BlockingLimiter}
 * makes a client wait: in arrival order (a freed place goes to the longest waiter, never to a
 * newcomer; a limit that grows hands its new places to the waiters), {@code send} parked and
 * {@code sendAsync} holding no thread, for at most {@link #maxWaitDuration()} and never beyond what
 * is left of the call's total timeout. Only a wait that runs out is refused, with
 * {@link dev.ballast.http.ConcurrencyLimitExceededException}; at most {@link #maxWaitingCalls()}
 * attempts wait at once, and one more is refused without waiting.
 * The no-load estimate {@code b} follows faster medians at once (half-way each window), slower
 * ones slowly: an eighth of the way while latency holds, a sixty-fourth while the dependency
 * queues, so that an overload does not become the new normal (the drift Netflix's Gradient2 corrects
 * for) yet a dependency whose latency truly rose is re-learned within minutes.
 *
 * <p>The median, rather than Gradient2's mean, keeps one slow download or a few timeouts from
 * looking like a queue; windows of a second and at least ten samples are Netflix's
 * {@code WindowedLimit} defaults. Unlike Envoy's filter, no window pins the concurrency low to
 * measure the no-load latency, since that would refuse calls to a healthy dependency.
 *
 * <h2>Why the defaults</h2>
 * A drop-in replacement must not fail calls that {@code HttpClient} would complete against a
 * healthy dependency, and a dependency with no history has given no evidence of queueing: so the
 * limit starts at its ceiling, {@value #DEFAULT_INITIAL_LIMIT}, and a burst of thousands of calls
 * to a new dependency (2,000 virtual threads at once, a fan-out of 100 over HTTP/2) goes through.
 * The first window in which the median more than doubles brings it down to what the dependency
 * serves; it never goes below {@value #DEFAULT_MIN_LIMIT} (Netflix Gradient2's floor), so a caller
 * with fewer calls in flight than that never waits. A burst larger than a lowered limit waits rather
 * than fails: {@link #DEFAULT_MAX_WAIT_DURATION 2 s} lets 500 calls drain from a dependency serving 400
 * a second, and bounds the latency a sustained overload adds.
 *
 * <p>Sources: Netflix concurrency-limits ({@code VegasLimit}, {@code Gradient2Limit},
 * {@code AIMDLimit}, {@code WindowedLimit}) and the blog post "Performance Under Load" (2018);
 * Envoy's adaptive concurrency filter (gradient controller); TCP Vegas (Brakmo and Peterson, 1994).
 * Ballast's rules are its own; none of their code is used.
 *
 * @see dev.ballast.http.DependencyConfig.Builder#concurrencyLimit(ConcurrencyLimitConfig)
 * @see dev.ballast.http.ConcurrencyLimitExceededException
 */
public final class ConcurrencyLimitConfig {

    /** Default of {@link #minLimit()}: {@value}, Netflix Gradient2's default floor. */
    public static final int DEFAULT_MIN_LIMIT = 20;
    /** Default of {@link #maxLimit()}: {@value}. */
    public static final int DEFAULT_MAX_LIMIT = 10_000;
    /** Default of {@link #initialLimit()}: {@value}, the ceiling: no limit before evidence of queueing. */
    public static final int DEFAULT_INITIAL_LIMIT = DEFAULT_MAX_LIMIT;
    /** Default of {@link #latencyTolerance()}: {@value}, the median may double before the limit comes down. */
    public static final double DEFAULT_LATENCY_TOLERANCE = 2.0;
    /** Default of {@link #window()}: 1 s. */
    public static final Duration DEFAULT_WINDOW = Duration.ofSeconds(1);
    /** Default of {@link #minWindowSamples()}: {@value}. */
    public static final int DEFAULT_MIN_WINDOW_SAMPLES = 10;
    /**
     * Default of {@link #maxWaitDuration()}: 2 s. A burst of 500 calls over a limit of 20 drains in
     * about 1.3 s from a dependency serving 400 calls a second, so it completes; under a sustained
     * overload no call waits longer, so the latency of the calls that are sent stays within about 2 s
     * plus what the limit allows (2.8 s p99 at twice the capacity in the benchmark of
     * docs/http-client.md, against 6.5 s without a limit). The call's total timeout caps the wait too.
     */
    public static final Duration DEFAULT_MAX_WAIT_DURATION = Duration.ofSeconds(2);
    /** Default of {@link #maxWaitingCalls()}: {@value}, as many as the default ceiling of the limit. */
    public static final int DEFAULT_MAX_WAITING_CALLS = 10_000;

    /** The shortest {@link #window()} accepted: 10 ms. */
    public static final Duration MIN_WINDOW = Duration.ofMillis(10);
    /** The longest {@link #window()} accepted: 1 min. */
    public static final Duration MAX_WINDOW = Duration.ofMinutes(1);
    /** The largest {@link #latencyTolerance()} accepted: {@value}. */
    public static final double MAX_LATENCY_TOLERANCE = 100.0;
    /** The largest {@link #minWindowSamples()} accepted: {@value}. */
    public static final int MAX_MIN_WINDOW_SAMPLES = 1000;

    private static final ConcurrencyLimitConfig DEFAULTS = new Builder().build();
    private static final ConcurrencyLimitConfig DISABLED = new ConcurrencyLimitConfig(new Builder(), false);

    private final int initialLimit;
    private final int minLimit;
    private final int maxLimit;
    private final double latencyTolerance;
    private final Duration window;
    private final int minWindowSamples;
    private final Duration maxWaitDuration;
    private final int maxWaitingCalls;
    private final boolean enabled;

    private ConcurrencyLimitConfig(Builder builder, boolean enabled) {
        this.initialLimit = builder.initialLimit;
        this.minLimit = builder.minLimit;
        this.maxLimit = builder.maxLimit;
        this.latencyTolerance = builder.latencyTolerance;
        this.window = builder.window;
        this.minWindowSamples = builder.minWindowSamples;
        this.maxWaitDuration = builder.maxWaitDuration;
        this.maxWaitingCalls = builder.maxWaitingCalls;
        this.enabled = enabled;
    }

    /**
     * Returns the defaults: limit starting at {@value #DEFAULT_INITIAL_LIMIT}, within
     * [{@value #DEFAULT_MIN_LIMIT}, {@value #DEFAULT_MAX_LIMIT}], tolerance
     * {@value #DEFAULT_LATENCY_TOLERANCE}, windows of 1 s and at least {@value #DEFAULT_MIN_WINDOW_SAMPLES}
     * samples, waits of up to 2 s for a place with at most {@value #DEFAULT_MAX_WAITING_CALLS} waiting.
     *
     * @return the default configuration
     */
    public static ConcurrencyLimitConfig ofDefaults() {
        return DEFAULTS;
    }

    /**
     * Returns the configuration of no limit: any number of attempts may be in flight, and no latency
     * is sampled. A fixed {@link dev.ballast.http.bulkhead.BulkheadConfig bulkhead} still applies if
     * one is configured.
     *
     * @return the disabled configuration
     */
    public static ConcurrencyLimitConfig disabled() {
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
     * Returns a builder starting from this configuration's values (an enabled limit, even if this one is
     * {@link #disabled()}).
     *
     * @return a new builder
     */
    public Builder toBuilder() {
        return new Builder()
                .initialLimit(initialLimit)
                .minLimit(minLimit)
                .maxLimit(maxLimit)
                .maxWaitDuration(maxWaitDuration)
                .maxWaitingCalls(maxWaitingCalls)
                .latencyTolerance(latencyTolerance)
                .window(window)
                .minWindowSamples(minWindowSamples);
    }

    /**
     * Tells whether the limit applies at all.
     *
     * @return {@code false} only for {@link #disabled()}
     */
    public boolean enabled() {
        return enabled;
    }

    /**
     * Returns the limit a dependency starts with, before any window has closed. Default
     * {@value #DEFAULT_INITIAL_LIMIT}.
     *
     * @return the initial limit; in {@code [minLimit, maxLimit]}
     */
    public int initialLimit() {
        return initialLimit;
    }

    /**
     * Returns the floor of the limit. Default {@value #DEFAULT_MIN_LIMIT}.
     *
     * @return the floor; at least 1
     */
    public int minLimit() {
        return minLimit;
    }

    /**
     * Returns the ceiling of the limit. Default {@value #DEFAULT_MAX_LIMIT}.
     *
     * @return the ceiling; at least {@link #minLimit()}
     */
    public int maxLimit() {
        return maxLimit;
    }

    /**
     * Returns how many times the no-load latency a window's median may reach before the limit comes
     * down. Default {@value #DEFAULT_LATENCY_TOLERANCE}.
     *
     * @return the tolerance; in {@code (1, 100]}
     */
    public double latencyTolerance() {
        return latencyTolerance;
    }

    /**
     * Returns the shortest sampling window: the limit changes at most once per window. Default 1 s.
     *
     * @return the window; in {@code [10 ms, 1 min]}
     */
    public Duration window() {
        return window;
    }

    /**
     * Returns the fewest samples a window needs before it closes. Default
     * {@value #DEFAULT_MIN_WINDOW_SAMPLES}.
     *
     * @return the minimum; in {@code [1, 1000]}
     */
    public int minWindowSamples() {
        return minWindowSamples;
    }

    /**
     * Returns how long an attempt that finds the limit reached waits for a place (in FIFO order) before
     * it is refused with {@link dev.ballast.http.ConcurrencyLimitExceededException}; what is left of the
     * call's total timeout caps the wait too. {@link Duration#ZERO} refuses at once.
     *
     * @return the longest wait; not negative
     */
    public Duration maxWaitDuration() {
        return maxWaitDuration;
    }

    /**
     * Returns how many attempts may wait for a place at once; one more is refused at once. Bounds the
     * state a dependency keeps.
     *
     * @return at least 0
     */
    public int maxWaitingCalls() {
        return maxWaitingCalls;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConcurrencyLimitConfig other
                && initialLimit == other.initialLimit
                && minLimit == other.minLimit
                && maxLimit == other.maxLimit
                && Double.compare(latencyTolerance, other.latencyTolerance) == 0
                && window.equals(other.window)
                && minWindowSamples == other.minWindowSamples
                && maxWaitDuration.equals(other.maxWaitDuration)
                && maxWaitingCalls == other.maxWaitingCalls
                && enabled == other.enabled;
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                initialLimit,
                minLimit,
                maxLimit,
                latencyTolerance,
                window,
                minWindowSamples,
                maxWaitDuration,
                maxWaitingCalls,
                enabled);
    }

    @Override
    public String toString() {
        return enabled
                ? "ConcurrencyLimitConfig[initialLimit=" + initialLimit + ", minLimit=" + minLimit + ", maxLimit="
                        + maxLimit + ", latencyTolerance=" + latencyTolerance + ", window=" + window
                        + ", minWindowSamples=" + minWindowSamples + ", maxWaitDuration=" + maxWaitDuration
                        + ", maxWaitingCalls=" + maxWaitingCalls + "]"
                : "ConcurrencyLimitConfig[disabled]";
    }

    /** Builds a {@link ConcurrencyLimitConfig}. Not thread-safe; validated in {@link #build()}. */
    public static final class Builder {

        private int initialLimit = DEFAULT_INITIAL_LIMIT;
        private int minLimit = DEFAULT_MIN_LIMIT;
        private int maxLimit = DEFAULT_MAX_LIMIT;
        private double latencyTolerance = DEFAULT_LATENCY_TOLERANCE;
        private Duration window = DEFAULT_WINDOW;
        private int minWindowSamples = DEFAULT_MIN_WINDOW_SAMPLES;
        private Duration maxWaitDuration = DEFAULT_MAX_WAIT_DURATION;
        private int maxWaitingCalls = DEFAULT_MAX_WAITING_CALLS;

        private Builder() {}

        /**
         * Sets the limit a dependency starts with. Default {@value ConcurrencyLimitConfig#DEFAULT_INITIAL_LIMIT}.
         *
         * @param initialLimit in {@code [minLimit, maxLimit]} (checked by {@link #build()})
         * @return this builder
         */
        public Builder initialLimit(int initialLimit) {
            this.initialLimit = initialLimit;
            return this;
        }

        /**
         * Sets the floor of the limit. Default {@value ConcurrencyLimitConfig#DEFAULT_MIN_LIMIT}.
         *
         * @param minLimit at least 1 (checked by {@link #build()})
         * @return this builder
         */
        public Builder minLimit(int minLimit) {
            this.minLimit = minLimit;
            return this;
        }

        /**
         * Sets the ceiling of the limit. Default {@value ConcurrencyLimitConfig#DEFAULT_MAX_LIMIT}.
         *
         * @param maxLimit at least {@code minLimit} (checked by {@link #build()})
         * @return this builder
         */
        public Builder maxLimit(int maxLimit) {
            this.maxLimit = maxLimit;
            return this;
        }

        /**
         * Sets how many times the no-load latency the median may reach before the limit comes down.
         * Default {@value ConcurrencyLimitConfig#DEFAULT_LATENCY_TOLERANCE}.
         *
         * @param latencyTolerance in {@code (1, 100]} (checked by {@link #build()})
         * @return this builder
         */
        public Builder latencyTolerance(double latencyTolerance) {
            this.latencyTolerance = latencyTolerance;
            return this;
        }

        /**
         * Sets the shortest sampling window. Default 1 s.
         *
         * @param window in {@code [10 ms, 1 min]} (checked by {@link #build()})
         * @return this builder
         * @throws NullPointerException if {@code window} is {@code null}
         */
        public Builder window(Duration window) {
            this.window = Objects.requireNonNull(window, "window");
            return this;
        }

        /**
         * Sets the fewest samples a window needs. Default
         * {@value ConcurrencyLimitConfig#DEFAULT_MIN_WINDOW_SAMPLES}.
         *
         * @param minWindowSamples in {@code [1, 1000]} (checked by {@link #build()})
         * @return this builder
         */
        public Builder minWindowSamples(int minWindowSamples) {
            this.minWindowSamples = minWindowSamples;
            return this;
        }

        /**
         * Sets how long an attempt waits for a place when the limit is reached. Default 2 s.
         *
         * @param maxWaitDuration not negative (checked by {@link #build()}); {@link Duration#ZERO}
         *                        refuses at once
         * @return this builder
         * @throws NullPointerException if {@code maxWaitDuration} is {@code null}
         */
        public Builder maxWaitDuration(Duration maxWaitDuration) {
            this.maxWaitDuration = Objects.requireNonNull(maxWaitDuration, "maxWaitDuration");
            return this;
        }

        /**
         * Sets how many attempts may wait for a place at once. Default
         * {@value ConcurrencyLimitConfig#DEFAULT_MAX_WAITING_CALLS}.
         *
         * @param maxWaitingCalls at least 0 (checked by {@link #build()})
         * @return this builder
         */
        public Builder maxWaitingCalls(int maxWaitingCalls) {
            this.maxWaitingCalls = maxWaitingCalls;
            return this;
        }

        /**
         * Validates and builds the configuration.
         *
         * @return the configuration
         * @throws IllegalArgumentException if an option is outside its documented range
         */
        public ConcurrencyLimitConfig build() {
            if (minLimit < 1) {
                throw new IllegalArgumentException("minLimit must be >= 1 but was " + minLimit);
            }
            if (maxLimit < minLimit) {
                throw new IllegalArgumentException(
                        "maxLimit must be >= minLimit (" + minLimit + ") but was " + maxLimit);
            }
            if (initialLimit < minLimit || initialLimit > maxLimit) {
                throw new IllegalArgumentException("initialLimit must be >= minLimit (" + minLimit
                        + ") and <= maxLimit (" + maxLimit + ") but was " + initialLimit);
            }
            if (!(latencyTolerance > 1.0 && latencyTolerance <= MAX_LATENCY_TOLERANCE)) {
                throw new IllegalArgumentException("latencyTolerance must be > 1 and <= " + MAX_LATENCY_TOLERANCE
                        + " but was " + latencyTolerance);
            }
            if (window.compareTo(MIN_WINDOW) < 0 || window.compareTo(MAX_WINDOW) > 0) {
                throw new IllegalArgumentException(
                        "window must be >= " + MIN_WINDOW + " and <= " + MAX_WINDOW + " but was " + window);
            }
            if (minWindowSamples < 1 || minWindowSamples > MAX_MIN_WINDOW_SAMPLES) {
                throw new IllegalArgumentException("minWindowSamples must be >= 1 and <= " + MAX_MIN_WINDOW_SAMPLES
                        + " but was " + minWindowSamples);
            }
            if (maxWaitDuration.isNegative()) {
                throw new IllegalArgumentException("maxWaitDuration must be >= 0 but was " + maxWaitDuration);
            }
            if (maxWaitingCalls < 0) {
                throw new IllegalArgumentException("maxWaitingCalls must be >= 0 but was " + maxWaitingCalls);
            }
            return new ConcurrencyLimitConfig(this, true);
        }
    }
}
