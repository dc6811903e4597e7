package dev.ballast.http.internal;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Optional;
import javax.net.ssl.SSLSession;

/**
 * The response a call hands its caller: the wrapped client's, unchanged, with the call's correlation
 * seed beside it ({@link Correlation#of(HttpResponse)}). Every method answers as the wrapped
 * client's response does. Immutable.
 */
final class CorrelatedResponse<T> implements HttpResponse<T> {

    private final HttpResponse<T> response;
    final long seed;

    CorrelatedResponse(HttpResponse<T> response, long seed) {
        this.response = response;
        this.seed = seed;
    }

    @Override
    public int statusCode() {
        return response.statusCode();
    }

    @Override
    public HttpRequest request() {
        return response.request();
    }

    @Override
    public Optional<HttpResponse<T>> previousResponse() {
        return response.previousResponse();
    }

    @Override
    public HttpHeaders headers() {
        return response.headers();
    }

    @Override
    public T body() {
        return response.body();
    }

    @Override
    public Optional<SSLSession> sslSession() {
        return response.sslSession();
    }

    @Override
    public URI uri() {
        return response.uri();
    }

    @Override
    public HttpClient.Version version() {
        return response.version();
    }

    @Override
    public String toString() {
        return response.toString();
    }
}
