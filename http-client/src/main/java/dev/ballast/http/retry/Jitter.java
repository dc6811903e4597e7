package dev.ballast.http.retry;

/**
 * How {@link Backoff} randomizes the exponential delay {@code d = min(cap, base * 2^(retryNumber - 1))}
 * so that many clients failing together do not retry in lockstep. The formulas follow the AWS
 * Architecture Blog's "Exponential Backoff And Jitter".
 */
public enum Jitter {

    /** Uniform in {@code [0, d]}: the least total work under contention, and the default. */
    FULL,

    /** {@code d/2} plus uniform in {@code [0, d/2]}: never shorter than half the exponential delay. */
    EQUAL,

    /**
     * Uniform in {@code [base, min(cap, 3 * max(base, previousDelay))]}: each delay grows from the
     * previous one rather than from the retry number.
     */
    DECORRELATED,

    /** Exactly {@code d}: deterministic, for tests and for callers who add their own spreading. */
    NONE
}
