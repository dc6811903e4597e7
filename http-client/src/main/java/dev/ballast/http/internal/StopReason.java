package dev.ballast.http.internal;

import dev.ballast.http.CallRejectedException;
import dev.ballast.http.CircuitOpenException;
import dev.ballast.http.ConcurrencyLimitExceededException;
import dev.ballast.http.RetryDecision;
import org.jspecify.annotations.Nullable;

/**
 * Why the retry layer made no further attempt after one: the cause of every decision other than
 * {@link RetryDecision#RETRYING}. The pipeline branches on these values, never on the reason text,
 * which exists for the log line and the listener event only.
 */
enum StopReason {

    /** The attempt succeeded. */
    SUCCEEDED(RetryDecision.SUCCEEDED, "success"),
    /** The call was cancelled (by its caller, or aborted by {@code shutdownNow}). */
    CANCELLED(RetryDecision.ABORTED, "cancelled"),
    /** The outcome is not retryable for any request (permanent). */
    NOT_RETRYABLE(RetryDecision.ABORTED, null),
    /** The outcome is ambiguous and the request neither idempotent nor keyed (RFC 9110 §9.2.2). */
    AMBIGUOUS_NOT_IDEMPOTENT(RetryDecision.ABORTED, "not retried: non-idempotent and outcome unknown"),
    /**
     * The dependency answered, and the caller's own body handler failed on the answer: the caller's
     * failure, retried no more than any other bug in its code.
     */
    BODY_HANDLER_FAILED(RetryDecision.ABORTED, "not retried: the body handler failed on the answer"),
    /**
     * The attempt failed retryably while another attempt of the same (hedged) call is still in
     * flight: the call waits for that one rather than retry.
     */
    OTHER_ATTEMPT_IN_FLIGHT(RetryDecision.ABORTED, "not retried: another attempt of the call is still in flight"),
    /** The request body cannot be sent again. */
    BODY_NOT_REPLAYABLE(RetryDecision.ABORTED, "not retried: request body cannot be replayed"),
    /** The total timeout expired. */
    TOTAL_TIMEOUT(RetryDecision.GAVE_UP, "total timeout exceeded"),
    /** {@code maxAttempts} attempts were made. */
    ATTEMPTS_EXHAUSTED(RetryDecision.GAVE_UP, "attempts exhausted"),
    /** The server's {@code Retry-After} exceeds {@code maxRetryAfter}. */
    RETRY_AFTER_TOO_LONG(RetryDecision.GAVE_UP, null),
    /** The backoff would end at or after the total deadline. */
    BACKOFF_OVERRUNS_DEADLINE(RetryDecision.GAVE_UP, null),
    /** The dependency's retry budget had no token. */
    RETRY_BUDGET_EXHAUSTED(RetryDecision.GAVE_UP, "not retried: retry budget exhausted"),
    /** The circuit breaker rejected the attempt. */
    CIRCUIT_OPEN(RetryDecision.REJECTED, "circuit breaker open"),
    /** The bulkhead rejected the attempt. */
    BULKHEAD_FULL(RetryDecision.REJECTED, "bulkhead full"),
    /** The adaptive concurrency limit rejected the attempt. */
    CONCURRENCY_LIMIT(RetryDecision.REJECTED, "concurrency limit reached");

    /** The stop reason of an attempt {@code rejection} refused before any network call. */
    static StopReason of(CallRejectedException rejection) {
        if (rejection instanceof CircuitOpenException) {
            return CIRCUIT_OPEN;
        }
        return rejection instanceof ConcurrencyLimitExceededException ? CONCURRENCY_LIMIT : BULKHEAD_FULL;
    }

    private final RetryDecision decision;
    private final @Nullable String reason;

    StopReason(RetryDecision decision, @Nullable String reason) {
        this.decision = decision;
        this.reason = reason;
    }

    RetryDecision decision() {
        return decision;
    }

    /** The fixed reason text, or {@code null} where the text carries the attempt's numbers. */
    @Nullable
    String fixedReason() {
        return reason;
    }
}
