/**
 * Retry policy values: how many attempts ({@link dev.ballast.http.retry.RetryConfig}), how long to
 * wait between them ({@link dev.ballast.http.retry.Backoff}, {@link dev.ballast.http.retry.Jitter}) and
 * how to read a server's requested wait ({@link dev.ballast.http.retry.RetryAfter}, RFC 9110 §10.2.3).
 *
 * <p>Everything here is a pure function or an immutable value: time and randomness are passed in,
 * so the retry layer can be tested without sleeping.
 *
 * <p>A null argument where the signature allows none throws {@link java.lang.NullPointerException}
 * naming the parameter.
 */
@NullMarked
package dev.ballast.http.retry;

import org.jspecify.annotations.NullMarked;
