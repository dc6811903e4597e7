/**
 * The retry budget's configuration: a per-dependency token bucket (the engine itself is not API) that caps retries at a fraction of recent first
 * attempts plus a small floor, so that a fleet of callers cannot multiply the load on a dependency
 * that is already failing (compare Finagle's {@code RetryBudget}, Envoy's retry budgets and gRPC's
 * retry throttling).
 *
 * <p>A null argument where the signature allows none throws {@link java.lang.NullPointerException}
 * naming the parameter.
 */
@NullMarked
package dev.ballast.http.budget;

import org.jspecify.annotations.NullMarked;
