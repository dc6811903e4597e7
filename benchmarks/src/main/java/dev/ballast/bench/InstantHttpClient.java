package dev.ballast.bench;

import dev.ballast.http.ForwardingHttpClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.PushPromiseHandler;
import java.net.http.HttpResponse.ResponseInfo;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import javax.net.ssl.SSLSession;
import org.jspecify.annotations.Nullable;

/**
 * A wrapped client that answers at once, without I/O, the way the JDK's does: it hands the status
 * and headers to the caller's body handler, feeds it the body and returns what the handler made.
 * What remains of a call through it is the cost of whatever wraps it.
 */
final class InstantHttpClient extends ForwardingHttpClient {

    private static final HttpClient CONFIGURATION =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final HttpHeaders HEADERS = HttpHeaders.of(Map.of(), (name, value) -> true);
    private static final Flow.Subscription SUBSCRIPTION = new Flow.Subscription() {
        @Override
        public void request(long n) {}

        @Override
        public void cancel() {}
    };

    private final int status;
    private final byte[] body;

    InstantHttpClient(int status, byte[] body) {
        this.status = status;
        this.body = body.clone();
    }

    @Override
    protected HttpClient delegate() {
        return CONFIGURATION;
    }

    @Override
    public <T> HttpResponse<T> send(HttpRequest request, BodyHandler<T> handler) {
        BodySubscriber<T> subscriber = handler.apply(new Info(status));
        subscriber.onSubscribe(SUBSCRIPTION);
        subscriber.onNext(List.of(ByteBuffer.wrap(body)));
        subscriber.onComplete();
        T value = subscriber.getBody().toCompletableFuture().join();
        return new Response<>(status, request, value);
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, BodyHandler<T> handler) {
        return CompletableFuture.completedFuture(send(request, handler));
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(
            HttpRequest request, BodyHandler<T> handler, @Nullable PushPromiseHandler<T> pushPromiseHandler) {
        return sendAsync(request, handler);
    }

    private record Info(int statusCode) implements ResponseInfo {
        @Override
        public HttpHeaders headers() {
            return HEADERS;
        }

        @Override
        public HttpClient.Version version() {
            return HttpClient.Version.HTTP_1_1;
        }
    }

    private record Response<T>(int statusCode, HttpRequest request, T body) implements HttpResponse<T> {
        @Override
        public Optional<HttpResponse<T>> previousResponse() {
            return Optional.empty();
        }

        @Override
        public HttpHeaders headers() {
            return HEADERS;
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
