package dev.ballast.http.internal;

import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The state of one logical call (one {@code send}/{@code sendAsync} invocation) across its
 * attempts. Thread-safe: attempts of one call never overlap, but they run on different threads.
 */
final class LogicalCall {

    final String correlationId;
    final Dependency dependency;
    /** The request every attempt sends: the caller's, plus the idempotency key when one was added. */
    final HttpRequest request;
    final String path;
    /** Whether an ambiguous failure may be retried: idempotent method or idempotency key present. */
    final boolean idempotentOrKeyed;
    final boolean replayable;
    final long startNanos;
    /** Ticker reading by which the call must be finished; {@code Long.MAX_VALUE} for none. */
    final long deadlineNanos;
    final AtomicInteger attempts = new AtomicInteger();
    private final List<Throwable> failures = new ArrayList<>();
    private Duration previousDelay = Duration.ZERO;

    /** A retry was decided (and its budget token withdrawn) but its attempt has not started yet. */
    private final AtomicBoolean retryPending = new AtomicBoolean();
    private volatile boolean stopped;
    private volatile Future<?> inFlight;
    private volatile Future<?> engine;
    private volatile Consumer<Throwable> abort = failure -> stop();

    LogicalCall(String correlationId, Dependency dependency, HttpRequest request, boolean idempotentOrKeyed,
                boolean replayable, long startNanos, long deadlineNanos) {
        this.correlationId = correlationId;
        this.dependency = dependency;
        this.request = request;
        this.path = Requests.loggablePath(request);
        this.idempotentOrKeyed = idempotentOrKeyed;
        this.replayable = replayable;
        this.startNanos = startNanos;
        this.deadlineNanos = deadlineNanos;
    }

    synchronized void addFailure(Throwable failure) {
        failures.add(failure);
    }

    synchronized List<Throwable> failures() {
        return List.copyOf(failures);
    }

    synchronized Duration previousDelay() {
        return previousDelay;
    }

    synchronized void previousDelay(Duration delay) {
        previousDelay = delay;
    }

    /** Called when a retry has been decided and its backoff is about to be scheduled. */
    void retryScheduled() {
        retryPending.set(true);
        if (stopped) {
            refundPendingRetry(); // stop() ran between the decision and now
        }
    }

    /** Called when the next attempt starts: the withdrawn token is spent on it. */
    void retryStarted() {
        retryPending.set(false);
    }

    /** Gives the retry budget back its token when a decided retry will never run. */
    private void refundPendingRetry() {
        if (retryPending.getAndSet(false)) {
            dependency.budget().refundRetry();
        }
    }

    /** Sets how {@link #abort(Throwable)} fails the caller's future. */
    void onAbort(Consumer<Throwable> hook) {
        abort = hook;
    }

    /** Fails the caller's future with {@code failure}, which stops the call. */
    void abort(Throwable failure) {
        abort.accept(failure);
    }

    boolean stopped() {
        return stopped;
    }

    void inFlight(CompletableFuture<?> attempt) {
        inFlight = attempt;
        if (stopped) {
            attempt.cancel(true);
        }
    }

    void engine(Future<?> future) {
        engine = future;
        if (stopped) {
            future.cancel(true);
        }
    }

    /**
     * Stops the call: no further attempt starts, the in-flight attempt (and with it the JDK exchange)
     * and any pending backoff are cancelled. Idempotent.
     */
    void stop() {
        stopped = true;
        // A cancellation is never a budget charge: a retry waiting out its backoff will not run.
        refundPendingRetry();
        Future<?> attempt = inFlight;
        if (attempt != null) {
            attempt.cancel(true);
        }
        Future<?> f = engine;
        if (f != null) {
            f.cancel(true);
        }
    }
}
