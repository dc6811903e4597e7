package dev.ballast.http.internal;

import dev.ballast.http.RetryDecision;
import dev.ballast.http.classify.Outcome;
import java.net.http.HttpResponse;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * What one attempt produced and what the retry layer decided about it. At most one of
 * {@code response} and {@code failure} is non-null (neither, for a response whose body was
 * discarded for a retry). The decision is made once, by {@link RetryDecider}, so its side effect
 * (the retry budget withdrawal) happens exactly once per attempt.
 *
 * @param attempt the attempt number, 1 for the first
 * @param status the HTTP status the attempt was answered with, or {@code -1} if it got no answer
 * @param response the response, or null
 * @param failure the failure, or null
 * @param outcome the classification of the response or failure
 * @param stop why no further attempt follows, or {@code null} when the call retries
 * @param delayNanos the backoff before the next attempt; zero unless retrying
 * @param detailMillis the number the reason text quotes for {@code RETRY_AFTER_TOO_LONG} (the
 *     server's Retry-After) and {@code BACKOFF_OVERRUNS_DEADLINE} (the backoff); else zero
 * @param limitMillis the limit the reason text quotes for {@code RETRY_AFTER_TOO_LONG}; for a retry
 *     after an answer that carried a {@code Retry-After}, {@code -1}, and {@code detailMillis} is that
 *     Retry-After; else zero
 */
record AttemptOutcome(
        int attempt,
        int status,
        @Nullable HttpResponse<?> response,
        @Nullable Throwable failure,
        Outcome outcome,
        @Nullable StopReason stop,
        long delayNanos,
        long detailMillis,
        long limitMillis) {

    /** Attempts 1 to this many share their "succeeded" decisions for a 2xx status. */
    private static final int SHARED_ATTEMPTS = 4;
    /**
     * The "succeeded" decisions at the headers of a 2xx answer to one of the first attempts, made
     * once each and shared by every call: the decision an attempt makes most, and immutable. Filled
     * on first use; a race makes an equal one twice, and the record's final fields publish either safely.
     */
    private static final AttemptOutcome[] SUCCEEDED = new AttemptOutcome[SHARED_ATTEMPTS * 100];

    /** The decision that attempt {@code attempt}, answered with {@code status}, succeeded. */
    static AttemptOutcome succeeded(int attempt, int status) {
        if (attempt < 1 || attempt > SHARED_ATTEMPTS || status < 200 || status > 299) {
            return stop(attempt, status, Outcome.SUCCESS, StopReason.SUCCEEDED);
        }
        int i = (attempt - 1) * 100 + status - 200;
        AttemptOutcome shared = SUCCEEDED[i];
        if (shared == null) {
            shared = stop(attempt, status, Outcome.SUCCESS, StopReason.SUCCEEDED);
            SUCCEEDED[i] = shared;
        }
        return shared;
    }

    static AttemptOutcome stop(int attempt, int status, Outcome outcome, StopReason stop) {
        return new AttemptOutcome(attempt, status, null, null, outcome, stop, 0, 0, 0);
    }

    static AttemptOutcome retry(int attempt, int status, Outcome outcome, long delayNanos) {
        return new AttemptOutcome(attempt, status, null, null, outcome, null, delayNanos, 0, 0);
    }

    /** {@link #limitMillis} of a retry whose answer carried a {@code Retry-After}, then in {@link #detailMillis}. */
    private static final long RETRY_AFTER_GIVEN = -1;

    /** A retry after an answer with a {@code Retry-After} of {@code retryAfterMillis}. */
    static AttemptOutcome retryAfter(int attempt, int status, Outcome outcome, long delayNanos, long retryAfterMillis) {
        return new AttemptOutcome(
                attempt, status, null, null, outcome, null, delayNanos, retryAfterMillis, RETRY_AFTER_GIVEN);
    }

    /** The server's {@code Retry-After} when this decision retries after an answer that carried one; else null. */
    java.time.@Nullable Duration retryAfter() {
        return stop == null && limitMillis == RETRY_AFTER_GIVEN ? java.time.Duration.ofMillis(detailMillis) : null;
    }

    boolean retry() {
        return stop == null;
    }

    RetryDecision decision() {
        return stop == null ? RetryDecision.RETRYING : stop.decision();
    }

    /** The reason text of the decision log; built only when a log line or event needs it. */
    String reason() {
        if (stop == null) {
            return "retryable " + outcome.name().toLowerCase(Locale.ROOT) + " outcome";
        }
        return switch (stop) {
            case NOT_RETRYABLE -> "not retried: " + outcome.name().toLowerCase(Locale.ROOT) + " outcome";
            case RETRY_AFTER_TOO_LONG ->
                "Retry-After of " + detailMillis + " ms exceeds maxRetryAfter of " + limitMillis + " ms";
            case BACKOFF_OVERRUNS_DEADLINE -> "backoff of " + detailMillis + " ms would overrun the total timeout";
            default -> stop.fixedReason();
        };
    }

    AttemptOutcome withFailure(Throwable newFailure) {
        return new AttemptOutcome(
                attempt, status, null, newFailure, outcome, stop, delayNanos, detailMillis, limitMillis);
    }

    AttemptOutcome withResponse(HttpResponse<?> newResponse) {
        return new AttemptOutcome(
                attempt, status, newResponse, null, outcome, stop, delayNanos, detailMillis, limitMillis);
    }

    /** The same decision with another stop reason (same attempt, status, outcome). */
    AttemptOutcome withStop(StopReason newStop) {
        return new AttemptOutcome(attempt, status, response, failure, outcome, newStop, 0, 0, 0);
    }
}
