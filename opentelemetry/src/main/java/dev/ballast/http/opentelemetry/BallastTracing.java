package dev.ballast.http.opentelemetry;

import dev.ballast.http.CallObserver;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.TracerProvider;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapPropagator;
import java.util.Locale;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * OpenTelemetry tracing of a {@link dev.ballast.http.ResilientHttpClient}: set it as the client's
 * {@linkplain dev.ballast.http.ResilientHttpClient.Builder#observer(CallObserver) observer}.
 *
 * <pre>{@code
 * HttpClient client = ResilientHttpClient.newBuilder()
 *         .observer(BallastTracing.create(GlobalOpenTelemetry.get()))
 *         .build();
 * }</pre>
 *
 * <p>Each logical call ({@code send} or {@code sendAsync}) is one span of kind {@code INTERNAL}, named
 * {@code "ballast " + method} (e.g. {@code "ballast GET"}), a child of the context current when the
 * call was made. Its attributes follow the OpenTelemetry semantic conventions for HTTP clients
 * ({@code http.request.method}, {@code url.full}, {@code server.address}, {@code server.port}, and at
 * the end {@code http.response.status_code} or {@code error.type}) plus {@code ballast.dependency},
 * {@code ballast.correlation_id} (the call's correlation id, as in its log lines) and
 * {@code ballast.attempts}. Its events are Ballast's decisions, in order:
 * <table>
 *   <caption>Span events of the call span</caption>
 *   <tr><th>event</th><th>when</th><th>attributes besides {@code ballast.attempt}</th></tr>
 *   <tr><td>{@code ballast.retry}</td><td>an attempt is retried</td>
 *       <td>{@code ballast.reason}, {@code ballast.delay_ms}; {@code http.response.status_code} or
 *       {@code error.type}</td></tr>
 *   <tr><td>{@code ballast.retry_after}</td><td>the retried answer carried a {@code Retry-After}, which
 *       the backoff honours (it is at least that long)</td>
 *       <td>{@code ballast.retry_after_ms}, {@code ballast.delay_ms}</td></tr>
 *   <tr><td>{@code ballast.rejected}</td><td>an attempt was refused without a network call</td>
 *       <td>{@code ballast.rejection}: {@code circuit_open}, {@code bulkhead_full} or
 *       {@code concurrency_limit}; {@code ballast.reason}</td></tr>
 *   <tr><td>{@code ballast.retry_budget_exhausted}</td><td>a retry was refused by the dependency's
 *       retry budget</td><td>{@code ballast.reason}</td></tr>
 *   <tr><td>{@code ballast.gave_up}</td><td>the retry layer gave up otherwise (attempts exhausted,
 *       total timeout, Retry-After too long, backoff past the deadline)</td>
 *       <td>{@code ballast.reason}</td></tr>
 *   <tr><td>{@code ballast.not_retried}</td><td>an attempt's outcome was not retried for the request's
 *       or the outcome's sake (permanent, non-idempotent, body not replayable)</td>
 *       <td>{@code ballast.reason}</td></tr>
 *   <tr><td>{@code ballast.hedge}</td><td>a hedged attempt is sent</td><td>{@code ballast.waited_ms}</td></tr>
 *   <tr><td>{@code ballast.hedge_cancelled}</td><td>a hedged call took another attempt's answer and
 *       cancelled this one</td><td></td></tr>
 *   <tr><td>{@code ballast.cancelled}</td><td>the caller cancelled the call's future</td><td></td></tr>
 * </table>
 *
 * <p>Each attempt handed to the wrapped client is one span of kind {@code CLIENT} under the call's
 * span, named by its method ({@code "GET"}), with the HTTP client attributes,
 * {@code http.request.resend_count} on every attempt after the first, and error status for a 4xx, a
 * 5xx or an exception; its trace context is injected into that attempt's request headers through the
 * {@link OpenTelemetry#getPropagators() propagators} (W3C {@code traceparent} by default). An attempt
 * refused without a network call has no client span, only its {@code ballast.rejected} event; a
 * refused call still ends its span, with error status. When the OpenTelemetry Java agent instruments
 * the JDK's client ({@link AttemptSpans}), the agent makes the client spans instead and they nest
 * under the call's span: Ballast makes the call's context current on every thread that hands an
 * attempt to the JDK client, and makes no client spans of its own, so none is doubled.
 *
 * <p>{@code url.full} is the request URI without its query string and user info, which may carry
 * credentials (as in Ballast's log lines); no header value and no exception message is recorded.
 *
 * <p>With no {@code BallastTracing} set, the client makes no spans and pays nothing for tracing. With
 * one set, the spans are as the {@link OpenTelemetry} instance makes them. Over {@code OpenTelemetry.noop()}
 * (no spans, no propagators) it {@linkplain #observesCalls() observes no call}, and the client pays
 * nothing either. A call whose span is not recorded (a no-op tracer with propagators, as
 * {@code OpenTelemetry.propagating(...)}, or a sampler that drops it) gets no attempt spans and no
 * events; its trace context is still made current and propagated to the server (for an unsampled
 * trace, {@code traceparent} with trace flags {@code 00}), as the OpenTelemetry instrumentation does
 * for a span that is not recording. Immutable and thread-safe; one instance may serve several clients.
 */
public final class BallastTracing implements CallObserver {

    /** The instrumentation scope name of Ballast's tracer. */
    public static final String INSTRUMENTATION_NAME = "dev.ballast.http";

    final Tracer tracer;
    /**
     * The propagator Ballast injects each attempt's context with: {@code null} when the agent injects
     * ({@link AttemptSpans#AGENT}) or the instance propagates nothing (no propagator has a field).
     */
    final @Nullable TextMapPropagator injector;

    private final AttemptSpans attemptSpans;
    /** Whether the tracer is the API's no-op one: no span is ever recorded, nor made. */
    private final boolean noopTracer;
    /** Whether this observes no call: no-op tracer, nothing to propagate ({@link #observesCalls()}). */
    private final boolean inert;

    private BallastTracing(Builder builder) {
        this.tracer = builder.openTelemetry.getTracer(INSTRUMENTATION_NAME);
        TextMapPropagator propagator = builder.openTelemetry.getPropagators().getTextMapPropagator();
        this.attemptSpans = builder.attemptSpans == AttemptSpans.AUTO
                ? (agentInstrumentsJdkClient() ? AttemptSpans.AGENT : AttemptSpans.BALLAST)
                : builder.attemptSpans;
        boolean propagates = !propagator.fields().isEmpty();
        this.injector = attemptSpans == AttemptSpans.BALLAST && propagates ? propagator : null;
        this.noopTracer = tracer == TracerProvider.noop().get(INSTRUMENTATION_NAME);
        this.inert = noopTracer && !propagates;
    }

    /**
     * Creates tracing through {@code openTelemetry} with the defaults ({@link AttemptSpans#AUTO}).
     *
     * @param openTelemetry the OpenTelemetry instance: {@code GlobalOpenTelemetry.get()} (the agent's,
     *     when it runs) or the application's SDK
     * @return the tracing
     * @throws NullPointerException if {@code openTelemetry} is null
     */
    public static BallastTracing create(OpenTelemetry openTelemetry) {
        return builder(openTelemetry).build();
    }

    /**
     * Starts a builder.
     *
     * @param openTelemetry the OpenTelemetry instance
     * @return the builder
     * @throws NullPointerException if {@code openTelemetry} is null
     */
    public static Builder builder(OpenTelemetry openTelemetry) {
        return new Builder(openTelemetry);
    }

    /**
     * Returns who makes the attempts' client spans, as decided when this was built: {@link AttemptSpans#BALLAST}
     * or {@link AttemptSpans#AGENT}, never {@code AUTO}.
     *
     * @return the resolved choice
     */
    public AttemptSpans attemptSpans() {
        return attemptSpans;
    }

    /**
     * Whether this observes calls: {@code false} when the {@link OpenTelemetry} instance neither makes
     * spans (its tracer is the API's no-op one, as {@code OpenTelemetry.noop()}'s and
     * {@code GlobalOpenTelemetry.get()}'s without an agent or a registered SDK are) nor propagates a
     * context (no propagator with a field). Then the client never calls this observer: a call costs what
     * it costs without one.
     *
     * @return whether the client should call this observer
     */
    @Override
    public boolean observesCalls() {
        return !inert;
    }

    /**
     * Starts the call's span; see the class Javadoc. When the span is not recorded (the tracer is the
     * no-op one, or the sampler dropped it), the observation only carries the call's context: it is
     * made current around each step and injected into each attempt's request (W3C
     * {@code traceparent} with trace flags {@code 00} for an unsampled trace), and no attempt span, event
     * or attribute is made.
     *
     * @param call the call
     * @return the call's observation, or {@code null} when this observes no call
     */
    @Override
    public @Nullable Observation callStarted(CallStart call) {
        if (inert) {
            return null;
        }
        Context parent = Context.current();
        if (noopTracer) {
            return new UnrecordedCall(parent, injector); // the no-op tracer's span would be the parent's own
        }
        return CallSpan.start(this, call, parent);
    }

    /**
     * Whether the OpenTelemetry Java agent runs with its instrumentation of the JDK's HTTP client on:
     * its bootstrap class is loaded by the bootstrap class loader, and the instrumentation is not
     * switched off by its documented property or environment variable.
     */
    static boolean agentInstrumentsJdkClient() {
        try {
            Class.forName("io.opentelemetry.javaagent.bootstrap.AgentInitializer", false, null);
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
        String property = System.getProperty("otel.instrumentation.java-http-client.enabled");
        if (property == null) {
            property = System.getenv("OTEL_INSTRUMENTATION_JAVA_HTTP_CLIENT_ENABLED");
        }
        return property == null || !property.trim().toLowerCase(Locale.ROOT).equals("false");
    }

    /** Builds a {@link BallastTracing}. Not thread-safe. */
    public static final class Builder {

        private final OpenTelemetry openTelemetry;
        private AttemptSpans attemptSpans = AttemptSpans.AUTO;

        private Builder(OpenTelemetry openTelemetry) {
            this.openTelemetry = Objects.requireNonNull(openTelemetry, "openTelemetry");
        }

        /**
         * Sets who makes the attempts' client spans. Default {@link AttemptSpans#AUTO}.
         *
         * @param attemptSpans the choice
         * @return this builder
         * @throws NullPointerException if {@code attemptSpans} is null
         */
        public Builder attemptSpans(AttemptSpans attemptSpans) {
            this.attemptSpans = Objects.requireNonNull(attemptSpans, "attemptSpans");
            return this;
        }

        /**
         * Builds the tracing; with {@link AttemptSpans#AUTO}, looks for the agent now.
         *
         * @return the tracing
         */
        public BallastTracing build() {
            return new BallastTracing(this);
        }
    }
}
