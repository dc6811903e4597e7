package dev.ballast.http.internal;

import dev.ballast.http.DependencyStatus;
import dev.ballast.http.breaker.BreakerState;
import dev.ballast.http.breaker.CircuitBreaker;
import dev.ballast.http.budget.RetryBudget;
import dev.ballast.http.bulkhead.Bulkhead;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The isolation state of one dependency: its own circuit breaker, bulkhead and retry budget.
 *
 * @param name the dependency key
 * @param breaker the dependency's circuit breaker
 * @param bulkhead the dependency's bulkhead
 * @param maxConcurrentCalls the bulkhead's size
 * @param budget the dependency's retry budget
 * @param activeCalls logical calls in flight (backoffs included), for eviction
 * @param lastUsedNanos ticker reading of the last call start, for least-recently-used eviction
 */
record Dependency(String name, CircuitBreaker breaker, Bulkhead bulkhead, int maxConcurrentCalls, RetryBudget budget,
                  AtomicInteger activeCalls, AtomicLong lastUsedNanos) {

    DependencyStatus status() {
        return new DependencyStatus(name, breaker.state(), bulkhead.availablePermits(), maxConcurrentCalls,
                budget.availableRetries());
    }

    /**
     * Whether forgetting this dependency loses nothing a caller relies on: no call in flight or in a
     * backoff, every bulkhead permit free, and a CLOSED breaker (an OPEN or HALF_OPEN one is the very
     * protection that must not be reset by eviction).
     */
    boolean idle() {
        return activeCalls.get() == 0 && breaker.state() == BreakerState.CLOSED
                && bulkhead.availablePermits() == maxConcurrentCalls && bulkhead.waitingCalls() == 0;
    }
}
