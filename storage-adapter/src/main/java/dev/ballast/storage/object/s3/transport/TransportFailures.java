package dev.ballast.storage.object.s3.transport;

import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.util.concurrent.CancellationException;
import javax.net.ssl.SSLHandshakeException;
import org.jspecify.annotations.Nullable;

/**
 * Workaround: {@code HttpClient.sendAsync} fails its future with the exception raised on the
 * client's executor, whose stack says nothing about the caller. The failure is re-created on the
 * calling thread, keeping its type ({@link HttpConnectTimeoutException}, {@link HttpTimeoutException},
 * {@link ConnectException}, {@link SSLHandshakeException}; any other {@link IOException} becomes a
 * plain one), so the SDK and the layers above can still tell a refused connection from a timeout or
 * a certificate problem; the original stays the cause. Unchecked exceptions and errors of the
 * underlying client (for example a rejection by an open circuit breaker) propagate unchanged.
 * Stateless.
 */
final class TransportFailures {
    private TransportFailures() {}

    /**
     * The exception to throw from the calling thread for {@code cause}, the failure of the exchange
     * {@code exchange} (e.g. "PUT http://host/bucket/key").
     *
     * @throws RuntimeException {@code cause} itself when it is unchecked
     * @throws Error {@code cause} itself when it is an error
     */
    static IOException onCallingThread(String exchange, @Nullable Throwable cause) {
        if (cause instanceof CancellationException) {
            return new IOException("Request was aborted: " + exchange, cause);
        }
        if (cause instanceof RuntimeException unchecked) {
            throw unchecked;
        }
        if (cause instanceof Error error) {
            throw error;
        }
        String message = exchange + ": " + cause;
        IOException translated;
        if (cause instanceof HttpConnectTimeoutException) {
            translated = new HttpConnectTimeoutException(message);
        } else if (cause instanceof HttpTimeoutException) {
            translated = new HttpTimeoutException(message);
        } else if (cause instanceof ConnectException) {
            translated = new ConnectException(message);
        } else if (cause instanceof SSLHandshakeException) {
            translated = new SSLHandshakeException(message);
        } else {
            return new IOException(message, cause);
        }
        translated.initCause(cause);
        return translated;
    }
}
