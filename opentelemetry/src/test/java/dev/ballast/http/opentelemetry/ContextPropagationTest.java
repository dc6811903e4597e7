package dev.ballast.http.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.http.HttpClientListener;
import dev.ballast.http.ResilientHttpClient;
import dev.ballast.http.RetryDecision;
import dev.ballast.http.classify.Outcome;
import dev.ballast.http.retry.Backoff;
import dev.ballast.http.retry.Jitter;
import dev.ballast.http.retry.RetryConfig;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.sdk.testing.junit5.OpenTelemetryExtension;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.MDC;

/**
 * The caller's SLF4J MDC (logback's, here: a real one) and, with tracing, the call's OpenTelemetry
 * context are current on every thread that runs a step of a {@code sendAsync}: the listener's
 * callbacks, Ballast's log lines and the caller's own dependent stages; and they are taken off those
 * threads again afterwards.
 */
@Timeout(60)
class ContextPropagationTest {

    @RegisterExtension
    static final OpenTelemetryExtension otel = OpenTelemetryExtension.create();

    private final LoopbackServer server = new LoopbackServer();
    private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
    private final Recorder recorder = new Recorder();
    private ResilientHttpClient client;

    ContextPropagationTest() throws IOException {}

    @AfterEach
    void close() {
        MDC.clear();
        server.close();
        if (client != null) {
            client.shutdownNow();
        }
        scheduler.shutdownNow();
    }

    private ResilientHttpClient.Builder builder() {
        scheduler.prestartAllCoreThreads(); // made before any MDC is set: a thread inherits none
        return ResilientHttpClient.newBuilder()
                .scheduler(scheduler)
                .listener(recorder)
                .retry(RetryConfig.builder()
                        .maxAttempts(3)
                        .backoff(Backoff.exponential(Duration.ofMillis(1), Duration.ofMillis(1), Jitter.NONE))
                        .build());
    }

    private HttpRequest get() {
        return HttpRequest.newBuilder(server.uri("/mdc")).GET().build();
    }

    @Test
    void theCallersMdcIsOnEveryCallbackThreadOfSendAsyncAndOnItsDependentStages() throws Exception {
        client = builder().build();
        server.then(503).thenHeld(); // held: the future is still pending when the caller chains on it
        String caller = Thread.currentThread().getName();

        MDC.put("requestId", "r-17");
        CompletableFuture<String> stage = client.sendAsync(get(), BodyHandlers.ofString())
                .thenApply(response ->
                        MDC.get("requestId") + " on " + Thread.currentThread().getName());
        MDC.clear();
        assertThat(server.received.tryAcquire(2, 20, TimeUnit.SECONDS)).isTrue();
        server.release();
        String seenByStage = stage.get(20, TimeUnit.SECONDS);

        assertThat(seenByStage).startsWith("r-17 on ").doesNotEndWith(" on " + caller);
        // 2 decisions, 2 attempt ends, 1 call end, on the JDK client's and the scheduler's threads
        assertThat(recorder.mdc).hasSize(5).containsOnly("r-17");
        assertThat(recorder.threads).doesNotContain(caller);
    }

    @Test
    void aThreadThatRanAStepOfACallHasItsOwnMdcBackAfterwards() throws Exception {
        client = builder().build();
        server.then(503).then(200);
        MDC.put("requestId", "r-18");
        client.sendAsync(get(), BodyHandlers.ofString()).get(20, TimeUnit.SECONDS);
        MDC.clear();
        recorder.mdc.clear();

        server.then(503).then(200);
        client.sendAsync(get(), BodyHandlers.ofString()).get(20, TimeUnit.SECONDS); // no MDC this time

        assertThat(recorder.mdc).hasSize(5).containsOnly("null");
    }

    @Test
    void withTracingTheCallsSpanIsCurrentInEveryCallbackOfSendAsync() throws Exception {
        client = builder()
                .observer(BallastTracing.builder(otel.getOpenTelemetry())
                        .attemptSpans(AttemptSpans.BALLAST)
                        .build())
                .build();
        server.then(503).then(200);

        HttpResponse<String> response =
                client.sendAsync(get(), BodyHandlers.ofString()).get(20, TimeUnit.SECONDS);

        assertThat(response.statusCode()).isEqualTo(200);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (otel.getSpans().stream().noneMatch(s -> s.getName().equals("ballast GET"))
                && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        SpanData call = otel.getSpans().stream()
                .filter(s -> s.getName().equals("ballast GET"))
                .findFirst()
                .orElseThrow();
        assertThat(recorder.spans).hasSize(5).containsOnly(call.getSpanId());
    }

    /** Records the MDC's requestId, the current span and the thread of every end and decision callback. */
    private static final class Recorder implements HttpClientListener {
        final List<String> mdc = new CopyOnWriteArrayList<>();
        final List<String> spans = new CopyOnWriteArrayList<>();
        final List<String> threads = new CopyOnWriteArrayList<>();

        private void seen() {
            mdc.add(String.valueOf(MDC.get("requestId")));
            spans.add(Span.current().getSpanContext().getSpanId());
            threads.add(Thread.currentThread().getName());
        }

        @Override
        public void onRetryDecision(RetryDecisionEvent event) {
            seen();
        }

        @Override
        public void onAttemptEnded(
                String dependency, int attempt, Outcome outcome, RetryDecision decision, long durationNanos) {
            seen();
        }

        @Override
        public void onCallEnded(
                String dependency, int attempts, Outcome outcome, RetryDecision decision, long durationNanos) {
            seen();
        }
    }
}
