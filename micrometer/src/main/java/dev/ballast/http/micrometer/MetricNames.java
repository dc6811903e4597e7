package dev.ballast.http.micrometer;

/**
 * The names and tags of every meter {@link HttpClientMetrics} publishes: the one place they are
 * spelled. Every meter carries the {@value #DEPENDENCY_TAG} tag (the dependency key, for example
 * {@code https://api.example.com:443}) and the tags given to {@link HttpClientMetrics#create(Iterable)}.
 *
 * <p>The names follow resilience4j-micrometer's ({@code TaggedCircuitBreakerMetrics},
 * {@code TaggedRetryMetrics}, {@code TaggedBulkheadMetrics}) under the prefix {@value #PREFIX}:
 * where a meter means what resilience4j's means, its name is resilience4j's with
 * {@code resilience4j} replaced by {@code ballast.http}, its tag values are resilience4j's, and the
 * instance tag is {@value #DEPENDENCY_TAG} where resilience4j's is {@code name}. The prefix is our
 * own because the meters are Ballast's, not resilience4j's: a service that also uses resilience4j
 * would otherwise publish two meanings under one name, with different tag keys, which a Prometheus
 * registry refuses. Where Ballast has no resilience4j counterpart (the call timer's outcome, retries
 * by reason, breaker transitions, bulkhead rejections, the concurrency limit, the retry budget), the name follows the same
 * pattern.
 *
 * <table class="striped">
 *   <caption>Meters per dependency</caption>
 *   <thead><tr><th>Name</th><th>Type</th><th>Tags besides {@code dependency}</th><th>What it measures</th></tr></thead>
 *   <tbody>
 *   <tr><td>{@value #CALLS}</td><td>timer</td><td>{@value #KIND_TAG}, {@value #OUTCOME_TAG}</td>
 *       <td>logical calls ({@code send}/{@code sendAsync}) that ended with a decision, and how long
 *       each took, backoffs included</td></tr>
 *   <tr><td>{@value #ATTEMPTS}</td><td>timer</td><td>{@value #OUTCOME_TAG}</td>
 *       <td>attempts that went to the wrapped client, and how long each exchange took</td></tr>
 *   <tr><td>{@value #RETRIES}</td><td>counter</td><td>{@value #REASON_TAG}</td>
 *       <td>retries decided, by the outcome that caused them</td></tr>
 *   <tr><td>{@value #CIRCUIT_BREAKER_STATE}</td><td>gauge</td><td>{@value #STATE_TAG}</td>
 *       <td>1 for the breaker's current state, 0 for the others</td></tr>
 *   <tr><td>{@value #CIRCUIT_BREAKER_TRANSITIONS}</td><td>counter</td><td>{@value #FROM_TAG},
 *       {@value #TO_TAG}</td><td>breaker state transitions</td></tr>
 *   <tr><td>{@value #CIRCUIT_BREAKER_NOT_PERMITTED_CALLS}</td><td>function counter</td><td>—</td>
 *       <td>attempts the open breaker rejected</td></tr>
 *   <tr><td>{@value #BULKHEAD_AVAILABLE_CONCURRENT_CALLS}</td><td>gauge</td><td>—</td>
 *       <td>bulkhead permits not held</td></tr>
 *   <tr><td>{@value #BULKHEAD_MAX_ALLOWED_CONCURRENT_CALLS}</td><td>gauge</td><td>—</td>
 *       <td>the bulkhead's size</td></tr>
 *   <tr><td>{@value #BULKHEAD_NOT_PERMITTED_CALLS}</td><td>function counter</td><td>—</td>
 *       <td>attempts the full bulkhead rejected</td></tr>
 *   <tr><td>{@value #CONCURRENCY_LIMIT}</td><td>gauge</td><td>—</td>
 *       <td>the adaptive concurrency limit now (positive infinity when it is disabled)</td></tr>
 *   <tr><td>{@value #CONCURRENCY_LIMIT_IN_FLIGHT}</td><td>gauge</td><td>—</td>
 *       <td>attempts in flight now</td></tr>
 *   <tr><td>{@value #CONCURRENCY_LIMIT_NOT_PERMITTED_CALLS}</td><td>function counter</td><td>—</td>
 *       <td>attempts the concurrency limit rejected</td></tr>
 *   <tr><td>{@value #RETRY_BUDGET_TOKENS}</td><td>gauge</td><td>—</td>
 *       <td>retries the retry budget would permit now (positive infinity when it is disabled)</td></tr>
 *   </tbody>
 * </table>
 */
public final class MetricNames {

    /** The prefix of every meter name. */
    public static final String PREFIX = "ballast.http";

