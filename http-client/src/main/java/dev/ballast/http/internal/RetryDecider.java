package dev.ballast.http.internal;

import dev.ballast.http.classify.Outcome;
import dev.ballast.http.classify.ResponseClassifier;
import dev.ballast.http.retry.RetryAfter;
import dev.ballast.http.retry.RetryConfig;
import java.net.http.HttpHeaders;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * Decides, once per attempt, whether the retry layer retries and after which delay. The checks run
 * in a fixed order so that the cheapest, side-effect-free ones come first and the retry budget is
 * only charged for a retry that will really be scheduled:
 * <ol>
 *   <li>call cancelled: aborted (or, past the total deadline, gave up on the total timeout);</li>
 *   <li>classification {@code SUCCESS}: succeeded;</li>
 *   <li>not retryable for this request (permanent, or ambiguous without an idempotent method or an
 *       idempotency key, RFC 9110 §9.2.2): aborted;</li>
 *   <li>request body cannot be replayed: aborted;</li>
 *   <li>total deadline already passed: gave up (the call fails with {@code HttpTimeoutException});</li>
 *   <li>attempts exhausted ({@code maxAttempts} counts the first attempt): gave up, with no sleep;</li>
 *   <li>delay = our backoff (jitter computed here), raised to the server's {@code Retry-After}
 *       (RFC 9110 §10.2.3) as a floor; a Retry-After above {@code maxRetryAfter}: gave up;</li>
 *   <li>delay would reach the total deadline: gave up at once rather than sleep in vain;</li>
 *   <li>retry budget empty: gave up;</li>
 *   <li>otherwise retrying.</li>
 * </ol>
 * Thread-safe.
 */
final class RetryDecider {

    private static final HttpHeaders NO_HEADERS = HttpHeaders.of(java.util.Map.of(), (name, value) -> true);

    private final ResponseClassifier classifier;
    private final RetryConfig retry;
    private final Clock clock;
    private final Supplier<RandomGenerator> random;

    RetryDecider(ResponseClassifier classifier, RetryConfig retry, Clock clock, Supplier<RandomGenerator> random) {
        this.classifier = classifier;
        this.retry = retry;
        this.clock = clock;
        this.random = random;
    }

    int maxAttempts() {
        return retry.maxAttempts();
    }

    /** Decides about an attempt that produced a response with these status and headers. */
    AttemptOutcome onResponse(Call call, int attempt, int statusCode, HttpHeaders headers) {
        HttpHeaders known = headers != null ? headers : NO_HEADERS; // a test double's response may have none
        Outcome outcome = call.keyed()
                ? classifier.classifyKeyedResponse(statusCode, known)
                : classifier.classifyResponse(statusCode, known);
        return decide(call, attempt, statusCode, outcome, known);
    }

    /** Decides about an attempt that ended in {@code failure}. */
    AttemptOutcome onFailure(Call call, int attempt, Throwable failure) {
        Outcome outcome = classifier.classifyFailure(failure);
        if (outcome == Outcome.TRANSIENT && call.redirectsFollowed() && !call.idempotentOrKeyed()) {
            // The wrapped client follows redirects: a failure without any response may be that of a
            // later hop, after the request itself was answered (a POST answered 303). It proves nothing
            // about the request, so a request neither idempotent nor keyed must not be re-sent for it.
            outcome = Outcome.AMBIGUOUS;
        }
        return decide(call, attempt, -1, outcome, null).withFailure(failure);
    }

    private AttemptOutcome decide(Call call, int attempt, int status, Outcome outcome, @Nullable HttpHeaders headers) {
        if (call.stopped()) {
            // Past the deadline a stop is a timeout, whichever timer noticed first, not a cancellation.
            return AttemptOutcome.stop(
                    attempt, status, outcome, call.deadlinePassed() ? StopReason.TOTAL_TIMEOUT : StopReason.CANCELLED);
        }
        if (outcome == Outcome.SUCCESS) {
            return AttemptOutcome.succeeded(attempt, status);
        }
        if (!outcome.isRetryable(call.idempotentOrKeyed())) {
            return AttemptOutcome.stop(
                    attempt,
                    status,
                    outcome,
                    outcome == Outcome.AMBIGUOUS ? StopReason.AMBIGUOUS_NOT_IDEMPOTENT : StopReason.NOT_RETRYABLE);
        }
        if (!call.replayable()) {
            return AttemptOutcome.stop(attempt, status, outcome, StopReason.BODY_NOT_REPLAYABLE);
        }
        if (call.deadlinePassed()) {
            return AttemptOutcome.stop(attempt, status, outcome, StopReason.TOTAL_TIMEOUT);
        }
        if (attempt >= retry.maxAttempts()) {
            return AttemptOutcome.stop(attempt, status, outcome, StopReason.ATTEMPTS_EXHAUSTED);
        }
        Duration delay = retry.backoff().delay(attempt, Duration.ofNanos(call.previousDelayNanos()), random.get());
        long retryAfterMillis = -1;
        if (headers != null) {
            Optional<Duration> retryAfter = RetryAfter.from(headers, clock);
            if (retryAfter.isPresent()) {
                retryAfterMillis = retryAfter.get().toMillis();
                if (retryAfter.get().compareTo(retry.maxRetryAfter()) > 0) {
                    return new AttemptOutcome(
                            attempt,
                            status,
                            null,
                            null,
                            outcome,
                            StopReason.RETRY_AFTER_TOO_LONG,
                            0,
                            retryAfter.get().toMillis(),
                            retry.maxRetryAfter().toMillis());
                }
                if (retryAfter.get().compareTo(delay) > 0) {
                    delay = retryAfter.get();
                }
            }
        }
        long delayNanos = Durations.saturatedNanos(delay);
        if (call.deadlineReachedWithin(delayNanos)) {
            return new AttemptOutcome(
                    attempt, status, null, null, outcome, StopReason.BACKOFF_OVERRUNS_DEADLINE, 0, delay.toMillis(), 0);
        }
        if (!call.dependency.budget().tryAcquireRetry()) {
            return AttemptOutcome.stop(attempt, status, outcome, StopReason.RETRY_BUDGET_EXHAUSTED);
        }
        call.previousDelayNanos(delayNanos);
        return retryAfterMillis < 0
                ? AttemptOutcome.retry(attempt, status, outcome, delayNanos)
                : AttemptOutcome.retryAfter(attempt, status, outcome, delayNanos, retryAfterMillis);
    }
}
