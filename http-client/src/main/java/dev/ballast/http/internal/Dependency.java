package dev.ballast.http.internal;

import dev.ballast.http.DependencyStatus;
import dev.ballast.http.breaker.CircuitBreaker;
import dev.ballast.http.budget.RetryBudget;
import dev.ballast.http.bulkhead.Bulkhead;

/**
 * The isolation state of one dependency: its own circuit breaker, bulkhead and retry budget.
 *
 * @param name the dependency key
 * @param breaker the dependency's circuit breaker
 * @param bulkhead the dependency's bulkhead
 * @param maxConcurrentCalls the bulkhead's size
 * @param budget the dependency's retry budget
 */
record Dependency(String name, CircuitBreaker breaker, Bulkhead bulkhead, int maxConcurrentCalls, RetryBudget budget) {

    DependencyStatus status() {
        return new DependencyStatus(name, breaker.state(), bulkhead.availablePermits(), maxConcurrentCalls,
                budget.availableRetries());
    }
}
