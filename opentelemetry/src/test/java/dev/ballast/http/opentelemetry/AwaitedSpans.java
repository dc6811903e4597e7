package dev.ballast.http.opentelemetry;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The OpenTelemetry SDK (every span sampled, W3C propagation) exporting to its in-memory exporter,
 * with a wait for a span that ends on another thread: {@link #await} blocks until such a span has
 * ended (a span processor signals each end), without polling.
 */
final class AwaitedSpans implements AutoCloseable {

    private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
    private final SpanProcessor export = SimpleSpanProcessor.create(exporter);
    private final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
            .setTracerProvider(
                    SdkTracerProvider.builder().addSpanProcessor(new Notifier()).build())
            .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
            .build();

    OpenTelemetry getOpenTelemetry() {
        return sdk;
    }

    /** The spans ended so far, in the order they ended. */
    List<SpanData> getSpans() {
        return exporter.getFinishedSpanItems();
    }

    /** Forgets the spans ended so far. */
    void clear() {
        exporter.reset();
    }

    /**
     * The first ended span that {@code which} accepts, waiting up to {@code timeout} for it to end.
     *
     * @throws AssertionError if none ended in time
     */
    SpanData await(Predicate<SpanData> which, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (this) {
            while (true) {
                Optional<SpanData> found = getSpans().stream().filter(which).findFirst();
                if (found.isPresent()) {
                    return found.get();
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("no such span among " + getSpans());
                }
                Duration wait = Duration.ofNanos(left);
                wait(Math.max(1, wait.toMillis())); // woken by onEnd; the deadline only bounds a failing test
            }
        }
    }

    @Override
    public void close() {
        sdk.close();
    }

    /** Exports each span as it ends, then wakes {@link #await}. */
    private final class Notifier implements SpanProcessor {

        @Override
        public void onStart(Context parentContext, ReadWriteSpan span) {
            export.onStart(parentContext, span);
        }

        @Override
        public boolean isStartRequired() {
            return false;
        }

        @Override
        public void onEnd(ReadableSpan span) {
            export.onEnd(span);
            synchronized (AwaitedSpans.this) {
                AwaitedSpans.this.notifyAll();
            }
        }

        @Override
        public boolean isEndRequired() {
            return true;
        }
    }
}
