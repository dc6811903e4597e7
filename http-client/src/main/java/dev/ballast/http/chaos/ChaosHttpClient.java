package dev.ballast.http.chaos;

import dev.ballast.http.ForwardingHttpClient;
import java.io.IOException;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.PushPromiseHandler;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import javax.net.ssl.SSLSession;
import org.jspecify.annotations.Nullable;

/**
 * An {@link HttpClient} that injects a {@link ChaosPolicy}'s faults into the exchanges it sends
 * through another: give it to the resilient client as its delegate, so every injected fault meets
 * the real classification, retries, budgets and breakers.
 *
 * <pre>{@code
 * ChaosPolicy chaos = ChaosPolicy.builder()
 *     .injectionRate(0.05)
 *     .faults(ChaosPolicy.Fault.UNAVAILABLE, ChaosPolicy.Fault.LATENCY)
 *     .enabledWhen(ChaosPolicy.systemProperty())     // -Dballast.chaos.enabled=true, switchable at run time
 *     .build();
 * HttpClient client = ResilientHttpClient.newBuilder()
 *     .delegate(ChaosHttpClient.wrap(HttpClient.newHttpClient(), chaos))
 *     .build();
 * }</pre>
 *
 * <p>While the flag is off every call goes straight to the delegate after one flag read. Latency
 * blocks {@code send}'s thread and delays {@code sendAsync} on {@link CompletableFuture}'s delayed
 * executor. {@link #injected()} counts the faults injected. Thread-safe; its lifecycle methods are
 * the delegate's.
 */
public final class ChaosHttpClient extends ForwardingHttpClient {

    private final HttpClient delegate;
    private final ChaosPolicy policy;
    private final LongAdder injected = new LongAdder();

    private ChaosHttpClient(HttpClient delegate, ChaosPolicy policy) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.policy = Objects.requireNonNull(policy, "policy");
    }

    /** {@code delegate} with {@code policy}'s chaos injected. */
    public static ChaosHttpClient wrap(HttpClient delegate, ChaosPolicy policy) {
        return new ChaosHttpClient(delegate, policy);
    }

    /** How many faults this client injected. */
    public long injected() {
        return injected.sum();
    }

    @Override
    protected HttpClient delegate() {
        return delegate;
    }

    @Override
    public <T> HttpResponse<T> send(HttpRequest request, BodyHandler<T> handler)
            throws IOException, InterruptedException {
        ChaosPolicy.Fault fault = draw();
        if (fault == null) {
            return delegate.send(request, handler);
        }
        switch (fault) {
            case LATENCY:
                TimeUnit.NANOSECONDS.sleep(policy.latency().toNanos());
                return delegate.send(request, handler);
            case RESET:
                throw new SocketException("Connection reset");
            default:
                try {
                    return unavailable(request, handler).get();
                } catch (ExecutionException e) {
                    throw new IOException(e.getCause());
                }
        }
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, BodyHandler<T> handler) {
        return sendAsync(request, handler, null);
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(
            HttpRequest request, BodyHandler<T> handler, @Nullable PushPromiseHandler<T> push) {
        ChaosPolicy.Fault fault = draw();
        if (fault == null) {
            return forward(request, handler, push);
        }
        switch (fault) {
            case LATENCY:
                return CompletableFuture.supplyAsync(
                                () -> null,
                                CompletableFuture.delayedExecutor(
                                        policy.latency().toNanos(), TimeUnit.NANOSECONDS))
                        .thenCompose(ignored -> forward(request, handler, push));
            case RESET:
                return CompletableFuture.failedFuture(new SocketException("Connection reset"));
            default:
                return unavailable(request, handler);
        }
    }

    @Override
    public String toString() {
        return "ChaosHttpClient[" + policy + ", " + delegate + "]";
    }

    private ChaosPolicy.@Nullable Fault draw() {
        ChaosPolicy.Fault fault = policy.draw();
        if (fault != null) {
            injected.increment();
        }
        return fault;
    }

    private <T> CompletableFuture<HttpResponse<T>> forward(
            HttpRequest request, BodyHandler<T> handler, @Nullable PushPromiseHandler<T> push) {
        return push == null ? delegate.sendAsync(request, handler) : delegate.sendAsync(request, handler, push);
    }

    /** A 503 with Retry-After, its short body handed to {@code handler}'s subscriber. */
    private <T> CompletableFuture<HttpResponse<T>> unavailable(HttpRequest request, BodyHandler<T> handler) {
        HttpHeaders headers = HttpHeaders.of(
                Map.of(
                        "retry-after", List.of(Long.toString(policy.retryAfter().toSeconds())),
                        "content-type", List.of("text/plain; charset=utf-8")),
                (k, v) -> true);
        HttpResponse.ResponseInfo info = new HttpResponse.ResponseInfo() {
            @Override
            public int statusCode() {
                return 503;
            }

            @Override
            public HttpHeaders headers() {
                return headers;
            }

            @Override
            public HttpClient.Version version() {
                return HttpClient.Version.HTTP_1_1;
            }
        };
        HttpResponse.BodySubscriber<T> subscriber = handler.apply(info);
        byte[] body = "chaos: 503 injected by ChaosHttpClient".getBytes(StandardCharsets.UTF_8);
        java.util.concurrent.SubmissionPublisher<List<ByteBuffer>> publisher =
                new java.util.concurrent.SubmissionPublisher<>();
        publisher.subscribe(subscriber);
        publisher.submit(List.of(ByteBuffer.wrap(body)));
        publisher.close();
        return subscriber.getBody().toCompletableFuture().thenApply(b -> new Injected<>(request, headers, b));
    }

    private record Injected<T>(HttpRequest request, HttpHeaders headers, T body) implements HttpResponse<T> {
        @Override
        public int statusCode() {
            return 503;
        }

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

        @Override
        public HttpClient.Version version() {
            return HttpClient.Version.HTTP_1_1;
        }
    }
}
