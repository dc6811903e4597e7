package dev.ballast.http.internal;

import dev.ballast.http.CallRejectedException;
import dev.ballast.http.CircuitOpenException;
import dev.ballast.http.classify.Outcome;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.BodySubscribers;
import java.net.http.HttpResponse.ResponseInfo;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

/**
 * One attempt of a call: its breaker and bulkhead permits, its time bound, and the body handler the
 * wrapped client is given. That handler decides about the attempt as soon as the status line and
 * headers arrive, on the client's thread: a response that will be retried is drained and discarded
 * without ever reaching the caller's handler. The same object completes the attempt for
 * {@code sendAsync} (it is the exchange future's completion action), so an attempt allocates no
 * callbacks of its own.
 *
 * <p>Time bound: the attempt may take {@code min(attempt timeout, time left of the total timeout)},
 * headers and body, enforced by the client's {@link DeadlineTimer}: arming it is a compare-and-set.
 * The request is sent as the caller built it. Giving the JDK the bound as the request's
 * {@link HttpRequest#timeout()} instead would cost more than the timer: the JDK's
 * {@code HttpClientImpl.registerTimer} registers a timer and wakes its selector thread for every
 * request that carries a timeout. A timeout the caller set on the request is kept, and the JDK
 * enforces it too.
 */
final class Attempt<T> implements BodyHandler<T>, BiConsumer<HttpResponse<T>, Throwable> {

    final Pipeline pipeline;
    final Call call;
    final int number;
    private final BodyHandler<T> handler;
    CircuitBreaker.Permit breakerPermit;
    Bulkhead.Permit bulkheadPermit;
    /** How long the exchange may take, in nanoseconds, from {@link #startNanos}. */
    long boundNanos;
    /** Whether {@link #boundNanos} is what was left of the total timeout rather than the attempt timeout. */
    boolean boundByTotal;
    long startNanos;
    private volatile AttemptOutcome headerDecision;
    private volatile Throwable handlerFailure;
    private volatile AttemptTimeout timeout;
    volatile boolean timedOut;
    volatile boolean completed;
    /** The wrapped client's future ({@code sendAsync} only). */
    volatile CompletableFuture<HttpResponse<T>> exchange;

    Attempt(Pipeline pipeline, Call call, int number, BodyHandler<T> handler) {
        this.pipeline = pipeline;
        this.call = call;
        this.number = number;
        this.handler = handler;
    }

    /**
     * Asks the breaker for permission, unless {@code granted} already is it. The first attempt the
     * breaker lets through deposits into the retry budget: a call rejected outright is no traffic.
     *
     * @return {@code null} when the breaker permits the attempt; the rejection outcome otherwise
     */
    AttemptOutcome acquireBreaker(CircuitBreaker.Permit granted) {
        if (granted != null) {
            breakerPermit = granted;
        } else {
            try {
                breakerPermit = call.dependency.breaker().acquirePermission();
            } catch (CircuitOpenException open) {
                return rejected(open);
            }
        }
        if (number == 1) {
            call.dependency.budget().recordFirstAttempt();
        }
        return null;
    }

    /** The attempt was rejected before any I/O. */
    AttemptOutcome rejected(CallRejectedException rejection) {
        completed = true;
        if (breakerPermit != null) {
            // Rejected by the bulkhead: a half-open probe slot goes back, nothing is recorded.
            breakerPermit.onNotAttempted();
        }
        call.dependency.countRejection(rejection);
        pipeline.listeners.rejected(call.dependency.name(), rejection);
        AttemptOutcome outcome = new AttemptOutcome(number, null, rejection, Outcome.PERMANENT,
                rejection instanceof CircuitOpenException ? StopReason.CIRCUIT_OPEN : StopReason.BULKHEAD_FULL,
                0, 0, 0);
        pipeline.listeners.decision(call, outcome);
        return outcome;
    }

