package dev.ballast.testkit;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Objects;
import java.util.Optional;
import javax.net.ssl.SSLSession;

/**
 * An {@link HttpResponse} made of given parts, for test doubles that answer without a network or
 * hand on a real answer with another body. Immutable; thread-safe if the body is.
 *
 * @param statusCode the HTTP status
 * @param request the request answered
 * @param previousResponse the response this one follows (a redirect's), if any
 * @param headers the response headers; {@code null} stands for a mocking library's response that has none
 * @param body the body, as the body handler would have made it
 * @param sslSession the TLS session, if any
 * @param uri the URI answered
 * @param version the HTTP version
 * @param <T> the body type
 */
public record StaticResponse<T>(
        int statusCode,
        HttpRequest request,
        Optional<HttpResponse<T>> previousResponse,
        HttpHeaders headers,
        T body,
        Optional<SSLSession> sslSession,
        URI uri,
        HttpClient.Version version)
        implements HttpResponse<T> {

    /** Checks that the request is there; the other parts are taken as given. */
    public StaticResponse {
        Objects.requireNonNull(request, "request");
    }

    /**
     * An HTTP/1.1 answer to {@code request} without TLS or a previous response.
     *
     * @param statusCode the HTTP status
     * @param request the request answered; its URI is the response's
     * @param headers the response headers; may be {@code null}
     * @param body the body; may be {@code null}
     * @param <T> the body type
     * @return the response
     */
    public static <T> StaticResponse<T> of(int statusCode, HttpRequest request, HttpHeaders headers, T body) {
        return new StaticResponse<>(
                statusCode,
                request,
                Optional.empty(),
                headers,
                body,
                Optional.empty(),
                request.uri(),
                HttpClient.Version.HTTP_1_1);
    }

    /**
     * {@code original} with {@code body} in place of its own.
     *
     * @param original the real answer
     * @param body the body handed on instead
     * @param <T> the body type
     * @return the response
     */
    public static <T> StaticResponse<T> withBody(HttpResponse<T> original, T body) {
        return new StaticResponse<>(
                original.statusCode(),
                original.request(),
                original.previousResponse(),
                original.headers(),
                body,
                original.sslSession(),
                original.uri(),
                original.version());
    }
}
