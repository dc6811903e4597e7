package dev.ballast.http.breaker;

/** The state of a dependency's circuit breaker, as {@link dev.ballast.http.DependencyStatus} reports it. */
public enum BreakerState {

    /** Calls flow; outcomes are recorded in the sliding window. */
    CLOSED,

    /** Calls are rejected with {@link dev.ballast.http.CircuitOpenException} without any network I/O. */
    OPEN,

    /**
     * The open wait has elapsed: a limited number of probe calls test the dependency; the others are
     * rejected until the probes decide between {@link #CLOSED} and {@link #OPEN}.
     */
    HALF_OPEN
}
