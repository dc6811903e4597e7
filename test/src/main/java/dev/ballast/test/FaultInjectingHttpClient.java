package dev.ballast.test;

import dev.ballast.http.ForwardingHttpClient;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpResponse.PushPromiseHandler;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Predicate;
import javax.net.ssl.SSLSession;
import org.jspecify.annotations.Nullable;

/**
 * An {@link HttpClient} that sends through another and injects {@link HttpFault}s by rule, per
 * dependency (origin), and records every fault it injected ({@link #injected()}). Put it under the
 * resilient client, which then sees the faults as it would see the network's:
 *
 * <pre>{@code
 * FaultInjectingHttpClient faults = FaultInjectingHttpClient.newBuilder(HttpClient.newHttpClient()).build();
 * faults.inject(HttpFault.status(503, Duration.ofSeconds(2))).forDependency("http://127.0.0.1:8080").times(1);
 * HttpClient client = ResilientHttpClient.newBuilder().delegate(faults).build();
 * }</pre>
 *
 * <p><b>Rules</b> work as {@link FaultInjectingObjectStore}'s: {@link #inject} adds a rule in force
 * at once, matching every exchange any number of times with probability 1, narrowed by
 * {@link Rule#forDependency}, {@link Rule#forRequests}, {@link Rule#times} and
 * {@link Rule#withProbability} (drawn from one generator seeded by {@link Builder#seed}); each
 * exchange takes the first matching rule with exchanges left, at most one fault per exchange.
 *
 * <p><b>Time.</b> {@link HttpFault#slowBody} passes time between chunks with
 * {@link Builder#passTimeWith} (by default the delivering thread sleeps; give
 * {@code fakeTime::advance} to never sleep). A {@link HttpFault#stall()} holds the exchange until
 * {@link #releaseStalls()}, or until the caller interrupts {@code send} or cancels {@code sendAsync}'s
 * future (as the resilient client's attempt timeout does). Bodies made up or slowed are handed to the
 * caller's body handler on a daemon thread of this client, honouring its demand.
 *
 * <p>Thread-safe. Its lifecycle methods are the delegate's.
 */
public final class FaultInjectingHttpClient extends ForwardingHttpClient {

    private final HttpClient delegate;
    private final Consumer<Duration> passTime;
    private final SplittableRandom random;
    private final List<Rule> rules = new ArrayList<>();
    private final List<InjectedHttpFault> injected = new CopyOnWriteArrayList<>();
    private long calls;
    private final Object stalls = new Object();
    private long stallTickets;
    private long releasedThrough;
    private int stalled;
    private final List<Runnable> stalledAsync = new ArrayList<>();

    private FaultInjectingHttpClient(Builder builder) {
        this.delegate = builder.delegate;
        this.passTime = builder.passTime;
        this.random = new SplittableRandom(builder.seed);
    }

    /** A builder sending through {@code delegate} (a JDK client, or another test double). */
    public static Builder newBuilder(HttpClient delegate) {
        return new Builder(delegate);
    }

    /** Configures a {@link FaultInjectingHttpClient}. Not thread-safe. */
    public static final class Builder {
        private final HttpClient delegate;
        private long seed;
        private Consumer<Duration> passTime = FaultInjectingHttpClient::sleep;

        private Builder(HttpClient delegate) {
            this.delegate = Objects.requireNonNull(delegate, "delegate");
        }

        /** The seed of the draws of {@link Rule#withProbability}; 0 by default. */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /** How time passes between the chunks of a slow body: {@code fakeTime::advance} in a test; sleeps by default. */
        public Builder passTimeWith(Consumer<Duration> passTime) {
            this.passTime = Objects.requireNonNull(passTime, "passTime");
            return this;
        }

        public FaultInjectingHttpClient build() {
            return new FaultInjectingHttpClient(this);
        }
    }

    /** One injection rule, made by {@link #inject}; its setters return it and may be called at any time. */
    public final class Rule {
        private final HttpFault fault;
        private Predicate<HttpRequest> requests = r -> true;
        private long remaining = Long.MAX_VALUE;
        private double probability = 1.0;

        private Rule(HttpFault fault) {
            this.fault = fault;
        }

