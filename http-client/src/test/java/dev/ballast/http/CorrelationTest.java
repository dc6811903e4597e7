package dev.ballast.http;

import static dev.ballast.http.ScriptedHttpClient.failure;
import static dev.ballast.http.ScriptedHttpClient.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.ballast.http.breaker.BreakerConfig;
import dev.ballast.http.classify.Outcome;
import dev.ballast.http.retry.Backoff;
import dev.ballast.http.retry.Jitter;
import dev.ballast.http.retry.RetryConfig;
import dev.ballast.testkit.FakeTime;
import dev.ballast.testkit.LeakCheck;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.MDC;

/**
 * A call's correlation id reaches every listener event, the response the caller gets and the
 * exception a call ends with, for {@code send} and {@code sendAsync}. (The caller's MDC on the threads
 * of a {@code sendAsync} is tested in {@code ballast-opentelemetry}, whose tests log through logback:
 * this module's test binding, slf4j-simple, keeps no MDC.)
 */
@Timeout(30)
@ExtendWith(LeakCheck.class)
class CorrelationTest {

    private final FakeTime ticker = new FakeTime();
    private final ScriptedHttpClient delegate = new ScriptedHttpClient();
    private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
    /** Where the scripted server answers {@code sendAsync}: another thread than the caller's. */
    private final ExecutorService server = Executors.newSingleThreadExecutor();

