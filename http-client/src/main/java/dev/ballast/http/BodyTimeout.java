package dev.ballast.http;

import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.ResponseInfo;
import java.util.Objects;

/**
 * The per-request opt-out from the attempt timeout's bound on reading a response body.
 *
 * <p>By default an attempt's time bound ({@code min(attempt timeout, time left of the total
 * timeout)}, from the moment the request is sent) covers the response headers <em>and</em> the body,
 * also when the caller streams the body after {@code send} returned ({@code ofInputStream},
 * {@code ofLines}, {@code ofPublisher}, {@code ofByteArrayConsumer}): a body still being read when
 * the bound passes fails with {@link java.net.http.HttpTimeoutException} (a stream read throws an
 * {@code IOException} caused by it) and the exchange is aborted, so a stalled server cannot hold a
 * reader forever. A caller that must be allowed to read a long body slowly (a download it paces
 * itself, a long-poll or event stream) wraps its handler with {@link #exempt(BodyHandler)}: the
 * bound then ends when the response headers have arrived, and the body is read for as long as the
 * caller takes (bounded only by the wrapped client's own behaviour).
 *
 * <pre>{@code
 * HttpResponse<InputStream> events = client.send(request, BodyTimeout.exempt(BodyHandlers.ofInputStream()));
 * }</pre>
 *
 * <p>Stateless and thread-safe.
 */
public final class BodyTimeout {

    private BodyTimeout() {}

    /**
     * Returns {@code handler}, marked so that the attempt timeout does not bound reading the body it
     * produces. The headers are still bounded. Has no effect on a client other than
     * {@link ResilientHttpClient}, where it is simply {@code handler}.
     *
     * @param handler the caller's handler
     * @param <T> the body type
     * @return a handler that produces exactly what {@code handler} produces
     * @throws NullPointerException if {@code handler} is null
     */
    public static <T> BodyHandler<T> exempt(BodyHandler<T> handler) {
        Objects.requireNonNull(handler, "handler");
        return handler instanceof Exempt<T> already ? already : new Exempt<>(handler);
    }

    /**
     * Tells whether {@code handler} was marked by {@link #exempt(BodyHandler)}.
     *
     * @param handler a handler
     * @return whether reading its body is exempt from the attempt timeout
     */
    public static boolean isExempt(BodyHandler<?> handler) {
        return handler instanceof Exempt<?>;
    }

    private record Exempt<T>(BodyHandler<T> handler) implements BodyHandler<T> {

        @Override
        public BodySubscriber<T> apply(ResponseInfo responseInfo) {
            return handler.apply(responseInfo);
        }
    }
}
