/**
 * The call pipeline behind {@link dev.ballast.http.ResilientHttpClient}: one call
 * ({@code SyncCall} on the caller's thread, {@code AsyncCall} on completions), its attempts, their
 * decisions ({@code RetryDecider}, {@code StopReason}) and final result ({@code CallResult}),
 * deadlines ({@code Deadline}, the client's one {@code DeadlineTimer}), the per-dependency engines
 * ({@code CircuitBreaker}, {@code Bulkhead}, {@code RetryBudget}), request copying and body
 * replayability, the decision log and the reflective bridge to the JDK 21 lifecycle methods.
 *
 * <p>Not an API: the module does not export this package, so code outside {@code dev.ballast.http}
 * on the module path cannot compile against it, and it may change in any release.
 */
@NullMarked
package dev.ballast.http.internal;

import org.jspecify.annotations.NullMarked;
