package dev.ballast.http;

import dev.ballast.http.internal.Correlation;
import java.net.http.HttpResponse;
import java.util.Objects;
import java.util.Optional;

/**
 * Reads a call's correlation id from the caller's side: the id that every log line of the call
 * ({@code correlationId=...}), every {@link HttpClientListener} event of it and a
 * {@link CallObserver}'s {@code CallStart} carry.
 *
 * <p>Every response a {@link ResilientHttpClient} returns (from {@code send}, or completing
 * {@code sendAsync}'s future) carries its call's id: it is the wrapped client's response, unchanged,
 * in a thin wrapper of Ballast's that answers every method as the wrapped response does. Every
 * exception a call ends with carries it too, whatever its type: Ballast's own
 * ({@link CallRejectedException}, {@link RetriesExhaustedException}, which also have a
 * {@code correlationId()} method), the JDK's ({@code HttpTimeoutException}, {@code ConnectException},
 * ...) and the caller's body handler's; so does any exception that has such an exception as its cause
 * (up to 8 levels: the {@code ExecutionException} of {@code future.get()}, the
 * {@code CompletionException} of a dependent stage). The ids of exceptions are held in a map whose
 * keys are held weakly, so an exception no longer referenced is forgotten with it. A
 * {@code CancellationException} of a future the caller cancelled carries none: it is the caller's.
 *
 * <pre>{@code
 * HttpResponse<String> response = client.send(request, BodyHandlers.ofString());
 * String id = CorrelationIds.of(response).orElse("-");
 * }</pre>
 *
 * <p>Thread-safe; stateless from the caller's side.
 */
public final class CorrelationIds {

    private CorrelationIds() {}

    /**
     * Returns the correlation id of the call that returned {@code response}.
     *
     * @param response a response
     * @return the id, or empty if {@code response} was not returned by a {@link ResilientHttpClient}
     *     (a push promise's response, say)
     * @throws NullPointerException if {@code response} is null
     */
    public static Optional<String> of(HttpResponse<?> response) {
        return Correlation.of(Objects.requireNonNull(response, "response"));
    }

    /**
     * Returns the correlation id of the call that ended with {@code failure}, or with an exception in
     * {@code failure}'s cause chain (at most 8 levels deep).
     *
     * @param failure an exception
     * @return the id, or empty if no call of a {@link ResilientHttpClient} ended with it
     * @throws NullPointerException if {@code failure} is null
     */
    public static Optional<String> of(Throwable failure) {
        return Correlation.of(Objects.requireNonNull(failure, "failure"));
    }
}
