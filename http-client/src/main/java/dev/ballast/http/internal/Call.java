package dev.ballast.http.internal;

import dev.ballast.http.Ticker;
import dev.ballast.http.idempotency.IdempotencyKeyConfig;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The state of one logical call (one {@code send} or {@code sendAsync}) across its attempts: the
 * request every attempt sends, the dependency, the total deadline, the failures so far. Attempts of
 * one call never overlap; for {@code send} they all run on the caller's thread, for
 * {@code sendAsync} one after another on whichever thread completed the previous step, each step
 * handing over to the next through a future or the scheduler (which orders their memory effects).
 * What other threads touch (cancellation, abort, the attempt count in messages) is volatile.
 */
abstract class Call {

    /** The client's pipeline: its ticker, timer, listeners and settings (the retry's maximum attempts). */
    final Pipeline pipeline;

    final Dependency dependency;
    /**
     * The request every attempt sends: the caller's, plus the idempotency key when one was added;
     * after a redirect whose last hop was answered with a response to retry, that hop's request
     * ({@link #followedTo(HttpRequest)}). Written between attempts only.
     */
    HttpRequest request;

    private static final int IDEMPOTENT_OR_KEYED = 1;
    private static final int KEYED = 2;
    private static final int REPLAYABLE = 4;
    /**
     * What the request every attempt sends allows, in one byte rather than three fields: whether an
     * ambiguous failure may be retried (idempotent method or idempotency key present), whether it
     * carries an idempotency key (ours or the caller's), whether its body can be sent again. Written
     * with {@link #request}: at the start and between attempts only.
     */
    private byte requestFlags;

    /** The reading of the pipeline's ticker at which the call started. */
    final long startNanos;
    /**
     * The reading of the pipeline's ticker at which the total timeout passes. Kept as a number, not a
     * {@link Deadline}, so that a call allocates nothing for it; compared by subtraction.
     */
    final long deadlineNanos;

    private final long correlationSeed;
    volatile int attempts;
    /** Whether a retry (not a hedge) was decided: a success then is news worth an INFO line. */
    volatile boolean retried;
    /**
     * What the call carries onto the threads that run its steps (the caller's MDC, an observer's
     * observation), or {@code null} for nothing; set on the caller's thread before the first step.
     */
    @Nullable
    CallContext context;

    /**
     * The attempt whose bound the timer finds by polling this call ({@link Attempt#pollBound}): the
     * latest attempt armed while no other was pending. Set by compare-and-set, so two overlapping
     * attempts (a hedged call's) never both take it; the other has an entry of its own in the timer.
     */
    volatile @Nullable Attempt<?> bounded;

    /** This call's links in the client's {@link InFlightCalls}; guarded by the monitor of its stripe there. */
    @Nullable
    Call inFlightPrev;

    @Nullable
    Call inFlightNext;

    /** The stripe of {@link InFlightCalls} the call is in, or {@code -1} while it is in none. */
    int inFlightStripe = -1;

    /**
     * The response of the attempt that succeeded, when the call's attempts never overlap: its
     * decision is then the shared "succeeded" one ({@link AttemptOutcome#succeeded}) rather than a
     * copy carrying the response. Read through {@link #responseOf(AttemptOutcome)}.
     */
    @Nullable
    HttpResponse<?> succeeded;

    /**
     * What only a call that failed, retried or was asked for its id in a log line or by a listener
     * has: made then, so a call that succeeds at once, unobserved, carries none of its fields.
     * Guarded by this call's monitor.
     */
    private static final class History {
        @Nullable
        List<Throwable> failures;

        long previousDelayNanos;

        @Nullable
        RetainedAnswer lastAnswer;

        @Nullable
        String correlationId;
    }

    /** Written under this call's monitor; read without it only to skip a write of nothing. */
    private @Nullable History history;

    volatile boolean stopped;
    /** True while a retry was decided (its budget token withdrawn) and its attempt has not started. */
    @SuppressWarnings("unused") // accessed through RETRY_PENDING
    private volatile boolean retryPending;

    Call(
            Pipeline pipeline,
            Dependency dependency,
            HttpRequest request,
            boolean idempotentOrKeyed,
            boolean keyed,
            boolean replayable,
            long startNanos,
            long deadlineNanos,
            long correlationSeed) {
        this.pipeline = pipeline;
        this.dependency = dependency;
        this.request = request;
        this.requestFlags = requestFlags(idempotentOrKeyed, keyed, replayable);
        this.startNanos = startNanos;
        this.deadlineNanos = deadlineNanos;
        this.correlationSeed = correlationSeed;
    }

