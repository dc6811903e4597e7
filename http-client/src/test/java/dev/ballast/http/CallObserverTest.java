package dev.ballast.http;

import static dev.ballast.http.ScriptedHttpClient.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The {@link CallObserver} SPI as an observer sees it: one observation per call, each attempt's
 * request handed to it before it is sent (with what it adds sent), every decision, the call's end;
 * an observation that throws changes nothing of the call, an observer that refuses a call fails it
 * before anything is sent.
 */
@Timeout(30)
@ExtendWith(LeakCheck.class)
class CallObserverTest {

    private final FakeTime ticker = new FakeTime();
    private final ScriptedHttpClient delegate = new ScriptedHttpClient();
    private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
    private final List<String> seen = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    private ResilientHttpClient.Builder builder(CallObserver observer) {
        return ResilientHttpClient.newBuilder()
                .delegate(delegate)
                .ticker(ticker)
                .scheduler(scheduler)
                .observer(observer)
                .retry(RetryConfig.builder()
                        .maxAttempts(3)
                        .backoff(Backoff.exponential(Duration.ofMillis(1), Duration.ofMillis(1), Jitter.NONE))
                        .build());
    }

    private static HttpRequest get() {
        return HttpRequest.newBuilder(URI.create("http://observed.test/item"))
                .GET()
                .build();
    }

    /** Records what it sees, and tags each attempt's request with a header of its own. */
    private CallObserver recording(boolean throwing) {
        return call -> {
            seen.add("start " + call.dependency() + " async=" + call.async());
            return new CallObserver.Observation() {
                @Override
                public HttpRequest attemptSending(int attempt, HttpRequest request) {
                    seen.add("sending " + attempt);
                    return HttpRequest.newBuilder(request, (n, v) -> true)
                            .header("x-observed", call.correlationId() + "/" + attempt)
                            .build();
                }

                @Override
                public void attemptDecided(CallObserver.AttemptDecision decision) {
                    seen.add("decided " + decision.event().attempt() + " "
                            + decision.event().decision() + " sent=" + decision.sent());
                    if (throwing) {
                        throw new IllegalStateException("observer bug");
                    }
                }

                @Override
                public void callEnded(@Nullable HttpResponse<?> response, @Nullable Throwable failure) {
                    seen.add(
                            "ended " + (response == null ? failure.getClass().getSimpleName() : response.statusCode()));
                }
            };
        };
    }

    @Test
    void anObserverSeesEveryStepAndWhatItAddsToAnAttemptIsSent() throws Exception {
        ResilientHttpClient client = builder(recording(false)).build();
        delegate.then(status(503)).then(status(200));

        HttpResponse<String> response = client.send(get(), BodyHandlers.ofString());

        String id = CorrelationIds.of(response).orElseThrow();
        assertThat(seen)
                .containsExactly(
                        "start http://observed.test:80 async=false",
                        "sending 1",
                        "decided 1 RETRYING sent=true",
                        "sending 2",
                        "decided 2 SUCCEEDED sent=true",
                        "ended 200");
        assertThat(delegate.requests)
                .extracting(r -> r.headers().firstValue("x-observed").orElse("-"))
                .containsExactly(id + "/1", id + "/2");
        client.close();
    }

    @Test
    void anObservationThatThrowsChangesNothingOfTheCall() throws Exception {
        ResilientHttpClient client = builder(recording(true)).build();
        delegate.then(status(503)).then(status(200));

        HttpResponse<String> response =
                client.sendAsync(get(), BodyHandlers.ofString()).get(10, TimeUnit.SECONDS);

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(delegate.requests).hasSize(2);
        client.close();
    }

    @Test
    void anObserverThatRefusesACallFailsItBeforeAnythingIsSent() {
        CallObserver refusing = call -> {
            throw new IllegalStateException("tracing misconfigured");
        };
        ResilientHttpClient client = builder(refusing).build();

        Throwable sync = catchThrowable(() -> client.send(get(), BodyHandlers.ofString()));
        Throwable async = catchThrowable(
                () -> client.sendAsync(get(), BodyHandlers.ofString()).get(10, TimeUnit.SECONDS));

        assertThat(sync).isInstanceOf(IllegalStateException.class).hasMessage("tracing misconfigured");
        assertThat(async).isInstanceOf(ExecutionException.class).hasCauseInstanceOf(IllegalStateException.class);
        assertThat(delegate.requests).isEmpty();
        client.close();
    }

    @Test
    void anObserverThatObservesNoCallIsNeverCalledAndTheCallRunsAsWithoutOne() throws Exception {
        CallObserver inert = new CallObserver() {
            @Override
            public CallObserver.Observation callStarted(CallObserver.CallStart call) {
                seen.add("start");
                throw new IllegalStateException("never called");
            }

            @Override
            public boolean observesCalls() {
                return false;
            }
        };
        ResilientHttpClient client = builder(inert).build();
        delegate.then(status(503)).then(status(200)).then(status(200));

        HttpResponse<String> sync = client.send(get(), BodyHandlers.ofString());
        HttpResponse<String> async =
                client.sendAsync(get(), BodyHandlers.ofString()).get(10, TimeUnit.SECONDS);

        assertThat(sync.statusCode()).isEqualTo(200);
        assertThat(async.statusCode()).isEqualTo(200);
        assertThat(seen).isEmpty();
        client.close();
    }

    @Test
    void anObservationWithoutAttemptEventsStillAddsToEveryAttemptAndSeesTheEndButNoDecision() throws Exception {
        CallObserver contextOnly = call -> new CallObserver.Observation() {
            @Override
            public boolean observesAttemptEvents() {
                return false;
            }

            @Override
            public HttpRequest attemptSending(int attempt, HttpRequest request) {
                seen.add("sending " + attempt);
                return HttpRequest.newBuilder(request, (n, v) -> true)
                        .header("x-observed", Integer.toString(attempt))
                        .build();
            }

            @Override
            public void attemptDecided(CallObserver.AttemptDecision decision) {
                seen.add("decided " + decision.event().attempt());
            }

            @Override
            public void callEnded(@Nullable HttpResponse<?> response, @Nullable Throwable failure) {
                seen.add("ended " + (response == null ? failure : response.statusCode()));
            }
        };
        ResilientHttpClient client = builder(contextOnly).build();
        delegate.then(status(503)).then(status(200));

        client.send(get(), BodyHandlers.ofString());

        assertThat(seen).containsExactly("sending 1", "sending 2", "ended 200");
        assertThat(delegate.requests)
                .extracting(r -> r.headers().firstValue("x-observed").orElse("-"))
                .containsExactly("1", "2");
        client.close();
    }
}