        /**
         * Only exchanges with {@code origin}: {@code scheme://host:port} as the resilient client names
         * dependencies ({@code http://127.0.0.1:8080}; the scheme's default port when none is given),
         * or {@code host:port} for either scheme.
         *
         * @throws IllegalArgumentException if {@code origin} names no host
         */
        public Rule forDependency(String origin) {
            Predicate<HttpRequest> matches = originMatcher(origin);
            synchronized (FaultInjectingHttpClient.this) {
                this.requests = matches;
            }
            return this;
        }

        /** Only exchanges whose request {@code requests} accepts (a method, a path). */
        public Rule forRequests(Predicate<HttpRequest> requests) {
            Objects.requireNonNull(requests, "requests");
            synchronized (FaultInjectingHttpClient.this) {
                Predicate<HttpRequest> before = this.requests;
                this.requests = r -> before.test(r) && requests.test(r);
            }
            return this;
        }

        /** At most {@code times} injections; {@code times} must be at least 1. */
        public Rule times(long times) {
            if (times < 1) {
                throw new IllegalArgumentException("times must be >= 1 but was " + times);
            }
            synchronized (FaultInjectingHttpClient.this) {
                this.remaining = times;
            }
            return this;
        }

        /** Injects with {@code probability}, which must be in {@code (0, 1]}. */
        public Rule withProbability(double probability) {
            if (!(probability > 0 && probability <= 1)) {
                throw new IllegalArgumentException("probability must be in (0, 1] but was " + probability);
            }
            synchronized (FaultInjectingHttpClient.this) {
                this.probability = probability;
            }
            return this;
        }

        /** Injections left: {@link Long#MAX_VALUE} for an unlimited rule, 0 once spent. */
        public long remaining() {
            synchronized (FaultInjectingHttpClient.this) {
                return remaining;
            }
        }
    }

    /** Adds a rule injecting {@code fault}. */
    public synchronized Rule inject(HttpFault fault) {
        Rule rule = new Rule(Objects.requireNonNull(fault, "fault"));
        rules.add(rule);
        return rule;
    }

    /** Removes every rule; what was injected stays recorded. */
    public synchronized void clearRules() {
        rules.clear();
    }

    /** Every fault injected so far, in order. */
    public List<InjectedHttpFault> injected() {
        return List.copyOf(injected);
    }

    /** How many exchanges this client has seen, faulted or not. */
    public synchronized long calls() {
        return calls;
    }

    /** Lets every exchange stalled now go on to the server. */
    public void releaseStalls() {
        List<Runnable> resume;
        synchronized (stalls) {
            releasedThrough = stallTickets;
            stalls.notifyAll();
            resume = List.copyOf(stalledAsync);
            stalledAsync.clear();
        }
        resume.forEach(Runnable::run);
    }

    /** How many exchanges are stalled now. */
    public int stalled() {
        synchronized (stalls) {
            return stalled + stalledAsync.size();
        }
    }

    /** The origin of {@code request} as the resilient client names dependencies: {@code scheme://host:port}. */
    public static String dependencyOf(HttpRequest request) {
        URI uri = request.uri();
        String scheme = uri.getScheme() == null ? "http" : uri.getScheme().toLowerCase(Locale.ROOT);
        String host = uri.getHost() == null
                ? String.valueOf(uri.getAuthority())
                : uri.getHost().toLowerCase(Locale.ROOT);
        int port = uri.getPort() != -1 ? uri.getPort() : "https".equals(scheme) ? 443 : 80;
        return scheme + "://" + host + ":" + port;
    }

    @Override
    protected HttpClient delegate() {
        return delegate;
    }

