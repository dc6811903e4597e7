package dev.ballast.http.internal;

import dev.ballast.http.BodyTimeout;
import dev.ballast.http.CallRejectedException;
import dev.ballast.http.CircuitOpenException;
import dev.ballast.http.ConcurrencyLimitExceededException;
import dev.ballast.http.InterimResponseException;
import dev.ballast.http.classify.Outcome;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.BodySubscribers;
import java.net.http.HttpResponse.ResponseInfo;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * One attempt of a call: its breaker permission (a ticket) and bulkhead permit, its time bound, and
 * the body handler the wrapped client is given. That handler decides about the attempt as soon as
 * the status line and headers arrive, on the client's thread: a response that will be retried is
 * read into memory ({@link RetainedAnswer}, so the call can still return it if the retry is
 * refused) without ever reaching the caller's handler. The same object completes the attempt for
 * {@code sendAsync} (it is the exchange future's completion action), so an attempt allocates no
 * callbacks of its own.
 *
 * <p>The same object is also the body subscriber the wrapped client feeds, and the subscription the
 * caller's subscriber is given: it hands every signal on and notes three things on the way. Whether the body arrived in full (the
 * client signalled {@code onComplete}): a failure after that, or one the caller's handler or
 * subscriber threw, is the caller's own, not the dependency's. And whether the caller is still
 * reading the body after the response was handed over (a streaming handler such as
 * {@code ofInputStream}): the attempt's bound then still applies, and when it passes the exchange is
 * cancelled and the caller's subscriber fails with {@link HttpTimeoutException}, unless the handler
 * was marked {@link BodyTimeout#exempt(BodyHandler)}. And whether the caller cancelled (closed its
 * stream): then the bound is released at once.
 *
 * <p>Time bound: the attempt may take {@code min(attempt timeout, time left of the total timeout)},
 * headers and body, enforced by the client's {@link DeadlineTimer}: arming it writes the deadline
 * into this attempt and this attempt into its call, which the timer polls among the calls in flight
 * ({@link InFlightCalls#pollBounds}); nothing is allocated, and a bound disarmed before the timer's
 * next pass is never seen by it.
 * The request is sent as the caller built it. Giving the JDK the bound as the request's
 * {@link HttpRequest#timeout()} instead would cost more than the timer: the JDK's
 * {@code HttpClientImpl.registerTimer} registers a timer and wakes its selector thread for every
 * request that carries a timeout. A timeout the caller set on the request is kept, and the JDK
 * enforces it too.
 */
final class Attempt<T>
        implements BodyHandler<T>, BodySubscriber<T>, Flow.Subscription, BiConsumer<HttpResponse<T>, Throwable> {

    // The body's phase (the low bits of body) and two flags that serialise an abort with the signals
    // the wrapped client delivers (Reactive Streams §1.3: a subscriber's signals never overlap).
    private static final int NO_BODY = 0;
    private static final int RECEIVING = 1;
    private static final int RECEIVED = 2;
    private static final int FAILED = 3;
    private static final int ABORTED = 4;
    /** The caller cancelled its subscription (closed its stream): it reads no more. */
    private static final int CANCELLED = 5;

    private static final int PHASE = 7;
    /** The wrapped client is inside a signal it hands to the caller's subscriber. */
    private static final int IN_SIGNAL = 8;
    /** The bound passed during a signal: the thread leaving it aborts. */
    private static final int ABORT_REQUESTED = 16;
    /** The caller's subscriber has had its {@code onSubscribe}: an abort may signal it. */
    private static final int SUBSCRIBED = 32;

    final Call call;
    final int number;
    private final BodyHandler<T> handler;

    /**
     * The breaker's permission for this attempt, a ticket of {@link CircuitBreaker#acquireTicket()}
     * (a number, not a permit object: an attempt allocates nothing for it), or
     * {@link CircuitBreaker#NO_TICKET} until it is granted or when the breaker refused. Reported at
     * most once, through {@link #reportBreaker}. Written before the attempt's exchange starts.
     */
    long breakerTicket = CircuitBreaker.NO_TICKET;
    /** Whether {@link #breakerTicket} was reported; set once by compare-and-set. */
    @SuppressWarnings("unused") // accessed through BREAKER_REPORTED
    private volatile boolean breakerReported;

    Bulkhead.@Nullable Permit bulkheadPermit;
    /**
     * The attempts in flight before this one took its place under the concurrency limit;
     * {@code -1} while it holds none. Released at most once ({@link #LIMIT_RELEASED}).
     */
    int limitInFlightBefore = -1;
    /** Ticker reading when the response headers arrived, for the concurrency limit's sample; 0 if not (yet). */
    private long headersNanos;
    /** How long the exchange may take, in nanoseconds, from {@link #startNanos}. */
    long boundNanos;
    /** Whether {@link #boundNanos} is what was left of the total timeout rather than the attempt timeout. */
    boolean boundByTotal;

    long startNanos;
    /** Whether the attempt may have waited for a bulkhead permit or a place under the limit. */
    private boolean waited;

    private volatile @Nullable AttemptOutcome headerDecision;
    /**
     * What only an attempt whose body is observed, or whose caller's handler threw, has: made then,
     * so a healthy call with a whole-body handler ({@code ofString}, {@code ofByteArray}) carries none
     * of its three fields.
     */
    private static final class Observed<T> {
        /** The caller's subscriber, once its handler ran; {@code null} if the handler threw. */
        final @Nullable BodySubscriber<T> subscriber;
        /** The wrapped client's subscription, once it subscribed. */
        volatile Flow.@Nullable Subscription upstream;
        /** What the caller's handler or subscriber threw, if anything. */
        volatile @Nullable Throwable callerFailure;

        Observed(@Nullable BodySubscriber<T> subscriber) {
            this.subscriber = subscriber;
        }
    }

    /** Set before the body is observed ({@code body} becomes {@code RECEIVING}) or when the caller's handler threw. */
    private volatile @Nullable Observed<T> observed;

    @SuppressWarnings("unused") // accessed through BODY
    private volatile int body;

    /**
     * {@code BOUND_NONE} until armed, then {@code BOUND_PENDING} until it is either disarmed or fired,
     * exactly one of which happens (a compare-and-set each).
     */
    @SuppressWarnings("unused") // accessed through BOUND
    private volatile int bound;
    /**
     * The bound's entry of its own in the timer, made only when the call's poll cannot see the
     * attempt: a hedged call's overlapping attempts, a body the caller reads after the call ended.
     */
    private volatile @Nullable AttemptTimeout pushed;

    volatile boolean timedOut;
    volatile boolean completed;
    /** The response was handed to the caller while its body was still being read, under the bound. */
    private volatile boolean boundingBody;
    /** The wrapped client's future ({@code sendAsync} only). */
    volatile @Nullable CompletableFuture<HttpResponse<T>> exchange;
    /**
     * A hedged call committed to another attempt's response: this one is cancelled, its response (if
     * its headers still arrive) discarded without running the caller's handler, and its end abandoned.
     */
    volatile boolean lost;

    Attempt(Call call, int number, BodyHandler<T> handler) {
        this.call = call;
        this.number = number;
        this.handler = handler;
    }

    /**
     * Asks the breaker for permission, unless {@code granted} already is it (a ticket, or
     * {@link CircuitBreaker#NO_TICKET} for none). The first attempt the
     * breaker lets through deposits into the retry budget: a call rejected outright is no traffic.
     *
     * @return {@code null} when the breaker permits the attempt; the rejection outcome otherwise
     */
    @Nullable
    AttemptOutcome acquireBreaker(long granted) {
        if (granted != CircuitBreaker.NO_TICKET) {
            breakerTicket = granted;
        } else {
            try {
                breakerTicket = call.dependency.breaker().acquireTicket();
            } catch (CircuitOpenException open) {
                return rejected(open);
            }
        }
        if (number == 1) {
            // The call's start is this attempt's time to within the breaker check: no second clock reading.
            call.dependency.budget().recordFirstAttempt(call.startNanos);
        }
        return null;
    }

    /** The attempt was rejected before any I/O. */
    AttemptOutcome rejected(CallRejectedException rejection) {
        completed = true;
        // Rejected by the bulkhead: a half-open probe slot goes back, nothing is recorded.
        breakerNotAttempted(); // nothing if the breaker itself refused

        call.dependency.countRejection(rejection);
        call.pipeline.listeners.rejected(call, rejection);
        AttemptOutcome outcome =
                new AttemptOutcome(number, -1, null, rejection, Outcome.PERMANENT, StopReason.of(rejection), 0, 0, 0);
        call.pipeline.listeners.decision(call, outcome);
        return outcome;
    }

    /**
     * Takes a place under the dependency's concurrency limit if one is free now, after the bulkhead
     * (if any) admitted the attempt; nothing if the attempt holds one already (a hedge takes its own
     * before it is built). Never waits.
     *
     * @return whether the attempt holds a place; if not, the caller waits for one ({@link #limitWait()})
     */
    boolean tryAcquireLimit() {
        if (limitInFlightBefore >= 0) {
            return true;
        }
        // The first attempt is admitted within the call's first steps: the call's start is its time.
        int before = call.dependency.limiter().tryAcquire(number == 1 ? call.startNanos : call.pipeline.ticker.read());
        if (before < 0) {
            return false;
        }
        limitInFlightBefore = before;
        return true;
    }

    /** The limit's configured wait, capped by what is left of the total timeout. */
    Duration limitWait() {
        waited = true;
        return call.dependency.limiter().maxWait(call.remainingNanos());
    }

    /** A place under the limit was taken after a wait; {@code before} is what the limiter returned. */
    void limitAcquired(int before) {
        limitInFlightBefore = before;
    }

    /**
     * The wait for a place under the limit ran out: gives back the bulkhead permit and rejects.
     *
     * @param refusal the limiter's rejection
     * @return the rejection outcome
     */
    AttemptOutcome limitRefused(ConcurrencyLimitExceededException refusal) {
        Bulkhead.Permit permit = bulkheadPermit;
        if (permit != null) {
            permit.close();
        }
        return rejected(refusal);
    }

    /** Gives back the bulkhead permit of an attempt that stopped while waiting under the limit. */
    void limitWaitAbandoned() {
        Bulkhead.Permit permit = bulkheadPermit;
        if (permit != null) {
            permit.close();
        }
        breakerNotAttempted();
    }

    /** The configured bulkhead wait, capped by what is left of the total timeout: a queue is no way around it. */
    Duration bulkheadWait() {
        waited = true;
        Duration configured = call.dependency.bulkhead().config().maxWaitDuration();
        if (configured.isZero()) {
            return configured;
        }
        long remaining = Math.max(0, call.remainingNanos());
        return Durations.saturatedNanos(configured) <= remaining ? configured : Duration.ofNanos(remaining);
    }

    /**
     * Fixes this attempt's time bound, {@code min(attempt timeout, time left of the total timeout)},
     * and arms the client's timer with it.
     *
     * @return the request to send, or {@code null} if the total deadline has passed already: then
     *     nothing may be sent
     */
    @Nullable
    HttpRequest prepareExchange() {
        // A first attempt that waited for nothing is sent within the call's first steps, a few hundred
        // nanoseconds after it started: its bound starts with the call (never later), one clock reading saved.
        long now = number == 1 && !waited ? call.startNanos : call.pipeline.ticker.read();
        startNanos = now;
        HttpRequest request = call.request;
        long configured = request.timeout().isPresent()
                ? Durations.saturatedNanos(request.timeout().get())
                : call.pipeline.attemptTimeoutNanos;
        long remaining = call.remainingNanos(now);
        boundByTotal = remaining <= configured;
        if (remaining <= 0) {
            return null;
        }
        boundNanos = Math.min(configured, remaining);
        arm();
        return request;
    }

    /**
     * Arms the bound. The common case allocates nothing and touches nothing shared: the attempt
     * becomes its call's {@link Call#bounded} attempt, which the timer's worker polls through the
     * pipeline's set of calls in flight ({@link Pipeline#pollBounds}), and a bound disarmed before the
     * worker's next pass (a healthy call) is never seen by it. An attempt whose call already has
     * another attempt armed (a hedge) gets an entry of its own in the timer.
     */
    private void arm() {
        if (completed) {
            return;
        }
        long deadline = Durations.saturatedAdd(startNanos, boundNanos);
        // Release stores: the poll reads both with acquire loads; DeadlineTimer.deadlineSet orders them
        // before its own reads where that matters (a deadline due before the worker's next pass).
        BOUND.setRelease(this, BOUND_PENDING);
        if (!call.overlapping()) {
            Call.BOUNDED.setRelease(call, this); // the previous attempt, if any, has ended
            call.pipeline.timer.deadlineSet(deadline, startNanos);
            return;
        }
        Attempt<?> previous = call.bounded;
        if ((previous == null || previous.bound != BOUND_PENDING) && Call.BOUNDED.compareAndSet(call, previous, this)) {
            call.pipeline.timer.deadlineSet(deadline, startNanos);
        } else {
            push();
        }
    }

    /**
     * The bound's deadline, a reading of the ticker: computed rather than kept, one field fewer per
     * attempt. Its two terms are written before {@link #bound} becomes {@code BOUND_PENDING}.
     */
    private long deadlineNanos() {
        return Durations.saturatedAdd(startNanos, boundNanos);
    }

    /** Gives the bound an entry of its own in the timer (once), for when no poll of the call finds it. */
    private void push() {
        if (pushed == null) {
            AttemptTimeout t = new AttemptTimeout(deadlineNanos(), this);
            pushed = t;
            call.pipeline.timer.arm(t);
            if ((int) BOUND.getVolatile(this) != BOUND_PENDING) {
                // The body ended (disarm()) or the bound fired between the decision and this push: disarm()
                // read pushed before it was set, so this entry is withdrawn here. Left pending, it would keep
                // the timer's thread, and a close() waiting for it, until its deadline; forever under a
                // ticker that stands still. (pushed and BOUND are both volatile: one side sees the other.)
                t.disarm();
                t.attempt = null;
            }
        }
    }

    /**
     * The timer's poll of this attempt's call: whether the bound is pending, and if so whether it has
     * passed at {@code now}. Fires nothing itself (the caller then calls {@link #fireBound()}).
     *
     * @param earliest element 0 is lowered to the bound's deadline if it is pending and earlier
     * @return {@code 1} if the bound is pending and has not passed, {@code -1} if it is pending and
     *     has passed, {@code 0} if it is not pending
     */
    int pollBound(long now, long[] earliest) {
        if ((int) BOUND.getVolatile(this) != BOUND_PENDING) {
            return 0;
        }
        long deadline = deadlineNanos();
        if (deadline - now <= 0) {
            return -1;
        }
        if (deadline - earliest[0] < 0) {
            earliest[0] = deadline;
        }
        return 1;
    }

    /** The bound has passed: fires it unless it was disarmed (or fired) first. Called on the timer's thread. */
    void fireBound() {
        if (BOUND.compareAndSet(this, BOUND_PENDING, BOUND_FIRED)) {
            try {
                expired();
            } catch (RuntimeException e) {
                // The timer thread must survive any expiry action.
            }
        }
    }

    /** Called on the timer's thread when the bound has passed. */
    private void expired() {
        if (boundingBody) {
            call.pipeline.runOffTimer(
                    this::abortBody); // the caller's subscriber is signalled: not on the timer's thread
            return;
        }
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

    /**
     * Releases the bulkhead permit once the exchange has ended, however it ended. The timer is
     * released by {@link #complete} or {@link #abandon} (or, for a body the caller still reads,
     * when that body ends).
     */
    void endExchange() {
        // A release store, no fence: a timer that reads it late fires into a region already left (no
        // interrupt), as it would have had it fired a moment earlier.
        COMPLETED.setRelease(this, true);
        Bulkhead.Permit permit = bulkheadPermit;
        if (permit != null) {
            permit.close();
        }
        if (limitInFlightBefore >= 0 && LIMIT_RELEASED.compareAndSet(this, false, true)) {
            call.dependency.limiter().release();
        }
    }

    /**
     * Gives the concurrency limit this attempt's latency: to its response headers if it succeeded,
     * else, if our attempt timeout cut it, its elapsed time. An error answer (a fast 503, a 404) has a
     * latency of its own, and an attempt that failed otherwise (refused connection, reset, cancelled)
     * says nothing about queueing: neither is a sample.
     */
    private void sampleLatency(Outcome outcome, long now) {
        ConcurrencyLimiter limiter = call.dependency.limiter();
        if (limitInFlightBefore < 0 || !limiter.adaptive()) {
            return;
        }
        long headers = headersNanos;
        if (headers != 0 && outcome == Outcome.SUCCESS || timedOut) {
            limiter.sample((headers != 0 ? headers : now) - startNanos, limitInFlightBefore, now);
        }
    }

    private void disarm() {
        BOUND.compareAndSet(this, BOUND_PENDING, BOUND_DISARMED);
        AttemptTimeout t = pushed;
        if (t != null) {
            t.disarm();
            t.attempt = null;
        }
    }

    // ---- the handler the wrapped client is given --------------------------------------------------

    @Override
    public @Nullable BodySubscriber<T> apply(ResponseInfo info) {
        if (limitInFlightBefore >= 0 && call.dependency.limiter().adaptive()) {
            long now = call.pipeline.ticker.read();
            headersNanos = now == 0 ? 1 : now;
        }
        if (lost) {
            return BodySubscribers.replacing(null); // a hedged call took another answer: nothing of the caller's runs
        }
        if (InterimResponses.isInterim(info.statusCode())) {
            // RFC 9110 §15.2: no answer. Its "body" is what follows on the connection: never read.
            return InterimResponses.refusing(interimFailure(info.statusCode()));
        }
        AttemptOutcome decision = call.pipeline.decider.onResponse(call, number, info.statusCode(), info.headers());
        HEADER_DECISION.setRelease(this, decision); // read after the exchange ends, which orders it
        if (decision.retry()) {
            // Read into memory (the connection goes back to the pool): the caller never sees this body
            // unless the retry is refused, and then as its own handler makes of it.
            @SuppressWarnings("unchecked")
            BodySubscriber<T> retaining = (BodySubscriber<T>) RetainedAnswer.subscriber();
            return retaining;
        }
        if (!call.commit(this)) {
            // Another attempt of a hedged call had its headers kept first: the call is committed to that
            // response (as gRPC and Envoy commit a hedged call), so the caller's handler never runs for this one.
            return BodySubscribers.replacing(null);
        }
        BodySubscriber<T> own;
        try {
            own = handler.apply(info);
        } catch (RuntimeException | Error e) {
            Observed<T> failed = new Observed<>(null);
            failed.callerFailure = e;
            observed = failed;
            throw e;
        }
        if (own == null) {
            return null; // the wrapped client fails it as it would without us
        }
        if (isWholeBodyJdkSubscriber(own)) {
            return own; // nothing to observe, and the JDK completes it without a thread hand-off
        }
        observed = new Observed<>(own);
        body = RECEIVING;
        return this;
    }

    /**
     * The JDK's own subscribers that read the whole body before the response is handed over and run
     * none of the caller's code: {@code ofString}, {@code ofByteArray}, {@code ofFile},
     * {@code discarding}, {@code replacing}. They are given to the wrapped client as they are. Observing
     * them would tell nothing (the attempt's bound covers their body, and nothing of the caller's can
     * fail in them), and would cost a thread hand-off per call: the JDK completes a subscriber of its
     * own on the thread that read the body, but calls any other subscriber's {@code getBody} on the
     * client's executor ({@code ResponseSubscribers.getBodyAsync}, {@code TrustedSubscriber.needsExecutor}).
     * Those types are not exported, so they are known by name.
     */
    private static final Set<String> WHOLE_BODY_JDK_SUBSCRIBERS = Set.of(
            "jdk.internal.net.http.ResponseSubscribers$ByteArraySubscriber",
            "jdk.internal.net.http.ResponseSubscribers$PathSubscriber",
            "jdk.internal.net.http.ResponseSubscribers$NullSubscriber");

    /** The answer for each subscriber class, worked out once per class rather than by name on every call. */
    private static final ClassValue<Boolean> WHOLE_BODY_JDK_SUBSCRIBER = new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
            return WHOLE_BODY_JDK_SUBSCRIBERS.contains(type.getName());
        }
    };

    static boolean isWholeBodyJdkSubscriber(BodySubscriber<?> subscriber) {
        return WHOLE_BODY_JDK_SUBSCRIBER.get(subscriber.getClass());
    }

    // ---- the body subscriber the wrapped client feeds: the caller's, observed ----------------------

    @Override
    public CompletionStage<T> getBody() {
        try {
            return observed.subscriber.getBody();
        } catch (RuntimeException | Error e) {
            observed.callerFailure = e;
            throw e;
        }
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
        Observed<T> o = observed;
        o.upstream = subscription;
        int s;
        do {
            s = (int) BODY.getVolatile(this);
        } while (!BODY.compareAndSet(this, s, (s & PHASE) == RECEIVING ? s | IN_SIGNAL | SUBSCRIBED : s | SUBSCRIBED));
        try {
            o.subscriber.onSubscribe(this);
        } catch (RuntimeException | Error e) {
            observed.callerFailure = e;
            leaveSignal(s);
            throw e;
        }
        if ((s & PHASE) == ABORTED) {
            deliverAbort(); // the bound passed before the body was even subscribed to
        } else {
            leaveSignal(s);
        }
    }

    @Override
    public void onNext(List<ByteBuffer> item) {
        int s;
        do {
            s = (int) BODY.getVolatile(this);
            if ((s & PHASE) != RECEIVING) {
                return; // aborted: the caller has had its error
            }
        } while (!BODY.compareAndSet(this, s, s | IN_SIGNAL));
        try {
            observed.subscriber.onNext(item);
        } catch (RuntimeException | Error e) {
            observed.callerFailure = e;
            leaveSignal(s);
            throw e;
        }
        leaveSignal(s);
    }

    @Override
    public void onError(Throwable throwable) {
        if (endBody(FAILED)) {
            try {
                observed.subscriber.onError(throwable);
            } catch (RuntimeException | Error e) {
                observed.callerFailure = e;
                throw e;
            }
        }
    }

    @Override
    public void onComplete() {
        if (endBody(RECEIVED)) {
            try {
                observed.subscriber.onComplete();
            } catch (RuntimeException | Error e) {
                observed.callerFailure = e;
                throw e;
            }
        }
    }

    // ---- the subscription the caller's subscriber is given: the wrapped client's, observed ------------

    @Override
    public void request(long n) {
        observed.upstream.request(n);
    }

    @Override
    public void cancel() {
        endBody(CANCELLED); // the caller reads no more: nothing left to bound
        observed.upstream.cancel();
    }

    /** Leaves a signal entered from state {@code entered}; delivers an abort requested meanwhile. */
    private void leaveSignal(int entered) {
        if ((entered & PHASE) != RECEIVING) {
            return;
        }
        while (true) {
            int s = (int) BODY.getVolatile(this);
            boolean abort = (s & ABORT_REQUESTED) != 0;
            if (BODY.compareAndSet(this, s, abort ? ABORTED | SUBSCRIBED : s & ~IN_SIGNAL)) {
                if (abort) {
                    deliverAbort();
                }
                return;
            }
        }
    }

    /** Ends the body with {@code phase} unless it ended already (aborted); releases the bound. */
    private boolean endBody(int phase) {
        while (true) {
            int s = (int) BODY.getVolatile(this);
            if ((s & PHASE) != RECEIVING) {
                return false;
            }
            if (BODY.compareAndSet(this, s, phase | (s & SUBSCRIBED))) {
                disarm();
                return true;
            }
        }
    }

    /** The bound passed while the caller was still reading the body: abort the exchange, fail the reader. */
    private void abortBody() {
        while (true) {
            int s = (int) BODY.getVolatile(this);
            if ((s & PHASE) != RECEIVING) {
                return;
            }
            if ((s & IN_SIGNAL) != 0) {
                if (BODY.compareAndSet(this, s, s | ABORT_REQUESTED)) {
                    return; // the signal in progress aborts when it ends
                }
            } else if (BODY.compareAndSet(this, s, ABORTED | (s & SUBSCRIBED))) {
                if ((s & SUBSCRIBED) != 0) {
                    deliverAbort();
                } // else onSubscribe delivers it
                return;
            }
        }
    }

    private void deliverAbort() {
        Observed<T> o = observed;
        Flow.Subscription s = o.upstream;
        if (s != null) {
            s.cancel(); // the wrapped client aborts the exchange: closes an HTTP/1.1 connection, resets a stream
        }
        HttpTimeoutException timeout = new HttpTimeoutException(
                (boundByTotal ? "total timeout" : "attempt timeout of " + Durations.toMillis(boundNanos) + " ms")
                        + " elapsed while the response body was being read");
        try {
            o.subscriber.onError(timeout);
        } catch (RuntimeException e) {
            // the caller's subscriber failed on its error; nothing more to tell it
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
    void abandon(@Nullable HttpResponse<?> response) {
        disarm();
        reportBreaker(CircuitBreaker.Report.ABANDONED, 0);
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
    AttemptOutcome complete(@Nullable HttpResponse<T> response, @Nullable Throwable thrown) {
        AttemptOutcome decided = headerDecision;
        if (thrown == null && decided == null && InterimResponses.isInterim(response.statusCode())) {
            // A wrapped client that never ran our handler returned a 1xx as the response: not an answer either.
            Bodies.discard(response);
            thrown = interimFailure(response.statusCode());
            response = null;
        }
        AttemptOutcome outcome;
        boolean answered = response != null || decided != null;
        boolean cutByTotal = false;
        boolean stillReading = false;
        if (thrown == null) {
            if (decided == null) {
                // The wrapped client never ran our handler (a test double, say): decide from the response.
                decided = call.pipeline.decider.onResponse(call, number, response.statusCode(), response.headers());
                if (decided.retry()) {
                    Bodies.discard(response);
                }
                call.lastAnswer(null);
                outcome = decided.retry() ? decided : decided.withResponse(response);
            } else if (decided.retry() && call.othersInFlight(this)) {
                // A hedged call's other attempt may still answer: wait for it, and give back the token.
                call.dependency.budget().refundRetry();
                call.lastAnswer(RetainedAnswer.of(response));
                outcome = decided.withStop(StopReason.OTHER_ATTEMPT_IN_FLIGHT);
            } else if (decided.retry()) {
                call.lastAnswer(RetainedAnswer.of(response));
                if (response.previousResponse().isPresent()) {
                    // Retry the hop that failed, not a request that got its answer.
                    call.followedTo(response.request(), call.pipeline.idempotencyKeyHeader());
                }
                outcome = decided;
            } else {
                if (call.overlapping() || decided.stop() != StopReason.SUCCEEDED) {
                    outcome = decided.withResponse(response);
                } else {
                    call.succeeded = response; // the shared decision stays as it is: nothing allocated
                    outcome = decided;
                }
                stillReading = ((int) BODY.getVolatile(this) & PHASE) == RECEIVING
                        && !BodyTimeout.isExempt(handler); // the caller exempted reading the body from the bound
            }
        } else {
            Throwable failure = attemptFailure(Pipeline.unwrap(thrown));
            call.addFailure(failure);
            call.lastAnswer(null);
            cutByTotal = boundByTotal
                    && failure instanceof HttpTimeoutException
                    && !(failure instanceof HttpConnectTimeoutException);
            if (cutByTotal) {
                outcome = AttemptOutcome.stop(number, -1, Outcome.AMBIGUOUS, StopReason.TOTAL_TIMEOUT)
                        .withFailure(failure);
            } else if (decided != null && decided.retry()) {
                outcome = decided.withFailure(failure); // the retried body failed to drain: the retry stands
                if (call.othersInFlight(this)) {
                    call.dependency.budget().refundRetry();
                    outcome =
                            outcome.withStop(StopReason.OTHER_ATTEMPT_IN_FLIGHT).withFailure(failure);
                }
            } else if (decided != null && callerFailed(failure)) {
                // The dependency answered, and the caller's own code failed on the answer: the headers
                // decide what the answer says about the dependency, and the caller's bug is not retried.
                outcome = decided.withStop(StopReason.BODY_HANDLER_FAILED).withFailure(failure);
            } else {
                outcome = call.pipeline.decider.onFailure(call, number, failure);
                if (outcome.retry() && call.othersInFlight(this)) {
                    call.dependency.budget().refundRetry();
                    outcome =
                            outcome.withStop(StopReason.OTHER_ATTEMPT_IN_FLIGHT).withFailure(failure);
                }
            }
        }
        long now = call.pipeline.ticker.read(); // one reading for the limiter, the latency window and the breaker
        sampleLatency(outcome.outcome(), now);
        LatencyWindow latencies = call.dependency.latencies();
        if (latencies != null && answered) {
            latencies.record(now - startNanos);
        }
        if (cutByTotal) {
            // The total timeout, not the dependency, ended this attempt: like a cancellation it proves nothing,
            // and a retry the headers had decided (and paid for) will not run.
            reportBreaker(CircuitBreaker.Report.ABANDONED, 0);
            if (decided != null && decided.retry()) {
                call.dependency.budget().refundRetry();
            }
        } else {
            report(outcome.outcome(), outcome.status(), answered, now);
        }
        if (stillReading) {
            // Handed to a caller who reads the body after this returns: the bound keeps running until the
            // body ends. If it passed already (between the exchange's end and now), abort at once.
            boundingBody = true;
            if ((int) BOUND.getVolatile(this) == BOUND_FIRED) {
                call.pipeline.runOffTimer(this::abortBody);
            } else {
                push(); // the call ends when this returns, and with it the poll that would find this bound
            }
        } else {
            disarm();
        }
        call.pipeline.listeners.decision(call, outcome, startNanos);
        return outcome;
    }

    private InterimResponseException interimFailure(int statusCode) {
        HttpRequest request = call.request;
        String path = request.uri().getRawPath();
        return new InterimResponseException(statusCode, request.method(), path == null || path.isEmpty() ? "/" : path);
    }

    /**
     * Whether {@code failure} is the caller's own: something its handler or subscriber threw, or any
     * failure after the body arrived in full (its finisher, such as a parser, failed on it).
     */
    private boolean callerFailed(Throwable failure) {
        Observed<T> o = observed;
        Throwable own = o == null ? null : o.callerFailure;
        return own != null && Pipeline.hasCause(failure, own) || ((int) BODY.getVolatile(this) & PHASE) == RECEIVED;
    }

    /**
     * What the attempt failed with, as the caller and the classifier should see it: as the wrapped
     * client reported it (the JDK's {@code send} wraps what a caller's handler threw in an
     * {@code IOException}, its {@code sendAsync} does not; either is kept), except any timeout of
     * ours or of the JDK's request timeout, which is one {@link HttpTimeoutException} naming the
     * attempt timeout, and an unresolved host, which the JDK reports as a {@code ConnectException}
     * without a message: the same type, naming the host.
     */
    private Throwable attemptFailure(Throwable thrown) {
        Throwable failure = FailureReasons.namingUnresolvedHost(thrown, call.request.uri());
        boolean jdkTimeout = failure instanceof HttpTimeoutException
                && !(failure instanceof HttpConnectTimeoutException)
                && call.pipeline.jdkDelegate
                && call.request.timeout().isPresent();
        if (timedOut || jdkTimeout) {
            HttpTimeoutException timeout =
                    new HttpTimeoutException("attempt timeout of " + Durations.toMillis(boundNanos) + " ms elapsed");
            timeout.initCause(failure);
            return timeout;
        }
        return failure;
    }

    /**
     * Reports the attempt to the breaker on its ticket, a success or failure with its duration (from sending
     * to now, for the slow-call rule). A non-failure outcome is "ignored" only when the
     * dependency really answered with an HTTP response (a 404 proves it is up; on a half-open probe it
     * counts as a success). A permanent <em>exception</em> without any response (a certificate
     * failure, a body handler that threw before headers were handed over) proves nothing about the
     * dependency's health, so it is "abandoned": ignored while CLOSED, but a failed half-open probe, so
     * the breaker never closes on a dependency that has not answered.
     */
    private void report(Outcome outcome, int status, boolean answered, long now) {
        if (outcome == Outcome.SUCCESS) {
            reportBreaker(CircuitBreaker.Report.SUCCESS, now - startNanos);
        } else if (outcome.isBreakerFailure() || throttlingFailure(outcome, status)) {
            reportBreaker(CircuitBreaker.Report.FAILURE, now - startNanos);
        } else if (answered) {
            reportBreaker(CircuitBreaker.Report.IGNORED, 0);
        } else {
            reportBreaker(CircuitBreaker.Report.ABANDONED, 0);
        }
    }

    /**
     * Whether a throttled answer counts as a failure: by default it does (the design notes' breaker
     * table: "Throttling signal, 429: counts, but honour Retry-After first"), unless the dependency's
     * {@code BreakerConfig.throttlingIsFailure(false)}; a 409 to a keyed request never does (the key's
     * state, not the dependency's, like any other 409).
     */
    private boolean throttlingFailure(Outcome outcome, int status) {
        return outcome == Outcome.THROTTLED
                && status != 409
                && call.dependency.breaker().config().throttlingIsFailure();
    }

    /**
     * The attempt was never sent (a later stage refused it, or the call stopped first): the breaker
     * records nothing and a half-open probe slot goes back. Nothing if no ticket was granted, or it
     * was reported already.
     */
    void breakerNotAttempted() {
        reportBreaker(CircuitBreaker.Report.NOT_ATTEMPTED, 0);
    }

    /** Reports the attempt's ticket to the breaker, the first time only (as a permit's first report wins). */
    private void reportBreaker(CircuitBreaker.Report report, long durationNanos) {
        long ticket = breakerTicket;
        if (ticket != CircuitBreaker.NO_TICKET && BREAKER_REPORTED.compareAndSet(this, false, true)) {
            call.dependency.breaker().report(ticket, report, durationNanos);
        }
    }

    /** The attempt's entry in the shared timer; forgets the attempt once disarmed. */
    static final class AttemptTimeout extends DeadlineTimer.Timeout {

        volatile @Nullable Attempt<?> attempt;

        AttemptTimeout(long deadlineNanos, Attempt<?> attempt) {
            super(deadlineNanos);
            this.attempt = attempt;
        }

        @Override
        protected void expire() {
            Attempt<?> a = attempt;
            if (a != null) {
                a.fireBound();
            }
        }
    }

    @SuppressWarnings("unused") // accessed through LIMIT_RELEASED
    private volatile boolean limitReleased;

    private static final int BOUND_NONE = 0;
    private static final int BOUND_PENDING = 1;
    private static final int BOUND_DISARMED = 2;
    private static final int BOUND_FIRED = 3;

    private static final VarHandle BODY;
    private static final VarHandle LIMIT_RELEASED;
    private static final VarHandle BOUND;
    private static final VarHandle COMPLETED;
    private static final VarHandle HEADER_DECISION;
    private static final VarHandle BREAKER_REPORTED;

    static {
        try {
            BODY = MethodHandles.lookup().findVarHandle(Attempt.class, "body", int.class);
            LIMIT_RELEASED = MethodHandles.lookup().findVarHandle(Attempt.class, "limitReleased", boolean.class);
            BOUND = MethodHandles.lookup().findVarHandle(Attempt.class, "bound", int.class);
            COMPLETED = MethodHandles.lookup().findVarHandle(Attempt.class, "completed", boolean.class);
            HEADER_DECISION =
                    MethodHandles.lookup().findVarHandle(Attempt.class, "headerDecision", AttemptOutcome.class);
            BREAKER_REPORTED = MethodHandles.lookup().findVarHandle(Attempt.class, "breakerReported", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
