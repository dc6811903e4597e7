package dev.ballast.http.internal;

import dev.ballast.http.BulkheadFullException;
import dev.ballast.http.ConcurrencyLimitExceededException;
import dev.ballast.http.RetryDecision;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * A {@code send}: every attempt runs on the caller's thread, with no hand-off. Breaker permission,
 * bulkhead permit (a timed wait only if one is configured), a place under the concurrency limit, the wrapped client's own blocking
 * {@code send}, classification and the decision all happen here; a backoff parks this thread.
 * Nothing is scheduled: the JDK bounds the response headers through the request's timeout, and the
 * client's {@link DeadlineTimer} the rest.
 *
 * <h2>Interrupts</h2>
 * The only way into a thread blocked in the JDK's {@code send} is to interrupt it (the JDK then
 * cancels the exchange). So an attempt timeout and {@code shutdownNow} interrupt the caller, but only
 * while it waits inside a <em>region</em> (the wrapped client's {@code send}, a bulkhead wait, a
 * backoff), and each region has a tag, so a late timer cannot hit a later region. Leaving a region
 * settles with the interrupter: if an interrupt of ours was delivered, or is being delivered, the
 * caller waits for it and clears it, so our interrupt never leaks into the caller's code. An
 * interrupt the caller receives from anyone else cancels the call and is rethrown as
 * {@link InterruptedException}, as the JDK's {@code send} does.
 */
final class SyncCall extends Call {

    private static final int OUTSIDE = 0;
    private static final int INSIDE = 1;
    private static final int INTERRUPTING = 2;
    private static final int INTERRUPTED = 3;
    private static final int PHASE = 3;

    private final Thread caller = Thread.currentThread();
    /** {@code tag << 2 | phase}. */
    @SuppressWarnings("unused") // accessed through REGION
    private volatile int region;

    private volatile @Nullable IOException abortCause;

    SyncCall(
            Pipeline pipeline,
            Dependency dependency,
            HttpRequest request,
            boolean idempotentOrKeyed,
            boolean keyed,
            boolean replayable,
            long startNanos,
            long deadlineNanos,
            long correlationSeed) {
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
    }

    /**
     * Runs the call to its end.
     *
     * @param firstTicket the breaker's ticket for the first attempt if it was asked already, or
     *     {@link CircuitBreaker#NO_TICKET}
     */
    <T> HttpResponse<T> run(BodyHandler<T> handler, long firstTicket) throws IOException, InterruptedException {
        long granted = firstTicket;
        while (true) {
            if (abortCause != null) {
                // aborted before the first attempt could use its ticket (nothing if there is none)
                dependency.breaker().report(granted, CircuitBreaker.Report.NOT_ATTEMPTED, 0);
            }
            throwIfAborted();
            retryStarted();
            int number = attempts + 1;
            ATTEMPTS.setRelease(this, number); // read by other threads for messages only: no fence
            pipeline.listeners.attemptStarted(this, number);
            Attempt<T> attempt = new Attempt<>(this, number, handler);
            AttemptOutcome outcome = attempt.acquireBreaker(granted);
            granted = CircuitBreaker.NO_TICKET;
            if (outcome == null) {
                outcome = acquireBulkhead(attempt);
            }
            if (outcome == null) {
                outcome = acquireLimit(attempt);
            }
            if (outcome == null) {
                outcome = exchange(attempt);
            }
            if (!outcome.retry()) {
                return result(outcome, handler);
            }
            backoff(number, outcome.delayNanos());
        }
    }

    private @Nullable AttemptOutcome acquireBulkhead(Attempt<?> attempt) throws IOException, InterruptedException {
        Bulkhead bulkhead = dependency.bulkhead();
        if (bulkhead == null) {
            return null; // no fixed bulkhead: the concurrency limit alone bounds the attempts
        }
        Bulkhead.Permit permit = bulkhead.tryAcquireNow();
        if (permit == null) {
            Duration wait = attempt.bulkheadWait();
            if (wait.isZero()) {
                return attempt.rejected(bulkhead.full(wait));
            }
            enter(attempt.number << 1);
            try {
                if (abortCause == null) {
                    permit = bulkhead.tryAcquire(wait);
                }
            } catch (BulkheadFullException full) {
                exit();
                return attempt.rejected(full);
            } catch (InterruptedException e) {
                exit();
                attempt.breakerNotAttempted();
                throwIfAborted(); // our interrupt: shutdownNow
                throw e;
            }
            exit();
            if (abortCause != null) {
                if (permit != null) {
                    permit.close();
                }
                attempt.breakerNotAttempted();
                throwIfAborted();
            }
        }
        attempt.bulkheadPermit = permit;
        return null;
    }

    /**
     * Takes a place under the concurrency limit, waiting for one in FIFO order (parked, not spinning)
     * up to the limit's wait capped by the time the call has left.
     */
    private @Nullable AttemptOutcome acquireLimit(Attempt<?> attempt) throws IOException, InterruptedException {
        if (attempt.tryAcquireLimit()) {
            return null;
        }
        ConcurrencyLimiter limiter = dependency.limiter();
        Duration wait = attempt.limitWait();
        if (wait.isZero()) {
            return attempt.limitRefused(limiter.rejection());
        }
        int before = -1;
        enter(attempt.number << 1);
        try {
            if (abortCause == null) {
                before = limiter.acquire(wait);
            }
        } catch (ConcurrencyLimitExceededException refused) {
            exit();
            return attempt.limitRefused(refused);
        } catch (InterruptedException e) {
            exit();
            attempt.limitWaitAbandoned();
            throwIfAborted(); // our interrupt: shutdownNow
            throw e;
        }
        exit();
        if (before >= 0) {
            attempt.limitAcquired(before); // held from here on: endExchange gives it back
        }
        if (abortCause != null) {
            attempt.endExchange();
            attempt.limitWaitAbandoned();
            throwIfAborted();
        }
        return null;
    }

