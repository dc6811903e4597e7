/**
 * The circuit breaker's configuration ({@link dev.ballast.http.breaker.BreakerConfig}) and states
 * ({@link dev.ballast.http.breaker.BreakerState}). Each dependency of a
 * {@link dev.ballast.http.ResilientHttpClient} has one breaker, a state machine that stops calling a
 * dependency which is failing, lets a few half-open probes test it after a jittered wait, and closes
 * again when they succeed; the engine itself is not API. Its transitions are reported to
 * {@link dev.ballast.http.HttpClientListener#onBreakerStateTransition}.
 *
 * <p>Time comes from an injected {@link dev.ballast.http.Ticker} and the open-state jitter from an
 * injected {@link java.util.random.RandomGenerator}, so every transition can be driven by a test
 * without sleeping. (Failsafe's breaker reads {@code System.nanoTime()} itself, which is why Ballast has
 * its own.)
 *
 * <p>A null argument where the signature allows none throws {@link java.lang.NullPointerException}
 * naming the parameter.
 */
@NullMarked
package dev.ballast.http.breaker;

import org.jspecify.annotations.NullMarked;
