package dev.ballast.bench;

import dev.ballast.http.ResilientHttpClient;
import dev.ballast.http.opentelemetry.AttemptSpans;
import dev.ballast.http.opentelemetry.BallastTracing;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.util.Collection;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What tracing costs a healthy call: one call through {@code ResilientHttpClient} over a wrapped
 * client that answers at once ({@link InstantHttpClient}), without an observer ({@code untraced}) and
 * with {@code BallastTracing} on the OpenTelemetry SDK, every span sampled, batched and handed to an
 * exporter that drops it ({@code traced}: a call span and an attempt span, the W3C context injected);
 * with the SDK's sampler dropping every span ({@code tracedUnsampled}); over {@code OpenTelemetry.noop()}
 * ({@code tracedNoop}). {@code sdkSpansByHand} is the SDK's share of {@code traced}: the same untraced
 * call with the same two spans, the same attributes and the W3C header on a copy of the request, made
 * by hand through the same SDK, which any instrumentation of the call pays; {@code traced} minus it is
 * Ballast's own. {@code sdkUnsampledByHand} is the same for {@code tracedUnsampled}. Run with
 * {@code -prof gc} for the allocation.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 2, jvmArgsAppend = "-Xmx1g")
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class TracingCostBenchmark {

    private ResilientHttpClient untraced;
    private ResilientHttpClient traced;
    private ResilientHttpClient tracedUnsampled;
    private ResilientHttpClient tracedNoop;
    private OpenTelemetrySdk sdk;
    private OpenTelemetrySdk unsampledSdk;
    private HttpRequest request;
    private Tracer handTracer;
    private Tracer unsampledHandTracer;
    private TextMapPropagator handPropagator;

    @Setup
    public void setUp() {
        InstantHttpClient instant = new InstantHttpClient(200, WrapperCostBenchmark.BODY);
        sdk = OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder()
                        .addSpanProcessor(BatchSpanProcessor.builder(new DroppingExporter())
                                .build())
                        .build())
                .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
                .build();
        unsampledSdk = OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder()
                        .setSampler(io.opentelemetry.sdk.trace.samplers.Sampler.alwaysOff())
                        .addSpanProcessor(BatchSpanProcessor.builder(new DroppingExporter())
                                .build())
                        .build())
                .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
                .build();
        tracedUnsampled = ResilientHttpClient.newBuilder()
                .delegate(instant)
                .observer(BallastTracing.builder((OpenTelemetry) unsampledSdk)
                        .attemptSpans(AttemptSpans.BALLAST)
                        .build())
                .build();
        tracedNoop = ResilientHttpClient.newBuilder()
                .delegate(instant)
                .observer(BallastTracing.builder(OpenTelemetry.noop())
                        .attemptSpans(AttemptSpans.BALLAST)
                        .build())
                .build();
        untraced = ResilientHttpClient.newBuilder().delegate(instant).build();
        traced = ResilientHttpClient.newBuilder()
                .delegate(instant)
                .observer(BallastTracing.builder((OpenTelemetry) sdk)
                        .attemptSpans(AttemptSpans.BALLAST)
                        .build())
                .build();
        request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:8080/item?q=1"))
                .GET()
                .build();
        handTracer = sdk.getTracer("by-hand");
        unsampledHandTracer = unsampledSdk.getTracer("by-hand");
        handPropagator = sdk.getPropagators().getTextMapPropagator();
    }

    @TearDown
    public void tearDown() {
        untraced.close();
        traced.close();
        tracedUnsampled.close();
        tracedNoop.close();
        sdk.close();
        unsampledSdk.close();
    }

    @Benchmark
    public Object untraced() throws Exception {
        return untraced.send(request, BodyHandlers.ofByteArray());
    }

    @Benchmark
    public Object traced() throws Exception {
        return traced.send(request, BodyHandlers.ofByteArray());
    }

    /** Tracing on, the SDK sampling nothing (as a ratio sampler does for most calls): spans are not recorded. */
    @Benchmark
    public Object tracedUnsampled() throws Exception {
        return tracedUnsampled.send(request, BodyHandlers.ofByteArray());
    }

    /** Tracing on over the OpenTelemetry API without an SDK ({@code OpenTelemetry.noop()}). */
    @Benchmark
    public Object tracedNoop() throws Exception {
        return tracedNoop.send(request, BodyHandlers.ofByteArray());
    }

    private static final AttributeKey<String> METHOD = AttributeKey.stringKey("http.request.method");
    private static final AttributeKey<String> URL_FULL = AttributeKey.stringKey("url.full");
    private static final AttributeKey<String> SERVER_ADDRESS = AttributeKey.stringKey("server.address");
    private static final AttributeKey<Long> SERVER_PORT = AttributeKey.longKey("server.port");
    private static final AttributeKey<Long> STATUS_CODE = AttributeKey.longKey("http.response.status_code");
    private static final AttributeKey<String> DEPENDENCY = AttributeKey.stringKey("ballast.dependency");
    private static final AttributeKey<String> CORRELATION_ID = AttributeKey.stringKey("ballast.correlation_id");
    private static final AttributeKey<Long> ATTEMPTS = AttributeKey.longKey("ballast.attempts");
    private static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("ballast.attempt");

    /**
     * The SDK's share of {@code traced}: the untraced call, with the call span and the attempt span
     * {@code traced} makes (same names, kinds, parents and attributes, the values constants here) and the
     * attempt's W3C context injected into a copy of the request, all by hand through the same SDK.
     */
    @Benchmark
    public Object sdkSpansByHand() throws Exception {
        Context parent = Context.current();
        Span call = handTracer
                .spanBuilder("ballast GET")
                .setSpanKind(SpanKind.INTERNAL)
                .setParent(parent)
                .setAttribute(METHOD, "GET")
                .setAttribute(URL_FULL, "http://127.0.0.1:8080/item")
                .setAttribute(SERVER_ADDRESS, "127.0.0.1")
                .setAttribute(SERVER_PORT, 8080L)
                .setAttribute(DEPENDENCY, "http://127.0.0.1:8080")
                .setAttribute(CORRELATION_ID, "9f86d081884c7d65")
                .startSpan();
        Context callContext = parent.with(call);
        Span attempt = handTracer
                .spanBuilder("GET")
                .setSpanKind(SpanKind.CLIENT)
                .setParent(callContext)
                .setAttribute(METHOD, "GET")
                .setAttribute(URL_FULL, "http://127.0.0.1:8080/item")
                .setAttribute(SERVER_ADDRESS, "127.0.0.1")
                .setAttribute(SERVER_PORT, 8080L)
                .setAttribute(ATTEMPT, 1L)
                .startSpan();
        HttpRequest.Builder copy = HttpRequest.newBuilder(request, (name, value) -> true);
        handPropagator.inject(callContext.with(attempt), copy, HttpRequest.Builder::setHeader);
        HttpResponse<byte[]> response = untraced.send(copy.build(), BodyHandlers.ofByteArray());
        attempt.setAttribute(STATUS_CODE, 200L);
        attempt.end();
        call.setAttribute(ATTEMPTS, 1L);
        call.setAttribute(STATUS_CODE, 200L);
        call.end();
        return response;
    }

    /**
     * The SDK's and the propagation's share of {@code tracedUnsampled}: the untraced call, with the
     * call span started as {@code tracedUnsampled} starts it (same attributes, which a sampler may read,
     * through the same SDK sampling nothing) and its context injected into a copy of the request, by
     * hand.
     */
    @Benchmark
    public Object sdkUnsampledByHand() throws Exception {
        Context parent = Context.current();
        Span call = unsampledHandTracer
                .spanBuilder("ballast GET")
                .setSpanKind(SpanKind.INTERNAL)
                .setParent(parent)
                .setAttribute(METHOD, "GET")
                .setAttribute(URL_FULL, "http://127.0.0.1:8080/item")
                .setAttribute(SERVER_ADDRESS, "127.0.0.1")
                .setAttribute(SERVER_PORT, 8080L)
                .setAttribute(DEPENDENCY, "http://127.0.0.1:8080")
                .setAttribute(CORRELATION_ID, "9f86d081884c7d65")
                .startSpan();
        HttpRequest.Builder copy = HttpRequest.newBuilder(request, (name, value) -> true);
        handPropagator.inject(parent.with(call), copy, HttpRequest.Builder::setHeader);
        return untraced.send(copy.build(), BodyHandlers.ofByteArray());
    }

    /** Exports nothing: the cost measured is the spans' own, not an exporter's. */
    private static final class DroppingExporter implements SpanExporter {
        @Override
        public CompletableResultCode export(Collection<SpanData> spans) {
            return CompletableResultCode.ofSuccess();
        }

        @Override
        public CompletableResultCode flush() {
            return CompletableResultCode.ofSuccess();
        }

        @Override
        public CompletableResultCode shutdown() {
            return CompletableResultCode.ofSuccess();
        }
    }
}
