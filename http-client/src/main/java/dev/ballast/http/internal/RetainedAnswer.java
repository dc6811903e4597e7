package dev.ballast.http.internal;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.ResponseInfo;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import javax.net.ssl.SSLSession;
import org.jspecify.annotations.Nullable;

/**
 * The answer of an attempt that the retry layer decided to retry, kept so that the call can still
 * return it if its next attempt is refused without a network call (an open breaker, a full
 * bulkhead): a call that has an answer ends with that answer, as it does when its attempts run out.
 * The body is kept in memory up to {@value #MAX_BODY_BYTES} bytes; a longer one is drained and
 * dropped, and the answer is then not kept. Immutable once built.
 *
 * @param response the response the wrapped client returned (its body is this class's bytes)
 * @param body the body
 */
record RetainedAnswer(HttpResponse<?> response, byte[] body) {

    /** The longest body kept: error bodies are small; a huge one is not worth holding during a backoff. */
    static final int MAX_BODY_BYTES = 256 * 1024;

    /**
     * The subscriber a retried response's body is read with: it drains the whole body (so the
     * connection goes back to the pool) and keeps up to {@value #MAX_BODY_BYTES} bytes of it. Its
     * body is the bytes, or {@code null} if the body was longer.
     */
    static BodySubscriber<Object> subscriber() {
        return new Retaining();
    }

    /** The kept answer of {@code response}, read with {@link #subscriber()}; null if its body was not kept. */
    static @Nullable RetainedAnswer of(HttpResponse<?> response) {
        return response.body() instanceof byte[] bytes ? new RetainedAnswer(response, bytes) : null;
    }

    /**
     * Hands this answer to the caller as the JDK client would have: the caller's handler is applied
     * to the status and headers and fed the kept body.
     *
     * @return the response; fails with whatever the caller's handler or subscriber threw
     */
    <T> CompletableFuture<HttpResponse<T>> replay(BodyHandler<T> handler) {
        try {
            BodySubscriber<T> subscriber =
                    handler.apply(new Info(response.statusCode(), response.headers(), response.version()));
            CompletionStage<T> body = subscriber.getBody();
            subscriber.onSubscribe(new Flow.Subscription() {
                private boolean done;

                @Override
                public void request(long n) {
                    if (!done) {
                        done = true;
                        if (body().length > 0) {
                            subscriber.onNext(List.of(ByteBuffer.wrap(body()).asReadOnlyBuffer()));
                        }
                        subscriber.onComplete();
                    }
                }

                @Override
                public void cancel() {
                    done = true;
                }
            });
            return body.toCompletableFuture().thenApply(value -> new Replayed<>(response, value));
        } catch (RuntimeException | Error e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private record Info(int statusCode, HttpHeaders headers, HttpClient.Version version) implements ResponseInfo {}

    /** The kept answer with the caller's body; everything else as the wrapped client returned it. */
    private record Replayed<T>(HttpResponse<?> original, T body) implements HttpResponse<T> {

        @Override
        public int statusCode() {
            return original.statusCode();
        }

        @Override
        public HttpRequest request() {
            return original.request();
        }

        @Override
        public Optional<HttpResponse<T>> previousResponse() {
            @SuppressWarnings("unchecked")
            Optional<HttpResponse<T>> previous = original.previousResponse().map(r -> (HttpResponse<T>) r);
            return previous;
        }

        @Override
        public HttpHeaders headers() {
            return original.headers();
        }

        @Override
        public Optional<SSLSession> sslSession() {
            return original.sslSession();
        }

        @Override
        public URI uri() {
            return original.uri();
        }

        @Override
        public HttpClient.Version version() {
            return original.version();
        }

        @Override
        public String toString() {
            return original.toString();
        }
    }

    /** Drains a body, keeping at most {@value #MAX_BODY_BYTES} bytes of it. */
    private static final class Retaining implements BodySubscriber<Object> {

        private final CompletableFuture<Object> result = new CompletableFuture<>();
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private boolean overflow;

        @Override
        public CompletionStage<Object> getBody() {
            return result;
        }

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            subscription.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(List<ByteBuffer> items) {
            for (ByteBuffer item : items) {
                int n = item.remaining();
                if (overflow || bytes.size() + (long) n > MAX_BODY_BYTES) {
                    overflow = true; // keep draining, so the connection is released, but keep nothing
                } else if (item.hasArray()) {
                    bytes.write(item.array(), item.arrayOffset() + item.position(), n);
                } else {
                    byte[] copy = new byte[n];
                    item.duplicate().get(copy);
                    bytes.write(copy, 0, n);
                }
                item.position(item.limit());
            }
        }

        @Override
        public void onError(Throwable throwable) {
            result.completeExceptionally(throwable);
        }

        @Override
        public void onComplete() {
            result.complete(overflow ? null : bytes.toByteArray());
        }
    }
}
