/**
 * The drop-in resilient {@link java.net.http.HttpClient}: {@link dev.ballast.http.ResilientHttpClient}
 * and its builder, the {@link dev.ballast.http.ForwardingHttpClient} it is built on, the
 * per-dependency {@link dev.ballast.http.DependencyConfig}, the one observation SPI
 * {@link dev.ballast.http.HttpClientListener} with its decision vocabulary
 * {@link dev.ballast.http.RetryDecision} and the {@link dev.ballast.http.DependencyStatus}
 * snapshot, the {@link dev.ballast.http.ReplayableBodyPublisher} marker for request bodies that may be
 * re-sent, the injectable elapsed-time source {@link dev.ballast.http.Ticker}, and the
 * {@link java.io.IOException}s a call can end with: {@link dev.ballast.http.RetriesExhaustedException},
 * and the rejections without any network call, {@link dev.ballast.http.CallRejectedException}
 * ({@link dev.ballast.http.CircuitOpenException}, {@link dev.ballast.http.BulkheadFullException}).
 *
 * <p>The policies the client composes live in the sub-packages: {@code classify} (the outcome table),
 * {@code retry} (backoff, Retry-After, retry configuration), {@code idempotency} (idempotency keys),
 * {@code breaker} (circuit breaker configuration and states), {@code bulkhead} and {@code budget}
 * (their configurations). {@code internal} holds the engines and the pipeline; the module does not
 * export it.
 *
 * <p>A null argument where the signature allows none throws {@link java.lang.NullPointerException}
 * naming the parameter.
 */
@NullMarked
package dev.ballast.http;

import org.jspecify.annotations.NullMarked;
