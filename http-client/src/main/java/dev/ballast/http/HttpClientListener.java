package dev.ballast.http;

import dev.ballast.http.breaker.BreakerState;
import dev.ballast.http.classify.Outcome;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Receives the events of a {@link ResilientHttpClient}: one {@link RetryDecisionEvent} per
 * attempt (the same content as the client's SLF4J log line), every attempt start, every hedged
 * attempt ({@link #onHedge}), every circuit breaker state transition and every rejection without a network call; for metrics, the end of
 * every attempt and call as plain numbers ({@link #onAttemptEnded}, {@link #onCallEnded}) and the
 * lifecycle of per-dependency state ({@link #onClientBuilt}, {@link #onDependencyEvicted}). This is
 * the one listener type of the client: breakers, bulkheads and retry budgets report through it too.
 * All methods have no-op defaults, so implementations override only what they need; {@link #NONE}
 * ignores everything.
 *
 * <p>Every event of a call carries its correlation id, the one its log lines, its response and the
 * exception it ends with carry ({@link CorrelationIds}): {@link #onAttemptEnded}, {@link #onCallEnded}
 * and {@link #onRejected} each have a form with it and one without, the latter for metrics.
 *
 * <p>An event is only built for listeners that override its method: a listener that overrides
 * the forms of {@link #onAttemptEnded} and {@link #onCallEnded} without the correlation id alone
 * costs no {@link RetryDecisionEvent} and no correlation id, the client allocates nothing to report to
 * it, and a call refused by an open breaker at its first attempt is still refused before any of its
 * state is built.
 *
 * <p>Listeners are added with {@link ResilientHttpClient.Builder#listener(HttpClientListener)},
 * never replaced. Callbacks run synchronously on whatever thread made the decision (the caller's
 * thread for {@code send}, an {@code HttpClient} executor thread or the scheduler for
 * {@code sendAsync}), with the caller's SLF4J MDC set on it (copied when {@code sendAsync} was
 * called, and the thread's own restored afterwards); they must be fast, must not block, must not throw and must not call back into
 * the client. Whatever a callback throws other than {@link #onClientBuilt} is caught, logged with
 * the listener's class (an exception at WARN, an {@link Error} at ERROR) and otherwise ignored: the
 * call goes on and ends as it would have without that listener, so a {@code NoClassDefFoundError}
 * of a metrics class missing at run time neither fails nor hangs a call, nor {@code close()}. That
 * includes a {@link VirtualMachineError} such as {@code OutOfMemoryError}: rethrowing it on the
 * completion thread that called the listener would leave the call's future incomplete, so it is
 * logged and left to whatever meets the condition next. Breaker transitions are reported while
 * that breaker's lock is held, so each listener sees one breaker's transitions once and in order.
 * Implementations must be thread-safe.
 */
public interface HttpClientListener {

    /** A listener that ignores every event. */
    HttpClientListener NONE = new HttpClientListener() {};

    /**
     * Called just before an attempt is handed to the circuit breaker, the bulkhead and the wrapped
     * client.
     *
     * @param correlationId the logical call's correlation id
     * @param dependency the dependency key
     * @param attempt the attempt number, 1 for the first attempt
     */
    default void onAttemptStarted(String correlationId, String dependency, int attempt) {}

    /**
     * Called when a hedged attempt is sent: the call's attempts in flight had not answered within the
     * hedging delay, so the request goes out again alongside them
     * ({@link dev.ballast.http.hedging.HedgingConfig}). The hedged attempt then reports
     * {@link #onAttemptStarted} as any other, with the same attempt number.
     *
     * @param correlationId the logical call's correlation id
     * @param dependency the dependency key
     * @param attempt the number of the hedged attempt
     * @param delay how long the call had waited for an answer before hedging
     */
    default void onHedge(String correlationId, String dependency, int attempt, Duration delay) {}

    /**
     * Called once per attempt with the retry layer's decision about it; an attempt that ends the
     * call because the total timeout expired is decided {@code GAVE_UP} with reason
     * {@code "total timeout exceeded"}. An attempt cancelled by the caller (or by
     * {@link ResilientHttpClient#shutdownNow()}) is not decided about.
     *
     * @param event the decision
     */
    default void onRetryDecision(RetryDecisionEvent event) {}

    /**
     * Called when a dependency's circuit breaker changes state.
     *
     * @param dependency the dependency key
     * @param from the previous state
     * @param to the new state
     */
    default void onBreakerStateTransition(String dependency, BreakerState from, BreakerState to) {}

    /**
     * Called when an attempt is rejected without any network call because the dependency's circuit
     * breaker is open, its concurrency limit is reached or its bulkhead is full. Rejections are also
     * counted per dependency ({@link DependencyStatus}); a storm of them costs no log I/O: a
     * circuit-open rejection is logged only as the first of its open period (one INFO line), a
     * concurrency-limit or bulkhead rejection at DEBUG.
     *
     * @param dependency the dependency key
     * @param rejection the rejection, a {@link CircuitOpenException}, {@link ConcurrencyLimitExceededException}
     *     or {@link BulkheadFullException}
     */
    default void onRejected(String dependency, CallRejectedException rejection) {}

    /**
     * {@link #onRejected(String, CallRejectedException)} with the correlation id of the call whose
     * attempt was rejected. By default calls {@link #onRejected(String, CallRejectedException)};
     * override this one instead to receive the id. The client calls only this one, so a listener
     * overrides one of the two, never both.
     *
     * @param correlationId the logical call's correlation id
     * @param dependency the dependency key
     * @param rejection the rejection
     */
    default void onRejected(String correlationId, String dependency, CallRejectedException rejection) {
        onRejected(dependency, rejection);
    }

    /**
     * Called once per attempt decided about (as {@link #onRetryDecision}, right after it), with
     * nothing but numbers and constants: the event a metrics listener records without allocating.
     *
     * @param dependency the dependency key
     * @param attempt the attempt number, 1 for the first
     * @param outcome the attempt's classification; an attempt the breaker or bulkhead rejected is
     *     {@link Outcome#PERMANENT}
     * @param decision what the retry layer decided about the attempt
     * @param durationNanos the attempt's duration on the client's {@link Ticker}, in nanoseconds: from
     *     the moment its exchange starts (breaker and bulkhead passed) to the decision, which for a
     *     response handed to the caller is when the wrapped client returned it; {@code 0} for an
     *     attempt rejected without any network call
     */
    default void onAttemptEnded(
            String dependency, int attempt, Outcome outcome, RetryDecision decision, long durationNanos) {}

    /**
     * {@link #onAttemptEnded(String, int, Outcome, RetryDecision, long)} with the correlation id of the
     * attempt's call. By default calls the method without it; override this one instead to receive the
     * id. A listener that does costs every call its correlation id (a short string) and makes a call
     * refused by an open breaker build its state first, as any observed call does; one that overrides
     * only the method without the id costs nothing of the kind. The client calls this one only, so a
     * listener overrides one of the two, never both.
     *
     * @param correlationId the logical call's correlation id, as in its log lines and its
     *     {@link RetryDecisionEvent}
     * @param dependency the dependency key
     * @param attempt the attempt number, 1 for the first
     * @param outcome the attempt's classification
     * @param decision what the retry layer decided about the attempt
     * @param durationNanos the attempt's duration in nanoseconds, as in the method without the id
     */
    default void onAttemptEnded(
            String correlationId,
            String dependency,
            int attempt,
            Outcome outcome,
            RetryDecision decision,
            long durationNanos) {
        onAttemptEnded(dependency, attempt, outcome, decision, durationNanos);
    }

    /**
     * Called once per logical call ({@code send} or {@code sendAsync}) that ended with a decision,
     * after its last {@link #onAttemptEnded}. A call cancelled by its caller or aborted by
     * {@link ResilientHttpClient#shutdownNow()} while an attempt or backoff was pending may end without
     * one.
     *
     * @param dependency the dependency key
     * @param attempts how many attempts the call made, including the first and any rejected one
     * @param outcome the last attempt's classification ({@link Outcome#PERMANENT} if it was rejected)
     * @param decision the last decision: {@link RetryDecision#SUCCEEDED}, {@link RetryDecision#GAVE_UP},
     *     {@link RetryDecision#ABORTED} or {@link RetryDecision#REJECTED}
     * @param durationNanos the call's duration on the client's {@link Ticker}, in nanoseconds, backoffs
     *     included, from {@code send}/{@code sendAsync} to the last decision
     */
    default void onCallEnded(
            String dependency, int attempts, Outcome outcome, RetryDecision decision, long durationNanos) {}

    /**
     * {@link #onCallEnded(String, int, Outcome, RetryDecision, long)} with the call's correlation id,
     * the same that {@link CorrelationIds} reads from the call's response or the exception it ended
     * with. By default calls the method without it; override this one instead to receive the id (at
     * the cost {@link #onAttemptEnded(String, String, int, Outcome, RetryDecision, long)} states).
     *
     * @param correlationId the logical call's correlation id
     * @param dependency the dependency key
     * @param attempts how many attempts the call made
     * @param outcome the last attempt's classification
     * @param decision the last decision
     * @param durationNanos the call's duration in nanoseconds, as in the method without the id
     */
    default void onCallEnded(
            String correlationId,
            String dependency,
            int attempts,
            Outcome outcome,
            RetryDecision decision,
            long durationNanos) {
        onCallEnded(dependency, attempts, outcome, decision, durationNanos);
    }

    /**
     * Called once by {@link ResilientHttpClient.Builder#build()} for the client this listener was added
     * to, before {@code build()} returns and so before any other event of that client. A listener that
     * reads {@link ResilientHttpClient#dependencyStatus(String)} (a metrics gauge, a health check) takes
     * the client here, for use outside its callbacks. Unlike the other callbacks, an exception thrown
     * here is not caught: it fails {@code build()}, so a listener may refuse a second client.
     *
     * @param client the client, built and usable
     */
    default void onClientBuilt(ResilientHttpClient client) {}

    /**
     * Called when the client forgets the state of an idle dependency to stay within
     * {@link ResilientHttpClient.Builder#maxDependencies(int)}: its breaker, bulkhead and retry budget
     * are gone, and its next call starts afresh. Every event of that next call comes after this one.
     * A listener keeping per-dependency state (meters, say) drops it here, so that state stays bounded
     * too.
     *
     * @param dependency the dependency key
     */
    default void onDependencyEvicted(String dependency) {}

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
    record RetryDecisionEvent(
            String correlationId,
            String dependency,
            String method,
            String path,
            int attempt,
            int maxAttempts,
            Duration elapsed,
            Duration delay,
            @Nullable String errorClass,
            int statusCode,
            RetryDecision decision,
            String reason) {

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
