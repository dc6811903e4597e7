package dev.ballast.http;

import static dev.ballast.http.ScriptedHttpClient.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.ballast.http.classify.Outcome;
import dev.ballast.http.retry.Backoff;
import dev.ballast.http.retry.Jitter;
import dev.ballast.http.retry.RetryConfig;
import dev.ballast.testkit.FakeTime;
import dev.ballast.testkit.LeakCheck;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The listener events made for metrics: the end of every attempt and call as plain numbers, timed on
 * the injected ticker; the client handed to its listeners at build; and the eviction of a
 * dependency's state, heard before any event of the state that replaces it.
 */
@Timeout(30)
@ExtendWith(LeakCheck.class)
class ListenerLifecycleEventsTest {

    private static final Duration EXCHANGE = Duration.ofMillis(7);

    private final FakeTime ticker = new FakeTime();
    private final ScriptedHttpClient delegate = new ScriptedHttpClient();
    private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
    private final Recorder recorder = new Recorder();

    @AfterEach
    void stopScheduler() {
        scheduler.shutdownNow();
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

    /** Answers {@code status} after the ticker moved {@link #EXCHANGE}: each exchange "takes" 7 ms. */
    private ScriptedHttpClient.Step slowStatus(int status) {
        return exchange -> {
            ticker.advance(EXCHANGE);
            return CompletableFuture.completedFuture(ScriptedHttpClient.respond(exchange, status, Map.of(), ""));
        };
    }

    @Test
    void aRetriedCallReportsEachAttemptWithItsOwnDurationAndTheCallOnceWithItsWholeDuration() throws Exception {
        ResilientHttpClient client = builder().build();
        delegate.then(slowStatus(503)).then(slowStatus(200));

        HttpResponse<String> response = client.send(get("a.test"), BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(200);
        long exchange = EXCHANGE.toNanos();
        assertThat(recorder.events)
                .containsExactly(
                        "attempt http://a.test:80 #1 TRANSIENT RETRYING " + exchange,
                        "attempt http://a.test:80 #2 SUCCESS SUCCEEDED " + exchange,
                        "call http://a.test:80 x2 SUCCESS SUCCEEDED " + 2 * exchange);
    }

    @Test
    void sendAsyncReportsTheSameEndsAsSend() throws Exception {
        ResilientHttpClient client = builder().build();
        delegate.then(slowStatus(404));

        client.sendAsync(get("a.test"), BodyHandlers.ofString()).get(10, TimeUnit.SECONDS);

        long exchange = EXCHANGE.toNanos();
        assertThat(recorder.events)
                .containsExactly(
                        "attempt http://a.test:80 #1 PERMANENT ABORTED " + exchange,
                        "call http://a.test:80 x1 PERMANENT ABORTED " + exchange);
    }

    @Test
    void aRejectedAttemptLastsNoTimeAndEndsTheCallAsRejected() throws Exception {
        // the plain-number events alone: the open breaker refuses before the call is built
        rejectedCallEndsAsRejected(builder());
    }

    @Test
    void aRejectedAttemptEndsTheSameWhenAnotherListenerMakesTheClientBuildTheCall() throws Exception {
        HttpClientListener rejections = new HttpClientListener() {
            @Override
            public void onRejected(String dependency, CallRejectedException rejection) {}
        };
        rejectedCallEndsAsRejected(builder().listener(rejections));
    }

    private void rejectedCallEndsAsRejected(ResilientHttpClient.Builder builder) throws Exception {
        ResilientHttpClient client = builder.defaultDependency(DependencyConfig.builder()
                        .breaker(dev.ballast.http.breaker.BreakerConfig.builder()
                                .consecutiveFailureThreshold(1)
                                .build())
                        .build())
                .retry(RetryConfig.builder().maxAttempts(1).build())
                .build();
        delegate.then(status(500));
        client.send(get("a.test"), BodyHandlers.ofString()); // opens the breaker
        recorder.events.clear();

        Throwable thrown = catchThrowable(() -> client.send(get("a.test"), BodyHandlers.ofString()));

        assertThat(thrown).isInstanceOf(CircuitOpenException.class);
        assertThat(recorder.events)
                .containsExactly(
                        "attempt http://a.test:80 #1 PERMANENT REJECTED 0",
                        "call http://a.test:80 x1 PERMANENT REJECTED 0");
    }

    @Test
    void buildHandsEveryListenerItsClientBeforeAnyOtherEvent() throws Exception {
        ResilientHttpClient client = builder().build();

        assertThat(recorder.clients).containsExactly(client);
        assertThat(recorder.events).isEmpty();
    }

    @Test
    void aListenerRefusingTheClientFailsBuild() {
        HttpClientListener refusing = new HttpClientListener() {
            @Override
            public void onClientBuilt(ResilientHttpClient client) {
                throw new IllegalStateException("this listener observes one client only");
            }
        };

        Throwable thrown = catchThrowable(() -> builder().listener(refusing).build());

        assertThat(thrown)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("this listener observes one client only");
    }

    @Test
    void anEvictedDependencyIsReportedBeforeTheEventsOfTheStateThatReplacesIt() throws Exception {
        ResilientHttpClient client = builder().maxDependencies(1).build();
        delegate.then(status(200)).then(status(200)).then(status(200));

        client.send(get("a.test"), BodyHandlers.ofString());
        client.send(get("b.test"), BodyHandlers.ofString()); // a.test is idle: its state goes
        client.send(get("a.test"), BodyHandlers.ofString()); // and b.test's for it

        assertThat(recorder.events)
                .containsExactly(
                        "attempt http://a.test:80 #1 SUCCESS SUCCEEDED 0",
                        "call http://a.test:80 x1 SUCCESS SUCCEEDED 0",
                        "evicted http://a.test:80",
                        "attempt http://b.test:80 #1 SUCCESS SUCCEEDED 0",
                        "call http://b.test:80 x1 SUCCESS SUCCEEDED 0",
                        "evicted http://b.test:80",
                        "attempt http://a.test:80 #1 SUCCESS SUCCEEDED 0",
                        "call http://a.test:80 x1 SUCCESS SUCCEEDED 0");
        assertThat(client.dependencyStatus("http://b.test:80")).isEmpty();
    }

    /** Records the plain-number and lifecycle events, one line each. */
    static final class Recorder implements HttpClientListener {

        final List<String> events = new CopyOnWriteArrayList<>();
        final List<ResilientHttpClient> clients = new CopyOnWriteArrayList<>();

        @Override
        public void onAttemptEnded(
                String dependency, int attempt, Outcome outcome, RetryDecision decision, long durationNanos) {
            events.add("attempt " + dependency + " #" + attempt + " " + outcome + " " + decision + " " + durationNanos);
        }

        @Override
        public void onCallEnded(
                String dependency, int attempts, Outcome outcome, RetryDecision decision, long durationNanos) {
            events.add("call " + dependency + " x" + attempts + " " + outcome + " " + decision + " " + durationNanos);
        }

        @Override
        public void onClientBuilt(ResilientHttpClient client) {
            clients.add(client);
        }

        @Override
        public void onDependencyEvicted(String dependency) {
            events.add("evicted " + dependency);
        }
    }
}
