package dev.ballast.http.internal;

import dev.ballast.http.HttpClientListener.Decision;
import dev.ballast.http.Ticker;
import dev.ballast.http.classify.Outcome;
import dev.ballast.http.classify.ResponseClassifier;
import dev.ballast.http.retry.RetryAfter;
import dev.ballast.http.retry.RetryConfig;
import java.net.http.HttpHeaders;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * Decides, once per attempt, whether the retry layer retries and after which delay. The checks run
 * in a fixed order so that the cheapest, side-effect-free ones come first and the retry budget is
 * only charged for a retry that will really be scheduled:
 * <ol>
 *   <li>call cancelled: aborted;</li>
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

    /** The reason logged when the total deadline has passed; the call then fails with a timeout. */
    static final String TOTAL_TIMEOUT_EXCEEDED = "total timeout exceeded";

    private final ResponseClassifier classifier;
    private final RetryConfig retry;
    private final Clock clock;
    private final Ticker ticker;
    private final Supplier<RandomGenerator> random;

    RetryDecider(ResponseClassifier classifier, RetryConfig retry, Clock clock, Ticker ticker,
                 Supplier<RandomGenerator> random) {
        this.classifier = classifier;
        this.retry = retry;
        this.clock = clock;
        this.ticker = ticker;
        this.random = random;
    }

    int maxAttempts() {
        return retry.maxAttempts();
    }

    Outcome classifyFailure(Throwable failure) {
        return classifier.classifyFailure(failure);
    }

    /** Decides about an attempt that produced a response with these status and headers. */
    AttemptOutcome onResponse(LogicalCall call, int attempt, int statusCode, HttpHeaders headers) {
        Outcome outcome = classifier.classifyResponse(statusCode, headers);
        return decide(call, attempt, outcome, headers);
    }

    /** Decides about an attempt that ended in {@code failure}. */
    AttemptOutcome onFailure(LogicalCall call, int attempt, Throwable failure) {
        Outcome outcome = classifier.classifyFailure(failure);
        return decide(call, attempt, outcome, null).withFailure(failure);
    }

    private AttemptOutcome decide(LogicalCall call, int attempt, Outcome outcome, HttpHeaders headers) {
        if (call.stopped()) {
            // The total-timeout backstop stops the call too; past the deadline that is a timeout,
            // whichever timer noticed first, not a caller's cancellation.
            if (call.deadlineNanos != Long.MAX_VALUE && call.deadlineNanos - ticker.read() <= 0) {
                return stop(attempt, outcome, Decision.GAVE_UP, TOTAL_TIMEOUT_EXCEEDED);
            }
            return stop(attempt, outcome, Decision.ABORTED, "cancelled");
        }
        if (outcome == Outcome.SUCCESS) {
            return stop(attempt, outcome, Decision.SUCCEEDED, "success");
        }
        if (!outcome.isRetryable(call.idempotentOrKeyed)) {
            String reason = outcome == Outcome.AMBIGUOUS
                    ? "not retried: non-idempotent and outcome unknown"
                    : "not retried: " + outcome.name().toLowerCase(Locale.ROOT) + " outcome";
            return stop(attempt, outcome, Decision.ABORTED, reason);
        }
        if (!call.replayable) {
            return stop(attempt, outcome, Decision.ABORTED, "not retried: request body cannot be replayed");
        }
        if (call.deadlineNanos != Long.MAX_VALUE && call.deadlineNanos - ticker.read() <= 0) {
            return stop(attempt, outcome, Decision.GAVE_UP, TOTAL_TIMEOUT_EXCEEDED);
        }
        if (attempt >= retry.maxAttempts()) {
            return stop(attempt, outcome, Decision.GAVE_UP, "attempts exhausted");
        }
        Duration delay = retry.backoff().delay(attempt, call.previousDelay(), random.get());
        if (headers != null) {
            Optional<Duration> retryAfter = RetryAfter.from(headers, clock);
            if (retryAfter.isPresent()) {
                if (retryAfter.get().compareTo(retry.maxRetryAfter()) > 0) {
                    return stop(attempt, outcome, Decision.GAVE_UP, "Retry-After of " + retryAfter.get().toMillis()
                            + " ms exceeds maxRetryAfter of " + retry.maxRetryAfter().toMillis() + " ms");
                }
                if (retryAfter.get().compareTo(delay) > 0) {
                    delay = retryAfter.get();
                }
            }
        }
        if (call.deadlineNanos != Long.MAX_VALUE
                && call.deadlineNanos - ticker.read() <= Durations.saturatedNanos(delay)) {
            return stop(attempt, outcome, Decision.GAVE_UP,
                    "backoff of " + delay.toMillis() + " ms would overrun the total timeout");
        }
        if (!call.dependency.budget().tryAcquireRetry()) {
            return stop(attempt, outcome, Decision.GAVE_UP, "not retried: retry budget exhausted");
        }
        call.previousDelay(delay);
        return new AttemptOutcome(attempt, null, null, outcome, Decision.RETRYING, delay, "retryable "
                + outcome.name().toLowerCase(Locale.ROOT) + " outcome");
    }

    private static AttemptOutcome stop(int attempt, Outcome outcome, Decision decision, String reason) {
        return new AttemptOutcome(attempt, null, null, outcome, decision, Duration.ZERO, reason);
    }
}
