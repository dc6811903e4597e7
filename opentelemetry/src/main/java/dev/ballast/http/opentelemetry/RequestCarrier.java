package dev.ballast.http.opentelemetry;

import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.context.propagation.TextMapSetter;
import java.net.http.HttpRequest;
import org.jspecify.annotations.Nullable;

/**
 * Injects a trace context into an attempt's request. {@link HttpRequest} is immutable, so a header is
 * added on a copy; the copy is made only when the propagator sets a field (none for an invalid span
 * context without baggage), so a context with nothing to propagate costs no copy. Not thread-safe: one
 * per injection.
 */
final class RequestCarrier {

    private static final TextMapSetter<RequestCarrier> SETTER = RequestCarrier::put;

    private final HttpRequest request;
    private HttpRequest.@Nullable Builder copy;

    private RequestCarrier(HttpRequest request) {
        this.request = request;
    }

    /**
     * Returns {@code request} with what {@code propagator} injects of {@code context} set as headers:
     * {@code request} itself if it injects nothing, else a copy.
     */
    static HttpRequest inject(TextMapPropagator propagator, Context context, HttpRequest request) {
        RequestCarrier carrier = new RequestCarrier(request);
        propagator.inject(context, carrier, SETTER);
        HttpRequest.Builder copy = carrier.copy;
        return copy == null ? request : copy.build();
    }

    private void header(String name, String value) {
        HttpRequest.Builder builder = copy;
        if (builder == null) {
            builder = HttpRequest.newBuilder(request, (n, v) -> true);
            copy = builder;
        }
        builder.setHeader(name, value);
    }

    private static void put(@Nullable RequestCarrier carrier, String name, String value) {
        if (carrier != null) {
            carrier.header(name, value);
        }
    }
}
