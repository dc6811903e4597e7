package dev.ballast.http;

import dev.ballast.http.classify.ResponseClassifier;
import dev.ballast.http.idempotency.IdempotencyKeyConfig;
import dev.ballast.http.internal.Durations;
import dev.ballast.http.internal.JdkLifecycle;
import dev.ballast.http.internal.Listeners;
import dev.ballast.http.internal.Pipeline;
import dev.ballast.http.internal.RedirectFollowingClient;
import dev.ballast.http.internal.Requests;
import dev.ballast.http.retry.RetryConfig;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.InetAddress;
import java.net.ProxySelector;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.PushPromiseHandler;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A drop-in {@link HttpClient} that classifies every outcome, retries only what is safe to retry,
 * honours the server's {@code Retry-After}, and isolates each dependency behind its own circuit
 * breaker, adaptive concurrency limit (and fixed bulkhead, if configured) and retry budget. Replace
 * {@code HttpClient.newHttpClient()} with {@code ResilientHttpClient.newBuilder().build()}; existing
 * {@code send}/{@code sendAsync} code keeps working, with the same signatures and exceptions.
 *
 * <pre>{@code
 * HttpClient client = ResilientHttpClient.newBuilder()
 *     .connectTimeout(Duration.ofSeconds(2))             // JDK options as on HttpClient.Builder
 *     .totalTimeout(Duration.ofSeconds(10))
 *     .retry(RetryConfig.builder().maxAttempts(4).build())
 *     .dependency("https://payments.internal:443", DependencyConfig.builder()
 *         .bulkhead(BulkheadConfig.builder(16).build()).build())
 *     .build();
 * HttpResponse<String> response = client.send(request, BodyHandlers.ofString());
 * }</pre>
 *
 * <h2>Pipeline</h2>
 * Each {@code send}/{@code sendAsync} is one <em>logical call</em> that runs, outermost first,
 * {@code TotalTimeout(Retry(CircuitBreaker(Bulkhead(ConcurrencyLimit(AttemptTimeout(delegate))))))}:
 * <ol>
 *   <li><b>Total timeout</b> (default 30 s) is outermost because it bounds everything the caller
 *       waits for, backoffs included. The retry layer never starts a backoff that would end past
 *       it: it returns the last response (or throws) at once instead of sleeping in vain. It needs
 *       no timer of its own: every attempt's bound and every bulkhead wait is capped by what is left
 *       of it, and an attempt cut short by it fails the call with
 *       {@link java.net.http.HttpTimeoutException}.</li>
 *   <li><b>Retry</b> sits outside the breaker so that every attempt asks the breaker afresh: once
 *       the breaker opens mid-call, the next attempt is rejected without a network call, and a
 *       {@link CircuitOpenException} is never retried. It is the only layer that retries.</li>
 *   <li><b>Circuit breaker</b> sits outside the bulkhead so that an open circuit rejects in
 *       microseconds without even queueing for a bulkhead permit, and so that bulkhead rejections
 *       (our own saturation) are not mistaken for the dependency failing.</li>
 *   <li><b>Bulkhead</b> (none unless configured) bounds concurrent attempts per dependency at a fixed
 *       number, so a slow dependency cannot take every connection and thread from the others.</li>
 *   <li><b>Concurrency limit</b> (on by default, {@link dev.ballast.http.limit.ConcurrencyLimitConfig})
 *       bounds them at what the dependency's latency says it serves: it comes down when the
 *       dependency queues and grows while latency holds, refusing with
 *       {@link ConcurrencyLimitExceededException}. It sits inside the bulkhead so that it counts, and
 *       times, only attempts on their way to the wire, not ones waiting for a bulkhead permit.</li>
 *   <li><b>Attempt timeout</b> (default 10 s, or the request's own {@link HttpRequest#timeout()},
 *       capped by the time left of the total timeout) is innermost so that it measures only the
 *       exchange, covering response headers and body; on expiry the exchange is cancelled and the
 *       attempt fails with {@link java.net.http.HttpTimeoutException}, an ambiguous outcome (a
 *       connect that did not finish in time is {@link java.net.http.HttpConnectTimeoutException},
 *       transient: nothing was sent). A body the caller streams after {@code send} returned
 *       ({@code ofInputStream}, {@code ofLines}, {@code ofPublisher}) stays under the bound: when it
 *       passes, the exchange is aborted and the reader fails with {@code HttpTimeoutException},
 *       unless the handler is {@link BodyTimeout#exempt(BodyHandler)}.</li>
 * </ol>
 *
 * <h2>Threads and time</h2>
 * A healthy call costs about what the wrapped client costs. {@code send} runs every attempt on the
 * caller's thread: breaker permission, bulkhead permit, the wrapped client's own {@code send},
 * classification, decision; a backoff parks the caller's thread (interruptibly). {@code sendAsync}
 * calls the wrapped client's {@code sendAsync} from the calling thread and continues on its
 * completion; only a backoff (and a bulkhead wait, when one is configured) is scheduled on the
 * {@link ScheduledExecutorService}. No task is scheduled per attempt: one timer thread per client
 * (started on first use, gone when idle) bounds every attempt, headers and body: arming a bound is
 * writing it into the attempt, disarming it one compare-and-set, and the timer passes over the
 * calls in flight (at least every 50 ms while any is bounded) instead of holding an entry per attempt. The request goes to the wrapped client as the caller
 * built it (plus an idempotency key where one is added): handing the JDK the bound as
 * {@link HttpRequest#timeout()} would cost more, since the JDK wakes its selector thread for every
 * request that carries a timeout. A timeout the caller set on the request is kept (the JDK enforces
 * it too) and is that request's attempt timeout. Every deadline is a reading of the injected
 * {@link Ticker}.
 *
 * <p>A {@code send} blocked in the wrapped client can only be reached by interrupting its thread, so
 * an attempt timeout and {@link #shutdownNow()} do that, as the JDK's own {@code send} expects
 * (it then cancels the exchange); the interrupt is confined to that wait and never reaches the
 * caller's code. A wrapped client whose {@code send} ignores interrupts is bounded only by itself.
 *
 * <h2>Retries</h2>
 * Outcomes are sorted by the {@link ResponseClassifier} (status and headers only, never the body).
 * Transient and throttled outcomes are retried, a refused HTTP/2 stream included (RFC 9113 §8.7);
 * ambiguous ones (read timeout, reset after send, 504) only for an idempotent method (RFC 9110
 * §9.2.2) or a request carrying an idempotency key; permanent ones, rejections and failures of the
 * caller's own body handler never. The circuit breaker counts attempts: transient and ambiguous
 * outcomes (and, by its slow-call rule, slow attempts) are failures, and so is a 429 unless the
 * dependency's {@code BreakerConfig.throttlingIsFailure(false)}; its {@code Retry-After} is honoured first.
 * With redirects followed, a retry sends the hop whose answer is retried, never a request that got
 * its answer. Redirects set with {@link Builder#followRedirects} are followed by this client with the
 * JDK's rules, except that a hop to another origin carries no {@code Authorization},
 * {@code Proxy-Authorization}, {@code Cookie}, {@code Origin}, {@code Referer} or idempotency key
 * (the Fetch standard, curl, OkHttp), on every JDK. A dependency may hedge ({@link DependencyConfig.Builder#hedging}): a second attempt
 * alongside the first when it has not answered after a delay, the call committing to the first response
 * whose headers are kept (the others cancelled, the caller's body handler run for that one only). {@code maxAttempts} counts all attempts including the first.
 * The delay is our {@link dev.ballast.http.retry.Backoff} (full jitter by default) with the server's
 * {@code Retry-After} (RFC 9110 §10.2.3) as a floor; a {@code Retry-After} above
 * {@link RetryConfig#maxRetryAfter()} or beyond the total timeout stops retrying and returns that
 * response. Each dependency's retry budget must also allow the retry. POST and PATCH get an
 * {@code Idempotency-Key} header (the same value on every attempt; a caller-supplied key is kept)
 * per {@link IdempotencyKeyConfig}. Only a replayable body is re-sent; see {@link ReplayableBodyPublisher}.
 * Every response that is not handed to the caller is drained without reaching the caller's
 * {@link BodyHandler}.
 *
 * <h2>Final outcome</h2>
 * If the last attempt produced a response, it is returned whatever its status, also when the next
 * attempt was then refused by the breaker, the concurrency limit, the bulkhead or the retry budget (a retried response's
 * body is kept in memory for that, up to 256 KiB). If it produced an exception: a
 * {@link RetriesExhaustedException} when the retry layer gave up on a retryable failure (every
 * attempt's failure suppressed), an {@link java.net.http.HttpTimeoutException} when the total timeout
 * expired, the {@link CallRejectedException} when the breaker, limit or bulkhead rejected a call that had no
 * answer yet, and otherwise the attempt's own exception (earlier failures suppressed). A failure of
 * the caller's body handler reaches the caller as the JDK client delivers it: {@code send} throws an
 * {@code IOException} with it as the cause, {@code sendAsync}'s future fails with it.
 *
 * <h2>Cancellation</h2>
 * {@code sendAsync} never blocks a thread during a backoff: the next attempt is scheduled on the
 * {@link ScheduledExecutorService}. Cancelling (or otherwise completing) the returned future cancels
 * the in-flight JDK exchange with {@code cancel(true)} and any pending backoff, releases every
 * permit, and starts no further attempt; a cancellation counts neither as a breaker failure nor as
 * a retry budget charge. An interrupted {@code send} does the same and throws
 * {@link InterruptedException}.
 *
 * <h2>The JDK's own re-sends</h2>
 * {@code java.net.http} silently re-sends a request once, below this client, in two cases: when
 * connecting fails with {@link java.net.ConnectException} (unless
 * {@code -Djdk.httpclient.disableRetryConnect=true}); nothing was sent, so this is harmless but can
 * double the connect time of one attempt. And when a <em>pooled</em> connection turns out closed
 * before any response byte arrived: then it re-sends GET and HEAD, and with
 * {@code -Djdk.httpclient.enableAllMethodRetry=true} every method, including POST. These re-sends
 * happen inside one of our attempts, so the server can see up to twice as many requests as the
 * attempts we count and log, and with all-method retry a non-idempotent request can reach the
 * server twice without our knowledge; {@link Builder#build()} logs a WARN when that property is
 * enabled. The idempotency key protects against such duplicates only if the server honours it.
 * WebSockets ({@link #newWebSocketBuilder()}) go straight to the delegate, without this pipeline.
 *
 * <h2>Lifecycle</h2>
 * {@link #shutdown()}, {@link #shutdownNow()}, {@link #awaitTermination(Duration)},
 * {@link #isTerminated()} and {@link #close()} have the JDK 21 signatures: they override
 * {@code HttpClient}'s on JDK 21+ and still exist on 17. They stop this client (new calls fail with
 * {@link IOException}), shut down a scheduler the client created itself, and forward to the wrapped
 * client when the running JDK has those methods.
 *
 * <p>Instances are immutable and thread-safe. Every accessor answers as the wrapped client does
 * ({@link ForwardingHttpClient}).
 *
 * @implNote The layers are plain composition in {@code dev.ballast.http.internal}, not Failsafe
 * policies: Failsafe's asynchronous executor schedules every attempt (a thread hand-off per call),
 * its {@code Timeout} keeps its own clock, and its retry loop would only schedule decisions our
 * classifier, retry budget and {@code Retry-After} rules have already made. The breaker keeps its
 * own ticker-driven clock for the same reason.
 *
 * @see Builder
 * @see DependencyConfig
 * @see HttpClientListener
 */
public final class ResilientHttpClient extends ForwardingHttpClient {

    /** Default total timeout: bounds a logical call, backoffs included. */
    public static final Duration DEFAULT_TOTAL_TIMEOUT = Duration.ofSeconds(30);
    /** Default attempt timeout: bounds one exchange, headers and body. */
    public static final Duration DEFAULT_ATTEMPT_TIMEOUT = Duration.ofSeconds(10);

    /**
     * Default of {@link Builder#maxDependencies(int)}: 1024 dependency keys, far more origins than a
     * service usually talks to, small enough that a crawler-like caller cannot grow memory without bound.
     */
    public static final int DEFAULT_MAX_DEPENDENCIES = 1024;

    static final String ALL_METHOD_RETRY_PROPERTY = "jdk.httpclient.enableAllMethodRetry";
    private static final Logger LOG = LoggerFactory.getLogger(ResilientHttpClient.class);

    private final HttpClient delegate;
    private final Pipeline pipeline;
    private final @Nullable ScheduledExecutorService ownedScheduler;
    private final boolean defaultResolver;
    private final AtomicBoolean shutdown = new AtomicBoolean();

    private ResilientHttpClient(
            HttpClient delegate,
            Pipeline pipeline,
            @Nullable ScheduledExecutorService ownedScheduler,
            boolean defaultResolver) {
        this.delegate = delegate;
        this.pipeline = pipeline;
        this.ownedScheduler = ownedScheduler;
        this.defaultResolver = defaultResolver;
        if (ownedScheduler != null) {
            pipeline.onIdleAfterShutdown(ownedScheduler::shutdown);
        }
    }

    /**
     * Returns a new builder with every default.
     *
     * @return a new builder
     */
    public static Builder newBuilder() {
        return new Builder();
    }

    /**
     * Returns a point-in-time view of a dependency's breaker, concurrency limit, bulkhead and retry budget.
     *
     * @param dependency the dependency key, as produced by the dependency resolver; with the default
     *     resolver, normalised as {@link Builder#dependency(String, DependencyConfig)} normalises it
     * @return the status, or empty if no call has been made to that dependency yet (or its idle state
     *     was evicted)
     * @throws NullPointerException if {@code dependency} is null
     */
    public Optional<DependencyStatus> dependencyStatus(String dependency) {
        Objects.requireNonNull(dependency, "dependency");
        if (defaultResolver) {
            try {
                return pipeline.status(Requests.normalizedDependencyKey(dependency));
            } catch (IllegalArgumentException notAnOrigin) {
                return Optional.empty();
            }
        }
        return pipeline.status(dependency);
    }

    @Override
    protected HttpClient delegate() {
        return delegate;
    }

    /**
     * Sends {@code request} through the pipeline, blocking until the final outcome. Every attempt,
     * and every backoff between them, runs on the calling thread.
     *
     * @throws IOException the final attempt's exception, a {@link RetriesExhaustedException}, a
     *     {@link CallRejectedException}, or {@link java.net.http.HttpTimeoutException} when the total
     *     timeout expired
     * @throws InterruptedException if interrupted while waiting (by anyone but this client's own
     *     timer or {@link #shutdownNow()}); the exchange in flight is cancelled and no attempt follows
     * @throws IllegalArgumentException if the request is not valid for the wrapped client
     */
    @Override
    public <T> HttpResponse<T> send(HttpRequest request, BodyHandler<T> responseBodyHandler)
            throws IOException, InterruptedException {
        return pipeline.send(request, responseBodyHandler);
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, BodyHandler<T> responseBodyHandler) {
        return pipeline.sendAsync(request, responseBodyHandler, null);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Push promises of attempts whose response is discarded for a retry are still offered to
     * {@code pushPromiseHandler}, as the wrapped client receives them.
     */
    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(
            HttpRequest request,
            BodyHandler<T> responseBodyHandler,
            @Nullable PushPromiseHandler<T> pushPromiseHandler) {
        return pipeline.sendAsync(request, responseBodyHandler, pushPromiseHandler);
    }

    /**
     * Starts an orderly shutdown: new calls fail with {@link IOException}, calls in flight (including
     * their retries) run to completion, then an owned scheduler stops. Forwards to the wrapped
     * client's {@code shutdown()} on JDK 21+. Idempotent. Overrides {@code HttpClient.shutdown()}
     * on JDK 21+.
     */
    public void shutdown() {
        shutdown.set(true);
        pipeline.shutdown();
        JdkLifecycle.shutdown(delegate);
    }

    /**
     * Shuts down and aborts every call in flight: its future completes exceptionally with an
     * {@link IOException} (so a blocked {@code send} throws it), its exchange is cancelled, any
     * pending backoff is dropped and no further attempt starts. Forwards to the wrapped client's
     * {@code shutdownNow()} on JDK 21+. Overrides {@code HttpClient.shutdownNow()} on JDK 21+.
     */
    public void shutdownNow() {
        shutdown.set(true);
        pipeline.shutdownNow();
        JdkLifecycle.shutdownNow(delegate);
    }

    /**
     * Waits until this client has terminated after a shutdown, or the duration elapses. Overrides
     * {@code HttpClient.awaitTermination(Duration)} on JDK 21+.
     *
     * @param duration the maximum time to wait
     * @return true if terminated, false if the duration elapsed first
     * @throws InterruptedException if interrupted while waiting
     * @throws NullPointerException if {@code duration} is null
     */
    public boolean awaitTermination(Duration duration) throws InterruptedException {
        Objects.requireNonNull(duration, "duration");
        long start = System.nanoTime();
        long total = Durations.nonNegativeNanos(duration);
        if (pipeline.awaitIdle(total) <= 0) {
            return false;
        }
        if (shutdown.get() && !pipeline.awaitTimer(total - (System.nanoTime() - start))) {
            return false;
        }
        if (ownedScheduler != null && shutdown.get()) {
            long left = total - (System.nanoTime() - start);
            if (!ownedScheduler.awaitTermination(Math.max(0, left), TimeUnit.NANOSECONDS)) {
                return false;
            }
        }
        long left = total - (System.nanoTime() - start);
        return JdkLifecycle.awaitTermination(delegate, Duration.ofNanos(Math.max(0, left))) && isTerminated();
    }

    /**
     * Returns true once {@link #shutdown()} was called and every call, the owned scheduler and (on
     * JDK 21+) the wrapped client have finished. Overrides {@code HttpClient.isTerminated()} on
     * JDK 21+.
     *
     * @return whether this client has terminated
     */
    public boolean isTerminated() {
        return shutdown.get()
                && pipeline.idle()
                && pipeline.timerTerminated()
                && (ownedScheduler == null || ownedScheduler.isTerminated())
                && JdkLifecycle.isTerminated(delegate);
    }

    /**
     * Shuts down and waits for termination, as {@code HttpClient.close()} does on JDK 21: if
     * interrupted while waiting it calls {@link #shutdownNow()}, keeps waiting, and re-asserts the
     * interrupt status before returning. Idempotent.
     */
    @Override
    public void close() {
        boolean interrupted = false;
        shutdown();
        while (true) {
            try {
                if (awaitTermination(Duration.ofDays(1))) {
                    break;
                }
            } catch (InterruptedException e) {
                if (!interrupted) {
                    interrupted = true;
                    shutdownNow();
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "ResilientHttpClient[" + delegate + "]";
    }

    /**
     * Builds a {@link ResilientHttpClient}. Implements {@link HttpClient.Builder} with covariant
     * returns, so existing configuration code compiles unchanged; the JDK options configure the
     * client that is created and wrapped. Alternatively {@link #delegate(HttpClient)} wraps an
     * existing client, in which case JDK options must not be set. Not thread-safe.
     */
    public static final class Builder implements HttpClient.Builder {

        private final HttpClient.Builder jdk = HttpClient.newBuilder();
        private final List<String> jdkOptions = new ArrayList<>();
        private @Nullable HttpClient delegate;
        private RetryConfig retry = RetryConfig.ofDefaults();
        private Duration totalTimeout = DEFAULT_TOTAL_TIMEOUT;
        private Duration attemptTimeout = DEFAULT_ATTEMPT_TIMEOUT;
        private Function<HttpRequest, String> dependencyResolver = new Requests.DefaultDependencyResolver();
        private final Map<String, DependencyConfig> dependencyConfigs = new HashMap<>();
        private DependencyConfig defaultDependency = DependencyConfig.ofDefaults();
        private ResponseClassifier classifier = ResponseClassifier.ofDefaults();
        private IdempotencyKeyConfig idempotencyKeys = IdempotencyKeyConfig.ofDefaults();
        private final List<HttpClientListener> listeners = new ArrayList<>();
        private @Nullable CallObserver observer;
        private Clock clock = Clock.systemUTC();
        private Ticker ticker = Ticker.systemTicker();
        private Supplier<RandomGenerator> random = ThreadLocalRandom::current;
        private @Nullable ScheduledExecutorService scheduler;
        private int maxDependencies = DEFAULT_MAX_DEPENDENCIES;
        /** The caller's redirect policy; followed by Ballast, the JDK client is built with NEVER. */
        private Redirect redirects = Redirect.NEVER;

        private Builder() {}

        private Builder jdkOption(String name) {
            jdkOptions.add(name);
            return this;
        }

        @Override
        public Builder cookieHandler(CookieHandler cookieHandler) {
            jdk.cookieHandler(cookieHandler);
            return jdkOption("cookieHandler");
        }

        @Override
        public Builder connectTimeout(Duration duration) {
            jdk.connectTimeout(duration);
            return jdkOption("connectTimeout");
        }

        @Override
        public Builder sslContext(SSLContext sslContext) {
            jdk.sslContext(sslContext);
            return jdkOption("sslContext");
        }

        @Override
        public Builder sslParameters(SSLParameters sslParameters) {
            jdk.sslParameters(sslParameters);
            return jdkOption("sslParameters");
        }

        @Override
        public Builder executor(Executor executor) {
            jdk.executor(executor);
            return jdkOption("executor");
        }

        /**
         * Sets the redirect policy, as {@link HttpClient.Builder#followRedirects(Redirect)} does. If not
         * set, {@code NEVER}. With {@code NORMAL} or {@code ALWAYS} the redirects are followed by this
         * client rather than the JDK's (which is built with {@code NEVER}), with the JDK's rules but one:
         * a hop to another origin carries no {@code Authorization}, {@code Proxy-Authorization},
         * {@code Cookie}, {@code Origin}, {@code Referer} or idempotency key header, on every JDK (the
         * JDK 17 client forwards them all). See the class documentation, "Redirects".
         *
         * @param policy the redirect policy
         * @return this builder
         * @throws NullPointerException if {@code policy} is null
         */
        @Override
        public Builder followRedirects(Redirect policy) {
            jdk.followRedirects(policy);
            this.redirects = Objects.requireNonNull(policy, "policy");
            return jdkOption("followRedirects");
        }

        @Override
        public Builder version(Version version) {
            jdk.version(version);
            return jdkOption("version");
        }

        @Override
        public Builder priority(int priority) {
            jdk.priority(priority);
            return jdkOption("priority");
        }

        @Override
        public Builder proxy(ProxySelector proxySelector) {
            jdk.proxy(proxySelector);
            return jdkOption("proxy");
        }

        @Override
        public Builder authenticator(Authenticator authenticator) {
            jdk.authenticator(authenticator);
            return jdkOption("authenticator");
        }

        /**
         * Binds the created client's sockets to {@code localAddr}, as {@code HttpClient.Builder.localAddress}
         * does on JDK 19+ (which this method overrides there).
         *
         * @param localAddr the local address
         * @return this builder
         * @throws UnsupportedOperationException on JDK 17 and 18, which cannot bind a local address
         */
        public Builder localAddress(InetAddress localAddr) {
            try {
                HttpClient.Builder.class
                        .getMethod("localAddress", InetAddress.class)
                        .invoke(jdk, localAddr);
            } catch (NoSuchMethodException e) {
                throw new UnsupportedOperationException("localAddress requires JDK 19 or later", e);
            } catch (InvocationTargetException e) {
                if (e.getCause() instanceof RuntimeException runtime) {
                    throw runtime;
                }
                throw new IllegalStateException(e.getCause());
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
            return jdkOption("localAddress");
        }

        /**
         * Wraps an existing client instead of creating one. Mutually exclusive with the JDK options.
         * Its lifecycle methods are forwarded to on JDK 21+.
         *
         * @param delegate the client every attempt is sent with
         * @return this builder
         * @throws NullPointerException if {@code delegate} is null
         */
        public Builder delegate(HttpClient delegate) {
            this.delegate = Objects.requireNonNull(delegate, "delegate");
            return this;
        }

        /**
         * Sets the retry settings. If not set, {@link RetryConfig#ofDefaults()}: 3 attempts in all
         * (including the first), exponential backoff 100 ms to 10 s with full jitter, Retry-After
         * honoured up to 30 s.
         *
         * @param retry the retry config
         * @return this builder
         * @throws NullPointerException if {@code retry} is null
         */
        public Builder retry(RetryConfig retry) {
            this.retry = Objects.requireNonNull(retry, "retry");
            return this;
        }

        /**
         * Sets the total timeout of a logical call, all attempts and backoffs included. If not set,
         * 30 seconds.
         *
         * @param totalTimeout a positive duration
         * @return this builder
         * @throws NullPointerException if {@code totalTimeout} is null
         * @throws IllegalArgumentException if it is zero or negative
         */
        public Builder totalTimeout(Duration totalTimeout) {
            this.totalTimeout = positive(totalTimeout, "totalTimeout");
            return this;
        }

        /**
         * Sets the timeout of one attempt (response headers and body), used for requests without their
         * own {@link HttpRequest#timeout()}. Always capped by the time left of the total timeout. If not
         * set, 10 seconds.
         *
         * @param attemptTimeout a positive duration
         * @return this builder
         * @throws NullPointerException if {@code attemptTimeout} is null
         * @throws IllegalArgumentException if it is zero or negative
         */
        public Builder attemptTimeout(Duration attemptTimeout) {
            this.attemptTimeout = positive(attemptTimeout, "attemptTimeout");
            return this;
        }

        /**
         * Sets how a request maps to its dependency key (one breaker, bulkhead and retry budget per
         * key). The function must return a key from a bounded set. If not set,
         * {@code scheme://host:port} with the scheme's default port filled in.
         *
         * @param dependencyResolver the resolver
         * @return this builder
         * @throws NullPointerException if {@code dependencyResolver} is null
         */
        public Builder dependencyResolver(Function<HttpRequest, String> dependencyResolver) {
            this.dependencyResolver = Objects.requireNonNull(dependencyResolver, "dependencyResolver");
            return this;
        }

        /**
         * Sets how many dependency keys the client keeps state for (a circuit breaker, bulkhead and
         * retry budget each). Beyond that, the least recently used <em>idle</em> dependency is
         * forgotten: no call in flight or in a backoff, bulkhead free, and a breaker that is CLOSED,
         * HALF_OPEN, or OPEN with its open duration over (its next call would be a probe anyway); its
         * next call starts with fresh state. A dependency whose breaker is within its open duration, or
         * that has calls in flight, is never forgotten, so eviction never lifts a protection, and dead
         * dependencies nobody calls any more do not hold state past their open duration. If not set,
         * {@link #DEFAULT_MAX_DEPENDENCIES}.
         *
         * @param maxDependencies at least 1
         * @return this builder
         * @throws IllegalArgumentException if it is less than 1
         */
        public Builder maxDependencies(int maxDependencies) {
            if (maxDependencies < 1) {
                throw new IllegalArgumentException("maxDependencies must be >= 1 but was " + maxDependencies);
            }
            this.maxDependencies = maxDependencies;
            return this;
        }

        /**
         * Sets the configuration of one dependency, replacing the default one for it. With the default
         * dependency resolver the key is normalised by {@link #build()} the way requests are resolved:
         * scheme and host lower-cased, the scheme's default port filled in, the path dropped, so
         * {@code "https://API.example.com/"} is {@code "https://api.example.com:443"}. Host names are
         * compared as written, without DNS: a configuration for {@code 127.0.0.1} does not apply to requests
         * to {@code localhost} ({@code build()} cannot know, but the first call to such a near miss
         * logs a WARN naming both). With a custom {@link #dependencyResolver(Function)} the key is taken
         * as given.
         *
         * @param dependency the dependency key, e.g. {@code "https://api.example.com:443"}
         * @param config the dependency's configuration
         * @return this builder
         * @throws NullPointerException if either argument is null
         */
        public Builder dependency(String dependency, DependencyConfig config) {
            dependencyConfigs.put(
                    Objects.requireNonNull(dependency, "dependency"), Objects.requireNonNull(config, "config"));
            return this;
        }

        /**
         * Sets the configuration of every dependency without its own. If not set, {@link DependencyConfig#ofDefaults()}.
         *
         * @param config the configuration
         * @return this builder
         * @throws NullPointerException if {@code config} is null
         */
        public Builder defaultDependency(DependencyConfig config) {
            this.defaultDependency = Objects.requireNonNull(config, "config");
            return this;
        }

        /**
         * Sets how responses and failures are classified. If not set, {@link ResponseClassifier#ofDefaults()}.
         *
         * @param classifier the classifier
         * @return this builder
         * @throws NullPointerException if {@code classifier} is null
         */
        public Builder classifier(ResponseClassifier classifier) {
            this.classifier = Objects.requireNonNull(classifier, "classifier");
            return this;
        }

        /**
         * Sets which requests get an idempotency key and how. If not set,
         * {@link IdempotencyKeyConfig#ofDefaults()}: a random UUID in {@code Idempotency-Key} for
         * non-idempotent methods.
         *
         * @param idempotencyKeys the configuration
         * @return this builder
         * @throws NullPointerException if {@code idempotencyKeys} is null
         */
        public Builder idempotencyKeys(IdempotencyKeyConfig idempotencyKeys) {
            this.idempotencyKeys = Objects.requireNonNull(idempotencyKeys, "idempotencyKeys");
            return this;
        }

        /**
         * Adds a listener; earlier ones are kept. Listeners are called in the order added.
         *
         * @param listener the listener
         * @return this builder
         * @throws NullPointerException if {@code listener} is null
         */
        public Builder listener(HttpClientListener listener) {
            listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /**
         * Sets the observer of whole calls, for tracing ({@link CallObserver}; {@code ballast-opentelemetry}'s
         * {@code BallastTracing} is one). One per client: a second call replaces the first. Without one
         * (the default) no call builds any per-call observation state.
         *
         * @param observer the observer
         * @return this builder
         * @throws NullPointerException if {@code observer} is null
         */
        public Builder observer(CallObserver observer) {
            this.observer = Objects.requireNonNull(observer, "observer");
            return this;
        }

        /**
         * Sets the wall clock, used for HTTP-date {@code Retry-After} values. If not set,
         * {@link Clock#systemUTC()}.
         *
         * @param clock the clock
         * @return this builder
         * @throws NullPointerException if {@code clock} is null
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Sets the elapsed-time source for every deadline (total timeout, attempt timeouts, bulkhead
         * waits), breaker open windows and retry budgets: a deadline passes when this ticker says so.
         * Backoffs are delays, not deadlines, and run on real time. If not set,
         * {@link Ticker#systemTicker()}.
         *
         * @param ticker the ticker
         * @return this builder
         * @throws NullPointerException if {@code ticker} is null
         */
        public Builder ticker(Ticker ticker) {
            this.ticker = Objects.requireNonNull(ticker, "ticker");
            return this;
        }

        /**
         * Sets the source of randomness for jitter and correlation ids. If not set,
         * {@code ThreadLocalRandom::current}.
         *
         * @param random supplies a generator for the calling thread
         * @return this builder
         * @throws NullPointerException if {@code random} is null
         */
        public Builder random(Supplier<RandomGenerator> random) {
            this.random = Objects.requireNonNull(random, "random");
            return this;
        }

        /**
         * Sets the scheduler of {@code sendAsync}: its backoffs, its bulkhead waits (when
         * {@code maxWaitDuration} is above zero) and the cancellation of an exchange whose attempt
         * timed out; its tasks are short and never block. A healthy call schedules nothing, and
         * {@code send} never uses it (it waits on the caller's thread). The caller keeps ownership:
         * {@link ResilientHttpClient#shutdown()} does not shut it down. If not set, the client creates
         * one daemon thread on first use and shuts it down when it terminates.
         *
         * @param scheduler the scheduler
         * @return this builder
         * @throws NullPointerException if {@code scheduler} is null
         */
        public Builder scheduler(ScheduledExecutorService scheduler) {
            this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
            return this;
        }

        /**
         * Builds the client. Logs a WARN if {@code jdk.httpclient.enableAllMethodRetry} is enabled,
         * because then the JDK may silently re-send non-idempotent requests below our retry layer.
         *
         * @return a new client
         * @throws IllegalStateException if both {@link #delegate(HttpClient)} and JDK options were set
         * @throws IllegalArgumentException with the default dependency resolver, if a key given to
         *     {@link #dependency(String, DependencyConfig)} cannot name any request's dependency (not an
         *     {@code http} or {@code https} URI with a host, or with user info, query or fragment), or if
         *     two keys name the same dependency
         * @throws RuntimeException whatever a listener's {@link HttpClientListener#onClientBuilt} throws
         */
        @Override
        public ResilientHttpClient build() {
            if (delegate != null && !jdkOptions.isEmpty()) {
                throw new IllegalStateException("delegate(HttpClient) cannot be combined with JDK builder options "
                        + jdkOptions + "; configure the delegate instead");
            }
            boolean defaultResolver = dependencyResolver instanceof Requests.DefaultDependencyResolver;
            Map<String, DependencyConfig> byDependency =
                    defaultResolver ? normalized(dependencyConfigs) : Map.copyOf(dependencyConfigs);
            warnAboutJdkRetries();
            HttpClient wrapped;
            if (delegate != null) {
                wrapped = delegate;
                warnAboutDelegateRedirects(delegate);
            } else if (redirects != Redirect.NEVER) {
                // The JDK's own hop leaks credentials across origins (all of them on 17): follow them here.
                jdk.followRedirects(Redirect.NEVER);
                wrapped = new RedirectFollowingClient(jdk.build(), redirects, idempotencyKeys.headerName());
                jdk.followRedirects(redirects);
            } else {
                wrapped = jdk.build();
            }
            ScheduledExecutorService owned = scheduler == null ? newOwnedScheduler() : null;
            Listeners fanOut = new Listeners(listeners, observer);
            Pipeline pipeline = new Pipeline(new Pipeline.Settings(
                    wrapped,
                    classifier,
                    retry,
                    idempotencyKeys,
                    totalTimeout,
                    attemptTimeout,
                    dependencyResolver,
                    byDependency,
                    defaultDependency,
                    fanOut,
                    clock,
                    ticker,
                    random,
                    scheduler != null ? scheduler : owned,
                    maxDependencies));
            ResilientHttpClient client = new ResilientHttpClient(wrapped, pipeline, owned, defaultResolver);
            fanOut.clientBuilt(client);
            return client;
        }

        /** The configurations by normalised key; two keys that name one dependency are a mistake, not a choice. */
        private static Map<String, DependencyConfig> normalized(Map<String, DependencyConfig> given) {
            Map<String, DependencyConfig> byKey = new HashMap<>();
            Map<String, String> givenAs = new HashMap<>();
            for (Map.Entry<String, DependencyConfig> entry : given.entrySet()) {
                String key = Requests.normalizedDependencyKey(entry.getKey());
                String earlier = givenAs.putIfAbsent(key, entry.getKey());
                if (earlier != null) {
                    throw new IllegalArgumentException("dependency keys '" + earlier + "' and '" + entry.getKey()
                            + "' both name the dependency '" + key + "'; give it one configuration");
                }
                byKey.put(key, entry.getValue());
            }
            return Map.copyOf(byKey);
        }

        private static void warnAboutDelegateRedirects(HttpClient delegate) {
            if (delegate.followRedirects() != Redirect.NEVER && !(delegate instanceof ResilientHttpClient)) {
                LOG.warn(
                        "The wrapped client follows redirects itself ({}): its hops to another origin may carry the"
                                + " request's Authorization, Cookie and Idempotency-Key headers (the JDK 17 client forwards"
                                + " them all); build it with Redirect.NEVER and set followRedirects on"
                                + " ResilientHttpClient.newBuilder() instead to have them dropped",
                        delegate.followRedirects());
            }
        }

        private static void warnAboutJdkRetries() {
            String allMethodRetry = System.getProperty(ALL_METHOD_RETRY_PROPERTY);
            if (allMethodRetry != null && (allMethodRetry.isEmpty() || Boolean.parseBoolean(allMethodRetry))) {
                LOG.warn(
                        "System property {} is enabled: java.net.http may silently re-send any request, POST"
                                + " included, when a pooled connection closes, below ResilientHttpClient's retry layer;"
                                + " the server may then see requests that were never counted or logged as attempts",
                        ALL_METHOD_RETRY_PROPERTY);
            }
        }

        private static ScheduledExecutorService newOwnedScheduler() {
            ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, runnable -> {
                Thread thread = new Thread(runnable, "ballast-http-scheduler");
                thread.setDaemon(true);
                return thread;
            });
            executor.setRemoveOnCancelPolicy(true);
            // An idle client (even one never closed) holds no thread; a queued delay keeps the last one alive.
            executor.setKeepAliveTime(10, TimeUnit.SECONDS);
            executor.allowCoreThreadTimeOut(true);
            return executor;
        }

        private static Duration positive(Duration value, String name) {
            Objects.requireNonNull(value, name);
            if (value.isZero() || value.isNegative()) {
                throw new IllegalArgumentException(name + " must be positive but was " + value);
            }
            return value;
        }
    }
}
