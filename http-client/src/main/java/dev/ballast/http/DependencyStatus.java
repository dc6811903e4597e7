package dev.ballast.http;

import dev.ballast.http.breaker.BreakerState;
import java.util.Objects;

/**
 * A point-in-time view of one dependency's isolation state, for health checks, dashboards and
 * tests (for example "every bulkhead permit is back after the call").
 *
 * @param dependency the dependency key
 * @param breakerState the circuit breaker's current state
 * @param availableBulkheadPermits bulkhead permits not currently held
 * @param maxConcurrentCalls the bulkhead's size
 * @param availableRetries the retry budget's current balance
 */
public record DependencyStatus(String dependency, BreakerState breakerState, int availableBulkheadPermits,
                               int maxConcurrentCalls, double availableRetries) {

    /**
     * Validates the status.
     *
     * @throws NullPointerException if {@code dependency} or {@code breakerState} is null
     */
    public DependencyStatus {
        Objects.requireNonNull(dependency, "dependency");
        Objects.requireNonNull(breakerState, "breakerState");
    }
}