    /**
     * From the call's random correlation seed: a call is a key of the pipeline's in-flight set, and
     * this spares every call the identity hash, which the JVM installs in the object's header with a
     * compare-and-set. Equality stays identity.
     */
    @Override
    public final int hashCode() {
        return Long.hashCode(correlationSeed);
    }

    @Override
    public final boolean equals(@Nullable Object other) {
        return this == other;
    }

    /** The ticker every time of this call is a reading of: the pipeline's. */
    final Ticker ticker() {
        return pipeline.ticker;
    }

    /** The configured maximum number of attempts, the first included. */
    final int maxAttempts() {
        return pipeline.decider.maxAttempts();
    }

    /** Whether the wrapped client follows redirects, so one attempt may be several requests. */
    final boolean redirectsFollowed() {
        return pipeline.redirectsFollowed;
    }

    /** Nanoseconds left of the total timeout at {@code now}, a reading of {@link #ticker()}; zero or less once passed. */
    final long remainingNanos(long now) {
        return deadlineNanos - now;
    }

    /** Nanoseconds left of the total timeout now; zero or negative once passed. */
    final long remainingNanos() {
        return remainingNanos(pipeline.ticker.read());
    }

    /** Whether the total timeout has passed. */
    final boolean deadlinePassed() {
        return remainingNanos() <= 0;
    }

    /** Whether a wait of {@code nanos} from now would reach or pass the total deadline. */
    final boolean deadlineReachedWithin(long nanos) {
        return remainingNanos() <= nanos;
    }

    /**
     * The id that ties the decisions of this call together in logs; made on first use (by a log line,
     * a listener that takes ids, an observer), and kept for the call's later uses.
     */
    final String correlationId() {
        History h = history; // a racy read: a String is safe to share so, and a miss only takes the lock
        String id = h == null ? null : h.correlationId;
        if (id != null) {
            return id;
        }
        synchronized (this) {
            h = history();
            if (h.correlationId == null) {
                h.correlationId = Correlation.id(correlationSeed);
            }
            return h.correlationId;
        }
    }

    /**
     * The answer of the last attempt that was decided for a retry, kept for the call to return if the
     * next attempt is refused without a network call; {@code null} once an attempt ends otherwise.
     */
    final synchronized @Nullable RetainedAnswer lastAnswer() {
        History h = history;
        return h == null ? null : h.lastAnswer;
    }

    /** Keeps {@code answer} as the {@link #lastAnswer()}, or forgets it ({@code null}). */
    final void lastAnswer(@Nullable RetainedAnswer answer) {
        if (answer == null && history == null) {
            return; // nothing kept: a call that never retried allocates nothing here
        }
        synchronized (this) {
            history().lastAnswer = answer;
        }
    }

    /** The random seed the correlation id is made from ({@link Correlation}). */
    final long correlationSeed() {
        return correlationSeed;
    }

    /**
     * The wrapped client followed redirects and the last hop, {@code hop}, was answered with a
     * response to retry: the retry sends that hop, not the original request, which got its answer
     * (a POST answered 303 is not sent again because the GET it was redirected to failed). The
     * dependency stays that of the original request.
     */
    final void followedTo(HttpRequest hop, String idempotencyKeyHeader) {
        HttpRequest copy = HttpRequest.newBuilder(hop, (name, value) -> true).build();
        request = copy;
        // A hop to the same origin carries the request's idempotency key; one to another origin does not
        // (redirects followed by this client drop it there, as they drop credentials).
        boolean keyed = keyed() && Requests.hasHeader(copy, idempotencyKeyHeader);
        boolean idempotentOrKeyed = keyed
                || IdempotencyKeyConfig.isIdempotentMethod(copy.method()) && !Requests.declaredNonIdempotent(copy);
        requestFlags = requestFlags(idempotentOrKeyed, keyed, Requests.bodyReplayable(copy));
    }

    private static byte requestFlags(boolean idempotentOrKeyed, boolean keyed, boolean replayable) {
        return (byte)
                ((idempotentOrKeyed ? IDEMPOTENT_OR_KEYED : 0) | (keyed ? KEYED : 0) | (replayable ? REPLAYABLE : 0));
    }

    /** Whether an ambiguous failure may be retried: idempotent method or idempotency key present. */
    final boolean idempotentOrKeyed() {
        return (requestFlags & IDEMPOTENT_OR_KEYED) != 0;
    }

