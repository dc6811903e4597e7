package dev.ballast.spring.boot;

import dev.ballast.http.idempotency.IdempotencyKeyConfig;
import dev.ballast.http.retry.Jitter;
import dev.ballast.spring.http.BallastClientHttpRequestFactory;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * The {@code ballast.http.*} properties: how the {@code ResilientHttpClient} bean is built. Each maps
 * to the builder option of the same name ({@code ResilientHttpClient.Builder}, {@code RetryConfig},
 * {@code DependencyConfig} and its parts), with the same defaults and the same validation: an invalid
 * value stops start-up with the builder's message and the property's name.
 *
 * @param connectTimeout the JDK client's connect timeout; if not set, the JDK's (none)
 * @param totalTimeout bounds a logical call, all attempts and backoffs included
 * @param attemptTimeout bounds one attempt, response headers and body
 * @param maxDependencies how many dependency keys the client keeps state for
 * @param followRedirects the JDK client's redirect policy (NEVER, ALWAYS, NORMAL); if not set, NEVER
 * @param version the JDK client's preferred HTTP version (HTTP_1_1, HTTP_2); if not set, HTTP_2
 * @param retry when and how a call is retried
 * @param idempotencyKeys which requests get an idempotency key
 * @param defaults the settings of every dependency without its own: circuit breaker, concurrency limit,
 *     bulkhead, retry budget, hedging
 * @param dependencies settings of named dependencies, keyed as {@code ResilientHttpClient.Builder.dependency(key, ...)}
 *     is: {@code scheme://host:port} (normalised the same way); in YAML, write the key in brackets,
 *     {@code "[https://payments.internal:443]"}, so that Spring keeps its dots and colons. Any setting
 *     not given here is taken from {@code defaults}.
 * @param requestFactory how RestClient and RestTemplate requests go through the client
 */
@ConfigurationProperties("ballast.http")
public record BallastHttpProperties(
        @Nullable Duration connectTimeout,
        @DefaultValue("30s") Duration totalTimeout,
        @DefaultValue("10s") Duration attemptTimeout,
        @DefaultValue("1024") int maxDependencies,
        HttpClient.@Nullable Redirect followRedirects,
        HttpClient.@Nullable Version version,
        @DefaultValue Retry retry,
        @DefaultValue IdempotencyKeys idempotencyKeys,
        @DefaultValue Dependency defaults,
        @Nullable Map<String, Dependency> dependencies,
        @DefaultValue RequestFactory requestFactory) {

    /**
     * Retry settings ({@code RetryConfig}).
     *
     * @param maxAttempts attempts in all, including the first; 1 disables retrying
     * @param maxRetryAfter the longest server {@code Retry-After} honoured; a longer one stops retrying
     * @param backoff the delay between attempts
     */
    public record Retry(
            @DefaultValue("3") int maxAttempts,
            @DefaultValue("30s") Duration maxRetryAfter,
            @DefaultValue Backoff backoff) {}

    /**
     * Capped exponential backoff ({@code Backoff.exponential}).
     *
     * @param base the delay before the first retry, doubled for each further one
     * @param cap the longest delay
     * @param jitter how each delay is randomized: FULL, EQUAL or DECORRELATED
     */
    public record Backoff(
            @DefaultValue("100ms") Duration base,
            @DefaultValue("10s") Duration cap,
            @DefaultValue("FULL") Jitter jitter) {}

    /**
     * Idempotency keys ({@code IdempotencyKeyConfig}).
     *
     * @param policy which requests get a key: NON_IDEMPOTENT_METHODS (POST, PATCH...), ALWAYS or NEVER
     * @param headerName the header that carries the key
     */
    public record IdempotencyKeys(
            @DefaultValue("NON_IDEMPOTENT_METHODS") IdempotencyKeyConfig.Policy policy,
            @DefaultValue("Idempotency-Key") String headerName) {}

    /**
     * One dependency's isolation ({@code DependencyConfig}). Every setting left out is inherited: from
     * {@code ballast.http.defaults} for a named dependency, from the library's defaults for
     * {@code defaults} itself.
     *
     * @param breaker the circuit breaker
     * @param concurrencyLimit the adaptive concurrency limit; on unless {@code enabled} is false
     * @param bulkhead a fixed bulkhead; none unless {@code max-concurrent-calls} (or {@code enabled: true})
     *     is set
     * @param retryBudget the retry budget
     * @param hedging hedged attempts; off unless a delay is set
     */
    public record Dependency(
            @DefaultValue Breaker breaker,
            @DefaultValue ConcurrencyLimit concurrencyLimit,
            @DefaultValue Bulkhead bulkhead,
            @DefaultValue RetryBudget retryBudget,
            @DefaultValue Hedging hedging) {}

    /**
     * Circuit breaker ({@code BreakerConfig}); library defaults in brackets.
     *
     * @param failureRateThreshold percent of failed calls in the window that opens it [50]
     * @param slidingWindowSize the window, in calls [20]
     * @param minimumNumberOfCalls calls in the window before the rate counts [10]
     * @param consecutiveFailureThreshold failures in a row that open it; 0 disables the rule [5]
     * @param slowCallRateThreshold percent of slow calls that opens it [100]
     * @param slowCallDurationThreshold a call slower than this is slow [60s]
     * @param waitDurationInOpenState how long it stays open before probing [5s]
     * @param openStateJitter the fraction by which the open duration is varied, in [0, 1) [0.2]
     * @param permittedNumberOfCallsInHalfOpenState probes admitted when half-open [1]
     * @param maxWaitDurationInHalfOpenState a probe not reported in this time counts as failed [60s]
     * @param throttlingIsFailure whether a 429 answer counts as a failure; false makes it neutral [true]
     */
    public record Breaker(
            @Nullable Double failureRateThreshold,
            @Nullable Integer slidingWindowSize,
            @Nullable Integer minimumNumberOfCalls,
            @Nullable Integer consecutiveFailureThreshold,
            @Nullable Double slowCallRateThreshold,
            @Nullable Duration slowCallDurationThreshold,
            @Nullable Duration waitDurationInOpenState,
            @Nullable Double openStateJitter,
            @Nullable Integer permittedNumberOfCallsInHalfOpenState,
            @Nullable Duration maxWaitDurationInHalfOpenState,
            @Nullable Boolean throttlingIsFailure) {}

    /**
     * Adaptive concurrency limit ({@code ConcurrencyLimitConfig}); library defaults in brackets. On for
     * every dependency unless {@code enabled} is false.
     *
     * @param enabled false turns the limit off: any number of attempts may be in flight [true]
     * @param initialLimit the limit before any window has closed, in [min-limit, max-limit] [max-limit,
     *     10000 by default: no limit before evidence of queueing]
     * @param minLimit the floor of the limit; at least 1 [20]
     * @param maxLimit the ceiling of the limit; at least min-limit [10000]
     * @param latencyTolerance how many times the no-load latency a window's median may reach before the
     *     limit comes down; in (1, 100] [2.0]
     * @param window the shortest sampling window, 10ms to 1m [1s]
     * @param minWindowSamples the fewest samples a window needs before it closes; 1 to 1000 [10]
     * @param maxWaitDuration how long an attempt over the limit waits for a place before it is refused;
     *     0 refuses at once [2s]
     * @param maxWaitingCalls how many attempts may wait for a place at once; one more is refused at once
     *     [10000]
     */
    public record ConcurrencyLimit(
            @Nullable Boolean enabled,
            @Nullable Integer initialLimit,
            @Nullable Integer minLimit,
            @Nullable Integer maxLimit,
            @Nullable Double latencyTolerance,
            @Nullable Duration window,
            @Nullable Integer minWindowSamples,
            @Nullable Duration maxWaitDuration,
            @Nullable Integer maxWaitingCalls) {}

    /**
     * A fixed bulkhead ({@code BulkheadConfig}): none unless configured, as in the library, where the
     * adaptive concurrency limit bounds a dependency's calls instead. Setting {@code max-concurrent-calls}
     * or {@code max-wait-duration} turns it on; library defaults in brackets.
     *
     * @param enabled true turns a bulkhead on (of 64 calls unless {@code max-concurrent-calls} says);
     *     false turns off one that {@code ballast.http.defaults} configures [false: no fixed bulkhead]
     * @param maxConcurrentCalls attempts in flight at once; at least 1 [64 once enabled]
     * @param maxWaitDuration how long an attempt waits for a permit [0s, no waiting]
     */
    public record Bulkhead(
            @Nullable Boolean enabled,
            @Nullable Integer maxConcurrentCalls,
            @Nullable Duration maxWaitDuration) {}

    /**
     * Retry budget ({@code RetryBudgetConfig}); library defaults in brackets.
     *
     * @param enabled false turns the budget off [true]
     * @param ratio retries permitted per first attempt [0.1]
     * @param minRetriesPerSecond retries always permitted per second [10]
     * @param ttl how long a first attempt counts towards the ratio, 1s to 60s [10s]
     */
    public record RetryBudget(
            @Nullable Boolean enabled,
            @Nullable Double ratio,
            @Nullable Integer minRetriesPerSecond,
            @Nullable Duration ttl) {}

    /**
     * Hedging ({@code HedgingConfig}): off unless {@code delay} is set.
     *
     * @param delay how long the first attempt may go unanswered before a second is sent alongside
     *     (with {@code delay-percentile}, the delay used until enough latencies are known)
     * @param delayPercentile derive the delay from this percentile of recent latencies, in (0, 100);
     *     0 keeps it fixed [0]
     * @param maxHedgedAttempts hedged attempts a call may send besides its first [1]
     */
    public record Hedging(
            @Nullable Duration delay,
            @Nullable Double delayPercentile,
            @Nullable Integer maxHedgedAttempts) {}

    /**
     * The {@link BallastClientHttpRequestFactory} RestClient and RestTemplate use.
     *
     * @param enabled false leaves the application's RestClient and RestTemplate builders alone
     * @param maxBufferedRequestSize request bodies up to this size are buffered and so retried; larger
     *     ones are streamed and sent once
     * @param maxBufferedResponseSize with {@code response-body: buffered}, the largest response body
     *     accepted
     * @param responseBody BUFFERED (read within the attempt, so retried) or STREAMED (unlimited, not
     *     retried once the headers arrived)
     * @param readTimeout if set, each request's timeout, which the client takes as its attempt timeout
     */
    public record RequestFactory(
            @DefaultValue("true") boolean enabled,
            @DefaultValue("1MB") DataSize maxBufferedRequestSize,
            @DefaultValue("16MB") DataSize maxBufferedResponseSize,
            @DefaultValue("BUFFERED") BallastClientHttpRequestFactory.ResponseBody responseBody,
            @Nullable Duration readTimeout) {}
}
