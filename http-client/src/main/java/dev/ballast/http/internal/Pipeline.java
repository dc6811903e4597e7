package dev.ballast.http.internal;

import dev.ballast.http.BulkheadFullException;
import dev.ballast.http.CallRejectedException;
import dev.ballast.http.CircuitOpenException;
import dev.ballast.http.DependencyPolicy;
import dev.ballast.http.DependencyStatus;
import dev.ballast.http.HttpClientListener.Decision;
import dev.ballast.http.HttpClientListener.RetryDecisionEvent;
import dev.ballast.http.RetriesExhaustedException;
import dev.ballast.http.Ticker;
import dev.ballast.http.breaker.CircuitBreaker;
import dev.ballast.http.bulkhead.Bulkhead;
import dev.ballast.http.classify.Outcome;
import dev.ballast.http.classify.ResponseClassifier;
import dev.ballast.http.idempotency.IdempotencyKeys;
import dev.ballast.http.retry.RetryConfig;
import dev.failsafe.Failsafe;
import dev.failsafe.FailsafeExecutor;
import dev.failsafe.RetryPolicy;
import dev.failsafe.Timeout;
import dev.failsafe.TimeoutExceededException;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodySubscribers;
import java.net.http.HttpResponse.PushPromiseHandler;
import java.net.http.HttpTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * Runs logical calls through total timeout → retry → circuit breaker → bulkhead → attempt timeout →
 * delegate (see {@code ResilientHttpClient}'s class Javadoc for why in this order).
 *
 * <p>Failsafe owns the outer two layers: a {@link Timeout} (real time, the total-timeout backstop)
 * around a {@link RetryPolicy} that retries exactly the attempts {@link RetryDecider} marked
 * {@code RETRYING}, after exactly the delay the decider computed (no Failsafe jitter, no Failsafe
 * max-retries or max-duration), scheduled on the injected {@link ScheduledExecutorService} via
 * {@code getStageAsync}, so no thread is blocked during a backoff. Breaker, bulkhead and attempt
 * timeout are plain composition inside the attempt supplier rather than custom Failsafe policies:
 * they must see the JDK's {@code CompletableFuture} to cancel it, must report cancellation to the
 * breaker as "abandoned" rather than as a failure, and our breaker keeps its own ticker-driven
 * clock; the Failsafe SPI would add indirection without removing any of that code.
 *
 * <p>Thread-safe.
 */
public final class Pipeline {

    private final HttpClient delegate;
    private final RetryDecider decider;
    private final IdempotencyKeys idempotencyKeys;
    private final Duration totalTimeout;
    private final Duration attemptTimeout;
    private final Function<HttpRequest, String> dependencyResolver;
    private final Dependencies dependencies;
    private final Listeners listeners;
    private final Ticker ticker;
    private final Supplier<RandomGenerator> random;
    private final ScheduledExecutorService scheduler;
    private final FailsafeExecutor<Object> failsafe;
    private final Set<LogicalCall> inFlight = ConcurrentHashMap.newKeySet();
    private final Object terminationLock = new Object();
    private volatile boolean shutdown;
    private volatile Runnable onIdleAfterShutdown = () -> { };

    /** Everything the pipeline needs; validated by the client builder. */
    public record Settings(HttpClient delegate, ResponseClassifier classifier, RetryConfig retry,
                           IdempotencyKeys idempotencyKeys, Duration totalTimeout, Duration attemptTimeout,
                           Function<HttpRequest, String> dependencyResolver, Map<String, DependencyPolicy> policies,
                           DependencyPolicy defaultPolicy, Listeners listeners, Clock clock, Ticker ticker,
                           Supplier<RandomGenerator> random, ScheduledExecutorService scheduler,
                           int maxDependencies) {
    }

    public Pipeline(Settings s) {
        this.delegate = s.delegate();
        this.decider = new RetryDecider(s.classifier(), s.retry(), s.clock(), s.ticker(), s.random());
        this.idempotencyKeys = s.idempotencyKeys();
        this.totalTimeout = s.totalTimeout();
        this.attemptTimeout = s.attemptTimeout();
        this.dependencyResolver = s.dependencyResolver();
        this.listeners = s.listeners();
        this.ticker = s.ticker();
        this.random = s.random();
        this.scheduler = s.scheduler();
        this.dependencies = new Dependencies(s.policies(), s.defaultPolicy(), s.ticker(), s.random(), s.listeners(),
                s.maxDependencies());
        RetryPolicy<Object> retryPolicy = RetryPolicy.builder()
                // Only our decider decides; exceptions never reach Failsafe (the stage completes with an outcome).
                .handleIf((result, failure) -> result instanceof AttemptOutcome o && o.retry())
                .withMaxRetries(-1)
                .withDelayFn(ctx -> ((AttemptOutcome) ctx.getLastResult()).delay())
                .build();
        Timeout<Object> total = Timeout.builder(totalTimeout).withInterrupt().build();
        this.failsafe = Failsafe.with(total, retryPolicy).with(scheduler);
    }

    /** The idle hook runs once every in-flight call has finished after {@link #shutdown()}. */
    public void onIdleAfterShutdown(Runnable hook) {
        this.onIdleAfterShutdown = Objects.requireNonNull(hook, "hook");
    }

    public Optional<DependencyStatus> status(String dependency) {
        return dependencies.existing(dependency).map(Dependency::status);
    }

    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, BodyHandler<T> handler,
                                                            PushPromiseHandler<T> pushHandler) {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(handler, "responseBodyHandler");
        if (shutdown) {
            return CompletableFuture.failedFuture(new IOException("ResilientHttpClient is shut down"));
        }
        String dependencyName = Objects.requireNonNull(dependencyResolver.apply(request),
                "dependencyResolver returned null");
        HttpRequest effective = request;
        String keyHeader = idempotencyKeys.headerName();
        boolean keyed = request.headers().firstValue(keyHeader).isPresent();
        // A body marked non-idempotent (e.g. an S3 PUT into a versioned bucket) gets no key of ours:
        // such a server ignores the key, so it would only make an unsafe retry look safe.
        boolean nonIdempotent = Requests.declaredNonIdempotent(request);
        if (!keyed && !nonIdempotent && idempotencyKeys.shouldAdd(request.method())) {
            effective = Requests.withHeader(request, keyHeader, idempotencyKeys.newKey());
            keyed = true;
        }
        boolean replayable = Requests.bodyReplayable(request);
        long start = ticker.read();
        long deadline = Durations.saturatedAdd(start, Durations.saturatedNanos(totalTimeout));
        // Taken last, so nothing above can leave it marked in use; given back when the call completes.
        Dependency dependency = dependencies.acquire(dependencyName);
        LogicalCall call = new LogicalCall(correlationId(), dependency, effective,
                keyed || (!nonIdempotent && IdempotencyKeys.isIdempotentMethod(request.method())), replayable,
                start, deadline);
        CompletableFuture<HttpResponse<T>> result = new CompletableFuture<>();
        inFlight.add(call);
        if (shutdown) {
            // Re-checked after registering, so a concurrent shutdown either sees this call or rejects it.
            inFlight.remove(call);
            dependencies.release(dependency);
            signalIfIdle();
            return CompletableFuture.failedFuture(new IOException("ResilientHttpClient is shut down"));
        }
        call.onAbort(result::completeExceptionally);
        // Any completion of the caller's future (cancel, orTimeout, our own result) stops the call.
        result.whenComplete((response, failure) -> {
            call.stop();
            dependencies.release(dependency);
            inFlight.remove(call);
            signalIfIdle();
        });
        dependency.budget().recordFirstAttempt();
        CompletableFuture<Object> engine;
        try {
            engine = failsafe.getStageAsync(ctx -> attempt(call, handler, pushHandler));
        } catch (RuntimeException e) {
            // e.g. a caller-supplied scheduler that was shut down: fail this call, never leak it.
            result.completeExceptionally(e);
            return result;
        }
        call.engine(engine);
        engine.whenComplete((outcome, failure) -> finish(call, result, outcome, failure));
        return result;
    }

    private String correlationId() {
        return Long.toHexString(random.get().nextLong() | Long.MIN_VALUE);
    }

    private <T> CompletableFuture<Object> attempt(LogicalCall call, BodyHandler<T> handler,
                                                  PushPromiseHandler<T> pushHandler) {
        CompletableFuture<Object> stage = new CompletableFuture<>();
        if (call.stopped()) {
            stage.cancel(false);
            return stage;
        }
        call.retryStarted();
        int attempt = call.attempts.incrementAndGet();
        call.inFlight(stage);
        Dependency dependency = call.dependency;
        listeners.attemptStarted(call.correlationId, dependency.name(), attempt);
        CircuitBreaker.Permit breakerPermit;
        try {
            breakerPermit = dependency.breaker().acquirePermission();
        } catch (CircuitOpenException open) {
            complete(call, stage, rejected(call, attempt, open));
            return stage;
        }
        CompletableFuture<Bulkhead.Permit> bulkheadWait = dependency.bulkhead().acquireAsync(scheduler,
                bulkheadWait(call, dependency.bulkhead()));
        stage.whenComplete((ignored, failure) -> {
            if (stage.isCancelled()) {
                bulkheadWait.cancel(false); // withdraws a waiter that has not been granted a permit yet
            }
        });
        bulkheadWait.whenComplete((permit, waitFailure) -> {
            if (waitFailure != null) {
                // Rejected or withdrawn before any I/O: a half-open probe slot goes back, nothing is recorded.
                breakerPermit.onNotAttempted();
                Throwable cause = unwrap(waitFailure);
                if (cause instanceof BulkheadFullException full) {
                    complete(call, stage, rejected(call, attempt, full));
                } else {
                    stage.completeExceptionally(cause);
                }
                return;
            }
            if (stage.isDone()) {
                permit.close();
                breakerPermit.onNotAttempted();
                return;
            }
            exchange(call, attempt, stage, breakerPermit, permit, handler, pushHandler);
        });
        return stage;
    }

    private <T> void exchange(LogicalCall call, int attempt, CompletableFuture<Object> stage,
                              CircuitBreaker.Permit breakerPermit, Bulkhead.Permit bulkheadPermit,
                              BodyHandler<T> handler, PushPromiseHandler<T> pushHandler) {
        AtomicReference<AttemptOutcome> headerDecision = new AtomicReference<>();
        BodyHandler<T> deciding = info -> {
            AttemptOutcome decision = decider.onResponse(call, attempt, info.statusCode(), info.headers());
            headerDecision.set(decision);
            if (decision.retry()) {
                // Drain and discard: the connection goes back to the pool, the caller never sees this body.
                return BodySubscribers.replacing(null);
            }
            return handler.apply(info);
        };
        long timeoutNanos = attemptTimeoutNanos(call);
        AtomicBoolean timedOut = new AtomicBoolean();
        AtomicReference<CompletableFuture<HttpResponse<T>>> exchangeRef = new AtomicReference<>();
        ScheduledFuture<?> guard;
        try {
            // Scheduled before sending, so a scheduler that refuses work fails the attempt before any I/O.
            guard = scheduler.schedule(() -> {
                CompletableFuture<HttpResponse<T>> running = exchangeRef.get();
                if (running == null || !running.isDone()) {
                    timedOut.set(true);
                    if (running != null) {
                        running.cancel(true);
                    }
                }
            }, timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (RuntimeException rejected) {
            bulkheadPermit.close();
            breakerPermit.onNotAttempted();
            stage.completeExceptionally(rejected);
            return;
        }
        CompletableFuture<HttpResponse<T>> exchange;
        try {
            exchange = pushHandler == null
                    ? delegate.sendAsync(call.request, deciding)
                    : delegate.sendAsync(call.request, deciding, pushHandler);
        } catch (RuntimeException e) {
            exchange = CompletableFuture.failedFuture(e);
        }
        CompletableFuture<HttpResponse<T>> jdkFuture = exchange;
        exchangeRef.set(jdkFuture);
        if (timedOut.get()) {
            jdkFuture.cancel(true); // the guard fired before the exchange was published
        }
        stage.whenComplete((ignored, failure) -> {
            if (stage.isCancelled()) {
                jdkFuture.cancel(true); // aborts the exchange on the wire
            }
        });
        jdkFuture.whenComplete((response, failure) -> {
            guard.cancel(false);
            bulkheadPermit.close();
            if (stage.isDone()) {
                // Cancelled by the caller or the total timeout: no answer to report, nobody to hand a body to.
                breakerPermit.onAbandoned();
                AttemptOutcome decided = headerDecision.get();
                if (decided != null && decided.retry()) {
                    // The headers had already decided a retry (and withdrawn its token) that will never run.
                    call.dependency.budget().refundRetry();
                }
                if (response != null) {
                    discard(response);
                }
                return;
            }
            AttemptOutcome outcome;
            if (failure == null) {
                outcome = headerDecision.get().withResponse(response);
            } else {
                Throwable cause = unwrap(failure);
                if (timedOut.get()) {
                    HttpTimeoutException timeout = new HttpTimeoutException("attempt timeout of "
                            + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms elapsed");
                    timeout.initCause(cause);
                    cause = timeout;
                }
                call.addFailure(cause);
                AttemptOutcome earlier = headerDecision.get();
                outcome = earlier != null && earlier.retry()
                        ? earlier.withFailure(cause) // the discarded body failed to drain: the retry stands
                        : decider.onFailure(call, attempt, cause);
            }
            // Headers arrived (even if the body then failed): the dependency answered.
            report(breakerPermit, outcome.outcome(), failure == null || headerDecision.get() != null);
            complete(call, stage, outcome);
        });
    }

    /** The configured bulkhead wait, capped by what is left of the total timeout: a queue is no way around it. */
    private Duration bulkheadWait(LogicalCall call, Bulkhead bulkhead) {
        Duration configured = bulkhead.config().maxWaitDuration();
        if (configured.isZero()) {
            return configured;
        }
        long remaining = Math.max(0, call.deadlineNanos - ticker.read());
        return Durations.saturatedNanos(configured) <= remaining ? configured : Duration.ofNanos(remaining);
    }

    private long attemptTimeoutNanos(LogicalCall call) {
        // A request's own timeout is the attempt timeout for that request.
        long configured = Durations.saturatedNanos(call.request.timeout().orElse(attemptTimeout));
        long remaining = call.deadlineNanos - ticker.read();
        return Math.max(1, Math.min(configured, remaining));
    }

    /**
     * Reports an attempt to its breaker permit. A non-failure outcome is "ignored" only when the
     * dependency really answered with an HTTP response (a 404 proves it is up; on a half-open probe it
     * counts as a success). A permanent <em>exception</em> without any response (a certificate
     * failure, a body handler that threw before headers were handed over) proves nothing about the
     * dependency's health, so it is "abandoned": ignored while CLOSED, but a failed half-open probe, so
     * the breaker never closes on a dependency that has not answered.
     */
    private static void report(CircuitBreaker.Permit permit, Outcome outcome, boolean responseReceived) {
        if (outcome == Outcome.SUCCESS) {
            permit.onSuccess();
        } else if (outcome.isBreakerFailure()) {
            permit.onFailure();
        } else if (responseReceived) {
            permit.onIgnored();
        } else {
            permit.onAbandoned();
        }
    }

    private AttemptOutcome rejected(LogicalCall call, int attempt, CallRejectedException rejection) {
        listeners.rejected(call.dependency.name(), rejection);
        return new AttemptOutcome(attempt, null, rejection, Outcome.PERMANENT, Decision.REJECTED, Duration.ZERO,
                rejection instanceof CircuitOpenException ? "circuit breaker open" : "bulkhead full");
    }

    private void complete(LogicalCall call, CompletableFuture<Object> stage, AttemptOutcome outcome) {
        log(call, outcome);
        if (outcome.retry()) {
            call.retryScheduled();
        }
        stage.complete(outcome);
    }

    private void log(LogicalCall call, AttemptOutcome o) {
        HttpResponse<?> response = o.response();
        listeners.decision(new RetryDecisionEvent(call.correlationId, call.dependency.name(), call.request.method(),
                call.path, o.attempt(), decider.maxAttempts(), Duration.ofNanos(ticker.read() - call.startNanos),
                o.delay(), o.failure() == null ? null : o.failure().getClass().getName(),
                response == null ? -1 : response.statusCode(), o.decision(), o.reason()));
    }

    @SuppressWarnings("unchecked")
    private <T> void finish(LogicalCall call, CompletableFuture<HttpResponse<T>> result, Object value,
                            Throwable failure) {
        if (result.isDone()) {
            return;
        }
        if (failure != null) {
            Throwable cause = unwrap(failure);
            if (cause instanceof TimeoutExceededException) {
                // Failsafe's real-time backstop fired before our ticker-based deadline check did.
                int attempts = call.attempts.get();
                HttpTimeoutException timeout = totalTimeoutFailure(call, attempts);
                log(call, new AttemptOutcome(attempts, null, timeout, Outcome.AMBIGUOUS, Decision.GAVE_UP,
                        Duration.ZERO, RetryDecider.TOTAL_TIMEOUT_EXCEEDED));
                result.completeExceptionally(timeout);
            } else {
                result.completeExceptionally(cause);
            }
            return;
        }
        AttemptOutcome outcome = (AttemptOutcome) value;
        if (outcome.response() != null && !outcome.retry()) {
            result.complete((HttpResponse<T>) outcome.response());
            return;
        }
        result.completeExceptionally(finalFailure(call, outcome));
    }

    /**
     * The failure of a call whose total timeout expired: an {@link HttpTimeoutException}, as the JDK
     * client throws for its own timeouts, with every attempt's failure suppressed.
     */
    private HttpTimeoutException totalTimeoutFailure(LogicalCall call, int attempts) {
        HttpTimeoutException timeout = new HttpTimeoutException("total timeout of " + totalTimeout.toMillis()
                + " ms exceeded for dependency '" + call.dependency.name() + "' after " + attempts
                + (attempts == 1 ? " attempt" : " attempts"));
        call.failures().forEach(timeout::addSuppressed);
        return timeout;
    }

    private Throwable finalFailure(LogicalCall call, AttemptOutcome outcome) {
        List<Throwable> failures = call.failures();
        Throwable failure = outcome.failure();
        if (failure != null && RetryDecider.TOTAL_TIMEOUT_EXCEEDED.equals(outcome.reason())) {
            return totalTimeoutFailure(call, outcome.attempt());
        }
        if (outcome.decision() == Decision.GAVE_UP && failure != null) {
            return new RetriesExhaustedException(call.dependency.name(), outcome.attempt(), outcome.reason(), failures);
        }
        if (failure == null) {
            // A response whose body was already discarded for a retry that then could not run.
            failure = new IOException("call to dependency '" + call.dependency.name() + "' stopped after attempt "
                    + outcome.attempt() + " (" + outcome.reason() + ")");
        }
        for (Throwable earlier : failures) {
            if (earlier != failure) {
                failure.addSuppressed(earlier);
            }
        }
        return failure;
    }

    private static void discard(HttpResponse<?> response) {
        Object body = response.body();
        try {
            if (body instanceof InputStream stream) {
                stream.close();
            } else if (body instanceof AutoCloseable closeable) {
                closeable.close();
            } else if (body instanceof Flow.Publisher<?> publisher) {
                publisher.subscribe(CancellingSubscriber.INSTANCE);
            }
        } catch (Exception e) {
            // Closing a body nobody will read can only fail with the connection already gone; nothing to do.
        }
    }

    static Throwable unwrap(Throwable failure) {
        Throwable t = failure;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    // ---- lifecycle -------------------------------------------------------------------------------

    public void shutdown() {
        shutdown = true;
        signalIfIdle();
    }

    public void shutdownNow() {
        shutdown = true;
        for (LogicalCall call : inFlight) {
            // An IOException, as the JDK client fails its own aborted exchanges: send() declares it,
            // whereas a CancellationException would escape send() unchecked.
            call.abort(new IOException("ResilientHttpClient was shut down now: call to dependency '"
                    + call.dependency.name() + "' aborted after " + call.attempts.get() + " attempt(s)"));
        }
        signalIfIdle();
    }

    public boolean idle() {
        return inFlight.isEmpty();
    }

    /** Waits until no call is in flight; returns the nanoseconds left, or a value {@code <= 0} on timeout. */
    public long awaitIdle(long nanos) throws InterruptedException {
        long deadline = System.nanoTime() + nanos;
        synchronized (terminationLock) {
            long left = nanos;
            while (!inFlight.isEmpty()) {
                if (left <= 0) {
                    return left;
                }
                TimeUnit.NANOSECONDS.timedWait(terminationLock, left);
                left = deadline - System.nanoTime();
            }
            return Math.max(1, left);
        }
    }

    private void signalIfIdle() {
        if (inFlight.isEmpty()) {
            synchronized (terminationLock) {
                terminationLock.notifyAll();
            }
            if (shutdown) {
                onIdleAfterShutdown.run();
            }
        }
    }

    /** Cancels a publisher body that will never be read, releasing its connection. */
    private enum CancellingSubscriber implements Flow.Subscriber<Object> {
        INSTANCE;

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            subscription.cancel();
        }

        @Override
        public void onNext(Object item) {
        }

        @Override
        public void onError(Throwable throwable) {
        }

        @Override
        public void onComplete() {
        }
    }
}
