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
 *       <td>a 429: yes, unless the dependency's {@code BreakerConfig.throttlingIsFailure(false)}; a 409 to a
 *       keyed request: no</td></tr>
 *   </tbody>
 * </table>
 *
 * <p>The breaker counts attempts, not calls: every attempt asks it for permission and reports its
 * outcome, so one call retried three times is three breaker records (as in resilience4j's
 * {@code Retry(CircuitBreaker(call))}, the .NET standard resilience handler and Envoy's outlier
 * detection, which all sit inside the retry).
 */
public enum Outcome {

    /** The dependency answered and the answer is the result (2xx, 3xx). */
    SUCCESS,

    /**
     * The attempt failed in a way the next attempt may not: the dependency is briefly unavailable, or
     * the request never reached it (connection refused, connect timeout, unresolved host), or the
     * server refused it before processing it (HTTP/2 REFUSED_STREAM, RFC 9113 §8.7). Safe to retry for
     * every method.
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

    /**
     * The dependency is up and asked us to wait before asking again: 429 Too Many Requests, or a 409
     * Conflict to a request carrying an idempotency key (an earlier request with that key is still
     * being processed). Retried for every method, no sooner than the server's {@code Retry-After}.
     *
     * <p>A 429 is a breaker failure by default, after its {@code Retry-After} is honoured: throttling
     * is a genuine server-pressure signal (the breaker table of the design notes; the .NET standard
     * resilience handler counts it too). A dependency whose 429s mean one caller's quota rather than
     * its own overload can make them neutral with
     * {@link dev.ballast.http.breaker.BreakerConfig.Builder#throttlingIsFailure(boolean)
     * BreakerConfig.throttlingIsFailure(false)}, as Envoy's outlier detection treats them. A 409 to a
     * keyed request is never a failure: it is the state of that key. A 503 is {@link #TRANSIENT},
     * with or without {@code Retry-After}: the service says it cannot serve, and every peer counts
     * that.
     */
    THROTTLED;

    /**
     * Tells whether this outcome always counts as a failure of the dependency for its circuit
     * breaker. {@link #THROTTLED} is not always one: whether a 429 counts is the dependency's
     * {@link dev.ballast.http.breaker.BreakerConfig#throttlingIsFailure()} (by default it does).
     *
     * @return {@code true} for {@link #TRANSIENT} and {@link #AMBIGUOUS}
     */
    public boolean isBreakerFailure() {
        return this == TRANSIENT || this == AMBIGUOUS;
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
