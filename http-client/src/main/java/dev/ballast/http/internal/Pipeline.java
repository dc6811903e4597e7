package dev.ballast.http.internal;

import dev.ballast.http.CallObserver;
import dev.ballast.http.CircuitOpenException;
import dev.ballast.http.DependencyConfig;
import dev.ballast.http.DependencyStatus;
import dev.ballast.http.Ticker;
import dev.ballast.http.classify.ResponseClassifier;
import dev.ballast.http.idempotency.IdempotencyKeyConfig;
import dev.ballast.http.retry.RetryConfig;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.PushPromiseHandler;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * Runs logical calls through retry → circuit breaker → bulkhead → attempt timeout → the wrapped
 * client, all bounded by the total timeout (see {@code ResilientHttpClient}'s class Javadoc for why
 * in this order). One call is a {@link SyncCall} or an {@link AsyncCall}, each attempt an
 * {@link Attempt}, each decision a {@link RetryDecider} verdict, and the way a call that ends
 * without a response fails is {@link CallResult}'s.
 *
 * <p>Time: every deadline is a reading of the injected ticker, and the client's one
 * {@link DeadlineTimer} enforces the attempts' bounds, polling them through the calls in flight
 * ({@link InFlightCalls}). The total timeout needs no timer of its own:
 * every attempt's bound is capped by what is left of it, no backoff may end past it and no bulkhead
 * wait outlasts it.
 *
 * <p>Thread-safe.
 */
public final class Pipeline {

    final HttpClient delegate;
    /** Whether {@link #delegate} is the JDK's own client, which enforces a request's own timeout too. */
    final boolean jdkDelegate;
    /** Whether {@link #delegate} follows redirects, so that one attempt may be several requests. */
    final boolean redirectsFollowed;

    final RetryDecider decider;
    final Duration totalTimeout;
    private final long totalTimeoutNanos;
    final long attemptTimeoutNanos;
    final Listeners listeners;
    final Ticker ticker;
    final ScheduledExecutorService scheduler;
    final DeadlineTimer timer;
    /** The once-per-dependency warning about bodies that cannot be replayed. */
    private final FailureReasons failureReasons = new FailureReasons();

    private final IdempotencyKeyConfig idempotencyKeys;
    private final Function<HttpRequest, String> dependencyResolver;
    private final Dependencies dependencies;
    private final Supplier<RandomGenerator> random;
    private final InFlightCalls inFlight = new InFlightCalls();
    private final Object terminationLock = new Object();
    private volatile boolean shutdown;
    private volatile Runnable onIdleAfterShutdown = () -> {};

    /** Everything the pipeline needs; validated by the client builder. */
    public record Settings(
            HttpClient delegate,
            ResponseClassifier classifier,
            RetryConfig retry,
            IdempotencyKeyConfig idempotencyKeys,
            Duration totalTimeout,
            Duration attemptTimeout,
            Function<HttpRequest, String> dependencyResolver,
            Map<String, DependencyConfig> dependencyConfigs,
            DependencyConfig defaultDependency,
            Listeners listeners,
            Clock clock,
            Ticker ticker,
            Supplier<RandomGenerator> random,
            ScheduledExecutorService scheduler,
            int maxDependencies) {}

    public Pipeline(Settings s) {
        this.delegate = s.delegate();
        this.jdkDelegate = Requests.isJdkClient(s.delegate());
        this.redirectsFollowed = s.delegate().followRedirects() != HttpClient.Redirect.NEVER;
        this.decider = new RetryDecider(s.classifier(), s.retry(), s.clock(), s.random());
        this.idempotencyKeys = s.idempotencyKeys();
        this.totalTimeout = s.totalTimeout();
        this.totalTimeoutNanos = Durations.saturatedNanos(s.totalTimeout());
        this.attemptTimeoutNanos = Durations.saturatedNanos(s.attemptTimeout());
        this.dependencyResolver = s.dependencyResolver();
        this.listeners = s.listeners();
        this.ticker = s.ticker();
        this.random = s.random();
        this.scheduler = s.scheduler();
        this.timer = new DeadlineTimer(s.ticker(), inFlight::pollBounds);
        this.dependencies = new Dependencies(
                s.dependencyConfigs(),
                s.defaultDependency(),
                s.ticker(),
                s.random(),
                s.listeners(),
                s.maxDependencies());
    }

    /** The name of the idempotency key header requests are given. */
    String idempotencyKeyHeader() {
        return idempotencyKeys.headerName();
    }

    /** The idle hook runs once every in-flight call has finished after {@link #shutdown()}. */
    public void onIdleAfterShutdown(Runnable hook) {
        this.onIdleAfterShutdown = Objects.requireNonNull(hook, "hook");
    }

    public Optional<DependencyStatus> status(String dependency) {
        return dependencies.existing(dependency).map(Dependency::status);
    }