    @Override
    public <T> HttpResponse<T> send(HttpRequest request, BodyHandler<T> handler)
            throws IOException, InterruptedException {
        HttpFault fault = draw(request);
        if (fault == null) {
            return delegate.send(request, handler);
        }
        if (fault instanceof HttpFault.Stall) {
            stallUntilReleased();
            return delegate.send(request, handler);
        }
        if (fault instanceof HttpFault.SlowBody slow) {
            HttpResponse<byte[]> real = delegate.send(request, BodyHandlers.ofByteArray());
            return await(deliver(real, real.body(), handler, slow.chunks(), slow.between()));
        }
        if (fault instanceof HttpFault.Reset reset && reset.afterProcessing()) {
            delegate.send(request, BodyHandlers.discarding());
        }
        IOException failure = failureOf(fault);
        if (failure != null) {
            throw failure;
        }
        return await(made(request, (HttpFault.Status) fault, handler));
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, BodyHandler<T> handler) {
        return sendAsync(request, handler, null);
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(
            HttpRequest request, BodyHandler<T> handler, @Nullable PushPromiseHandler<T> pushPromiseHandler) {
        HttpFault fault = draw(request);
        if (fault == null) {
            return forward(request, handler, pushPromiseHandler);
        }
        if (fault instanceof HttpFault.Stall) {
            CompletableFuture<HttpResponse<T>> result = new CompletableFuture<>();
            Runnable resume = () -> {
                if (!result.isDone()) {
                    forward(request, handler, pushPromiseHandler).whenComplete((r, e) -> {
                        if (e != null) {
                            result.completeExceptionally(e);
                        } else {
                            result.complete(r);
                        }
                    });
                }
            };
            synchronized (stalls) {
                stalledAsync.add(resume);
            }
            result.whenComplete((r, e) -> {
                synchronized (stalls) {
                    stalledAsync.remove(resume);
                }
            });
            return result;
        }
        if (fault instanceof HttpFault.SlowBody slow) {
            return delegate.sendAsync(request, BodyHandlers.ofByteArray())
                    .thenCompose(real -> deliver(real, real.body(), handler, slow.chunks(), slow.between()));
        }
        if (fault instanceof HttpFault.Reset reset && reset.afterProcessing()) {
            return delegate.sendAsync(request, BodyHandlers.discarding())
                    .thenCompose(r -> CompletableFuture.failedFuture(failureOf(fault)));
        }
        IOException failure = failureOf(fault);
        if (failure != null) {
            return CompletableFuture.failedFuture(failure);
        }
        return made(request, (HttpFault.Status) fault, handler);
    }

    @Override
    public String toString() {
        return "FaultInjectingHttpClient[" + delegate + "]";
    }

    // ---------------------------------------------------------------- injection

    private <T> CompletableFuture<HttpResponse<T>> forward(
            HttpRequest request, BodyHandler<T> handler, @Nullable PushPromiseHandler<T> push) {
        return push == null ? delegate.sendAsync(request, handler) : delegate.sendAsync(request, handler, push);
    }

    private synchronized @Nullable HttpFault draw(HttpRequest request) {
        calls++;
        for (Rule rule : rules) {
            if (rule.remaining > 0
                    && rule.requests.test(request)
                    && (rule.probability >= 1.0 || random.nextDouble() < rule.probability)) {
                if (rule.remaining != Long.MAX_VALUE) {
                    rule.remaining--;
                }
                injected.add(new InjectedHttpFault(
                        calls, dependencyOf(request), request.method(), request.uri(), rule.fault));
                return rule.fault;
            }
        }
        return null;
    }

    private static @Nullable IOException failureOf(HttpFault fault) {
        if (fault instanceof HttpFault.Reset) {
            return new SocketException("Connection reset");
        }
        if (fault instanceof HttpFault.ConnectionRefused) {
            return new ConnectException("Connection refused");
        }
        if (fault instanceof HttpFault.RefusedStream) {
            return new IOException("request not processed by peer");
        }
        return null;
    }

    private void stallUntilReleased() throws InterruptedException {
        synchronized (stalls) {
            long ticket = ++stallTickets;
            stalled++;
            try {
                while (releasedThrough < ticket) {
                    stalls.wait();
                }
            } finally {
                stalled--;
            }
        }
    }

    private <T> CompletableFuture<HttpResponse<T>> made(
            HttpRequest request, HttpFault.Status fault, BodyHandler<T> handler) {
        Map<String, List<String>> headers = new java.util.TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        headers.put("content-type", List.of("text/plain; charset=utf-8"));
        if (fault.retryAfter() != null) {
            headers.put("retry-after", List.of(Long.toString(fault.retryAfter().toSeconds())));
        }
        byte[] body = ("injected by FaultInjectingHttpClient: HTTP " + fault.status()).getBytes(StandardCharsets.UTF_8);
        Made<byte[]> response = new Made<>(
                fault.status(), request, HttpHeaders.of(headers, (k, v) -> true), body, HttpClient.Version.HTTP_1_1);
        return deliver(response, body, handler, 1, Duration.ZERO);
    }

    /** Feeds {@code body} to {@code handler}'s subscriber in {@code chunks}, on a daemon thread. */
    private <T> CompletableFuture<HttpResponse<T>> deliver(
            HttpResponse<?> answer, byte[] body, BodyHandler<T> handler, int chunks, Duration between) {
        HttpResponse.ResponseInfo info = new HttpResponse.ResponseInfo() {
            @Override
            public int statusCode() {
                return answer.statusCode();
            }

            @Override
            public HttpHeaders headers() {
                return answer.headers();
            }

            @Override
            public HttpClient.Version version() {
                return answer.version();
            }
        };
        HttpResponse.BodySubscriber<T> subscriber = handler.apply(info);
        AtomicLong demand = new AtomicLong();
        AtomicBoolean cancelled = new AtomicBoolean();
        Object signal = new Object();
        subscriber.onSubscribe(new Flow.Subscription() {
            @Override
            public void request(long n) {
                synchronized (signal) {
                    demand.accumulateAndGet(n, (a, b) -> a + b < 0 ? Long.MAX_VALUE : a + b);
                    signal.notifyAll();
                }
            }

            @Override
            public void cancel() {
                synchronized (signal) {
                    cancelled.set(true);
                    signal.notifyAll();
                }
            }
        });
        Thread feeder = new Thread(
                () -> {
                    try {
                        int size = body.length;
                        int chunk = Math.max(1, (size + chunks - 1) / chunks);
                        for (int off = 0, i = 0; i < chunks && (off < size || i == 0); off += chunk, i++) {
                            if (!between.isZero()) {
                                passTime.accept(between);
                            }
                            synchronized (signal) {
                                while (demand.get() == 0 && !cancelled.get()) {
                                    signal.wait();
                                }
                                if (cancelled.get()) {
                                    return;
                                }
                                demand.decrementAndGet();
                            }
                            int len = Math.min(chunk, size - off);
                            subscriber.onNext(List.of(
                                    ByteBuffer.wrap(body, off, Math.max(len, 0)).slice()));
                        }
                        subscriber.onComplete();
                    } catch (InterruptedException e) {
                        subscriber.onError(e);
                    } catch (RuntimeException e) {
                        subscriber.onError(e);
                    }
                },
                "fault-injecting-http-body");
        feeder.setDaemon(true);
        feeder.start();
        return subscriber
                .getBody()
                .toCompletableFuture()
                .thenApply(
                        b -> new Made<>(answer.statusCode(), answer.request(), answer.headers(), b, answer.version()));
    }

    private static <T> HttpResponse<T> await(CompletableFuture<HttpResponse<T>> future)
            throws IOException, InterruptedException {
        try {
            return future.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw new IOException(e.getCause());
        }
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis(), (int) (d.toNanos() % 1_000_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static Predicate<HttpRequest> originMatcher(String origin) {
        Objects.requireNonNull(origin, "origin");
        String key = origin.strip().toLowerCase(Locale.ROOT);
        if (!key.contains("://")) {
            URI uri = URI.create("any://" + key);
            if (uri.getHost() == null || uri.getPort() == -1) {
                throw new IllegalArgumentException(
                        "dependency '" + origin + "' names no host and port; give 'host:port' or 'scheme://host:port'");
            }
            String hostPort = uri.getHost() + ":" + uri.getPort();
            return r -> dependencyOf(r).endsWith("://" + hostPort);
        }
        URI uri = URI.create(key);
        if (uri.getHost() == null) {
            throw new IllegalArgumentException(
                    "dependency '" + origin + "' names no host; give 'host:port' or 'scheme://host:port'");
        }
        int port = uri.getPort() != -1 ? uri.getPort() : "https".equals(uri.getScheme()) ? 443 : 80;
        String normalized = uri.getScheme() + "://" + uri.getHost() + ":" + port;
        return r -> dependencyOf(r).equals(normalized);
    }

    /** A response made here: a made-up answer or a real one with its body re-delivered. */
    private record Made<T>(int statusCode, HttpRequest request, HttpHeaders headers, T body, HttpClient.Version version)
            implements HttpResponse<T> {
        @Override
        public Optional<HttpResponse<T>> previousResponse() {
            return Optional.empty();
        }

        @Override
        public Optional<SSLSession> sslSession() {
            return Optional.empty();
        }

        @Override
        public URI uri() {
            return request.uri();
        }
    }
}
