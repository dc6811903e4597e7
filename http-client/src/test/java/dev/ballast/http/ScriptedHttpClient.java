package dev.ballast.http;

import dev.ballast.testkit.StaticResponse;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.function.Function;

/**
 * A delegate {@link HttpClient} that answers each exchange from a script, in order, without a
 * network ({@code send} and {@code sendAsync} alike): a status with headers and body (fed through the caller's {@code BodyHandler}, as the JDK
 * does), a failure, or a future the test completes itself. It records every request it was given
 * and every exchange future it handed out, so a test can see what "reached the server" and whether
 * the exchange was cancelled.
 */
final class ScriptedHttpClient extends ForwardingHttpClient {

    /** Answers the configuration accessors (HTTP/1.1, no redirects); never sends anything. */
    private static final HttpClient CONFIGURATION = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();

    /** One scripted answer to one exchange. */
    interface Step extends Function<Exchange<?>, CompletableFuture<?>> {}

    /** What a step sees: the request and the body handler of this exchange. */
    record Exchange<T>(HttpRequest request, HttpResponse.BodyHandler<T> handler) {}

    private final Queue<Step> script = new ConcurrentLinkedQueue<>();
    final List<HttpRequest> requests = new CopyOnWriteArrayList<>();
    final List<CompletableFuture<?>> exchanges = new CopyOnWriteArrayList<>();
    /** The threads {@code send} was called on, one per blocking exchange. */
    final List<Thread> sendThreads = new CopyOnWriteArrayList<>();

    @Override
    protected HttpClient delegate() {
        return CONFIGURATION;
    }

    ScriptedHttpClient then(Step step) {
        script.add(step);
        return this;
    }