    /** The configured bulkhead wait, capped by what is left of the total timeout: a queue is no way around it. */
    Duration bulkheadWait() {
        Duration configured = call.dependency.bulkhead().config().maxWaitDuration();
        if (configured.isZero()) {
            return configured;
        }
        long remaining = Math.max(0, call.deadline.remainingNanos());
        return Durations.saturatedNanos(configured) <= remaining ? configured : Duration.ofNanos(remaining);
    }

    /**
     * Fixes this attempt's time bound, {@code min(attempt timeout, time left of the total timeout)},
     * and arms the client's timer with it.
     *
     * @return the request to send, or {@code null} if the total deadline has passed already: then
     *     nothing may be sent
     */
    HttpRequest prepareExchange() {
        long now = pipeline.ticker.read();
        startNanos = now;
        HttpRequest request = call.request;
        long configured = request.timeout().isPresent()
                ? Durations.saturatedNanos(request.timeout().get()) : pipeline.attemptTimeoutNanos;
        long remaining = call.deadline.remainingNanos(now);
        boundByTotal = remaining <= configured;
        if (remaining <= 0) {
            return null;
        }
        boundNanos = Math.min(configured, remaining);
        arm();
        return request;
    }

    private void arm() {
        if (completed) {
            return;
        }
        AttemptTimeout t = new AttemptTimeout(Durations.saturatedAdd(startNanos, boundNanos), this);
        timeout = t;
        pipeline.timer.arm(t);
    }

    /** Called on the timer's thread when the bound has passed. */
    void expired() {
        if (completed) {
            return;
        }
        timedOut = true;
        call.attemptTimedOut(this);
    }

    /** The failure of an attempt that found the total deadline passed before it could send anything. */
    HttpTimeoutException deadlinePassed() {
        return new HttpTimeoutException("total timeout passed before attempt " + number + " could be sent");
    }

    /** Releases the timer and the bulkhead permit once the exchange has ended, however it ended. */
    void endExchange() {
        completed = true;
        AttemptTimeout t = timeout;
        if (t != null) {
            t.disarm();
            t.attempt = null;
        }
        Bulkhead.Permit permit = bulkheadPermit;
        if (permit != null) {
            permit.close();
        }
    }

    // ---- the handler the wrapped client is given --------------------------------------------------

    @Override
    public BodySubscriber<T> apply(ResponseInfo info) {
        AttemptOutcome decision = pipeline.decider.onResponse(call, number, info.statusCode(), info.headers());
        headerDecision = decision;
        if (decision.retry()) {
            // Drain and discard: the connection goes back to the pool, the caller never sees this body.
            return BodySubscribers.replacing(null);
        }
        try {
            return handler.apply(info);
        } catch (RuntimeException | Error e) {
            handlerFailure = e;
            throw e;
        }
    }

    // ---- completion --------------------------------------------------------------------------------

    /** The {@code sendAsync} exchange completed. */
    @Override
    public void accept(HttpResponse<T> response, Throwable failure) {
        ((AsyncCall<T>) call).exchangeCompleted(this, response, failure);
    }

    /**
     * The exchange ended without anyone to hand the result to (the call was cancelled or aborted):
     * the breaker learns nothing, a retry decided on the headers gives its budget token back, and a
     * body nobody will read is closed.
     */
    void abandon(HttpResponse<?> response) {
        if (breakerPermit != null) {
            breakerPermit.onAbandoned();
        }
        AttemptOutcome decided = headerDecision;
        if (decided != null && decided.retry()) {
            call.dependency.budget().refundRetry();
        }
        if (response != null) {
            Bodies.discard(response);
        }
    }

