package dev.ballast.http;

import dev.ballast.http.HttpClientListener.RetryDecisionEvent;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Observes whole logical calls of a {@link ResilientHttpClient}, for tracing: it sees the call start,
 * every attempt handed to the wrapped client (and may add headers to it, a trace context say), every
 * decision about an attempt, every hedge, and the call's end, and it may make a context of its own
 * current on every thread that runs a step of the call. {@code ballast-opentelemetry}'s
 * {@code BallastTracing} is one; set it with {@link ResilientHttpClient.Builder#observer(CallObserver)}.
 *
 * <p>Unlike an {@link HttpClientListener}, which receives per-dependency events as plain values, an
 * observer holds per-call state: {@link #callStarted} returns the call's {@link Observation}, and
 * every later event of that call goes to it. A client without an observer, or with one that
 * {@linkplain #observesCalls() observes no call}, builds none of this: no observation, no scope,
 * nothing allocated. An observation that only carries a context says so
 * ({@link Observation#observesAttemptEvents()}), and the client builds no decision event for it.
 *
 * <p>Threads: {@link #callStarted} runs on the thread that called {@code send} or {@code sendAsync}.
 * The observation's methods run on whatever thread runs that step (the caller's for {@code send}; an
 * executor, scheduler or completion thread for {@code sendAsync} and hedged calls), always inside
 * {@link Observation#makeCurrent()}; the events of a hedged call's attempts may run on two threads at
 * once, so an observation must be thread-safe. A callback must be fast and must not block. What an
 * observation method throws is caught and logged, as a listener's is, and the call goes on; what
 * {@link #callStarted} throws fails the call before anything is sent ({@code send} throws it,
 * {@code sendAsync}'s future completes with it).
 */
@FunctionalInterface
public interface CallObserver {

    /**
     * Called once per logical call ({@code send} or {@code sendAsync}), before its first attempt asks
     * the circuit breaker, on the calling thread. A call refused at once (open circuit, full
     * bulkhead) starts too, so that its refusal can be observed.
     *
     * @param call what the call is
     * @return the observation of this call, or {@code null} to observe nothing of it
     */
    @Nullable
    Observation callStarted(CallStart call);

    /**
     * Whether this observer observes calls at all. The client asks once, when it is built: an observer
     * that answers {@code false} is never called, and the client runs as if none were set (no
     * observation, no scope, nothing built per call). {@code BallastTracing} over an OpenTelemetry
     * instance that neither records spans nor propagates a context ({@code OpenTelemetry.noop()})
     * answers {@code false}. What this throws fails {@code build()}.
     *
     * @return {@code true} (the default) to be called for every call, {@code false} never to be called
     */
    default boolean observesCalls() {
        return true;
    }

    /**
     * A logical call as it starts.
     *
     * @param correlationId the call's correlation id, as in its log lines, its listener events, on the
     *     exceptions it ends with and on its response ({@link CorrelationIds})
     * @param dependency the dependency key, e.g. {@code "https://api.example.com:443"}
     * @param request the request every attempt sends (the caller's, with the idempotency key if one was
     *     added)
     * @param async whether the call is a {@code sendAsync} (or a hedged {@code send}, which runs as one)
     */
    record CallStart(String correlationId, String dependency, HttpRequest request, boolean async) {

        /**
         * Validates the values.
         *
         * @throws NullPointerException if any reference is null
         */
        public CallStart {
            Objects.requireNonNull(correlationId, "correlationId");
            Objects.requireNonNull(dependency, "dependency");
            Objects.requireNonNull(request, "request");
        }
    }

    /**
     * One attempt decided about: the decision as a listener's {@link RetryDecisionEvent} has it, plus
     * what a trace wants besides.
     *
     * @param event the decision, exactly as listeners receive it
     * @param failure what the attempt failed with (a {@link CallRejectedException} for an attempt
     *     refused without a network call), or {@code null} if it produced a response
     * @param retryAfter the server's {@code Retry-After} when the decision is to retry and the answer
     *     carried one (the backoff is at least this long), else {@code null}
     * @param sent whether the attempt was handed to the wrapped client; {@code false} for an attempt
     *     refused by the breaker, the bulkhead or the concurrency limit, or one the total timeout left no
     *     time for
     */
    record AttemptDecision(
            RetryDecisionEvent event,
            @Nullable Throwable failure,
            @Nullable Duration retryAfter,
            boolean sent) {

        /**
         * Validates the values.
         *
         * @throws NullPointerException if {@code event} is null
         */
        public AttemptDecision {
            Objects.requireNonNull(event, "event");
        }
    }

    /** What is current while a step of a call runs; closing it restores what was current before. */
    @FunctionalInterface
    interface Scope extends AutoCloseable {

        /** A scope that makes nothing current. */
        Scope NONE = () -> {};

        /** Restores what was current before the scope was opened; never throws. */
        @Override
        void close();
    }

    /**
     * The observation of one call. All methods have no-op defaults. Thread-safe (see
     * {@link CallObserver}).
     */
    interface Observation {

        /**
         * Makes this call's context current on this thread until the scope is closed. The client opens
         * it around every step of the call it runs (the call's start on the caller's thread, each
         * attempt's hand-over to the wrapped client, each completion, backoff end and hedge), so that
         * what the wrapped client does on this thread (a Java agent's instrumentation of the JDK
         * client, say) sees it. Scopes nest and are closed in the reverse order on the same thread.
         *
         * @return the scope to close
         */
        default Scope makeCurrent() {
            return Scope.NONE;
        }

        /**
         * Whether this observation takes the call's attempt events: {@link #attemptDecided},
         * {@link #hedgeStarted} and {@link #attemptCancelled}. The client asks once, right after
         * {@link CallObserver#callStarted}: when {@code false}, it builds no decision event for this
         * call's observation and calls none of those three methods; it still calls {@link #makeCurrent},
         * {@link #attemptSending} and {@link #callEnded}. An observation that only carries a context (a
         * trace that is not recorded, whose context is still propagated) answers {@code false}.
         *
         * @return {@code true} (the default) to receive the attempt events
         */
        default boolean observesAttemptEvents() {
            return true;
        }

        /**
         * Called just before attempt {@code attempt} is handed to the wrapped client, inside
         * {@link #makeCurrent()}: the request returned is the one sent, so headers may be added here
         * (a trace context). Not called for an attempt refused before any network call.
         *
         * @param attempt the attempt number, 1 for the first
         * @param request the request the attempt would send
         * @return the request to send: {@code request} itself, or a copy of it with headers added
         */
        default HttpRequest attemptSending(int attempt, HttpRequest request) {
            return request;
        }

        /**
         * Called once per attempt decided about, as {@link HttpClientListener#onRetryDecision} is (an
         * attempt cancelled, or a hedged attempt that lost, is not decided about).
         *
         * @param decision the decision
         */
        default void attemptDecided(AttemptDecision decision) {}

        /**
         * Called when a hedged attempt is about to be sent ({@link HttpClientListener#onHedge}).
         *
         * @param attempt the number the hedged attempt will have
         * @param waited how long the call had waited for an answer
         */
        default void hedgeStarted(int attempt, Duration waited) {}

        /**
         * Called when a hedged call commits to another attempt's answer and cancels attempt
         * {@code attempt}, still in flight; that attempt is not decided about.
         *
         * @param attempt the cancelled attempt's number
         */
        default void attemptCancelled(int attempt) {}

        /**
         * Called once when the call ends: with the response handed to the caller, or with what the
         * caller's {@code send} throws or its future completes with (a {@code CancellationException}
         * when the caller cancelled it). Attempts still in flight then are being cancelled and are not
         * decided about.
         *
         * @param response the response, or {@code null}
         * @param failure the failure, or {@code null} when there is a response
         */
        default void callEnded(@Nullable HttpResponse<?> response, @Nullable Throwable failure) {}
    }
}
