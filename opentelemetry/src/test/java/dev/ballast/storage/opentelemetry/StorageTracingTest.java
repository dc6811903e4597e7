package dev.ballast.storage.opentelemetry;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.storage.AlreadyExistsException;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.StorageListener;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.test.FakeObjectStore;
import dev.ballast.test.FaultInjectingObjectStore;
import dev.ballast.test.StoreFault;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.testing.junit5.OpenTelemetryExtension;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.MDC;

/**
 * The storage spans of {@link StorageTracing}, read from the SDK's in-memory exporter: a put and a get
 * on the local store, a read served degraded from the last-known-good cache while the store fails (its
 * live read on another thread still a child of the caller's span), an integrity failure, a refused
 * conditional write; and the caller's MDC and context on the live read's thread.
 */
@Timeout(60)
class StorageTracingTest {

    @RegisterExtension
    static final OpenTelemetryExtension otel = OpenTelemetryExtension.create();

    private static final byte[] SETTINGS = "{\"v\":1}".getBytes(UTF_8);

    @TempDir
    Path dir;

    private static SpanData span(String name) {
        List<SpanData> found =
                otel.getSpans().stream().filter(s -> s.getName().equals(name)).toList();
        assertThat(found).as("spans named %s", name).hasSize(1);
        return found.get(0);
    }

    private static String attr(SpanData span, String key) {
        return String.valueOf(span.getAttributes().get(AttributeKey.stringKey(key)));
    }