    /** Timer of logical calls; resilience4j's {@code resilience4j.retry.calls}, timed. */
    public static final String CALLS = PREFIX + ".calls";
    /**
     * Timer of attempts sent; resilience4j's {@code resilience4j.circuitbreaker.calls} by outcome, where
     * its {@code kind} {@code successful} is {@code success}, {@code failed} is {@code transient},
     * {@code throttled} or {@code ambiguous}, and {@code ignored} is {@code permanent}.
     */
    public static final String ATTEMPTS = PREFIX + ".attempts";
    /** Counter of retries decided, by reason. */
    public static final String RETRIES = PREFIX + ".retries";
    /** Gauge per breaker state, 1 for the current one; as resilience4j's. */
    public static final String CIRCUIT_BREAKER_STATE = PREFIX + ".circuitbreaker.state";
    /** Counter of breaker state transitions. */
    public static final String CIRCUIT_BREAKER_TRANSITIONS = PREFIX + ".circuitbreaker.transitions";
    /** Function counter of attempts rejected by the open breaker; as resilience4j's. */
    public static final String CIRCUIT_BREAKER_NOT_PERMITTED_CALLS = PREFIX + ".circuitbreaker.not.permitted.calls";
    /** Gauge of free bulkhead permits; as resilience4j's. Positive infinity with no fixed bulkhead (the default). */
    public static final String BULKHEAD_AVAILABLE_CONCURRENT_CALLS = PREFIX + ".bulkhead.available.concurrent.calls";
    /** Gauge of the bulkhead's size; as resilience4j's. Positive infinity with no fixed bulkhead (the default). */
    public static final String BULKHEAD_MAX_ALLOWED_CONCURRENT_CALLS =
            PREFIX + ".bulkhead.max.allowed.concurrent.calls";
    /** Function counter of attempts rejected by the full bulkhead. */
    public static final String BULKHEAD_NOT_PERMITTED_CALLS = PREFIX + ".bulkhead.not.permitted.calls";
    /**
     * Gauge of the adaptive concurrency limit; as Netflix concurrency-limits' {@code limit} gauge. Positive
     * infinity when the limit is disabled.
     */
    public static final String CONCURRENCY_LIMIT = PREFIX + ".concurrency.limit";
    /** Gauge of the attempts in flight, which the concurrency limit bounds. */
    public static final String CONCURRENCY_LIMIT_IN_FLIGHT = PREFIX + ".concurrency.limit.in.flight";
    /** Function counter of attempts rejected by the concurrency limit. */
    public static final String CONCURRENCY_LIMIT_NOT_PERMITTED_CALLS =
            PREFIX + ".concurrency.limit.not.permitted.calls";
    /** Gauge of the retries the retry budget would permit now. */
    public static final String RETRY_BUDGET_TOKENS = PREFIX + ".retry.budget.tokens";

    /** The dependency key, on every meter. */
    public static final String DEPENDENCY_TAG = "dependency";
    /**
     * On {@value #CALLS}: {@value #SUCCESSFUL_WITHOUT_RETRY}, {@value #SUCCESSFUL_WITH_RETRY},
     * {@value #FAILED_WITHOUT_RETRY} or {@value #FAILED_WITH_RETRY}, as resilience4j's retry.
     */
    public static final String KIND_TAG = "kind";
    /**
     * On {@value #CALLS} and {@value #ATTEMPTS}: the classification of the (last) attempt in lower case,
     * {@code success}, {@code transient}, {@code throttled}, {@code ambiguous} or {@code permanent}; on
     * {@value #CALLS} also {@value #REJECTED} for a call whose last attempt the breaker or the bulkhead
     * rejected.
     */
    public static final String OUTCOME_TAG = "outcome";
    /** On {@value #RETRIES}: the outcome that was retried, {@code transient}, {@code throttled} or {@code ambiguous}. */
    public static final String REASON_TAG = "reason";
    /** On {@value #CIRCUIT_BREAKER_STATE}: {@code closed}, {@code open} or {@code half_open}. */
    public static final String STATE_TAG = "state";
    /** On {@value #CIRCUIT_BREAKER_TRANSITIONS}: the state left. */
    public static final String FROM_TAG = "from";
    /** On {@value #CIRCUIT_BREAKER_TRANSITIONS}: the state entered. */
    public static final String TO_TAG = "to";

    /** A call that succeeded on its first attempt. */
    public static final String SUCCESSFUL_WITHOUT_RETRY = "successful_without_retry";
    /** A call that succeeded after at least one retry. */
    public static final String SUCCESSFUL_WITH_RETRY = "successful_with_retry";
    /** A call that ended otherwise on its first attempt: not retryable, or rejected. */
    public static final String FAILED_WITHOUT_RETRY = "failed_without_retry";
    /** A call that ended otherwise after at least one retry. */
    public static final String FAILED_WITH_RETRY = "failed_with_retry";
    /** The {@value #OUTCOME_TAG} of a call whose last attempt was rejected without a network call. */
    public static final String REJECTED = "rejected";

    private MetricNames() {}
}
