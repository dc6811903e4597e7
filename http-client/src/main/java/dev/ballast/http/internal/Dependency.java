package dev.ballast.http.internal;

import dev.ballast.http.CallRejectedException;
import dev.ballast.http.CircuitOpenException;
import dev.ballast.http.ConcurrencyLimitExceededException;
import dev.ballast.http.DependencyStatus;
import dev.ballast.http.hedging.HedgingConfig;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * The isolation state of one dependency: its own circuit breaker, concurrency limit, bulkhead and retry budget, and
 * the count of attempts they rejected (counted, not logged one by one: an open circuit may reject
 * thousands of calls a second).
 *
 * @param name the dependency key
 * @param breaker the dependency's circuit breaker
 * @param bulkhead the dependency's fixed bulkhead, or {@code null} if it has none
 * @param limiter the dependency's adaptive concurrency limit, and its count of attempts in flight
 * @param maxConcurrentCalls the bulkhead's size; {@link Integer#MAX_VALUE} without one
 * @param budget the dependency's retry budget
 * @param activeCalls logical calls in flight (backoffs included), for eviction
 * @param lastUsedNanos ticker reading of the last call start, for least-recently-used eviction
 * @param circuitOpenRejections attempts the breaker rejected
 * @param bulkheadFullRejections attempts the bulkhead rejected
 * @param limitRejections attempts the concurrency limit rejected
 * @param hedging the dependency's hedging, or {@code null} if its calls are not hedged
 * @param latencies recent attempt latencies for a percentile-derived hedging delay, or {@code null}
 */
record Dependency(
        String name,
        CircuitBreaker breaker,
        @Nullable Bulkhead bulkhead,
        ConcurrencyLimiter limiter,
        int maxConcurrentCalls,
        RetryBudget budget,
        AtomicInteger activeCalls,
        AtomicLong lastUsedNanos,
        LongAdder circuitOpenRejections,
        LongAdder bulkheadFullRejections,
        LongAdder limitRejections,
        @Nullable HedgingConfig hedging,
        @Nullable LatencyWindow latencies) {

    /** The delay before a hedged attempt, in nanoseconds: fixed, or the percentile of recent latencies. */
    long hedgingDelayNanos() {
        long derived = latencies == null ? -1 : latencies.percentileNanos();
        return derived >= 0 ? derived : Durations.saturatedNanos(hedging.delay());
    }

    DependencyStatus status() {
        return new DependencyStatus(
                name,
                breaker.state(),
                bulkhead != null ? bulkhead.availablePermits() : Integer.MAX_VALUE - limiter.inFlight(),
                maxConcurrentCalls,
                budget.availableRetries(),
                circuitOpenRejections.sum(),
                bulkheadFullRejections.sum(),
                limiter.inFlight(),
                limiter.limit(),
                limitRejections.sum(),
                breaker.remainingOpenTime());
    }

    /**
     * Counts one more call in flight, unless eviction has retired this state (then the caller makes
     * a fresh one): lock-free, so the common acquire of a known dependency takes no lock.
     */
    boolean tryRetain() {
        while (true) {
            int active = activeCalls.get();
            if (active < 0) {
                return false;
            }
            if (activeCalls.compareAndSet(active, active + 1)) {
                return true;
            }
        }
    }

    /** Marks this idle state retired, so no call can retain it any more; false if a call just did. */
    boolean retire() {
        return activeCalls.compareAndSet(0, -1);
    }

    /** Counts a rejection; the first circuit-open rejection of each open period is also logged, once. */
    void countRejection(CallRejectedException rejection) {
        if (rejection instanceof CircuitOpenException open) {
            circuitOpenRejections.increment();
            if (breaker.firstRejectionOfOpenPeriod()) {
                Listeners.firstRejectionOfOpenPeriod(name, open);
            }
        } else if (rejection instanceof ConcurrencyLimitExceededException) {
            limitRejections.increment();
        } else {
            bulkheadFullRejections.increment();
        }
    }

    /**
     * Whether forgetting this dependency at {@code nowNanos} loses nothing a caller relies on: no call
     * in flight or in a backoff, no attempt in flight, every bulkhead permit free, and a breaker at rest: CLOSED, HALF_OPEN
     * with no probe out (no call in flight), or OPEN with its open duration over. An OPEN breaker
     * within its open duration is the very protection eviction must not reset; once that duration is
     * over its next call is a probe either way, and keeping it forever would let dead dependencies
     * grow the state without bound.
     */
    boolean idle(long nowNanos) {
        return activeCalls.get() == 0
                && breaker.atRest(nowNanos)
                && limiter.inFlight() == 0
                && (bulkhead == null
                        || bulkhead.availablePermits() == maxConcurrentCalls && bulkhead.waitingCalls() == 0);
    }
}
