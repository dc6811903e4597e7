/**
 * Hedging's configuration: for a dependency whose slow answers are a matter of luck (a slow replica,
 * a lost packet), a second attempt sent when the first has not answered after a delay, the first
 * good answer winning and the other cancelled (the .NET standard hedging handler, gRPC hedging, "The
 * Tail at Scale"). Only for requests that may be sent twice: an idempotent method or an idempotency
 * key.
 *
 * <p>A null argument where the signature allows none throws {@link java.lang.NullPointerException}
 * naming the parameter.
 */
@NullMarked
package dev.ballast.http.hedging;

import org.jspecify.annotations.NullMarked;
