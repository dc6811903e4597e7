/**
 * Idempotency keys: which requests get an {@code Idempotency-Key} header so that a retry of a
 * non-idempotent request can be deduplicated by the server, and which methods are idempotent by
 * definition (RFC 9110 §9.2.2).
 *
 * <p>A null argument where the signature allows none throws {@link java.lang.NullPointerException}
 * naming the parameter.
 */
@NullMarked
package dev.ballast.http.idempotency;

import org.jspecify.annotations.NullMarked;
