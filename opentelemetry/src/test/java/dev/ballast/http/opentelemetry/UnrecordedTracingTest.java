package dev.ballast.http.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.http.CallObserver;
import dev.ballast.http.ForwardingHttpClient;
import dev.ballast.http.ResilientHttpClient;
import dev.ballast.http.retry.Backoff;
import dev.ballast.http.retry.Jitter;
import dev.ballast.http.retry.RetryConfig;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import io.opentelemetry.sdk.trace.samplers.SamplingResult;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Tracing that records nothing: over {@code OpenTelemetry.noop()} the client never calls the observer
 * and sends no trace context; over a no-op tracer that propagates, the caller's context reaches the
 * server and no span is made; with the SDK's sampler dropping the call's span, nothing is exported, no
 * attempt span is even offered to the sampler, and every attempt still carries the call's
 * {@code traceparent} with trace flags {@code 00} (as the OpenTelemetry instrumentation sends for a
 * span that is not recording), so the server does not sample what the caller did not.
 */
@Timeout(60)
class UnrecordedTracingTest {

    private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String PARENT_SPAN_ID = "00f067aa0ba902b7";

    private final LoopbackServer server = new LoopbackServer();
    private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
    /** Every span the SDK was asked to start, as "name kind", in order. */
    private final List<String> offered = new CopyOnWriteArrayList<>();

    private ResilientHttpClient client;
    private OpenTelemetrySdk sdk;

    UnrecordedTracingTest() throws IOException {}

    @AfterEach
    void close() {
        server.close();
        if (client != null) {
            client.shutdownNow();
        }
        if (sdk != null) {
            sdk.close();
        }
    }

    private ResilientHttpClient.Builder builder(OpenTelemetry openTelemetry, AttemptSpans attemptSpans) {
        return ResilientHttpClient.newBuilder()
                .observer(BallastTracing.builder(openTelemetry)
                        .attemptSpans(attemptSpans)
                        .build())
                .retry(RetryConfig.builder()
                        .maxAttempts(3)
                        .backoff(Backoff.exponential(Duration.ofMillis(1), Duration.ofMillis(1), Jitter.NONE))
                        .build());
    }

