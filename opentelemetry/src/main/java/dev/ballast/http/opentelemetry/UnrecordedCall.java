package dev.ballast.http.opentelemetry;

import dev.ballast.http.CallObserver;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapPropagator;
import java.net.http.HttpRequest;
import org.jspecify.annotations.Nullable;

/**
 * The observation of a call whose span is not recorded: the tracer is OpenTelemetry's no-op one, or
 * the sampler dropped the call's span. It only carries the call's context: made current around every
 * step (so that what runs there, the agent's instrumentation of the JDK client say, sees the trace
 * and its "not sampled" flag), and injected into every attempt's request when Ballast injects, so
 * that the server learns the trace is not sampled (W3C {@code traceparent} with trace flags
 * {@code 00}), as the OpenTelemetry instrumentation does for a span that is not recording. It makes
 * no attempt span, takes no attempt event ({@link #observesAttemptEvents()} is {@code false}) and
 * builds no attribute. Immutable, so thread-safe.
 */
final class UnrecordedCall implements CallObserver.Observation {

    /** The call's context: the caller's, with the call's non-recording span when there is one. */
    private final Context context;
    /** The propagator to inject with, or {@code null} when Ballast injects nothing (the agent does, or no propagator is set). */
    private final @Nullable TextMapPropagator injector;

    UnrecordedCall(Context context, @Nullable TextMapPropagator injector) {
        this.context = context;
        this.injector = injector;
    }

    @Override
    public CallObserver.Scope makeCurrent() {
        return CallSpan.makeCurrent(context);
    }

    @Override
    public boolean observesAttemptEvents() {
        return false;
    }

    @Override
    public HttpRequest attemptSending(int attempt, HttpRequest request) {
        TextMapPropagator propagator = injector;
        return propagator == null ? request : RequestCarrier.inject(propagator, context, request);
    }
}