    @Test
    void aPutAndAGetOnTheLocalStoreAreSpansUnderTheCallersSpanWithOutcomeAndBytes() throws Exception {
        try (StorageFacade facade = StorageFacade.newBuilder()
                .localObjects(dir.resolve("objects"))
                .listener(StorageTracing.create(otel.getOpenTelemetry()))
                .build()) {
            Span request = otel.getOpenTelemetry()
                    .getTracer("app")
                    .spanBuilder("request")
                    .startSpan();
            try (Scope ignored = request.makeCurrent()) {
                facade.objects().put("settings.json", ObjectContent.ofBytes(SETTINGS));
                try (ObjectRead read = facade.objects().get("settings.json")) {
                    assertThat(read.readAllBytes()).isEqualTo(SETTINGS);
                }
            } finally {
                request.end();
            }
        }

        SpanData request = span("request");
        for (String name : List.of("ballast.storage PUT", "ballast.storage GET")) {
            SpanData op = span(name);
            assertThat(op.getKind()).isEqualTo(SpanKind.INTERNAL);
            assertThat(op.getParentSpanId()).isEqualTo(request.getSpanId());
            assertThat(attr(op, "ballast.storage.store")).isEqualTo("local");
            assertThat(attr(op, "ballast.storage.key")).isEqualTo("settings.json");
            assertThat(attr(op, "ballast.storage.outcome")).isEqualTo("success");
            assertThat(op.getAttributes().get(AttributeKey.longKey("ballast.storage.bytes")))
                    .isEqualTo(SETTINGS.length);
            assertThat(op.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
        }
        assertThat(attr(span("ballast.storage GET"), "ballast.storage.operation"))
                .isEqualTo("get");
    }

    @Test
    void aReadServedDegradedWhileTheStoreFailsIsAnEventOnTheCallersSpanAndTheFailedGetAnErrorSpanUnderIt()
            throws Exception {
        FaultInjectingObjectStore bucket = FaultInjectingObjectStore.wrap(new FakeObjectStore());
        try (StorageFacade facade = StorageFacade.newBuilder()
                .objectStore(bucket)
                .listener(StorageTracing.create(otel.getOpenTelemetry()))
                .build()) {
            ObjectStore objects = facade.objects();
            objects.put("settings.json", ObjectContent.ofBytes(SETTINGS));
            try (ObjectRead read = objects.get("settings.json")) {
                read.readAllBytes(); // the last-known-good copy
            }
            otel.clearSpans();

            bucket.inject(StoreFault.slowDown()).forKey("settings.json").times(1);
            Span request = otel.getOpenTelemetry()
                    .getTracer("app")
                    .spanBuilder("request")
                    .startSpan();
            try (Scope ignored = request.makeCurrent();
                    ObjectRead read = objects.get("settings.json")) {
                assertThat(read.degraded()).isTrue();
                assertThat(read.readAllBytes()).isEqualTo(SETTINGS);
            } finally {
                request.end();
            }
        }

        SpanData request = span("request");
        SpanData get = span("ballast.storage GET");
        // the live read ran on the cache's own thread, in the caller's context
        assertThat(get.getParentSpanId()).isEqualTo(request.getSpanId());
        assertThat(get.getTraceId()).isEqualTo(request.getTraceId());
        assertThat(get.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(attr(get, "ballast.storage.outcome")).isEqualTo("unavailable");
        assertThat(attr(get, "error.type")).isEqualTo("dev.ballast.storage.StorageUnavailableException");
        assertThat(request.getEvents()).extracting(EventData::getName).containsExactly("ballast.storage.degraded_read");
        EventData degraded = request.getEvents().get(0);
        assertThat(degraded.getAttributes().get(AttributeKey.stringKey("ballast.storage.reason")))
                .isEqualTo("unavailable");
        assertThat(degraded.getAttributes().get(AttributeKey.stringKey("ballast.storage.key")))
                .isEqualTo("settings.json");
        assertThat(degraded.getAttributes().get(AttributeKey.longKey("ballast.storage.age_ms")))
                .isNotNull();
    }

    @Test
    void anIntegrityFailureWithNoSpanCurrentIsAShortErrorSpanOfItsOwnAndTheGetSpanFails() throws Exception {
        FaultInjectingObjectStore bucket = FaultInjectingObjectStore.wrap(new FakeObjectStore());
        try (StorageFacade facade = StorageFacade.newBuilder()
                .objectStore(bucket)
                .listener(StorageTracing.create(otel.getOpenTelemetry()))
                .build()) {
            facade.objects().put("damaged.bin", ObjectContent.ofBytes(new byte[64]));
            bucket.inject(StoreFault.corruptedBody(3)).forKey("damaged.bin").times(1);
            try (ObjectRead read = facade.objects().get("damaged.bin")) {
                assertThatThrownBy(read::readAllBytes).isInstanceOf(IntegrityException.class);
            }
        }

        SpanData get = span("ballast.storage GET");
        assertThat(get.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(attr(get, "ballast.storage.outcome")).isEqualTo("integrity_failure");
        assertThat(attr(get, "error.type")).isEqualTo(IntegrityException.class.getName());
        SpanData failure = span("ballast.storage integrity_failure");
        assertThat(failure.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(failure.getEvents())
                .extracting(EventData::getName)
                .containsExactly("ballast.storage.integrity_failure");
        assertThat(attr(failure, "ballast.storage.key")).isEqualTo("damaged.bin");
    }

    @Test
    void aRefusedConditionalWriteIsAnEventOnItsSpanWhoseStatusIsNotAnError() {
        try (StorageFacade facade = StorageFacade.newBuilder()
                .localObjects(dir.resolve("objects"))
                .listener(StorageTracing.create(otel.getOpenTelemetry()))
                .build()) {
            facade.objects().put("lock", ObjectContent.ofBytes(new byte[1]));
            assertThatThrownBy(() -> facade.objects().putIfAbsent("lock", ObjectContent.ofBytes(new byte[1])))
                    .isInstanceOf(AlreadyExistsException.class);
        }

        SpanData write = span("ballast.storage PUT_IF_ABSENT");
        assertThat(attr(write, "ballast.storage.outcome")).isEqualTo("precondition_failed");
        assertThat(write.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
        assertThat(write.getEvents()).singleElement().satisfies(e -> {
            assertThat(e.getName()).isEqualTo("ballast.storage.conditional_write_refused");
            assertThat(e.getAttributes().get(AttributeKey.stringKey("ballast.storage.refusal")))
                    .isEqualTo("exists");
        });
    }

    @Test
    void theLiveReadRunsOnAnotherThreadWithTheCallersMdcAndWhatEachListenerCarries() throws Exception {
        Map<String, String> seen = new ConcurrentHashMap<>();
        ThreadLocal<String> callerContext = new ThreadLocal<>();
        StorageListener listener = new StorageListener() {
            @Override
            public Object onOperationStarted(OperationStarted event) {
                if (event.operation() == Operation.GET) {
                    seen.put("thread", Thread.currentThread().getName());
                    seen.put("mdc", String.valueOf(MDC.get("request.id")));
                    seen.put("carried", String.valueOf(callerContext.get()));
                }
                return null;
            }

            @Override
            public Runnable propagateContext(Runnable task) {
                String captured = callerContext.get();
                return () -> {
                    callerContext.set(captured);
                    try {
                        task.run();
                    } finally {
                        callerContext.remove();
                    }
                };
            }
        };
        try (StorageFacade facade = StorageFacade.newBuilder()
                .objectStore(new FakeObjectStore())
                .listener(StorageListener.of(StorageTracing.create(otel.getOpenTelemetry()), listener))
                .build()) {
            facade.objects().put("a", ObjectContent.ofBytes(SETTINGS));
            MDC.put("request.id", "r-42");
            callerContext.set("caller");
            Span request = otel.getOpenTelemetry()
                    .getTracer("app")
                    .spanBuilder("request")
                    .startSpan();
            try (Scope ignored = request.makeCurrent();
                    ObjectRead read = facade.objects().get("a")) {
                read.readAllBytes();
            } finally {
                request.end();
                MDC.remove("request.id");
                callerContext.remove();
            }
        }

        assertThat(seen.get("thread")).startsWith("ballast-live-read-");
        assertThat(seen.get("mdc")).isEqualTo("r-42");
        assertThat(seen.get("carried")).isEqualTo("caller");
        // both listeners of StorageListener.of were told, and carried their context
        assertThat(span("ballast.storage GET").getParentSpanId())
                .isEqualTo(span("request").getSpanId());
    }
}
