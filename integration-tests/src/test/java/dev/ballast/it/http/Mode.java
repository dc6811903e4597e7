package dev.ballast.it.http;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Runs one scenario through {@code send} or {@code sendAsync}, so each behaviour is shown on both paths. */
enum Mode {
    SEND {
        @Override
        <T> HttpResponse<T> call(HttpClient client, HttpRequest request, BodyHandler<T> handler) throws Exception {
            return client.send(request, handler);
        }
    },
    SEND_ASYNC {
        @Override
        <T> HttpResponse<T> call(HttpClient client, HttpRequest request, BodyHandler<T> handler) throws Exception {
            try {
                return client.sendAsync(request, handler).get(30, TimeUnit.SECONDS);
            } catch (ExecutionException | CompletionException e) {
                if (e.getCause() instanceof Exception cause) {
                    throw cause;
                }
                throw e;
            } catch (TimeoutException e) {
                throw new AssertionError("sendAsync did not complete within 30 s", e);
            }
        }
    };

    /**
     * Sends and returns the response, or throws exactly what the caller of this path would see
     * ({@code sendAsync}'s future failure unwrapped).
     */
    abstract <T> HttpResponse<T> call(HttpClient client, HttpRequest request, BodyHandler<T> handler) throws Exception;
}