    /** A blocking call: every attempt on the caller's thread. */
    @SuppressWarnings("try") // the scope is held, not read: it makes the call's context current
    public <T> HttpResponse<T> send(HttpRequest request, BodyHandler<T> handler)
            throws IOException, InterruptedException {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(handler, "responseBodyHandler");
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before sending");
        }
        throwIfShutdown();
        String name = resolve(request);
        HttpRequest effective = withIdempotencyKey(request);
        long now = ticker.read();
        Dependency dependency = dependencies.acquire(name, now);
        long first = CircuitBreaker.NO_TICKET;
        if (listeners.quiet()) {
            // Nobody observes the attempt: an open breaker rejects before anything of the call is built,
            // so a rejection costs one exception and no more.
            first = permitOrReject(dependency, now);
        }
        boolean keyed = keyed(request, effective);
        boolean replayable = Requests.bodyReplayable(request);
        if (!replayable) {
            failureReasons.unreplayableBody(name, decider.maxAttempts());
        }
        boolean idempotentOrKeyed = keyed || idempotent(request);
        if (dependency.hedging() != null && idempotentOrKeyed && replayable) {
            return sendHedged(effective, idempotentOrKeyed, keyed, handler, dependency, first, now);
        }
        SyncCall call = new SyncCall(
                this,
                dependency,
                effective,
                idempotentOrKeyed,
                keyed,
                replayable,
                now,
                Durations.saturatedAdd(now, totalTimeoutNanos),
                random.get().nextLong());
        register(call, first);
        attach(call, first, false);
        HttpResponse<T> response;
        try (CallObserver.Scope scope = CallContext.enter(call)) {
            response = Correlation.response(call.run(handler, first), call.correlationSeed());
        } catch (IOException | RuntimeException e) {
            Correlation.tag(e, call.correlationSeed());
            CallContext.ended(call, null, e);
            throw e;
        } catch (InterruptedException | Error e) {
            CallContext.ended(call, null, e);
            throw e;
        } finally {
            ended(call);
        }
        CallContext.ended(call, response, null);
        return response;
    }

    /**
     * Gives a registered call its context ({@link CallContext}); if the observer refuses to start it,
     * the call ends here, its first ticket unused.
     */
    private void attach(Call call, long first, boolean async) {
        try {
            CallContext.attach(call, listeners.observer, async);
        } catch (RuntimeException | Error e) {
            ended(call);
            call.dependency.breaker().report(first, CircuitBreaker.Report.NOT_ATTEMPTED, 0);
            throw e;
        }
    }

    /**
     * A {@code send} of a hedged call: one thread cannot wait on two exchanges, so the call runs as a
     * {@code sendAsync} and this thread waits for its answer (interruptibly: an interrupt cancels the
     * call), failing as {@code send} fails.
     */
    @SuppressWarnings("try") // the scope is held, not read: it makes the call's context current
    private <T> HttpResponse<T> sendHedged(
            HttpRequest effective,
            boolean idempotentOrKeyed,
            boolean keyed,
            BodyHandler<T> handler,
            Dependency dependency,
            long first,
            long now)
            throws IOException, InterruptedException {
        AsyncCall<T> call = new AsyncCall<>(
                this,
                dependency,
                effective,
                idempotentOrKeyed,
                keyed,
                true,
                now,
                Durations.saturatedAdd(now, totalTimeoutNanos),
                random.get().nextLong(),
                handler,
                null);
        register(call, first);
        attach(call, first, true);
        try (CallObserver.Scope scope = CallContext.enter(call)) {
            call.start(first);
        }
        try {
            return call.result.get();
        } catch (InterruptedException e) {
            call.result.cancel(true);
            throw e;
        } catch (ExecutionException e) {
            throw CallResult.asSendThrows(e.getCause());
        }
    }

    /** A call whose steps continue on the wrapped client's completions; only backoffs are scheduled. */
    @SuppressWarnings("try") // the scope is held, not read: it makes the call's context current
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(
            HttpRequest request, BodyHandler<T> handler, @Nullable PushPromiseHandler<T> pushHandler) {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(handler, "responseBodyHandler");
        if (shutdown) {
            return CompletableFuture.failedFuture(shutDown());
        }
        String name = resolve(request);
        HttpRequest effective = withIdempotencyKey(request);
        long now = ticker.read();
        Dependency dependency = dependencies.acquire(name, now);
        long first = CircuitBreaker.NO_TICKET;
        if (listeners.quiet()) {
            try {
                first = permitOrReject(dependency, now);
            } catch (CircuitOpenException open) {
                return CompletableFuture.failedFuture(open);
            }
        }
        boolean keyed = keyed(request, effective);
        boolean replayable = Requests.bodyReplayable(request);
        if (!replayable) {
            failureReasons.unreplayableBody(name, decider.maxAttempts());
        }
        AsyncCall<T> call = new AsyncCall<>(
                this,
                dependency,
                effective,
                keyed || idempotent(request),
                keyed,
                replayable,
                now,
                Durations.saturatedAdd(now, totalTimeoutNanos),
                random.get().nextLong(),
                handler,
                pushHandler);
        try {
            register(call, first);
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
        try {
            attach(call, first, true);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e); // the observer refused to start the call
        }
        try (CallObserver.Scope scope = CallContext.enter(call)) {
            call.start(first);
        }
        return call.result;
    }

    /** The first attempt's breaker ticket, or its rejection, counted, with the dependency given back. */
    private long permitOrReject(Dependency dependency, long startNanos) throws CircuitOpenException {
        try {
            return dependency.breaker().acquireTicket();
        } catch (CircuitOpenException open) {
            dependency.countRejection(open);
            listeners.rejectedBeforeCall(dependency, startNanos, ticker); // before the dependency can be evicted
            dependency.activeCalls().decrementAndGet(); // the call ends here
            throw Correlation.tag(open, random.get().nextLong()); // a call of its own, with an id of its own
        }
    }

    private String resolve(HttpRequest request) {
        return Objects.requireNonNull(dependencyResolver.apply(request), "dependencyResolver returned null");
    }

    /**
     * The request every attempt sends: the caller's, plus our idempotency key when its method gets
     * one and it carries none. A body marked non-idempotent (an S3 PUT into a versioned bucket) gets
     * no key of ours: such a server ignores the key, so it would only make an unsafe retry look safe.
     */
    private HttpRequest withIdempotencyKey(HttpRequest request) {
        if (!idempotencyKeys.shouldAdd(request.method())
                || Requests.hasHeader(request, idempotencyKeys.headerName())
                || Requests.declaredNonIdempotent(request)) {
            return request;
        }
        return Requests.withHeader(request, idempotencyKeys.headerName(), idempotencyKeys.newKey());
    }

    /** Whether the request every attempt sends carries an idempotency key: ours, or the caller's own. */
    private boolean keyed(HttpRequest request, HttpRequest effective) {
        return effective != request || Requests.hasHeader(request, idempotencyKeys.headerName());
    }

    /** Whether the request's effect is idempotent: an idempotent method (RFC 9110 §9.2.2) not declared otherwise. */
    private static boolean idempotent(HttpRequest request) {
        return IdempotencyKeyConfig.isIdempotentMethod(request.method()) && !Requests.declaredNonIdempotent(request);
    }

    /** Registers a call as in flight; taken last, so nothing before can leave it registered. */
    private void register(Call call, long first) throws IOException {
        inFlight.add(call);
        if (shutdown) {
            // Re-checked after registering, so a concurrent shutdown either sees this call or rejects it.
            ended(call);
            call.dependency.breaker().report(first, CircuitBreaker.Report.NOT_ATTEMPTED, 0);
            throw shutDown();
        }
    }

    /** The call is over: its dependency is given back and, after a shutdown, termination may follow. */
    void ended(Call call) {
        if (inFlight.remove(call)) {
            dependencies.release(call.dependency);
            signalIfIdle();
        }
    }

    private void throwIfShutdown() throws IOException {
        if (shutdown) {
            throw shutDown();
        }
    }

    private static IOException shutDown() {
        return new IOException("ResilientHttpClient is shut down");
    }

    /** Runs {@code task} on the scheduler, never on the timer's thread, which must not run callers' code. */
    void runOffTimer(Runnable task) {
        try {
            scheduler.execute(task);
        } catch (RejectedExecutionException e) {
            task.run(); // rather late on the timer's thread than never
        }
    }

    static Throwable unwrap(Throwable failure) {
        Throwable t = failure;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** Whether {@code cause} is somewhere in {@code failure}'s cause chain (at most 32 levels). */
    static boolean hasCause(Throwable failure, Throwable cause) {
        Throwable t = failure;
        for (int depth = 0; t != null && depth < 32; depth++, t = t.getCause()) {
            if (t == cause) {
                return true;
            }
        }
        return false;
    }

    // ---- lifecycle -------------------------------------------------------------------------------

    public void shutdown() {
        shutdown = true;
        signalIfIdle();
    }

    public void shutdownNow() {
        shutdown = true;
        inFlight.forEach(call ->
                // An IOException, as the JDK client fails its own aborted exchanges: send() declares it,
                // whereas a CancellationException would escape send() unchecked.
                call.abort(new IOException("ResilientHttpClient was shut down now: call to dependency '"
                        + call.dependency.name() + "' aborted after " + call.attempts + " attempt(s)")));
        signalIfIdle();
    }

    public boolean idle() {
        return inFlight.isEmpty();
    }

    /** Whether the timer's thread has ended after a shutdown. */
    public boolean timerTerminated() {
        return timer.isTerminated();
    }

    /** Waits up to {@code nanos} for the timer's thread to end after a shutdown; whether it did. */
    public boolean awaitTimer(long nanos) throws InterruptedException {
        return timer.awaitTermination(nanos);
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
        if (shutdown && inFlight.isEmpty()) {
            synchronized (terminationLock) {
                terminationLock.notifyAll();
            }
            timer.shutdown();
            onIdleAfterShutdown.run();
        }
    }
}