    /**
     * Answers with a status, headers and body fed through the caller's handler; a handler (or its
     * subscriber) that throws fails the exchange with that exception, as the JDK's does.
     */
    static Step status(int status, Map<String, List<String>> headers, String body) {
        return exchange -> {
            try {
                return CompletableFuture.completedFuture(respond(exchange, status, headers, body));
            } catch (java.util.concurrent.CompletionException e) {
                return CompletableFuture.failedFuture(e.getCause());
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
        };
    }

    /**
     * Answers with a response built without ever running the exchange's body handler, as a test
     * double or a mocking library's client does; {@code headers} may be {@code null}, as a mock's are
     * when nobody stubbed them.
     */
    static Step responseWithoutRunningTheHandler(int status, HttpHeaders headers) {
        return exchange ->
                CompletableFuture.completedFuture(StaticResponse.of(status, exchange.request(), headers, null));
    }

    static Step status(int status) {
        return status(status, Map.of(), "");
    }

    static Step failure(Throwable failure) {
        return exchange -> CompletableFuture.failedFuture(failure);
    }

    /** An exchange that never completes by itself; the test (or a cancellation) completes it. */
    static Step hang() {
        return exchange -> new CompletableFuture<>();
    }

    /**
     * Hands the status line and headers to the body handler, then never delivers the body: an
     * exchange that stalls after the response headers until it is cancelled.
     */
    static Step headersThenStall(int status) {
        return exchange -> {
            exchange.handler().apply(info(status, HttpHeaders.of(Map.of(), (name, value) -> true)));
            return new CompletableFuture<>();
        };
    }

    /**
     * A body that stalls: the exchange's handler gets the status line, the headers and the first
     * bytes, then nothing until the test calls {@link #finish(String)}. The exchange completes when
     * the handler's body is ready: at once for a streaming handler ({@code ofInputStream}), only when
     * the body ends for a buffering one ({@code ofString}).
     */
    static final class StallingBody {

        private final java.util.Queue<ByteBuffer> pending = new java.util.concurrent.ConcurrentLinkedQueue<>();
        private volatile HttpResponse.BodySubscriber<?> subscriber;
        private long demand;
        private boolean ending;
        private boolean ended;
        final java.util.concurrent.atomic.AtomicBoolean cancelled = new java.util.concurrent.atomic.AtomicBoolean();

        Step step(int status, String first) {
            return exchange -> {
                HttpHeaders headers = HttpHeaders.of(Map.of(), (name, value) -> true);
                // Queued before the handler runs: a test that waits for the handler may finish the body
                // at once, and its rest must queue behind this first part.
                pending.add(ByteBuffer.wrap(first.getBytes(StandardCharsets.UTF_8)));
                HttpResponse.BodySubscriber<?> s = exchange.handler().apply(info(status, headers));
                subscriber = s;
                s.onSubscribe(new Flow.Subscription() {
                    @Override
                    public void request(long n) {
                        synchronized (StallingBody.this) {
                            demand += n;
                        }
                        drain();
                    }

                    @Override
                    public void cancel() {
                        cancelled.set(true);
                    }
                });
                return s.getBody()
                        .toCompletableFuture()
                        .thenApply(body -> StaticResponse.of(status, exchange.request(), headers, body));
            };
        }

        /** Delivers the rest of the body, as demanded, and ends it. */
        void finish(String rest) {
            synchronized (this) {
                pending.add(ByteBuffer.wrap(rest.getBytes(StandardCharsets.UTF_8)));
                ending = true;
            }
            drain();
        }

        /** Delivers what is pending and demanded, as the JDK client does: never more than requested. */
        private synchronized void drain() {
            while (demand > 0 && !pending.isEmpty() && !cancelled.get()) {
                demand--;
                subscriber.onNext(List.of(pending.poll()));
            }
            if (ending && pending.isEmpty() && !ended && !cancelled.get()) {
                ended = true;
                subscriber.onComplete();
            }
        }
    }

    /** Feeds {@code body} through the exchange's body handler, as the JDK client would. */
    static <T> HttpResponse<T> respond(
            Exchange<T> exchange, int status, Map<String, List<String>> headers, String body) {
        HttpHeaders httpHeaders = HttpHeaders.of(headers, (name, value) -> true);
        HttpResponse.BodySubscriber<T> subscriber = exchange.handler().apply(info(status, httpHeaders));
        subscriber.onSubscribe(new Flow.Subscription() {
            @Override
            public void request(long n) {}

            @Override
            public void cancel() {}
        });
        if (!body.isEmpty()) {
            subscriber.onNext(List.of(ByteBuffer.wrap(body.getBytes(StandardCharsets.UTF_8))));
        }
        subscriber.onComplete();
        T value = subscriber.getBody().toCompletableFuture().join();
        return StaticResponse.of(status, exchange.request(), httpHeaders, value);
    }

    private static HttpResponse.ResponseInfo info(int status, HttpHeaders httpHeaders) {
        return new HttpResponse.ResponseInfo() {
            @Override
            public int statusCode() {
                return status;
            }

            @Override
            public HttpHeaders headers() {
                return httpHeaders;
            }

            @Override
            public Version version() {
                return Version.HTTP_1_1;
            }
        };
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
        requests.add(request);
        Step step = script.poll();
        if (step == null) {
            throw new AssertionError("no scripted answer left for request " + requests.size());
        }
        @SuppressWarnings("unchecked")
        CompletableFuture<HttpResponse<T>> future =
                (CompletableFuture<HttpResponse<T>>) step.apply(new Exchange<>(request, handler));
        exchanges.add(future);
        return future;
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(
            HttpRequest request,
            HttpResponse.BodyHandler<T> handler,
            HttpResponse.PushPromiseHandler<T> pushPromiseHandler) {
        return sendAsync(request, handler);
    }

    /**
     * Blocks on the scripted exchange as the JDK's {@code send} does: an interrupt cancels the
     * exchange and is rethrown; a failure is rethrown as the JDK rethrows it (an
     * {@code IOException}, or the body handler's unchecked exception wrapped in one).
     */
    @Override
    public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
            throws IOException, InterruptedException {
        sendThreads.add(Thread.currentThread());
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        CompletableFuture<HttpResponse<T>> exchange = null;
        try {
            exchange = sendAsync(request, handler);
            return exchange.get();
        } catch (InterruptedException e) {
            if (exchange != null) {
                exchange.cancel(true);
            }
            throw e;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io; // the JDK rethrows a copy of the same type
            }
            throw new IOException(cause.getMessage(), cause);
        } catch (CancellationException e) {
            throw new IOException("exchange cancelled", e);
        }
    }

    // The JDK 21 lifecycle, overriding the forwarding ones: this client holds no resources, so it is
    // terminated at once (the shared configuration client must not be shut down by one test).

    @Override
    public void shutdown() {}

    @Override
    public void shutdownNow() {}

    @Override
    public boolean awaitTermination(Duration duration) {
        return true;
    }

    @Override
    public boolean isTerminated() {
        return true;
    }

    @Override
    public void close() {}
}