    private <T> AttemptOutcome exchange(Attempt<T> attempt) throws IOException, InterruptedException {
        HttpRequest request = attempt.prepareExchange();
        if (request == null) {
            attempt.endExchange();
            return attempt.complete(null, attempt.deadlinePassed());
        }
        request = CallContext.sending(this, attempt.number, request); // an observer's headers (trace context)
        HttpResponse<T> response = null;
        Throwable failure = null;
        boolean ours;
        enter(attempt.number << 1);
        try {
            if (attempt.timedOut) {
                // The timer fired before this thread entered the region, so it could not interrupt it.
                failure = new HttpTimeoutException("attempt timed out before it was sent");
            } else if (abortCause == null) {
                response = pipeline.delegate.send(request, attempt);
            }
        } catch (InterruptedException | IOException | RuntimeException e) {
            failure = e;
        } catch (Error e) {
            exit();
            attempt.endExchange();
            attempt.abandon(null);
            throw e;
        }
        ours = exit();
        attempt.endExchange();
        if (response == null && abortCause != null) {
            attempt.abandon(null);
            throwIfAborted();
        }
        if (failure instanceof InterruptedException interrupted && !ours && !attempt.timedOut) {
            // The caller's own interrupt: the JDK's send has cancelled the exchange. Nothing to decide.
            attempt.abandon(null);
            throw interrupted;
        }
        return attempt.complete(response, failure);
    }

    private void backoff(int attempt, long delayNanos) throws IOException, InterruptedException {
        retryScheduled();
        boolean interrupted = false;
        enter(attempt << 1 | 1);
        try {
            if (abortCause == null) {
                long end = System.nanoTime() + delayNanos;
                for (long left = delayNanos; left > 0; left = end - System.nanoTime()) {
                    LockSupport.parkNanos(this, left);
                    if (Thread.interrupted()) {
                        interrupted = true;
                        break;
                    }
                }
            }
        } finally {
            boolean ours = exit();
            interrupted &= !ours;
        }
        if (abortCause != null || interrupted) {
            refundPendingRetry(); // a cancelled backoff is no budget charge
            throwIfAborted();
            throw new InterruptedException("interrupted during the backoff before attempt " + (attempt + 1));
        }
    }

    @SuppressWarnings("unchecked")
    private <T> HttpResponse<T> result(AttemptOutcome outcome, BodyHandler<T> handler)
            throws IOException, InterruptedException {
        HttpResponse<?> response = responseOf(outcome);
        if (response != null) {
            return (HttpResponse<T>) response;
        }
        RetainedAnswer answer = lastAnswer();
        if (answer != null && outcome.decision() == RetryDecision.REJECTED) {
            // Refused after an answer: the call ends with that answer, as the caller's handler makes it.
            try {
                return answer.replay(handler).get();
            } catch (ExecutionException e) {
                throw CallResult.asSendThrows(e.getCause());
            }
        }
        throw CallResult.asSendThrows(CallResult.failure(this, outcome, pipeline.totalTimeout));
    }

    private void throwIfAborted() throws IOException {
        IOException abort = abortCause;
        if (abort != null) {
            refundPendingRetry();
            throw abort;
        }
    }

    // ---- regions ------------------------------------------------------------------------------------

    private void enter(int tag) {
        region = tag << 2 | INSIDE;
    }

    /**
     * Leaves the current region.
     *
     * @return whether an interrupt of ours was delivered in it (it is cleared now)
     */
    private boolean exit() {
        int state = region;
        if ((state & PHASE) == INSIDE && REGION.compareAndSet(this, state, state & ~PHASE)) {
            return false;
        }
        while ((region & PHASE) != INTERRUPTED) {
            Thread.onSpinWait();
        }
        Thread.interrupted(); // ours, delivered or consumed by the wrapped client; never the caller's to see
        region = OUTSIDE;
        return true;
    }

    /** Interrupts the caller if it waits in the region with {@code tag}, or in any region if {@code tag < 0}. */
    private void interrupt(int tag) {
        int state = region;
        if ((state & PHASE) != INSIDE || tag >= 0 && state >>> 2 != tag) {
            return;
        }
        if (REGION.compareAndSet(this, state, (state & ~PHASE) | INTERRUPTING)) {
            caller.interrupt();
            region = (state & ~PHASE) | INTERRUPTED;
        }
    }

    @Override
    void onStop() {
        // Nothing waits on other threads: the caller's thread notices at its next step.
    }

    @Override
    void abort(IOException failure) {
        if (abortCause == null) {
            abortCause = failure;
        }
        stopped = true;
        interrupt(-1);
    }

    @Override
    void attemptTimedOut(Attempt<?> attempt) {
        interrupt(attempt.number << 1);
    }

    private static final VarHandle REGION;

    static {
        try {
            REGION = MethodHandles.lookup().findVarHandle(SyncCall.class, "region", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