    private final Recorder recorder = new Recorder();

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
        server.shutdownNow();
        MDC.clear();
    }

    private ResilientHttpClient.Builder builder() {
        return ResilientHttpClient.newBuilder()
                .delegate(delegate)
                .ticker(ticker)
                .scheduler(scheduler)
                .retry(RetryConfig.builder()
                        .maxAttempts(3)
                        .backoff(Backoff.exponential(Duration.ofMillis(1), Duration.ofMillis(1), Jitter.NONE))
                        .build())
                .listener(recorder);
    }

    private static HttpRequest get(String host) {
        return HttpRequest.newBuilder(URI.create("http://" + host + "/item"))
                .GET()
                .build();
    }

    /** Answers {@code status} from the {@link #server} thread, as the JDK client completes on its executor. */
    private ScriptedHttpClient.Step statusFromServerThread(int status) {
        return exchange -> CompletableFuture.supplyAsync(
                () -> ScriptedHttpClient.respond(exchange, status, Map.of(), "body"), server);
    }

    @Test
    void everyEndEventOfACallCarriesTheIdItsDecisionsAndItsResponseCarry() throws Exception {
        ResilientHttpClient client = builder().build();
        delegate.then(status(503)).then(status(200, Map.of(), "body"));

        HttpResponse<String> response = client.send(get("ends.test"), BodyHandlers.ofString());

        String id = recorder.decisions.get(0).correlationId();
        assertThat(recorder.decisions)
                .extracting(HttpClientListener.RetryDecisionEvent::correlationId)
                .containsOnly(id);
        assertThat(recorder.ends).containsExactly("attempt " + id + " 1", "attempt " + id + " 2", "call " + id + " 2");
        assertThat(CorrelationIds.of(response)).contains(id);
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("body");
        client.close();
    }

    @Test
    void twoCallsHaveTwoIds() throws Exception {
        ResilientHttpClient client = builder().build();
        delegate.then(status(200)).then(status(200));

        HttpResponse<String> first = client.send(get("two.test"), BodyHandlers.ofString());
        HttpResponse<String> second = client.send(get("two.test"), BodyHandlers.ofString());

        assertThat(CorrelationIds.of(first)).isPresent().isNotEqualTo(CorrelationIds.of(second));
        assertThat(recorder.ends)
                .contains("call " + CorrelationIds.of(first).orElseThrow() + " 1")
                .contains("call " + CorrelationIds.of(second).orElseThrow() + " 1");
        client.close();
    }

    @Test
    void theRetriesExhaustedExceptionACallEndsWithCarriesItsId() {
        ResilientHttpClient client = builder().build();
        delegate.then(failure(new ConnectException("refused")))
                .then(failure(new ConnectException("refused")))
                .then(failure(new ConnectException("refused")));

        Throwable thrown = catchThrowable(() -> client.send(get("exhausted.test"), BodyHandlers.ofString()));

        assertThat(thrown).isInstanceOf(RetriesExhaustedException.class);
        String id = recorder.decisions.get(0).correlationId();
        assertThat(((RetriesExhaustedException) thrown).correlationId()).contains(id);
        assertThat(CorrelationIds.of(thrown)).contains(id);
        client.close();
    }

    @Test
    void anExceptionOfTheCallersOwnHandlerCarriesTheCallsIdToo() {
        ResilientHttpClient client = builder().build();
        delegate.then(status(200, Map.of(), "<html>"));
        HttpResponse.BodyHandler<String> failingParser = info -> {
            throw new IllegalStateException("not JSON");
        };

        Throwable thrown = catchThrowable(() -> client.send(get("handler.test"), failingParser));

        assertThat(thrown).isInstanceOf(java.io.IOException.class).hasCauseInstanceOf(IllegalStateException.class);
        assertThat(recorder.decisions).hasSize(1);
        assertThat(CorrelationIds.of(thrown)).contains(recorder.decisions.get(0).correlationId());
        assertThat(CorrelationIds.of(thrown.getCause())).isEmpty(); // the caller's own exception, untouched
        client.close();
    }

    @Test
    void aCallRefusedByAnOpenBreakerCarriesTheIdOfItsListenerEvents() {
        ResilientHttpClient client = builder()
                .retry(RetryConfig.builder().maxAttempts(1).build())
                .dependency(
                        "http://open.test:80",
                        DependencyConfig.builder()
                                .breaker(BreakerConfig.builder()
                                        .consecutiveFailureThreshold(1)
                                        .build())
                                .build())
                .build();
        delegate.then(status(500));
        catchThrowable(() -> client.send(get("open.test"), BodyHandlers.ofString()));

        Throwable refused = catchThrowable(() -> client.send(get("open.test"), BodyHandlers.ofString()));

        assertThat(refused).isInstanceOf(CircuitOpenException.class);
        String id = ((CircuitOpenException) refused).correlationId().orElseThrow();
        assertThat(recorder.rejections).containsExactly(id);
        assertThat(recorder.ends).contains("call " + id + " 1");
        client.close();
    }

    @Test
    void aCallRefusedByAnOpenBreakerWithNobodyListeningStillHasAnId() {
        ResilientHttpClient client = ResilientHttpClient.newBuilder()
                .delegate(delegate)
                .ticker(ticker)
                .scheduler(scheduler)
                .retry(RetryConfig.builder().maxAttempts(1).build())
                .dependency(
                        "http://quiet.test:80",
                        DependencyConfig.builder()
                                .breaker(BreakerConfig.builder()
                                        .consecutiveFailureThreshold(1)
                                        .build())
                                .build())
                .build();
        delegate.then(status(500));
        catchThrowable(() -> client.send(get("quiet.test"), BodyHandlers.ofString()));

        Throwable first = catchThrowable(() -> client.send(get("quiet.test"), BodyHandlers.ofString()));
        Throwable second = catchThrowable(() -> client.send(get("quiet.test"), BodyHandlers.ofString()));

        assertThat(CorrelationIds.of(first)).isPresent().isNotEqualTo(CorrelationIds.of(second));
        client.close();
    }

    @Test
    void sendAsyncGivesTheIdOnItsResponseAndOnItsFailure() throws Exception {
        ResilientHttpClient client = builder().build();
        delegate.then(statusFromServerThread(200));

        HttpResponse<String> response =
                client.sendAsync(get("async.test"), BodyHandlers.ofString()).get(10, TimeUnit.SECONDS);

        assertThat(CorrelationIds.of(response))
                .contains(recorder.decisions.get(0).correlationId());

        delegate.then(failure(new ConnectException("a")))
                .then(failure(new ConnectException("b")))
                .then(failure(new ConnectException("c")));
        Throwable thrown = catchThrowable(() ->
                client.sendAsync(get("async.test"), BodyHandlers.ofString()).get(10, TimeUnit.SECONDS));

        assertThat(thrown).isInstanceOf(ExecutionException.class);
        assertThat(CorrelationIds.of(thrown)).contains(recorder.decisions.get(1).correlationId());
        client.close();
    }

    /** Records the ids of the end events (with the id form), and the MDC on each callback's thread. */
    private static final class Recorder implements HttpClientListener {
        final List<RetryDecisionEvent> decisions = new CopyOnWriteArrayList<>();
        final List<String> ends = new CopyOnWriteArrayList<>();
        final List<String> rejections = new CopyOnWriteArrayList<>();
        final List<String> mdc = new CopyOnWriteArrayList<>();
        final List<String> threads = new CopyOnWriteArrayList<>();

        private void seen() {
            mdc.add(String.valueOf(MDC.get("requestId")));
            threads.add(Thread.currentThread().getName());
        }

        @Override
        public void onRetryDecision(RetryDecisionEvent event) {
            decisions.add(event);
            seen();
        }

        @Override
        public void onRejected(String correlationId, String dependency, CallRejectedException rejection) {
            rejections.add(correlationId);
        }

        @Override
        public void onAttemptEnded(
                String correlationId,
                String dependency,
                int attempt,
                Outcome outcome,
                RetryDecision decision,
                long durationNanos) {
            ends.add("attempt " + correlationId + " " + attempt);
            seen();
        }

        @Override
        public void onCallEnded(
                String correlationId,
                String dependency,
                int attempts,
                Outcome outcome,
                RetryDecision decision,
                long durationNanos) {
            ends.add("call " + correlationId + " " + attempts);
            seen();
        }
    }
}
