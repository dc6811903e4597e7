/**
 * The adaptive concurrency limit's configuration: a per-dependency limit on attempts in flight that
 * sizes itself from the dependency's latency, in the family of Netflix's concurrency-limits
 * (Vegas, Gradient2, AIMD) and Envoy's adaptive concurrency filter. It grows while latency holds and
 * comes down when the dependency queues; a refused attempt costs no network call and ends in
 * {@link dev.ballast.http.ConcurrencyLimitExceededException}. The engine itself is not API.
 *
 * <p>A null argument where the signature allows none throws {@link java.lang.NullPointerException}
 * naming the parameter.
 *
 * @see dev.ballast.http.limit.ConcurrencyLimitConfig
 */
@NullMarked
package dev.ballast.http.limit;

import org.jspecify.annotations.NullMarked;
