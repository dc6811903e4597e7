package dev.ballast.it.telemetry;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.http.ResilientHttpClient;
import dev.ballast.http.micrometer.HttpClientMetrics;
import dev.ballast.http.opentelemetry.AttemptSpans;
import dev.ballast.http.opentelemetry.BallastTracing;
import dev.ballast.http.retry.RetryConfig;
import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.StorageListener;
import dev.ballast.storage.micrometer.StorageMetrics;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.S3MockServer;
import dev.ballast.storage.object.s3.S3Endpoint;
import dev.ballast.storage.object.s3.S3StoreConfig;
import dev.ballast.storage.opentelemetry.StorageTracing;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Telemetry end to end, as docs/telemetry.md shows it: a facade over S3Mock whose HTTP client is traced
 * ({@link BallastTracing}) and metered ({@link HttpClientMetrics}), and whose storage is traced
 * ({@link StorageTracing}) and metered ({@link StorageMetrics}) through one {@link StorageListener#of}:
 * the HTTP call spans nest under the storage operation's span (the get's on the cache's live-read
 * thread too), a read served degraded after S3Mock stops is an event on the caller's span, and a real
 * Prometheus registry's scrape shows both sets of meters. The trace and the scrape are printed, as the
 * page quotes them.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class TelemetryIT {

    private static final byte[] SETTINGS = "{\"v\":1}".getBytes(UTF_8);

    @TempDir
    Path dir;

    @Test
    void httpSpansNestUnderStorageSpansAndThePrometheusScrapeShowsHttpAndStorageMeters() throws Exception {
        InMemorySpanExporter spans = InMemorySpanExporter.create();
        SdkTracerProvider tracerProvider = SdkTracerProvider.builder()
                .addSpanProcessor(SimpleSpanProcessor.create(spans))
                .build();
        OpenTelemetry otel =
                OpenTelemetrySdk.builder().setTracerProvider(tracerProvider).build();
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        HttpClientMetrics httpMetrics = HttpClientMetrics.create(Tags.of("client", "s3"));
        StorageMetrics storageMetrics = StorageMetrics.create(Tags.of("storage", "settings"));
        S3MockServer s3 = S3MockServer.start(dir.resolve("s3"));
        try (ResilientHttpClient http = ResilientHttpClient.newBuilder()
                        .retry(RetryConfig.builder().maxAttempts(1).build())
                        .listener(httpMetrics)
                        .observer(BallastTracing.builder(otel)
                                .attemptSpans(AttemptSpans.BALLAST)
                                .build())
                        .build();
                StorageFacade facade = StorageFacade.newBuilder()
                        .s3(S3Endpoint.newBuilder()
                                .endpoint(s3.uri())
                                .region("us-east-1")
                                .credentials("ballast", "ballast-secret")
                                .pathStyle(true)
                                .httpClient(http)
                                .build())
                        .bucket("settings")
                        .s3Config(S3StoreConfig.builder()
                                .createBucket(true)
                                .enableVersioning(true)
                                .build())
                        .listener(StorageListener.of(storageMetrics, StorageTracing.create(otel, "settings")))
                        .build()) {
            httpMetrics.bindTo(registry);
            storageMetrics.bindTo(registry);
            ObjectStore objects = facade.objects();
            spans.reset(); // the capability probe's calls are not part of what the page shows

            Span request = otel.getTracer("app")
                    .spanBuilder("GET /settings")
                    .setSpanKind(SpanKind.SERVER)
                    .startSpan();
            try (Scope ignored = request.makeCurrent()) {
                objects.put("settings.json", ObjectContent.ofBytes(SETTINGS));
                try (ObjectRead read = objects.get("settings.json")) {
                    assertThat(read.readAllBytes()).isEqualTo(SETTINGS);
                }
            } finally {
                request.end();
            }
            s3.close(); // the endpoint stops
            Span later = otel.getTracer("app")
                    .spanBuilder("GET /settings")
                    .setSpanKind(SpanKind.SERVER)
                    .startSpan();
            try (Scope ignored = later.makeCurrent();
                    ObjectRead read = objects.get("settings.json")) {
                assertThat(read.degraded()).isTrue();
                assertThat(read.readAllBytes()).isEqualTo(SETTINGS);
            } finally {
                later.end();
            }

            List<SpanData> finished = spans.getFinishedSpanItems();
            System.out.println("--- trace (TelemetryIT) ---\n" + render(finished));
            assertNested(finished, request.getSpanContext().getSpanId(), "ballast.storage PUT", "ballast PUT", "PUT");
            assertNested(finished, request.getSpanContext().getSpanId(), "ballast.storage GET", "ballast GET", "GET");
            SpanData degradedRequest = byId(finished, later.getSpanContext().getSpanId());
            assertThat(degradedRequest.getEvents())
                    .extracting(EventData::getName)
                    .containsExactly("ballast.storage.degraded_read");
            assertNested(finished, later.getSpanContext().getSpanId(), "ballast.storage GET", "ballast GET", "GET");

            String scrape = registry.scrape();
            String ours = scrape.lines()
                    .filter(l -> l.contains("ballast_"))
                    .filter(l -> !l.startsWith("# HELP"))
                    .collect(Collectors.joining("\n"));
            System.out.println("--- Prometheus scrape, ballast_ series (TelemetryIT) ---\n" + ours);
            assertThat(scrape)
                    .contains("ballast_http_calls_seconds_count{client=\"s3\",dependency=")
                    .containsPattern("ballast_storage_operations_seconds_count\\{operation=\"get\",outcome=\"success\","
                            + "storage=\"settings\",store=\"s3\"} 1")
                    .containsPattern(
                            "ballast_storage_operations_seconds_count\\{operation=\"get\",outcome=\"unavailable\","
                                    + "storage=\"settings\",store=\"s3\"} 1")
                    .containsPattern("ballast_storage_degraded_reads_seconds_count\\{reason=\"unreachable\","
                            + "storage=\"settings\",store=\"s3\"} 1")
                    .containsPattern(
                            "ballast_storage_bytes_sum\\{operation=\"put\",storage=\"settings\",store=\"s3\"} 7");
        } finally {
            httpMetrics.close();
            storageMetrics.close();
            tracerProvider.close();
        }
    }

    /** The span named {@code storage} under {@code parent}, {@code call} under it, a CLIENT {@code attempt} under that. */
    private static void assertNested(List<SpanData> spans, String parent, String storage, String call, String attempt) {
        SpanData s = child(spans, parent, storage);
        assertThat(s.getKind()).isEqualTo(SpanKind.INTERNAL);
        assertThat(s.getAttributes().get(AttributeKey.stringKey("aws.s3.bucket")))
                .isEqualTo("settings");
        assertThat(s.getAttributes().get(AttributeKey.stringKey("aws.s3.key"))).isEqualTo("settings.json");
        SpanData c = child(spans, s.getSpanId(), call);
        assertThat(c.getKind()).isEqualTo(SpanKind.INTERNAL);
        SpanData a = child(spans, c.getSpanId(), attempt);
        assertThat(a.getKind()).isEqualTo(SpanKind.CLIENT);
    }

    private static SpanData child(List<SpanData> spans, String parent, String name) {
        List<SpanData> found = spans.stream()
                .filter(s -> s.getParentSpanId().equals(parent) && s.getName().equals(name))
                .toList();
        assertThat(found).as("%s under %s in%n%s", name, parent, render(spans)).hasSize(1);
        return found.get(0);
    }

    private static SpanData byId(List<SpanData> spans, String id) {
        return spans.stream().filter(s -> s.getSpanId().equals(id)).findFirst().orElseThrow();
    }

    /** The spans as an indented tree, each with its kind, status and attributes, its events below it. */
    static String render(List<SpanData> spans) {
        StringBuilder out = new StringBuilder();
        spans.stream()
                .filter(s -> spans.stream().noneMatch(p -> p.getSpanId().equals(s.getParentSpanId())))
                .sorted(Comparator.comparingLong(SpanData::getStartEpochNanos))
                .forEach(root -> render(spans, root, "", out));
        return out.toString();
    }

    private static void render(List<SpanData> spans, SpanData span, String indent, StringBuilder out) {
        out.append(indent)
                .append(span.getName())
                .append("  ")
                .append(span.getKind())
                .append(
                        span.getStatus().getStatusCode() == io.opentelemetry.api.trace.StatusCode.ERROR
                                ? "  status=ERROR"
                                : "");
        span.getAttributes()
                .forEach(
                        (k, v) -> out.append(' ').append(k.getKey()).append('=').append(v));
        out.append('\n');
        for (EventData e : span.getEvents()) {
            out.append(indent).append("    event ").append(e.getName());
            e.getAttributes()
                    .forEach((k, v) ->
                            out.append(' ').append(k.getKey()).append('=').append(v));
            out.append('\n');
        }
        spans.stream()
                .filter(s -> s.getParentSpanId().equals(span.getSpanId()))
                .sorted(Comparator.comparingLong(SpanData::getStartEpochNanos))
                .forEach(child -> render(spans, child, indent + "  ", out));
    }
}