    /** Whether the request carries an idempotency key (ours or the caller's). */
    final boolean keyed() {
        return (requestFlags & KEYED) != 0;
    }

    /** Whether the request's body can be sent again. */
    final boolean replayable() {
        return (requestFlags & REPLAYABLE) != 0;
    }

    /** The request path for logs: never the query string, which may carry credentials. */
    final String path() {
        return Requests.loggablePath(request);
    }

    /** The call's history, made on first use; called under this call's monitor. */
    private History history() {
        History h = history;
        if (h == null) {
            h = new History();
            history = h;
        }
        return h;
    }

    final synchronized void addFailure(Throwable failure) {
        History h = history();
        if (h.failures == null) {
            h.failures = new ArrayList<>(2);
        }
        h.failures.add(failure);
    }

    final synchronized List<Throwable> failures() {
        History h = history;
        return h == null || h.failures == null ? List.of() : List.copyOf(h.failures);
    }

    /**
     * Whether attempts of this call may overlap (a hedged call's): then each decision carries its
     * own response, and each attempt's bound has an entry of its own in the timer when another is
     * pending.
     */
    boolean overlapping() {
        return false;
    }

    /** The response {@code outcome} ends the call with, or {@code null} if it has none. */
    final @Nullable HttpResponse<?> responseOf(AttemptOutcome outcome) {
        HttpResponse<?> response = outcome.response();
        if (response == null && outcome.stop() == StopReason.SUCCEEDED) {
            return succeeded;
        }
        return response;
    }

    /**
     * Whether another attempt of this call than {@code attempt} is in flight (a hedged call's). Then
     * a retryable failure of {@code attempt} waits for it rather than retry.
     */
    boolean othersInFlight(Attempt<?> attempt) {
        return false;
    }

    /**
     * Called when {@code attempt}'s headers are kept, just before the caller's body handler runs for
     * them: whether it may run. An unhedged call's attempts never overlap, so always; a hedged call
     * commits to the first attempt whose headers are kept, cancels the others, and answers
     * {@code false} for every other, so that the caller's handler runs for one response only.
     */
    boolean commit(Attempt<?> attempt) {
        return true;
    }

    /** The delay before the previous retry of this call, in nanoseconds; 0 before its first retry. */
    final synchronized long previousDelayNanos() {
        History h = history;
        return h == null ? 0 : h.previousDelayNanos;
    }

    final synchronized void previousDelayNanos(long delayNanos) {
        history().previousDelayNanos = delayNanos;
    }

    final boolean stopped() {
        return stopped;
    }

    /** Called when a retry has been decided and its backoff is about to start. */
    final void retryScheduled() {
        retried = true;
        retryPending = true;
        if (stopped) {
            refundPendingRetry(); // stop() ran between the decision and now
        }
    }

    /** Called when the next attempt starts: the withdrawn token is spent on it. */
    final void retryStarted() {
        if (retryPending) { // the first attempt has nothing pending: no write, no fence
            retryPending = false;
        }
    }

    /** Gives the retry budget back its token when a decided retry will never run. */
    final void refundPendingRetry() {
        if (RETRY_PENDING.compareAndSet(this, true, false)) {
            dependency.budget().refundRetry();
        }
    }

    /**
     * Stops the call: no further attempt starts, and whatever it waits for is cancelled. A
     * cancellation is never a budget charge. Idempotent.
     */
    final void stop() {
        stopped = true;
        refundPendingRetry();
        onStop();
    }

    /** Cancels what the call is waiting for; called by {@link #stop()}. */
    abstract void onStop();

    /** Ends the call with {@code failure} ({@code shutdownNow}): its caller sees that failure. */
    abstract void abort(IOException failure);

    /** The attempt's timeout fired: end its exchange. Called on the timer's thread; never blocks. */
    abstract void attemptTimedOut(Attempt<?> attempt);

    private static final VarHandle RETRY_PENDING;
    static final VarHandle BOUNDED;
    static final VarHandle ATTEMPTS;

    static {
        try {
            RETRY_PENDING = MethodHandles.lookup().findVarHandle(Call.class, "retryPending", boolean.class);
            BOUNDED = MethodHandles.lookup().findVarHandle(Call.class, "bounded", Attempt.class);
            ATTEMPTS = MethodHandles.lookup().findVarHandle(Call.class, "attempts", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
