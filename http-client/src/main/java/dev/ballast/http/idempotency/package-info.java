/**
 * Idempotency keys: which requests get an {@code Idempotency-Key} header so that a retry of a
 * non-idempotent request can be deduplicated by the server, and which methods are idempotent by
 * definition (RFC 9110 §9.2.2).
 *
 * <p>Null rule: no method in this package accepts or returns {@code null}; a {@code null} argument
 * throws {@link java.lang.NullPointerException} naming the parameter.
 */
package dev.ballast.http.idempotency;
