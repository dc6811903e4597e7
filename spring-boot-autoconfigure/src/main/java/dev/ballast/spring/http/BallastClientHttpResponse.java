package dev.ballast.spring.http;

import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpResponse;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpResponse;

/** Spring's view of a {@code java.net.http} response whose body is already in memory or a stream. */
final class BallastClientHttpResponse implements ClientHttpResponse {

    private final HttpResponse<?> response;
    private final InputStream body;
    private final HttpHeaders headers;

    BallastClientHttpResponse(HttpResponse<?> response, InputStream body) {
        this.response = response;
        this.body = body;
        HttpHeaders copy = new HttpHeaders();
        response.headers().map().forEach((name, values) -> {
            // HTTP/2 pseudo-headers (":status") are not headers to Spring.
            if (!name.startsWith(":")) {
                copy.addAll(name, values);
            }
        });
        this.headers = HttpHeaders.readOnlyHttpHeaders(copy);
    }

    @Override
    public HttpStatusCode getStatusCode() {
        return HttpStatusCode.valueOf(response.statusCode());
    }

    @Override
    public String getStatusText() {
        // HTTP/2 has no reason phrase and the JDK client exposes none for HTTP/1.1.
        return "";
    }

    @Override
    public HttpHeaders getHeaders() {
        return headers;
    }

    @Override
    public InputStream getBody() {
        return body;
    }

    @Override
    public void close() {
        try {
            body.close();
        } catch (IOException ignored) {
            // closing a drained or in-memory body cannot fail in a way the caller could act on
        }
    }
}
