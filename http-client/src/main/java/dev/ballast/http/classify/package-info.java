/**
 * Sorting every result of an HTTP exchange into one {@link dev.ballast.http.classify.Outcome}:
 * the single place where Ballast decides what is retryable and what counts against a circuit breaker.
 *
 * <p>{@link dev.ballast.http.classify.ClassificationTable} holds the documented default table and the
 * user's overrides; {@link dev.ballast.http.classify.ResponseClassifier} is the SPI the pipeline calls.
 * Classification reads the status code and headers only, never the body, so a 503 with an empty or
 * HTML body is still a 503.
 *
 * <p>A null argument where the signature allows none throws {@link java.lang.NullPointerException}
 * naming the parameter.
 */
@NullMarked
package dev.ballast.http.classify;

import org.jspecify.annotations.NullMarked;
