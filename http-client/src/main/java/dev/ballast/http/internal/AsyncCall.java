package dev.ballast.http.internal;

import dev.ballast.http.BulkheadFullException;
import dev.ballast.http.CallObserver;
import dev.ballast.http.CircuitOpenException;
import dev.ballast.http.ConcurrencyLimitExceededException;
import dev.ballast.http.RetryDecision;
import dev.ballast.http.hedging.HedgingConfig;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.PushPromiseHandler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * A {@code sendAsync}: the first attempt calls the wrapped client's {@code sendAsync} from the
 * calling thread, and each step continues on the completion of the previous one (the wrapped
 * client's thread), with no hand-off of its own. Only a backoff is scheduled, and a bulkhead wait
 * when one is configured; an attempt timeout that fires hops to the scheduler to cancel the
 * exchange, so the timer's thread never runs callers' code.
 *
 * <p>Any completion of {@link #result} (the call's own, the caller's {@code cancel}, an
 * {@code orTimeout}, {@code shutdownNow}) stops the call: the exchange in flight is cancelled (the
 * JDK then aborts it on the wire), a pending backoff or bulkhead wait is withdrawn, and no further
 * attempt starts.
 */
final class AsyncCall<T> extends Call implements BiConsumer<HttpResponse<T>, Throwable> {

    private final BodyHandler<T> handler;
    private final @Nullable PushPromiseHandler<T> pushHandler;
    /** The caller's future. */
    final CompletableFuture<HttpResponse<T>> result = new CompletableFuture<>();
    /** What the call waits for now: the exchange, a bulkhead wait or a backoff. */
    private volatile @Nullable Future<?> waitingFor;
    /**
     * The call's hedging, or {@code null} when it is not hedged: the dependency does not hedge, or
     * the request may not be sent twice (neither idempotent nor keyed, or a body that cannot be
     * replayed).
     */
    private final @Nullable HedgingConfig hedging;
    /** Hedged calls only: the attempts whose exchanges are in flight. Guarded by this. */
    private final @Nullable List<Attempt<T>> running;
    /** Hedged calls only: how many hedged attempts were sent. Guarded by this. */
    private int hedges;
    /** Hedged calls only: the pending hedge, if any. */
    private volatile @Nullable HedgeTimeout hedgeTimeout;
    /**
     * Hedged calls only: the attempt whose headers were kept first, to which the call is committed
     * until it ends (or its failure is retried); {@code null} before. Guarded by this.
     */
    private @Nullable Attempt<T> committed;

    AsyncCall(
            Pipeline pipeline,
            Dependency dependency,
            HttpRequest request,
            boolean idempotentOrKeyed,
            boolean keyed,
            boolean replayable,
            long startNanos,
            long deadlineNanos,
            long correlationSeed,
            BodyHandler<T> handler,
            @Nullable PushPromiseHandler<T> pushHandler) {
        super(
                pipeline,
                dependency,
                request,
                idempotentOrKeyed,
                keyed,
                replayable,
                startNanos,
                deadlineNanos,
                correlationSeed);
        this.handler = handler;
        this.pushHandler = pushHandler;
        HedgingConfig policy = dependency.hedging();
        this.hedging = policy != null && idempotentOrKeyed && replayable ? policy : null;
        this.running = hedging == null ? null : new ArrayList<>(1 + hedging.maxHedgedAttempts());
    }

    /**
     * Starts the first attempt on the calling thread.
     *
     * @param firstTicket the breaker's ticket for the first attempt if it was asked already, or
     *     {@link CircuitBreaker#NO_TICKET}
     */
    void start(long firstTicket) {
        result.whenComplete(this);
        startAttempt(firstTicket);
    }

    /** The caller's future completed, by whatever means: stop everything and let go of the call. */
    @Override
    public void accept(HttpResponse<T> response, Throwable failure) {
        CallContext.ended(this, response, failure);
        stop();
        pipeline.ended(this);
    }

    @SuppressWarnings("try") // the scope is held, not read: it makes the call's context current
    private void nextAttempt() {
        try (CallObserver.Scope scope = CallContext.enter(this)) {
            startAttempt(CircuitBreaker.NO_TICKET);
        } catch (Throwable t) {
            failUnexpectedly(t);
        }
    }

    /**
     * A step of ours threw where nobody waits for it (a completion or scheduler thread would swallow
     * it): the caller's future fails with it rather than never completing. Listener failures never get
     * here ({@link Listeners} catches them all); this is the net under our own bugs.
     */
    private void failUnexpectedly(Throwable t) {
        fail(t);
    }

    /** Ends the call with {@code failure}, which carries the call's correlation id from here on. */
    private void fail(Throwable failure) {
        result.completeExceptionally(Correlation.tag(failure, correlationSeed()));
    }

    /** Ends the call with {@code response}, which carries the call's correlation id. */
    private void succeed(HttpResponse<T> response) {
        result.complete(Correlation.response(response, correlationSeed()));
    }

    @SuppressWarnings("try") // the scope is held, not read: it makes the call's context current
    private void startAttempt(long granted) {
        if (stopped) {
            dependency.breaker().report(granted, CircuitBreaker.Report.NOT_ATTEMPTED, 0);
            return;
        }
        retryStarted();
        int number = attempts + 1;
        attempts = number;
        pipeline.listeners.attemptStarted(this, number);
        if (stopped) {
            dependency.breaker().report(granted, CircuitBreaker.Report.NOT_ATTEMPTED, 0);
            return;
        }
        Attempt<T> attempt = new Attempt<>(this, number, handler);
        AttemptOutcome rejected = attempt.acquireBreaker(granted);
        if (rejected != null) {
            decided(rejected);
            return;
        }
        Bulkhead bulkhead = dependency.bulkhead();
        Bulkhead.Permit permit = bulkhead == null ? null : bulkhead.tryAcquireNow();
        if (permit != null || bulkhead == null) {
            attempt.bulkheadPermit = permit;
            exchange(attempt);
            return;
        }
        Duration wait = attempt.bulkheadWait();
        if (wait.isZero()) {
            decided(attempt.rejected(bulkhead.full(wait)));
            return;
        }
        CompletableFuture<Bulkhead.Permit> waiter = bulkhead.acquireAsync(pipeline.scheduler, wait);
        waitingFor = waiter;
        if (stopped) {
            waiter.cancel(false); // withdraws the waiter
        }
        waiter.whenComplete((bulkheadPermit, failure) -> {
            try (CallObserver.Scope scope = CallContext.enter(this)) {
                bulkheadWaited(attempt, bulkheadPermit, failure);
            }
        });
    }

    private void bulkheadWaited(
            Attempt<T> attempt, Bulkhead.@Nullable Permit bulkheadPermit, @Nullable Throwable failure) {
        {
            if (failure == null) {
                attempt.bulkheadPermit = bulkheadPermit;
                exchange(attempt);
                return;
            }
            Throwable cause = Pipeline.unwrap(failure);
            if (cause instanceof BulkheadFullException full) {
                decided(attempt.rejected(full));
            } else {
                // Withdrawn (the call stopped) or the scheduler refused the wait's timeout.
                attempt.breakerNotAttempted();
                fail(cause);
            }
        }
    }

    private void exchange(Attempt<T> attempt) {
        if (stopped) {
            attempt.endExchange();
            attempt.breakerNotAttempted();
            return;
        }
        if (!attempt.tryAcquireLimit()) {
            waitForLimit(attempt);
            return;
        }
        send(attempt);
    }

    /**
     * Waits for a place under the concurrency limit without holding a thread: a FIFO waiter in the
     * limiter, its timeout a task on the scheduler, withdrawn if the call stops meanwhile.
     */
    @SuppressWarnings("try") // the scope is held, not read: it makes the call's context current
    private void waitForLimit(Attempt<T> attempt) {
        ConcurrencyLimiter limiter = dependency.limiter();
        Duration wait = attempt.limitWait();
        if (wait.isZero()) {
            decided(attempt.limitRefused(limiter.rejection()));
            return;
        }
        CompletableFuture<Integer> waiter = limiter.acquireAsync(pipeline.scheduler, wait);
        waitingFor = waiter;
        if (stopped) {
            waiter.cancel(false); // withdraws the waiter
        }
        waiter.whenComplete((before, failure) -> {
            try (CallObserver.Scope scope = CallContext.enter(this)) {
                limitWaited(attempt, before, failure);
            }
        });
    }

    private void limitWaited(Attempt<T> attempt, @Nullable Integer before, @Nullable Throwable failure) {
        {
            if (failure == null) {
                attempt.limitAcquired(before);
                if (stopped) {
                    attempt.endExchange();
                    attempt.limitWaitAbandoned();
                    return;
                }
                send(attempt);
                return;
            }
            Throwable cause = Pipeline.unwrap(failure);
            if (cause instanceof ConcurrencyLimitExceededException refused) {
                decided(attempt.limitRefused(refused));
            } else {
                // Withdrawn (the call stopped) or the scheduler refused the wait's timeout.
                attempt.limitWaitAbandoned();
                fail(cause);
            }
        }
    }

    private void send(Attempt<T> attempt) {
        HttpRequest request = attempt.prepareExchange();
        if (request == null) {
            attempt.endExchange();
            decided(attempt.complete(null, attempt.deadlinePassed()));
            return;
        }
        if (hedging != null) {
            boolean tooLate;
            synchronized (this) {
                tooLate = committed != null; // a hedge decided just before another attempt's headers were kept
                if (!tooLate) {
                    running.add(attempt);
                }
            }
            if (tooLate) {
                attempt.endExchange();
                attempt.breakerNotAttempted();
                dependency.budget().refundRetry();
                return;
            }
        }
        request = CallContext.sending(this, attempt.number, request); // an observer's headers (trace context)
        CompletableFuture<HttpResponse<T>> exchange;
        try {
            exchange = pushHandler == null
                    ? pipeline.delegate.sendAsync(request, attempt)
                    : pipeline.delegate.sendAsync(request, attempt, pushHandler);
        } catch (RuntimeException e) {
            exchange = CompletableFuture.failedFuture(e);
        }
        attempt.exchange = exchange;
        waitingFor = exchange;
        if (stopped || attempt.timedOut) {
            exchange.cancel(true); // stopped or timed out before the exchange was published
        }
        if (hedging != null) {
            armHedge(attempt.startNanos);
        }
        exchange.whenComplete(attempt);
    }

    /** The exchange of {@code attempt} completed; runs on the wrapped client's thread. */
    @SuppressWarnings("try") // the scope is held, not read: it makes the call's context current
    void exchangeCompleted(Attempt<T> attempt, HttpResponse<T> response, Throwable failure) {
        try (CallObserver.Scope scope = CallContext.enter(this)) {
            if (hedging != null) {
                hedgedExchangeCompleted(attempt, response, failure);
                return;
            }
            attempt.endExchange();
            if (stopped) {
                // Cancelled or aborted: no answer to report, nobody to hand a body to.
                attempt.abandon(response);
                return;
            }
            decided(attempt.complete(response, failure));
        } catch (Throwable t) {
            failUnexpectedly(t);
        }
    }

    // ---- hedging ------------------------------------------------------------------------------------

    @Override
    boolean overlapping() {
        return hedging != null;
    }

    @Override
    boolean othersInFlight(Attempt<?> attempt) {
        if (hedging == null) {
            return false;
        }
        synchronized (this) {
            // the completing attempt has left it already; once committed, the others are being cancelled
            return committed == null && !running.isEmpty();
        }
    }

    /**
     * Commits a hedged call to {@code attempt}, whose headers are kept: the first to get here wins,
     * every other attempt in flight is marked lost and cancelled, and no further hedge is sent. gRPC
     * (A6 "commit") and Envoy's hedging do the same, so the caller's handler runs for one response.
     */
    @Override
    @SuppressWarnings("unchecked")
    boolean commit(Attempt<?> attempt) {
        if (hedging == null) {
            return true;
        }
        List<Attempt<T>> losers;
        synchronized (this) {
            if (attempt.lost || committed != null && committed != attempt) {
                return false;
            }
            committed = (Attempt<T>) attempt;
            losers = new ArrayList<>(running.size());
            for (Attempt<T> other : running) {
                if (other != attempt) {
                    other.lost = true;
                    losers.add(other);
                }
            }
        }
        disarmHedge();
        for (Attempt<T> loser : losers) {
            CallContext.attemptCancelled(this, loser.number);
            CompletableFuture<HttpResponse<T>> exchange = loser.exchange;
            if (exchange != null) {
                exchange.cancel(true);
            }
        }
        return true;
    }

    /**
     * A hedged call's exchange completed. An attempt that lost to a committed one is abandoned; the
     * committed attempt (or, with a wrapped client that never runs the handler, the first answer that
     * ends the call) decides as an unhedged one would. Otherwise the first answer that ends the call wins (the others are
     * then cancelled by {@link #onStop()}); a failure while another attempt is still in flight waits
     * for that one; the last attempt to end with none left in flight decides as an unhedged one would.
     */
    private void hedgedExchangeCompleted(Attempt<T> attempt, HttpResponse<T> response, Throwable failure) {
        AttemptOutcome outcome;
        synchronized (this) {
            running.remove(attempt);
            attempt.endExchange();
            if (stopped || attempt.lost) {
                attempt.abandon(response); // a loser, cancelled once another attempt won
                return;
            }
            outcome = attempt.complete(response, failure);
            boolean isCommitted = committed == attempt;
            if (responseOf(outcome) == null && !running.isEmpty() && !isCommitted) {
                return; // no answer for the caller yet: another attempt is still in flight
            }
            if (outcome.retry()) {
                committed = null; // the committed response's body failed and is retried: a new round
            }
            if (running.isEmpty() || isCommitted) {
                disarmHedge(); // a retry, if decided, starts over with a hedge of its own
            }
        }
        decided(outcome);
    }

    /**
     * Arms the next hedge for the dependency's hedging delay after {@code sentNanos}, when the attempt
     * just sent began (on the ticker: the delay counts from the send, however long handing the
     * request to the wrapped client took), unless the call may send no more.
     */
    private void armHedge(long sentNanos) {
        long delayNanos;
        synchronized (this) {
            if (stopped || hedges >= hedging.maxHedgedAttempts() || attempts >= maxAttempts()) {
                return;
            }
            delayNanos = dependency.hedgingDelayNanos();
        }
        HedgeTimeout previous = hedgeTimeout;
        if (previous != null) {
            previous.disarm();
        }
        HedgeTimeout next = new HedgeTimeout(Durations.saturatedAdd(sentNanos, delayNanos), delayNanos, this);
        hedgeTimeout = next;
        pipeline.timer.arm(next);
        if (stopped) {
            next.disarm();
        }
    }

    private void disarmHedge() {
        HedgeTimeout pending = hedgeTimeout;
        if (pending != null) {
            pending.disarm();
        }
    }

    /**
     * The hedging delay passed: unless the call has its answer (or may send no more), send the
     * request again alongside the attempts in flight. A hedged attempt withdraws a retry budget token
     * and asks the breaker and the bulkhead like any attempt; if one of them says no, no hedge is sent.
     */
    private void hedge(long waitedNanos) {
        Attempt<T> attempt;
        synchronized (this) {
            if (stopped
                    || committed != null
                    || running.isEmpty()
                    || hedges >= hedging.maxHedgedAttempts()
                    || attempts >= maxAttempts()
                    || deadlinePassed()
                    || !dependency.budget().tryAcquireRetry()) {
                return;
            }
            long ticket;
            try {
                ticket = dependency.breaker().acquireTicket();
            } catch (CircuitOpenException open) {
                dependency.budget().refundRetry();
                return;
            }
            Bulkhead bulkhead = dependency.bulkhead();
            Bulkhead.Permit bulkheadPermit = bulkhead == null ? null : bulkhead.tryAcquireNow();
            int limitInFlightBefore = bulkhead != null && bulkheadPermit == null
                    ? -1
                    : dependency.limiter().tryAcquire(pipeline.ticker.read());
            if (limitInFlightBefore < 0) {
                if (bulkheadPermit != null) {
                    bulkheadPermit.close();
                }
                dependency.breaker().report(ticket, CircuitBreaker.Report.NOT_ATTEMPTED, 0);
                dependency.budget().refundRetry();
                return;
            }
            hedges++;
            int number = attempts + 1;
            attempts = number;
            pipeline.listeners.hedged(this, number, waitedNanos);
            pipeline.listeners.attemptStarted(this, number);
            attempt = new Attempt<>(this, number, handler);
            attempt.breakerTicket = ticket;
            attempt.bulkheadPermit = bulkheadPermit;
            attempt.limitInFlightBefore = limitInFlightBefore;
        }
        exchange(attempt);
    }

    /** The pending hedge of a call, in the client's timer; forgets the call once disarmed. */
    private static final class HedgeTimeout extends DeadlineTimer.Timeout {

        private final long delayNanos;
        private volatile @Nullable AsyncCall<?> call;

        HedgeTimeout(long deadlineNanos, long delayNanos, AsyncCall<?> call) {
            super(deadlineNanos);
            this.delayNanos = delayNanos;
            this.call = call;
        }

        @Override
        @SuppressWarnings("try") // the scope is held, not read: it makes the call's context current
        protected void expire() {
            AsyncCall<?> c = call;
            if (c != null) {
                call = null;
                c.pipeline.runOffTimer(
                        () -> { // sending is the caller's work: not on the timer
                            try (CallObserver.Scope scope = CallContext.enter(c)) {
                                c.hedge(delayNanos);
                            } catch (Throwable t) {
                                c.failUnexpectedly(t);
                            }
                        });
            }
        }
    }

    @SuppressWarnings("unchecked")
    private void decided(AttemptOutcome outcome) {
        RetainedAnswer answer = lastAnswer();
        if (outcome.retry()) {
            scheduleRetry(outcome.delayNanos());
        } else if (responseOf(outcome) != null) {
            succeed((HttpResponse<T>) responseOf(outcome));
        } else if (answer != null && outcome.decision() == RetryDecision.REJECTED) {
            // Refused after an answer: the call ends with that answer, as the caller's handler makes it.
            answer.replay(handler).whenComplete((response, failure) -> {
                if (failure == null) { // on the caller's handler's thread
                    succeed(response);
                } else {
                    fail(Pipeline.unwrap(failure));
                }
            });
        } else {
            fail(CallResult.failure(this, outcome, pipeline.totalTimeout));
        }
    }

    private void scheduleRetry(long delayNanos) {
        retryScheduled();
        if (stopped) {
            return;
        }
        try {
            ScheduledFuture<?> backoff =
                    pipeline.scheduler.schedule(this::nextAttempt, delayNanos, TimeUnit.NANOSECONDS);
            waitingFor = backoff;
            if (stopped) {
                backoff.cancel(false);
            }
        } catch (RejectedExecutionException e) {
            // A caller-supplied scheduler that was shut down: fail this call rather than leak it.
            refundPendingRetry();
            fail(e);
        }
    }

    @Override
    void onStop() {
        Future<?> waiting = waitingFor;
        if (waiting != null) {
            // Cancelling the JDK's exchange future aborts the exchange; a scheduled backoff is only withdrawn.
            waiting.cancel(!(waiting instanceof ScheduledFuture));
        }
        if (hedging != null) {
            disarmHedge();
            List<Attempt<T>> inFlight;
            synchronized (this) {
                inFlight = List.copyOf(running);
            }
            for (Attempt<T> attempt : inFlight) {
                CompletableFuture<HttpResponse<T>> exchange = attempt.exchange;
                if (exchange != null) {
                    exchange.cancel(true); // the losers of a hedged call
                }
            }
        }
    }

    @Override
    void abort(IOException failure) {
        fail(failure);
    }

    @Override
    void attemptTimedOut(Attempt<?> attempt) {
        Runnable cancel = () -> {
            CompletableFuture<?> exchange = attempt.exchange;
            if (exchange != null) {
                exchange.cancel(true);
            }
        };
        try {
            pipeline.scheduler.execute(cancel);
        } catch (RejectedExecutionException e) {
            cancel.run(); // rather late on the timer's thread than never
        }
    }
}
