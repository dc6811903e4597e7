package dev.ballast.http;

import java.util.Locale;

/**
 * What the retry layer of a {@link ResilientHttpClient} decided about one attempt: the
 * {@code outcome} field of the decision log line and of {@link HttpClientListener.RetryDecisionEvent}.
 * Exactly one decision is made per attempt.
 */
public enum RetryDecision {

    /** The attempt failed in a retryable way and another attempt follows after a backoff. */
    RETRYING,

    /** The attempt produced a successful response, which is returned to the caller. */
    SUCCEEDED,

    /**
     * The attempt failed retryably but the retry layer stopped: attempts exhausted, retry budget
     * empty, {@code Retry-After} above the maximum, the backoff would overrun the total timeout, or
     * the total timeout expired.
     */
    GAVE_UP,

    /**
     * The attempt's outcome is not retryable (permanent, or ambiguous for a request that is neither
     * idempotent nor keyed, or a body that cannot be replayed), or the call was cancelled.
     */
    ABORTED,

    /** The attempt was rejected without any network call (circuit open, bulkhead full). */
    REJECTED;

    /**
     * Returns the lower-case name used in log lines, for example {@code gave_up}.
     *
     * @return the log name
     */
    public String logName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
