package dev.ballast.http.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.ballast.http.BulkheadFullException;
import dev.ballast.http.CircuitOpenException;
import dev.ballast.http.CorrelationIds;
import dev.ballast.http.DependencyConfig;
import dev.ballast.http.ForwardingHttpClient;
import dev.ballast.http.HeldScheduler;
import dev.ballast.http.ResilientHttpClient;
import dev.ballast.http.breaker.BreakerConfig;
import dev.ballast.http.bulkhead.BulkheadConfig;
import dev.ballast.http.hedging.HedgingConfig;
import dev.ballast.http.retry.Backoff;
import dev.ballast.http.retry.Jitter;
import dev.ballast.http.retry.RetryConfig;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The spans of a call, read from the SDK's in-memory exporter: the call's INTERNAL span with its
 * decisions as events, one CLIENT span per attempt under it (or none of Ballast's when the agent makes
 * them), the trace context each attempt carries to the server, for a success, a success after a 503
 * with Retry-After, an open-breaker refusal, a hedged call and a cancelled sendAsync.
 */
@Timeout(60)
class TracingTest {

    /** The SDK, its spans and a wait for a span to end (on whatever thread ends it). */
    private final AwaitedSpans otel = new AwaitedSpans();

    private final LoopbackServer server = new LoopbackServer();
    private final HeldScheduler scheduler = new HeldScheduler();
    private ResilientHttpClient client;

    TracingTest() throws IOException {}

    @AfterEach
    void close() {
        server.close();
        if (client != null) {
            client.shutdownNow();
        }
        scheduler.shutdownNow();
        otel.close();
    }

    private String dependency() {
        return server.uri("").toString();
    }

    private ResilientHttpClient.Builder builder(AttemptSpans attemptSpans) {
        return ResilientHttpClient.newBuilder()
                .observer(BallastTracing.builder(otel.getOpenTelemetry())
                        .attemptSpans(attemptSpans)
                        .build())
                .scheduler(scheduler)
                .retry(RetryConfig.builder()
                        .maxAttempts(3)
                        .backoff(Backoff.exponential(Duration.ofMillis(1), Duration.ofMillis(1), Jitter.NONE))
                        .build());
    }

    private HttpRequest get() {
        return HttpRequest.newBuilder(server.uri("/orders/7?token=secret"))
                .GET()
                .build();
    }

    /** Waits until a span that matches has ended (spans are exported as they end). */
    private SpanData awaitSpan(Predicate<SpanData> which) throws InterruptedException {
        return otel.await(which, Duration.ofSeconds(20));
    }

    private SpanData awaitCallSpan(String correlationId) throws InterruptedException {
        return awaitSpan(s -> correlationId.equals(s.getAttributes().get(CallSpan.CORRELATION_ID)));
    }

    private List<SpanData> clientSpansUnder(SpanData call) {
        return otel.getSpans().stream()
                .filter(s -> s.getKind() == SpanKind.CLIENT && s.getTraceId().equals(call.getTraceId()))
                .sorted((a, b) -> Long.compare(
                        a.getAttributes().get(CallSpan.ATTEMPT),
                        b.getAttributes().get(CallSpan.ATTEMPT)))
                .toList();
    }

    /** {@code traceparent} values without their trace flags (sampled, and W3C level 2's random). */
    private static List<String> withoutFlags(List<String> traceparents) {
        return traceparents.stream()
                .map(t -> t.substring(0, t.lastIndexOf('-')))
                .toList();
    }

    private static List<String> eventNames(SpanData span) {
        return span.getEvents().stream().map(EventData::getName).toList();
    }

