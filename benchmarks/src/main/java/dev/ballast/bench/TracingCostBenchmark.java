package dev.ballast.bench;

import dev.ballast.http.ResilientHttpClient;
import dev.ballast.http.opentelemetry.AttemptSpans;
import dev.ballast.http.opentelemetry.BallastTracing;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.net.URI;
import java.net.http.HttpRequest;
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
 * exporter that drops it ({@code traced}: a call span and an attempt span, the W3C context injected).
 * The difference is tracing's own CPU per call. Run with {@code -prof gc} for the allocation.
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
