package dev.ballast.http.opentelemetry;

import dev.ballast.http.CallObserver;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.propagation.TextMapPropagator;
import java.util.Locale;
import java.util.Objects;

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
 * one set, the spans are as the {@link OpenTelemetry} instance makes them: a no-op or unsampled
 * instance records nothing (trace context is still propagated). Immutable and thread-safe; one
 * instance may serve several clients.
 */
public final class BallastTracing implements CallObserver {

    /** The instrumentation scope name of Ballast's tracer. */
    public static final String INSTRUMENTATION_NAME = "dev.ballast.http";

    final Tracer tracer;
    final TextMapPropagator propagator;
    private final AttemptSpans attemptSpans;

    private BallastTracing(Builder builder) {
        this.tracer = builder.openTelemetry.getTracer(INSTRUMENTATION_NAME);
        this.propagator = builder.openTelemetry.getPropagators().getTextMapPropagator();
        this.attemptSpans = builder.attemptSpans == AttemptSpans.AUTO
                ? (agentInstrumentsJdkClient() ? AttemptSpans.AGENT : AttemptSpans.BALLAST)
                : builder.attemptSpans;
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
     * Starts the call's span; see the class Javadoc.
     *
     * @param call the call
     * @return the call's observation
     */
    @Override
    public Observation callStarted(CallStart call) {
        return new CallSpan(this, call, attemptSpans == AttemptSpans.BALLAST);
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