    private static EventData event(SpanData span, String name) {
        return span.getEvents().stream()
                .filter(e -> e.getName().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no event " + name + " in " + eventNames(span)));
    }

    private static <T> T attribute(EventData event, AttributeKey<T> key) {
        return event.getAttributes().get(key);
    }

    @Test
    void aSuccessIsACallSpanUnderTheCallersSpanWithOneClientSpanWhoseContextReachedTheServer() throws Exception {
        client = builder(AttemptSpans.BALLAST).build();
        server.then(200);

        Span handler =
                otel.getOpenTelemetry().getTracer("test").spanBuilder("handler").startSpan();
        HttpResponse<String> response;
        try (Scope scope = handler.makeCurrent()) {
            response = client.send(get(), BodyHandlers.ofString());
        } finally {
            handler.end();
        }

        SpanData call = awaitCallSpan(CorrelationIds.of(response).orElseThrow());
        assertThat(call.getName()).isEqualTo("ballast GET");
        assertThat(call.getKind()).isEqualTo(SpanKind.INTERNAL);
        assertThat(call.getParentSpanId()).isEqualTo(handler.getSpanContext().getSpanId());
        assertThat(call.getAttributes().get(CallSpan.HTTP_REQUEST_METHOD)).isEqualTo("GET");
        assertThat(call.getAttributes().get(CallSpan.URL_FULL))
                .isEqualTo(server.uri("/orders/7").toString());
        assertThat(call.getAttributes().get(CallSpan.SERVER_ADDRESS)).isEqualTo("127.0.0.1");
        assertThat(call.getAttributes().get(CallSpan.HTTP_RESPONSE_STATUS_CODE)).isEqualTo(200L);
        assertThat(call.getAttributes().get(CallSpan.ATTEMPTS)).isEqualTo(1L);
        assertThat(call.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
        assertThat(call.getEvents()).isEmpty();

        List<SpanData> attempts = clientSpansUnder(call);
        assertThat(attempts).hasSize(1);
        SpanData attempt = attempts.get(0);
        assertThat(attempt.getName()).isEqualTo("GET");
        assertThat(attempt.getParentSpanId()).isEqualTo(call.getSpanId());
        assertThat(attempt.getAttributes().get(CallSpan.HTTP_RESPONSE_STATUS_CODE))
                .isEqualTo(200L);
        assertThat(attempt.getAttributes().get(CallSpan.HTTP_REQUEST_RESEND_COUNT))
                .isNull();
        assertThat(withoutFlags(server.traceparents))
                .containsExactly("00-" + attempt.getTraceId() + "-" + attempt.getSpanId());
    }

    @Test
    void aSuccessAfterA503WithRetryAfterShowsTheRetryAndTheHonouredRetryAfterAndTwoAttempts() throws Exception {
        client = builder(AttemptSpans.BALLAST).build();
        server.thenRetryAfter(503, "1").then(200);

        CompletableFuture<HttpResponse<String>> future = client.sendAsync(get(), BodyHandlers.ofString());
        awaitHeldBackoff();
        scheduler.runHeld();
        HttpResponse<String> response = future.get(20, TimeUnit.SECONDS);

        SpanData call = awaitCallSpan(CorrelationIds.of(response).orElseThrow());
        assertThat(eventNames(call)).containsExactly("ballast.retry", "ballast.retry_after");
        EventData retry = event(call, "ballast.retry");
        assertThat(attribute(retry, CallSpan.ATTEMPT)).isEqualTo(1L);
        assertThat(attribute(retry, CallSpan.HTTP_RESPONSE_STATUS_CODE)).isEqualTo(503L);
        assertThat(attribute(retry, CallSpan.DELAY_MS)).isEqualTo(1000L);
        assertThat(attribute(retry, CallSpan.REASON)).isEqualTo("retryable transient outcome");
        assertThat(attribute(event(call, "ballast.retry_after"), CallSpan.RETRY_AFTER_MS))
                .isEqualTo(1000L);
        assertThat(call.getAttributes().get(CallSpan.ATTEMPTS)).isEqualTo(2L);
        assertThat(call.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);

        List<SpanData> attempts = clientSpansUnder(call);
        assertThat(attempts).hasSize(2);
        assertThat(attempts.get(0).getAttributes().get(CallSpan.HTTP_RESPONSE_STATUS_CODE))
                .isEqualTo(503L);
        assertThat(attempts.get(0).getAttributes().get(CallSpan.ERROR_TYPE)).isEqualTo("503");
        assertThat(attempts.get(0).getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(attempts.get(1).getAttributes().get(CallSpan.HTTP_REQUEST_RESEND_COUNT))
                .isEqualTo(1L);
        assertThat(attempts.get(1).getAttributes().get(CallSpan.HTTP_RESPONSE_STATUS_CODE))
                .isEqualTo(200L);
        assertThat(attempts).allSatisfy(a -> assertThat(a.getParentSpanId()).isEqualTo(call.getSpanId()));
        assertThat(withoutFlags(server.traceparents))
                .containsExactly(
                        "00-" + call.getTraceId() + "-" + attempts.get(0).getSpanId(),
                        "00-" + call.getTraceId() + "-" + attempts.get(1).getSpanId());
    }

    private void awaitHeldBackoff() throws InterruptedException {
        assertThat(scheduler.awaitHeld(1, Duration.ofSeconds(20))).isTrue();
        assertThat(scheduler.held()).hasSize(1);
    }

    @Test
    void aCallRefusedByTheOpenBreakerHasAnErrorSpanWithTheRefusalAndNoClientSpan() throws Exception {
        client = builder(AttemptSpans.BALLAST)
                .retry(RetryConfig.builder().maxAttempts(1).build())
                .dependency(
                        dependency(),
                        DependencyConfig.builder()
                                .breaker(BreakerConfig.builder()
                                        .consecutiveFailureThreshold(1)
                                        .build())
                                .build())
                .build();
        server.then(500);
        assertThat(client.send(get(), BodyHandlers.ofString()).statusCode()).isEqualTo(500);

        Throwable refused = catchThrowable(() -> client.send(get(), BodyHandlers.ofString()));

        assertThat(refused).isInstanceOf(CircuitOpenException.class);
        SpanData call =
                awaitCallSpan(((CircuitOpenException) refused).correlationId().orElseThrow());
        assertThat(call.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(call.getAttributes().get(CallSpan.ERROR_TYPE)).isEqualTo(CircuitOpenException.class.getName());
        assertThat(eventNames(call)).containsExactly("ballast.rejected");
        assertThat(attribute(event(call, "ballast.rejected"), CallSpan.REJECTION))
                .isEqualTo("circuit_open");
        assertThat(clientSpansUnder(call)).isEmpty();
        assertThat(server.traceparents).hasSize(1); // only the first call reached the server
    }

    @Test
    void aCallRefusedByAFullBulkheadHasAnErrorSpanWithTheRefusalAndNoClientSpan() throws Exception {
        client = builder(AttemptSpans.BALLAST)
                .dependency(
                        dependency(),
                        DependencyConfig.builder()
                                .bulkhead(BulkheadConfig.builder(1).build())
                                .build())
                .build();
        server.thenHeld();
        CompletableFuture<HttpResponse<String>> first = client.sendAsync(get(), BodyHandlers.ofString());
        assertThat(server.received.tryAcquire(20, TimeUnit.SECONDS)).isTrue();

        Throwable refused = catchThrowable(() -> client.send(get(), BodyHandlers.ofString()));
        server.release();
        first.get(20, TimeUnit.SECONDS);

        assertThat(refused).isInstanceOf(BulkheadFullException.class);
        SpanData call =
                awaitCallSpan(((BulkheadFullException) refused).correlationId().orElseThrow());
        assertThat(call.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(attribute(event(call, "ballast.rejected"), CallSpan.REJECTION))
                .isEqualTo("bulkhead_full");
        assertThat(clientSpansUnder(call)).isEmpty();
    }

    @Test
    void aCallThatRanOutOfAttemptsShowsEachRetryAndTheGiveUp() throws Exception {
        client = builder(AttemptSpans.BALLAST).build();
        server.then(503).then(503).then(503);

        HttpResponse<String> response = client.send(get(), BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(503); // a status is a result: the last answer is returned
        SpanData call = awaitCallSpan(CorrelationIds.of(response).orElseThrow());
        assertThat(eventNames(call)).containsExactly("ballast.retry", "ballast.retry", "ballast.gave_up");
        assertThat(attribute(event(call, "ballast.gave_up"), CallSpan.REASON)).isEqualTo("attempts exhausted");
        assertThat(call.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(call.getAttributes().get(CallSpan.ERROR_TYPE)).isEqualTo("503");
        assertThat(clientSpansUnder(call))
                .extracting(s -> s.getAttributes().get(CallSpan.HTTP_REQUEST_RESEND_COUNT))
                .containsExactly(null, 1L, 2L);
    }

    @Test
    void aHedgedCallHasTheHedgeTheWinnerAndTheCancelledLoser() throws Exception {
        client = builder(AttemptSpans.BALLAST)
                .dependency(
                        dependency(),
                        DependencyConfig.builder()
                                .hedging(HedgingConfig.fixedDelay(Duration.ofMillis(50)))
                                .build())
                .build();
        server.thenHeld().then(200);

        HttpResponse<String> response = client.send(get(), BodyHandlers.ofString());
        server.release();

        assertThat(response.statusCode()).isEqualTo(200);
        SpanData call = awaitCallSpan(CorrelationIds.of(response).orElseThrow());
        assertThat(eventNames(call)).containsExactly("ballast.hedge", "ballast.hedge_cancelled");
        assertThat(attribute(event(call, "ballast.hedge"), CallSpan.ATTEMPT)).isEqualTo(2L);
        assertThat(attribute(event(call, "ballast.hedge_cancelled"), CallSpan.ATTEMPT))
                .isEqualTo(1L);
        List<SpanData> attempts = clientSpansUnder(call);
        assertThat(attempts).hasSize(2);
        SpanData loser = attempts.get(0);
        SpanData winner = attempts.get(1);
        assertThat(loser.getAttributes().get(CallSpan.CANCELLED)).isTrue();
        assertThat(loser.getAttributes().get(CallSpan.HTTP_RESPONSE_STATUS_CODE))
                .isNull();
        assertThat(winner.getAttributes().get(CallSpan.HTTP_RESPONSE_STATUS_CODE))
                .isEqualTo(200L);
        assertThat(winner.getAttributes().get(CallSpan.CANCELLED)).isNull();
        assertThat(winner.getAttributes().get(CallSpan.HTTP_REQUEST_RESEND_COUNT))
                .isEqualTo(1L);
    }

    @Test
    void aSendAsyncCancelledByItsCallerEndsItsSpanAndItsAttemptsSpan() throws Exception {
        client = builder(AttemptSpans.BALLAST).build();
        server.thenHeld();

        CompletableFuture<HttpResponse<String>> future = client.sendAsync(get(), BodyHandlers.ofString());
        assertThat(server.received.tryAcquire(20, TimeUnit.SECONDS)).isTrue();
        future.cancel(true);

        SpanData call =
                awaitSpan(s -> s.getKind() == SpanKind.INTERNAL && s.getName().equals("ballast GET"));
        assertThat(eventNames(call)).containsExactly("ballast.cancelled");
        assertThat(call.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(call.getAttributes().get(CallSpan.ERROR_TYPE)).isEqualTo(CancellationException.class.getName());
        List<SpanData> attempts = clientSpansUnder(call);
        assertThat(attempts).hasSize(1);
        assertThat(attempts.get(0).getAttributes().get(CallSpan.CANCELLED)).isTrue();
    }

    @Test
    void whenTheAgentMakesTheAttemptSpansBallastMakesNoneAndTheCallSpanIsCurrentWhereTheJdkClientIsCalled()
            throws Exception {
        RecordingJdkClient jdk = new RecordingJdkClient();
        client = builder(AttemptSpans.AGENT).delegate(jdk).build();
        server.then(503).then(200);

        HttpResponse<String> sync = client.send(get(), BodyHandlers.ofString());
        HttpResponse<String> async =
                client.sendAsync(get(), BodyHandlers.ofString()).get(20, TimeUnit.SECONDS);

        SpanData syncCall = awaitCallSpan(CorrelationIds.of(sync).orElseThrow());
        SpanData asyncCall = awaitCallSpan(CorrelationIds.of(async).orElseThrow());
        assertThat(jdk.currentSpans).containsExactly(syncCall.getSpanId(), syncCall.getSpanId(), asyncCall.getSpanId());
        assertThat(otel.getSpans()).noneMatch(s -> s.getKind() == SpanKind.CLIENT);
        assertThat(server.traceparents).containsOnly("-"); // the agent injects; no agent here
    }

    @Test
    void withoutAnObserverTheClientMakesNoSpanAndSendsNoTraceContext() throws Exception {
        client = ResilientHttpClient.newBuilder().build();
        server.then(200);

        Span handler =
                otel.getOpenTelemetry().getTracer("test").spanBuilder("handler").startSpan();
        try (Scope scope = handler.makeCurrent()) {
            client.send(get(), BodyHandlers.ofString());
        } finally {
            handler.end();
        }

        assertThat(otel.getSpans()).extracting(SpanData::getName).containsExactly("handler");
        assertThat(server.traceparents).containsExactly("-");
    }

    /** The JDK's client, recording the span current on the thread that hands it each attempt. */
    private static final class RecordingJdkClient extends ForwardingHttpClient {
        private final HttpClient jdk = HttpClient.newHttpClient();
        final List<String> currentSpans = new CopyOnWriteArrayList<>();

        @Override
        protected HttpClient delegate() {
            return jdk;
        }

        @Override
        public <T> HttpResponse<T> send(HttpRequest request, BodyHandler<T> handler)
                throws IOException, InterruptedException {
            currentSpans.add(Span.current().getSpanContext().getSpanId());
            return super.send(request, handler);
        }

        @Override
        public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, BodyHandler<T> handler) {
            currentSpans.add(Span.current().getSpanContext().getSpanId());
            return super.sendAsync(request, handler);
        }
    }
}