    /**
     * Decides about the finished exchange, reports it to the breaker and the listeners, and returns
     * the decision.
     *
     * @param response the response, or {@code null}
     * @param thrown what the exchange failed with, or {@code null}
     */
    AttemptOutcome complete(HttpResponse<T> response, Throwable thrown) {
        AttemptOutcome decided = headerDecision;
        AttemptOutcome outcome;
        boolean answered = response != null || decided != null;
        boolean cutByTotal = false;
        if (thrown == null) {
            if (decided == null) {
                // The wrapped client never ran our handler (a test double, say): decide from the response.
                decided = pipeline.decider.onResponse(call, number, response.statusCode(), response.headers());
                if (decided.retry()) {
                    Bodies.discard(response);
                }
            }
            outcome = decided.retry() ? decided : decided.withResponse(response);
        } else {
            Throwable failure = attemptFailure(Pipeline.unwrap(thrown));
            call.addFailure(failure);
            cutByTotal = boundByTotal && failure instanceof HttpTimeoutException
                    && !(failure instanceof HttpConnectTimeoutException);
            if (cutByTotal) {
                outcome = AttemptOutcome.stop(number, Outcome.AMBIGUOUS, StopReason.TOTAL_TIMEOUT)
                        .withFailure(failure);
            } else if (decided != null && decided.retry()) {
                outcome = decided.withFailure(failure); // the discarded body failed to drain: the retry stands
            } else {
                outcome = pipeline.decider.onFailure(call, number, failure);
            }
        }
        if (cutByTotal) {
            // The total timeout, not the dependency, ended this attempt: like a cancellation it proves nothing,
            // and a retry the headers had decided (and paid for) will not run.
            breakerPermit.onAbandoned();
            if (decided != null && decided.retry()) {
                call.dependency.budget().refundRetry();
            }
        } else {
            report(outcome.outcome(), answered);
        }
        pipeline.listeners.decision(call, outcome, startNanos);
        return outcome;
    }

    /**
     * What the attempt failed with, as the caller and the classifier should see it: the caller's
     * own handler failure unwrapped from the JDK's {@code IOException}, and any timeout of ours or
     * of the JDK's request timeout as one {@link HttpTimeoutException} naming the attempt timeout.
     */
    private Throwable attemptFailure(Throwable failure) {
        Throwable own = handlerFailure;
        if (own != null && own != failure && Pipeline.hasCause(failure, own)) {
            return own; // the JDK's send wraps what the caller's handler threw; it is the caller's, as thrown
        }
        boolean jdkTimeout = failure instanceof HttpTimeoutException && !(failure instanceof HttpConnectTimeoutException)
                && pipeline.jdkDelegate && call.request.timeout().isPresent();
        if (timedOut || jdkTimeout) {
            HttpTimeoutException timeout = new HttpTimeoutException("attempt timeout of "
                    + Durations.toMillis(boundNanos) + " ms elapsed");
            timeout.initCause(failure);
            return timeout;
        }
        return failure;
    }

    /**
     * Reports the attempt to its breaker permit. A non-failure outcome is "ignored" only when the
     * dependency really answered with an HTTP response (a 404 proves it is up; on a half-open probe it
     * counts as a success). A permanent <em>exception</em> without any response (a certificate
     * failure, a body handler that threw before headers were handed over) proves nothing about the
     * dependency's health, so it is "abandoned": ignored while CLOSED, but a failed half-open probe, so
     * the breaker never closes on a dependency that has not answered.
     */
    private void report(Outcome outcome, boolean answered) {
        CircuitBreaker.Permit permit = breakerPermit;
        if (outcome == Outcome.SUCCESS) {
            permit.onSuccess();
        } else if (outcome.isBreakerFailure()) {
            permit.onFailure();
        } else if (answered) {
            permit.onIgnored();
        } else {
            permit.onAbandoned();
        }
    }

    /** The attempt's entry in the shared timer; forgets the attempt once disarmed. */
    static final class AttemptTimeout extends DeadlineTimer.Timeout {

        volatile Attempt<?> attempt;

        AttemptTimeout(long deadlineNanos, Attempt<?> attempt) {
            super(deadlineNanos);
            this.attempt = attempt;
        }

        @Override
        protected void expire() {
            Attempt<?> a = attempt;
            if (a != null) {
                a.expired();
            }
        }
    }
}
