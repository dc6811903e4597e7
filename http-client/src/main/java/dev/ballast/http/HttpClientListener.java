package dev.ballast.http;

import dev.ballast.http.breaker.BreakerState;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * Receives the events of a {@link ResilientHttpClient}: one {@link RetryDecisionEvent} per retry
 * decision (the same content as the client's SLF4J log line), every attempt start, every circuit
 * breaker state transition and every rejection without a network call. All methods have no-op
 * defaults, so implementations override only what they need.
 *
 * <p>Listeners are added with {@link ResilientHttpClient.Builder#listener(HttpClientListener)},
 * never replaced. Callbacks run on whatever thread made the decision (a caller thread, an
 * {@code HttpClient} executor thread or the scheduler); they must be fast, must not block, must not
 * throw (an exception is logged and otherwise ignored) and must not call back into the client.
 * Implementations must be thread-safe.
 */
public interface HttpClientListener {

    /** A listener that ignores every event. */
    HttpClientListener NONE = new HttpClientListener() {
    };

    /**
     * Called just before an attempt is handed to the circuit breaker, the bulkhead and the wrapped
     * client.
     *
     * @param correlationId the logical call's correlation id
     * @param dependency the dependency key
     * @param attempt the attempt number, 1 for the first attempt
     */
    default void onAttemptStarted(String correlationId, String dependency, int attempt) {
    }

    /**
     * Called once per attempt with the retry layer's decision about it, and once more (outcome
     * {@code GAVE_UP}, reason {@code "total timeout exceeded"}) if the total timeout ends the call
     * while an attempt is in flight.
     *
     * @param event the decision, never null
     */
    default void onRetryDecision(RetryDecisionEvent event) {
    }

    /**
     * Called when a dependency's circuit breaker changes state.
     *
     * @param dependency the dependency key
     * @param from the previous state
     * @param to the new state
     */
    default void onBreakerStateTransition(String dependency, BreakerState from, BreakerState to) {
    }

    /**
     * Called when an attempt is rejected without any network call because the dependency's circuit
     * breaker is open or its bulkhead is full.
     *
     * @param dependency the dependency key
     * @param rejection the rejection, a {@link CircuitOpenException} or {@link BulkheadFullException}
     */
    default void onRejected(String dependency, CallRejectedException rejection) {
    }

    /** The outcome of one retry decision, as logged in the {@code outcome} field. */
    enum Decision {
        /** The attempt failed in a retryable way and another attempt is scheduled after {@code delay}. */
        RETRYING,
        /** The attempt produced a successful response, which is returned to the caller. */
        SUCCEEDED,
        /**
         * The attempt failed retryably but the retry layer stopped: attempts exhausted, retry budget
         * empty, Retry-After above the maximum, or the backoff would overrun the total timeout.
         */
        GAVE_UP,
        /**
         * The attempt's outcome is not retryable (permanent, or ambiguous for a non-idempotent request
         * without an idempotency key, or a body that cannot be replayed), or the call was cancelled.
         */
        ABORTED,
        /** The attempt was rejected without a network call (circuit open, bulkhead full). */
        REJECTED;

        /**
         * Returns the lower-case name used in log lines, e.g. {@code gave_up}.
         *
         * @return the log name
         */
        public String logName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * One retry decision. It never holds header values or the query string.
     *
     * @param correlationId identifies the logical call; the same for all its attempts
     * @param dependency the dependency key, e.g. {@code "https://api.example.com:443"}
     * @param method the request method
     * @param path the request path without query string
     * @param attempt the attempt decided about, 1 for the first
     * @param maxAttempts the configured maximum attempts, including the first
     * @param elapsed time since the logical call started
     * @param delay the backoff before the next attempt; {@link Duration#ZERO} unless {@code RETRYING}
     * @param errorClass the attempt's exception class name, or null if it produced a response
     * @param statusCode the attempt's HTTP status, or {@code -1} if it produced no response
     * @param decision what the retry layer decided
     * @param reason a short human-readable reason, e.g. {@code "not retried: non-idempotent and outcome unknown"}
     */
    record RetryDecisionEvent(String correlationId, String dependency, String method, String path, int attempt,
                              int maxAttempts, Duration elapsed, Duration delay, String errorClass, int statusCode,
                              Decision decision, String reason) {

        /**
         * Validates the event.
         *
         * @throws NullPointerException if any reference except {@code errorClass} is null
         */
        public RetryDecisionEvent {
            Objects.requireNonNull(correlationId, "correlationId");
            Objects.requireNonNull(dependency, "dependency");
            Objects.requireNonNull(method, "method");
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(elapsed, "elapsed");
            Objects.requireNonNull(delay, "delay");
            Objects.requireNonNull(decision, "decision");
            Objects.requireNonNull(reason, "reason");
        }
    }
}
