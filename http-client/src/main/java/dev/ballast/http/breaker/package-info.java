/**
 * The circuit breaker: one state machine per dependency
 * ({@link dev.ballast.http.breaker.CircuitBreaker}, kept by
 * {@link dev.ballast.http.breaker.BreakerRegistry}) that stops calling a dependency which is failing,
 * lets a few half-open probes test it after a jittered wait, and closes again when they succeed.
 *
 * <p>Time comes from an injected {@link dev.ballast.http.Ticker} and the open-state jitter from an
 * injected {@link java.util.random.RandomGenerator}, so every transition can be driven by a test
 * without sleeping. (Failsafe's breaker reads {@code System.nanoTime()} itself, which is why Ballast has
 * its own.)
 *
 * <p>Null rule: no method in this package accepts or returns {@code null}; a {@code null} argument
 * throws {@link java.lang.NullPointerException} naming the parameter.
 */
package dev.ballast.http.breaker;
