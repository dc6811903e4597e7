package dev.ballast.http.breaker;

import java.time.Duration;
import java.util.Objects;

/**
 * When a dependency's circuit breaker opens, how long it stays open and how it probes its way back.
 * Immutable and thread-safe.
 *
 * <p>A CLOSED breaker keeps the outcomes of the last {@link #slidingWindowSize()} calls (a
 * count-based sliding window), each a success or a failure and each slow or not: slow when it took
 * longer than {@link #slowCallDurationThreshold()}. It opens when
 * <ul>
 *   <li>at least {@link #minimumNumberOfCalls()} calls are recorded and the failure rate
 *       ({@code failures / recorded * 100}) is at or above {@link #failureRateThreshold()}, or</li>
 *   <li>at least {@link #minimumNumberOfCalls()} calls are recorded and the slow-call rate
 *       ({@code slow calls / recorded * 100}, successes and failures alike) is at or above
 *       {@link #slowCallRateThreshold()}: a dependency that answers 200 in 20 s is as unusable as one
 *       that answers 503 (resilience4j's slow-call rule, with its names and defaults), or</li>
 *   <li>{@link #consecutiveFailureThreshold()} calls in a row failed (0 disables this rule).</li>
 * </ul>
 * A call here is one attempt, timed from sending the request until its response is decided (for a
 * handler that streams the body, until the headers; otherwise until the body is read). Answers that
 * are neither a success nor a failure (a 404, a 409) are not recorded, slow or not. A 429 Too Many
 * Requests is a failure by default ({@link #throttlingIsFailure()}).
 * It then stays OPEN for {@link #waitDurationInOpenState()}, varied by up to
 * &plusmn;{@link #openStateJitter()} so that the breakers of many clients do not probe a recovering
 * dependency at the same instant, and turns HALF_OPEN: {@link #permittedNumberOfCallsInHalfOpenState()}
 * probes are admitted; that many successes close it, a single failure opens it again, and so do
 * successes of which too many were slow (the slow-call rate over the probes). Probes that do
 * not report within {@link #maxWaitDurationInHalfOpenState()} are taken as failed, so a lost probe can
 * never leave the breaker stuck half-open.
 */
public final class BreakerConfig {

    /** Default of {@link #failureRateThreshold()}: {@value} percent. */
    public static final double DEFAULT_FAILURE_RATE_THRESHOLD = 50.0;
    /** Default of {@link #slidingWindowSize()}: the last {@value} calls. */
    public static final int DEFAULT_SLIDING_WINDOW_SIZE = 20;
    /** Default of {@link #minimumNumberOfCalls()}: {@value} calls. */
    public static final int DEFAULT_MINIMUM_NUMBER_OF_CALLS = 10;
    /** Default of {@link #consecutiveFailureThreshold()}: {@value} failures in a row. */
    public static final int DEFAULT_CONSECUTIVE_FAILURE_THRESHOLD = 5;
    /** Default of {@link #slowCallRateThreshold()}: {@value} percent, as resilience4j. */
    public static final double DEFAULT_SLOW_CALL_RATE_THRESHOLD = 100.0;
    /**
     * Default of {@link #slowCallDurationThreshold()}: 60 s, as resilience4j. Above the default attempt
     * timeout (10 s), so by default only a client with longer attempts meets a slow call.
     */
    public static final Duration DEFAULT_SLOW_CALL_DURATION_THRESHOLD = Duration.ofSeconds(60);
    /** Default of {@link #waitDurationInOpenState()}: 5 s. */
    public static final Duration DEFAULT_WAIT_DURATION_IN_OPEN_STATE = Duration.ofSeconds(5);
    /** Default of {@link #openStateJitter()}: {@value}, that is &plusmn;20%. */
    public static final double DEFAULT_OPEN_STATE_JITTER = 0.2;
    /** Default of {@link #permittedNumberOfCallsInHalfOpenState()}: {@value} probe. */
    public static final int DEFAULT_PERMITTED_NUMBER_OF_CALLS_IN_HALF_OPEN_STATE = 1;
    /** Default of {@link #maxWaitDurationInHalfOpenState()}: 60 s. */
    public static final Duration DEFAULT_MAX_WAIT_DURATION_IN_HALF_OPEN_STATE = Duration.ofSeconds(60);
    /** Default of {@link #throttlingIsFailure()}: {@value}, a 429 counts as a failure. */
    public static final boolean DEFAULT_THROTTLING_IS_FAILURE = true;

    private static final Duration MAX_DURATION = Duration.ofNanos(Long.MAX_VALUE / 2);
    private static final BreakerConfig DEFAULTS = new Builder().build();

