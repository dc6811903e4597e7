package dev.ballast.http.classify;

/**
 * What one attempt of an HTTP exchange means for retrying and for the dependency's circuit breaker.
 *
 * <table class="striped">
 *   <caption>Consequences of each outcome</caption>
 *   <thead><tr><th>Outcome</th><th>Retried?</th><th>Circuit-breaker failure?</th></tr></thead>
 *   <tbody>
 *   <tr><td>{@link #SUCCESS}</td><td>no (done)</td><td>no</td></tr>
 *   <tr><td>{@link #TRANSIENT}</td><td>yes</td><td>yes</td></tr>
 *   <tr><td>{@link #PERMANENT}</td><td>no</td><td>no</td></tr>
 *   <tr><td>{@link #AMBIGUOUS}</td><td>only if the request is idempotent (RFC 9110 §9.2.2) or carries an
 *       idempotency key</td><td>yes</td></tr>
 *   <tr><td>{@link #THROTTLED}</td><td>yes, waiting at least the server's {@code Retry-After}</td>
 *       <td>yes</td></tr>
 *   </tbody>
 * </table>
 */
public enum Outcome {

    /** The dependency answered and the answer is the result (2xx, 3xx). */
    SUCCESS,

    /**
     * The attempt failed in a way the next attempt may not: the dependency is briefly unavailable, or
     * the request never reached it (connection refused, connect timeout, unresolved host). Safe to retry
     * for every method.
     */
    TRANSIENT,

    /**
     * Retrying cannot change the answer (4xx, 501, 505, certificate errors, a call Ballast rejected
     * itself). Not a breaker failure: the dependency is healthy, or the fault is ours.
     */
    PERMANENT,

    /**
     * The request may or may not have been processed (read timeout, connection reset after the request
     * was sent, 504). Retried only when repeating it is harmless: an idempotent method or an
     * idempotency key.
     */
    AMBIGUOUS,

    /** The dependency asked us to slow down (429, or 503 with {@code Retry-After}). */
    THROTTLED;

    /**
     * Tells whether this outcome counts as a failure of the dependency for its circuit breaker.
     *
     * @return {@code true} for {@link #TRANSIENT}, {@link #AMBIGUOUS} and {@link #THROTTLED}
     */
    public boolean isBreakerFailure() {
        return this == TRANSIENT || this == AMBIGUOUS || this == THROTTLED;
    }

    /**
     * Tells whether an attempt with this outcome may be retried.
     *
     * @param idempotentOrKeyed whether the request's method is idempotent per RFC 9110 §9.2.2 or the
     *                          request carries an idempotency key
     * @return {@code true} for {@link #TRANSIENT} and {@link #THROTTLED}; {@code idempotentOrKeyed}
     *         for {@link #AMBIGUOUS}; {@code false} for {@link #SUCCESS} and {@link #PERMANENT}
     */
    public boolean isRetryable(boolean idempotentOrKeyed) {
        return switch (this) {
            case TRANSIENT, THROTTLED -> true;
            case AMBIGUOUS -> idempotentOrKeyed;
            case SUCCESS, PERMANENT -> false;
        };
    }
}
