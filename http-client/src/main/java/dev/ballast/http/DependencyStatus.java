package dev.ballast.http;

import dev.ballast.http.breaker.BreakerState;
import java.time.Duration;
import java.util.Objects;

/**
 * A point-in-time view of one dependency's isolation state, for health checks, dashboards and
 * tests (for example "every bulkhead permit is back after the call").
 *
 * @param dependency the dependency key
 * @param breakerState the circuit breaker's current state
 * @param availableBulkheadPermits bulkhead permits not currently held; with no fixed bulkhead (the
 *     default), {@link Integer#MAX_VALUE} less the attempts in flight
 * @param maxConcurrentCalls the bulkhead's size; {@link Integer#MAX_VALUE} with no fixed bulkhead
 * @param availableRetries the retry budget's current balance
 * @param circuitOpenRejections attempts rejected by the circuit breaker ({@link CircuitOpenException})
 *     since this dependency's state was created; rejections are counted rather than logged one by one
 * @param bulkheadFullRejections attempts rejected by the bulkhead ({@link BulkheadFullException})
 *     since this dependency's state was created
 * @param attemptsInFlight attempts sent and not yet ended (a call in its backoff has none)
 * @param concurrencyLimit the adaptive concurrency limit now; {@link Integer#MAX_VALUE} when the limit
 *     is {@linkplain dev.ballast.http.limit.ConcurrencyLimitConfig#disabled() disabled}
 * @param concurrencyLimitRejections attempts rejected by the concurrency limit
 *     ({@link ConcurrencyLimitExceededException}) since this dependency's state was created
 * @param remainingOpenTime how long an OPEN breaker keeps refusing calls before it lets a probe through;
 *     {@link Duration#ZERO} in every other state, and for an OPEN breaker whose wait is over (its next
 *     call is a half-open probe: nothing moves it to HALF_OPEN but a call)
 */
public record DependencyStatus(
        String dependency,
        BreakerState breakerState,
        int availableBulkheadPermits,
        int maxConcurrentCalls,
        double availableRetries,
        long circuitOpenRejections,
        long bulkheadFullRejections,
        int attemptsInFlight,
        int concurrencyLimit,
        long concurrencyLimitRejections,
        Duration remainingOpenTime) {

    /**
     * Validates the status.
     *
     * @throws NullPointerException if {@code dependency}, {@code breakerState} or {@code remainingOpenTime}
     *     is null
     */
    public DependencyStatus {
        Objects.requireNonNull(dependency, "dependency");
        Objects.requireNonNull(breakerState, "breakerState");
        Objects.requireNonNull(remainingOpenTime, "remainingOpenTime");
    }
}