    private final double failureRateThreshold;
    private final int slidingWindowSize;
    private final int minimumNumberOfCalls;
    private final int consecutiveFailureThreshold;
    private final double slowCallRateThreshold;
    private final Duration slowCallDurationThreshold;
    private final Duration waitDurationInOpenState;
    private final double openStateJitter;
    private final int permittedNumberOfCallsInHalfOpenState;
    private final Duration maxWaitDurationInHalfOpenState;
    private final boolean throttlingIsFailure;

    private BreakerConfig(Builder b) {
        this.failureRateThreshold = b.failureRateThreshold;
        this.slidingWindowSize = b.slidingWindowSize;
        this.minimumNumberOfCalls = b.minimumNumberOfCalls;
        this.consecutiveFailureThreshold = b.consecutiveFailureThreshold;
        this.slowCallRateThreshold = b.slowCallRateThreshold;
        this.slowCallDurationThreshold = b.slowCallDurationThreshold;
        this.waitDurationInOpenState = b.waitDurationInOpenState;
        this.openStateJitter = b.openStateJitter;
        this.permittedNumberOfCallsInHalfOpenState = b.permittedNumberOfCallsInHalfOpenState;
        this.maxWaitDurationInHalfOpenState = b.maxWaitDurationInHalfOpenState;
        this.throttlingIsFailure = b.throttlingIsFailure;
    }