    /** The SDK with W3C propagation, exporting to the in-memory exporter, through {@code sampler}. */
    private OpenTelemetrySdk sdk(Sampler sampler) {
        sdk = OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder()
                        .setSampler(new Offered(sampler))
                        .addSpanProcessor(SimpleSpanProcessor.create(exporter))
                        .build())
                .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
                .build();
        return sdk;
    }

    private String dependency() {
        return server.uri("").toString();
    }

    private HttpRequest get() {
        return HttpRequest.newBuilder(server.uri("/orders/7")).GET().build();
    }

    /** The context of a request that came in with {@code traceparent: 00-TRACE_ID-PARENT_SPAN_ID-flags}. */
    private static Context remoteParent(TraceFlags flags) {
        return Context.root()
                .with(Span.wrap(
                        SpanContext.createFromRemoteParent(TRACE_ID, PARENT_SPAN_ID, flags, TraceState.getDefault())));
    }

    /** The sampled bit of a {@code traceparent}'s trace flags (W3C level 2 adds a "random" bit, 02). */
    private static boolean sampled(String traceparent) {
        return (Integer.parseInt(traceparent.substring(traceparent.lastIndexOf('-') + 1), 16) & 1) == 1;
    }

    @Test
    void overTheNoopOpenTelemetryTheClientNeverCallsTheObserverAndSendsNoTraceContext() throws Exception {
        BallastTracing tracing = BallastTracing.builder(OpenTelemetry.noop())
                .attemptSpans(AttemptSpans.BALLAST)
                .build();
        client = builder(OpenTelemetry.noop(), AttemptSpans.BALLAST).build();
        server.then(503).then(200);

        HttpResponse<String> response;
        try (Scope scope = remoteParent(TraceFlags.getSampled()).makeCurrent()) {
            response = client.send(get(), BodyHandlers.ofString());
        }

        assertThat(tracing.observesCalls()).isFalse();
        assertThat(tracing.callStarted(new CallObserver.CallStart("c0ffee", dependency(), get(), false)))
                .isNull(); // the client never asks; asked, it observes nothing
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(server.traceparents).containsExactly("-", "-");
    }

    @Test
    void aNoopTracerThatPropagatesSendsTheCallersOwnContextOnEveryAttempt() throws Exception {
        OpenTelemetry propagating =
                OpenTelemetry.propagating(ContextPropagators.create(W3CTraceContextPropagator.getInstance()));
        client = builder(propagating, AttemptSpans.BALLAST).build();
        server.then(503).then(200);

        try (Scope scope = remoteParent(TraceFlags.getSampled()).makeCurrent()) {
            client.send(get(), BodyHandlers.ofString());
        }
        client.sendAsync(get(), BodyHandlers.ofString()).get(20, TimeUnit.SECONDS); // no context: none sent

        assertThat(BallastTracing.create(propagating).observesCalls()).isTrue();
        String callers = "00-" + TRACE_ID + "-" + PARENT_SPAN_ID + "-01";
        assertThat(server.traceparents).containsExactly(callers, callers, "-");
    }

    @Test
    void aCallTheSamplerDropsIsNotExportedHasNoAttemptSpanAndSendsItsTraceparentNotSampled() throws Exception {
        client = builder(sdk(Sampler.parentBased(Sampler.alwaysOn())), AttemptSpans.BALLAST)
                .build();
        server.then(503).then(200).then(200);

        HttpResponse<String> sync;
        CompletableFuture<HttpResponse<String>> async;
        try (Scope scope = remoteParent(TraceFlags.getDefault()).makeCurrent()) {
            sync = client.send(get(), BodyHandlers.ofString());
            async = client.sendAsync(get(), BodyHandlers.ofString());
        }
        async.get(20, TimeUnit.SECONDS);

        assertThat(sync.statusCode()).isEqualTo(200);
        assertThat(exporter.getFinishedSpanItems()).isEmpty();
        assertThat(offered).containsExactly("ballast GET INTERNAL", "ballast GET INTERNAL");
        assertThat(server.traceparents)
                .hasSize(3)
                .allSatisfy(t -> assertThat(t)
                        .matches("00-" + TRACE_ID + "-[0-9a-f]{16}-00")
                        .doesNotContain(PARENT_SPAN_ID));
        assertThat(server.traceparents.get(1))
                .as("the retry carries its call's context")
                .isEqualTo(server.traceparents.get(0));
    }

    @Test
    void anUnsampledRootCallStillTellsTheServerItIsNotSampled() throws Exception {
        client = builder(sdk(Sampler.alwaysOff()), AttemptSpans.BALLAST).build();
        server.then(200);

        client.send(get(), BodyHandlers.ofString());

        assertThat(exporter.getFinishedSpanItems()).isEmpty();
        assertThat(offered).containsExactly("ballast GET INTERNAL");
        assertThat(server.traceparents).singleElement().asString().matches("00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}");
        assertThat(sampled(server.traceparents.get(0))).isFalse();
    }

    @Test
    void whenTheAgentMakesTheAttemptSpansAnUnsampledCallsContextIsCurrentWhereTheJdkClientIsCalled() throws Exception {
        RecordingJdkClient jdk = new RecordingJdkClient();
        client = builder(sdk(Sampler.parentBased(Sampler.alwaysOn())), AttemptSpans.AGENT)
                .delegate(jdk)
                .build();
        server.then(200).then(200);

        try (Scope scope = remoteParent(TraceFlags.getDefault()).makeCurrent()) {
            client.send(get(), BodyHandlers.ofString());
            client.sendAsync(get(), BodyHandlers.ofString()).get(20, TimeUnit.SECONDS);
        }

        assertThat(exporter.getFinishedSpanItems()).isEmpty();
        assertThat(jdk.current).hasSize(2).allSatisfy(c -> {
            assertThat(c.getTraceId()).isEqualTo(TRACE_ID);
            assertThat(c.isSampled()).isFalse();
            assertThat(c.getSpanId()).isNotEqualTo(PARENT_SPAN_ID); // the call's own (unrecorded) span
        });
        assertThat(server.traceparents).containsOnly("-"); // the agent injects; no agent here
    }

    /** Records the spans the SDK is asked to start, and decides as {@code delegate}. */
    private final class Offered implements Sampler {
        private final Sampler delegate;

        Offered(Sampler delegate) {
            this.delegate = delegate;
        }

        @Override
        public SamplingResult shouldSample(
                Context parentContext,
                String traceId,
                String name,
                SpanKind spanKind,
                Attributes attributes,
                List<LinkData> parentLinks) {
            offered.add(name + " " + spanKind);
            return delegate.shouldSample(parentContext, traceId, name, spanKind, attributes, parentLinks);
        }

        @Override
        public String getDescription() {
            return "Offered{" + delegate.getDescription() + "}";
        }
    }

    /** The JDK's client, recording the span context current on the thread that hands it each attempt. */
    private static final class RecordingJdkClient extends ForwardingHttpClient {
        private final HttpClient jdk = HttpClient.newHttpClient();
        final List<SpanContext> current = new CopyOnWriteArrayList<>();

        @Override
        protected HttpClient delegate() {
            return jdk;
        }

        @Override
        public <T> HttpResponse<T> send(HttpRequest request, BodyHandler<T> handler)
                throws IOException, InterruptedException {
            current.add(Span.current().getSpanContext());
            return super.send(request, handler);
        }

        @Override
        public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, BodyHandler<T> handler) {
            current.add(Span.current().getSpanContext());
            return super.sendAsync(request, handler);
        }
    }
}