    /**
     * Returns the defaults: 50% failure rate over the last 20 calls once 10 are recorded, or 5
     * consecutive failures, or 100% of them slower than 60 s; open for 5 s &plusmn;20%; 1 half-open
     * probe; lost probes given up after 60 s.
     *
     * @return the default configuration
     */
    public static BreakerConfig ofDefaults() {
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
     * Returns the failure rate, in percent of the recorded calls, at or above which a CLOSED breaker
     * opens. Default {@value #DEFAULT_FAILURE_RATE_THRESHOLD}.
     *
     * @return the threshold; in {@code (0, 100]}
     */
    public double failureRateThreshold() {
        return failureRateThreshold;
    }

    /**
     * Returns how many of the most recent calls the sliding window holds. Default
     * {@value #DEFAULT_SLIDING_WINDOW_SIZE}.
     *
     * @return the window size in calls; at least 1
     */
    public int slidingWindowSize() {
        return slidingWindowSize;
    }

    /**
     * Returns how many calls must be recorded before the failure rate is evaluated, so that one early
     * failure cannot open the breaker. Default {@value #DEFAULT_MINIMUM_NUMBER_OF_CALLS}.
     *
     * @return the minimum; in {@code [1, slidingWindowSize]}
     */
    public int minimumNumberOfCalls() {
        return minimumNumberOfCalls;
    }

    /**
     * Returns how many failures in a row open a CLOSED breaker regardless of the failure rate and of
     * {@link #minimumNumberOfCalls()}; 0 disables the rule. Default
     * {@value #DEFAULT_CONSECUTIVE_FAILURE_THRESHOLD}.
     *
     * @return the threshold; at least 0
     */
    public int consecutiveFailureThreshold() {
        return consecutiveFailureThreshold;
    }

    /**
     * Returns the slow-call rate, in percent of the recorded calls, at or above which a CLOSED breaker
     * opens (and a HALF_OPEN one opens again). Default {@value #DEFAULT_SLOW_CALL_RATE_THRESHOLD}:
     * every recorded call slow.
     *
     * @return the threshold; in {@code (0, 100]}
     */
    public double slowCallRateThreshold() {
        return slowCallRateThreshold;
    }

    /**
     * Returns how long a call may take before it counts as slow. Default 60 s.
     *
     * @return the slow-call duration threshold; positive
     */
    public Duration slowCallDurationThreshold() {
        return slowCallDurationThreshold;
    }

    /**
     * Returns how long the breaker stays OPEN before it admits half-open probes, before jitter.
     * Default 5 s.
     *
     * @return the open duration; positive
     */
    public Duration waitDurationInOpenState() {
        return waitDurationInOpenState;
    }

    /**
     * Returns the jitter of the open duration as a fraction: the actual open duration is uniform in
     * {@code [wait * (1 - jitter), wait * (1 + jitter))}. Default {@value #DEFAULT_OPEN_STATE_JITTER}
     * (&plusmn;20%).
     *
     * @return the jitter fraction; in {@code [0, 1)}
     */
    public double openStateJitter() {
        return openStateJitter;
    }

    /**
     * Returns how many probes a HALF_OPEN breaker admits, and so how many must succeed to close it.
     * Default {@value #DEFAULT_PERMITTED_NUMBER_OF_CALLS_IN_HALF_OPEN_STATE}.
     *
     * @return the number of probes; at least 1
     */
    public int permittedNumberOfCallsInHalfOpenState() {
        return permittedNumberOfCallsInHalfOpenState;
    }

    /**
     * Returns how long a HALF_OPEN breaker waits for its probes to report before it takes the missing
     * reports as failures and opens again. A safety net for probes whose permit is lost; the pipeline
     * reports an abandoned probe at once. Default 60 s.
     *
     * @return the maximum half-open wait; positive
     */
    public Duration maxWaitDurationInHalfOpenState() {
        return maxWaitDurationInHalfOpenState;
    }

    /**
     * Returns whether a throttled answer, a 429 Too Many Requests (or any status a custom
     * {@link dev.ballast.http.classify.ResponseClassifier} classifies
     * {@link dev.ballast.http.classify.Outcome#THROTTLED THROTTLED}), counts as a failure of the
     * dependency. Default {@value #DEFAULT_THROTTLING_IS_FAILURE}, following the breaker table of
     * the design notes ("Throttling signal, 429 Too Many Requests: counts, but honour Retry-After
     * first"): throttling is a genuine server-pressure signal, and the retry layer still waits at
     * least the server's {@code Retry-After} before the next attempt. {@code false} makes a 429
     * neutral, as Envoy's outlier detection treats it: for a dependency whose 429s mean one caller's
     * quota rather than its own overload, so that one exhausted quota does not open the breaker for
     * every call. A 409 Conflict to a request carrying an idempotency key (also throttled: the key is
     * still being processed) is never a failure: it is a state of that key, not of the dependency.
     *
     * @return whether a throttled answer is a breaker failure
     */
    public boolean throttlingIsFailure() {
        return throttlingIsFailure;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BreakerConfig other
                && Double.compare(failureRateThreshold, other.failureRateThreshold) == 0
                && slidingWindowSize == other.slidingWindowSize
                && minimumNumberOfCalls == other.minimumNumberOfCalls
                && consecutiveFailureThreshold == other.consecutiveFailureThreshold
                && Double.compare(slowCallRateThreshold, other.slowCallRateThreshold) == 0
                && slowCallDurationThreshold.equals(other.slowCallDurationThreshold)
                && waitDurationInOpenState.equals(other.waitDurationInOpenState)
                && Double.compare(openStateJitter, other.openStateJitter) == 0
                && permittedNumberOfCallsInHalfOpenState == other.permittedNumberOfCallsInHalfOpenState
                && maxWaitDurationInHalfOpenState.equals(other.maxWaitDurationInHalfOpenState)
                && throttlingIsFailure == other.throttlingIsFailure;
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                failureRateThreshold,
                slidingWindowSize,
                minimumNumberOfCalls,
                consecutiveFailureThreshold,
                slowCallRateThreshold,
                slowCallDurationThreshold,
                waitDurationInOpenState,
                openStateJitter,
                permittedNumberOfCallsInHalfOpenState,
                maxWaitDurationInHalfOpenState,
                throttlingIsFailure);
    }

    /**
     * Describes this configuration, for logs.
     *
     * @return a description naming every option
     */
    @Override
    public String toString() {
        return "BreakerConfig[failureRateThreshold=" + failureRateThreshold
                + ", slidingWindowSize=" + slidingWindowSize
                + ", minimumNumberOfCalls=" + minimumNumberOfCalls
                + ", consecutiveFailureThreshold=" + consecutiveFailureThreshold
                + ", slowCallRateThreshold=" + slowCallRateThreshold
                + ", slowCallDurationThreshold=" + slowCallDurationThreshold
                + ", waitDurationInOpenState=" + waitDurationInOpenState
                + ", openStateJitter=" + openStateJitter
                + ", permittedNumberOfCallsInHalfOpenState=" + permittedNumberOfCallsInHalfOpenState
                + ", maxWaitDurationInHalfOpenState=" + maxWaitDurationInHalfOpenState
                + ", throttlingIsFailure=" + throttlingIsFailure + "]";
    }

    /** Builds a {@link BreakerConfig}. Not thread-safe; validated in {@link #build()}. */
    public static final class Builder {

        private double failureRateThreshold = DEFAULT_FAILURE_RATE_THRESHOLD;
        private int slidingWindowSize = DEFAULT_SLIDING_WINDOW_SIZE;
        private int minimumNumberOfCalls = DEFAULT_MINIMUM_NUMBER_OF_CALLS;
        private int consecutiveFailureThreshold = DEFAULT_CONSECUTIVE_FAILURE_THRESHOLD;
        private double slowCallRateThreshold = DEFAULT_SLOW_CALL_RATE_THRESHOLD;
        private Duration slowCallDurationThreshold = DEFAULT_SLOW_CALL_DURATION_THRESHOLD;
        private Duration waitDurationInOpenState = DEFAULT_WAIT_DURATION_IN_OPEN_STATE;
        private double openStateJitter = DEFAULT_OPEN_STATE_JITTER;
        private int permittedNumberOfCallsInHalfOpenState = DEFAULT_PERMITTED_NUMBER_OF_CALLS_IN_HALF_OPEN_STATE;
        private Duration maxWaitDurationInHalfOpenState = DEFAULT_MAX_WAIT_DURATION_IN_HALF_OPEN_STATE;
        private boolean throttlingIsFailure = DEFAULT_THROTTLING_IS_FAILURE;

        private Builder() {}

        private Builder(BreakerConfig c) {
            this.failureRateThreshold = c.failureRateThreshold;
            this.slidingWindowSize = c.slidingWindowSize;
            this.minimumNumberOfCalls = c.minimumNumberOfCalls;
            this.consecutiveFailureThreshold = c.consecutiveFailureThreshold;
            this.slowCallRateThreshold = c.slowCallRateThreshold;
            this.slowCallDurationThreshold = c.slowCallDurationThreshold;
            this.waitDurationInOpenState = c.waitDurationInOpenState;
            this.openStateJitter = c.openStateJitter;
            this.permittedNumberOfCallsInHalfOpenState = c.permittedNumberOfCallsInHalfOpenState;
            this.maxWaitDurationInHalfOpenState = c.maxWaitDurationInHalfOpenState;
            this.throttlingIsFailure = c.throttlingIsFailure;
        }

        /**
         * Sets the failure rate threshold in percent. Default
         * {@value BreakerConfig#DEFAULT_FAILURE_RATE_THRESHOLD}.
         *
         * @param percent in {@code (0, 100]} (checked by {@link #build()})
         * @return this builder
         */
        public Builder failureRateThreshold(double percent) {
            this.failureRateThreshold = percent;
            return this;
        }

        /**
         * Sets the sliding window size in calls. Default {@value BreakerConfig#DEFAULT_SLIDING_WINDOW_SIZE}.
         *
         * @param calls at least 1 (checked by {@link #build()})
         * @return this builder
         */
        public Builder slidingWindowSize(int calls) {
            this.slidingWindowSize = calls;
            return this;
        }

        /**
         * Sets the minimum number of recorded calls before the failure rate counts. Default
         * {@value BreakerConfig#DEFAULT_MINIMUM_NUMBER_OF_CALLS}.
         *
         * @param calls in {@code [1, slidingWindowSize]} (checked by {@link #build()})
         * @return this builder
         */
        public Builder minimumNumberOfCalls(int calls) {
            this.minimumNumberOfCalls = calls;
            return this;
        }

        /**
         * Sets how many consecutive failures open the breaker; 0 disables the rule. Default
         * {@value BreakerConfig#DEFAULT_CONSECUTIVE_FAILURE_THRESHOLD}.
         *
         * @param failures at least 0 (checked by {@link #build()})
         * @return this builder
         */
        public Builder consecutiveFailureThreshold(int failures) {
            this.consecutiveFailureThreshold = failures;
            return this;
        }

        /**
         * Sets the slow-call rate threshold in percent. Default
         * {@value BreakerConfig#DEFAULT_SLOW_CALL_RATE_THRESHOLD}.
         *
         * @param percent in {@code (0, 100]} (checked by {@link #build()})
         * @return this builder
         */
        public Builder slowCallRateThreshold(double percent) {
            this.slowCallRateThreshold = percent;
            return this;
        }

        /**
         * Sets how long a call may take before it counts as slow. Default 60 s. To use the slow-call
         * rule with the default attempt timeout (10 s), set it lower than that.
         *
         * @param threshold positive (checked by {@link #build()})
         * @return this builder
         * @throws NullPointerException if {@code threshold} is {@code null}
         */
        public Builder slowCallDurationThreshold(Duration threshold) {
            this.slowCallDurationThreshold = Objects.requireNonNull(threshold, "slowCallDurationThreshold");
            return this;
        }

        /**
         * Sets the open duration before jitter. Default 5 s.
         *
         * @param wait positive (checked by {@link #build()})
         * @return this builder
         * @throws NullPointerException if {@code wait} is {@code null}
         */
        public Builder waitDurationInOpenState(Duration wait) {
            this.waitDurationInOpenState = Objects.requireNonNull(wait, "waitDurationInOpenState");
            return this;
        }

        /**
         * Sets the open-duration jitter fraction; 0 disables jitter. Default
         * {@value BreakerConfig#DEFAULT_OPEN_STATE_JITTER} (&plusmn;20%).
         *
         * @param fraction in {@code [0, 1)} (checked by {@link #build()})
         * @return this builder
         */
        public Builder openStateJitter(double fraction) {
            this.openStateJitter = fraction;
            return this;
        }

        /**
         * Sets how many half-open probes are admitted and must succeed. Default
         * {@value BreakerConfig#DEFAULT_PERMITTED_NUMBER_OF_CALLS_IN_HALF_OPEN_STATE}.
         *
         * @param calls at least 1 (checked by {@link #build()})
         * @return this builder
         */
        public Builder permittedNumberOfCallsInHalfOpenState(int calls) {
            this.permittedNumberOfCallsInHalfOpenState = calls;
            return this;
        }

        /**
         * Sets how long half-open probes may stay unreported. Default 60 s.
         *
         * @param wait positive (checked by {@link #build()})
         * @return this builder
         * @throws NullPointerException if {@code wait} is {@code null}
         */
        public Builder maxWaitDurationInHalfOpenState(Duration wait) {
            this.maxWaitDurationInHalfOpenState = Objects.requireNonNull(wait, "maxWaitDurationInHalfOpenState");
            return this;
        }

        /**
         * Sets whether a throttled answer (429 Too Many Requests) counts as a failure of the
         * dependency; see {@link BreakerConfig#throttlingIsFailure()}. Default
         * {@value BreakerConfig#DEFAULT_THROTTLING_IS_FAILURE}; {@code false} makes 429 neutral for this
         * dependency's breaker (it is still retried after its {@code Retry-After}).
         *
         * @param failure whether a throttled answer is a breaker failure
         * @return this builder
         */
        public Builder throttlingIsFailure(boolean failure) {
            this.throttlingIsFailure = failure;
            return this;
        }

        /**
         * Validates and builds the configuration.
         *
         * @return the configuration
         * @throws IllegalArgumentException if an option is outside the range its setter documents, or a
         *                                  duration is longer than about 146 years
         */
        public BreakerConfig build() {
            if (!(failureRateThreshold > 0 && failureRateThreshold <= 100)) {
                throw new IllegalArgumentException(
                        "failureRateThreshold must be > 0 and <= 100 but was " + failureRateThreshold);
            }
            if (slidingWindowSize < 1) {
                throw new IllegalArgumentException("slidingWindowSize must be >= 1 but was " + slidingWindowSize);
            }
            if (minimumNumberOfCalls < 1 || minimumNumberOfCalls > slidingWindowSize) {
                throw new IllegalArgumentException("minimumNumberOfCalls must be >= 1 and <= slidingWindowSize ("
                        + slidingWindowSize + ") but was " + minimumNumberOfCalls);
            }
            if (consecutiveFailureThreshold < 0) {
                throw new IllegalArgumentException(
                        "consecutiveFailureThreshold must be >= 0 but was " + consecutiveFailureThreshold);
            }
            if (!(slowCallRateThreshold > 0 && slowCallRateThreshold <= 100)) {
                throw new IllegalArgumentException(
                        "slowCallRateThreshold must be > 0 and <= 100 but was " + slowCallRateThreshold);
            }
            requirePositive("slowCallDurationThreshold", slowCallDurationThreshold);
            requirePositive("waitDurationInOpenState", waitDurationInOpenState);
            if (!(openStateJitter >= 0 && openStateJitter < 1)) {
                throw new IllegalArgumentException("openStateJitter must be >= 0 and < 1 but was " + openStateJitter);
            }
            if (permittedNumberOfCallsInHalfOpenState < 1) {
                throw new IllegalArgumentException("permittedNumberOfCallsInHalfOpenState must be >= 1 but was "
                        + permittedNumberOfCallsInHalfOpenState);
            }
            requirePositive("maxWaitDurationInHalfOpenState", maxWaitDurationInHalfOpenState);
            return new BreakerConfig(this);
        }

        private static void requirePositive(String name, Duration value) {
            if (value.isNegative() || value.isZero() || value.compareTo(MAX_DURATION) > 0) {
                throw new IllegalArgumentException(name + " must be > 0 and <= " + MAX_DURATION + " but was " + value);
            }
        }
    }
}
