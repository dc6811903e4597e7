package dev.ballast.http;

import static dev.ballast.http.ScriptedHttpClient.failure;
import static dev.ballast.http.ScriptedHttpClient.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.ballast.http.breaker.BreakerConfig;
import dev.ballast.http.breaker.BreakerState;
import dev.ballast.http.budget.RetryBudgetConfig;
import dev.ballast.http.idempotency.IdempotencyKeys;
import dev.ballast.http.retry.Backoff;
import dev.ballast.http.retry.Jitter;
import dev.ballast.http.retry.RetryConfig;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Failures reported from the field, each with the input it was reported with: the request, what
 * the server (here a scripted delegate) answered, and what the caller must observe.
 */
@Timeout(30)
class FieldFailuresTest {

    private final ManualTicker ticker = new ManualTicker();
    private final HeldScheduler scheduler = new HeldScheduler();
    private final ScriptedHttpClient delegate = new ScriptedHttpClient();
    private final java.util.concurrent.ScheduledThreadPoolExecutor immediate =
            new java.util.concurrent.ScheduledThreadPoolExecutor(1);

    @AfterEach
    void stopSchedulers() {
        scheduler.shutdownNow();
        immediate.shutdownNow();
    }

    /** Retries at once (1 ns backoff) on a real scheduler, so a test sees the whole call. */
    private ResilientHttpClient.Builder builder() {
        return ResilientHttpClient.newBuilder()
                .delegate(delegate)
                .ticker(ticker)
                .scheduler(immediate)
                .retry(RetryConfig.builder().maxAttempts(3)
                        .backoff(Backoff.exponential(Duration.ofNanos(1), Duration.ofNanos(1), Jitter.NONE)).build())
                .defaultPolicy(DependencyPolicy.builder().retryBudget(RetryBudgetConfig.disabled()).build());
    }

    private static HttpRequest post(String body) {
        return HttpRequest.newBuilder(URI.create("http://api.test/orders")).POST(BodyPublishers.ofString(body)).build();
    }

    // ---- 1. every "not processed" signal of the JDK is safe to retry, whatever the method ----------

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void refusedStream_ofAnUnkeyedPost_isRetried_becauseTheServerDidNotProcessIt(CallMode mode) throws Exception {
        ResilientHttpClient client = builder().idempotencyKeys(IdempotencyKeys.builder()
                .policy(IdempotencyKeys.Policy.NEVER).build()).build();
        delegate.then(failure(new IOException("Received RST_STREAM: Stream not processed"))).then(status(201));

        HttpResponse<String> response = mode.call(client, post("{\"item\":1}"), BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(201);
        assertThat(delegate.requests).hasSize(2);
        assertThat(delegate.requests.get(0).headers().firstValue("Idempotency-Key")).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void notProcessedByPeer_ofAPutMarkedNonIdempotent_isRetried(CallMode mode) throws Exception {
        ResilientHttpClient client = builder().build();
        HttpRequest put = HttpRequest.newBuilder(URI.create("http://api.test/bucket/key"))
                .PUT(ReplayableBodyPublisher.ofSupplier(() -> BodyPublishers.ofString("v2"), 2).nonIdempotent())
                .build();
        delegate.then(failure(new IOException("request not processed by peer"))).then(status(200));

        HttpResponse<String> response = mode.call(client, put, BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(delegate.requests).hasSize(2);
    }

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void aResetThatIsNotARefusal_ofAnUnkeyedPost_isStillNotRetried(CallMode mode) {
        ResilientHttpClient client = builder().idempotencyKeys(IdempotencyKeys.builder()
                .policy(IdempotencyKeys.Policy.NEVER).build()).build();
        delegate.then(failure(new IOException("Received RST_STREAM: Internal error")));

        Throwable thrown = catchThrowable(() -> mode.call(client, post("{}"), BodyHandlers.ofString()));

        assertThat(thrown).isInstanceOf(IOException.class).hasMessage("Received RST_STREAM: Internal error");
        assertThat(delegate.requests).hasSize(1);
    }

    // ---- 2. state for dead dependencies goes away: an OPEN breaker past its open window is idle ------

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void fortyDeadHostsWithOpenBreakers_thenFortyHealthyOnes_keepAtMostMaxDependenciesStates(CallMode mode)
            throws Exception {
        ResilientHttpClient client = builder()
                .retry(RetryConfig.builder().maxAttempts(1).build())
                .maxDependencies(4)
                .defaultPolicy(DependencyPolicy.builder()
                        .breaker(BreakerConfig.builder().consecutiveFailureThreshold(1)
                                .waitDurationInOpenState(Duration.ofMillis(100)).openStateJitter(0).build())
                        .build())
                .build();
        for (int i = 0; i < 40; i++) {
            delegate.then(status(500));
            mode.call(client, get("http://dead-" + i + ".test/"), BodyHandlers.discarding());
        }
        // while their open windows last, the OPEN breakers are the protection and are all kept
        assertThat(heldStates(client)).isEqualTo(40);

        ticker.advance(Duration.ofMillis(400));
        for (int i = 0; i < 40; i++) {
            delegate.then(status(200));
            mode.call(client, get("http://healthy-" + i + ".test/"), BodyHandlers.discarding());
        }

        assertThat(heldStates(client)).isLessThanOrEqualTo(4);
        assertThat(client.dependencyStatus("http://healthy-39.test:80")).isPresent();
    }

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void anOpenBreakerWithinItsOpenWindow_isStillNeverEvicted(CallMode mode) throws Exception {
        ResilientHttpClient client = builder()
                .retry(RetryConfig.builder().maxAttempts(1).build())
                .maxDependencies(1)
                .defaultPolicy(DependencyPolicy.builder()
                        .breaker(BreakerConfig.builder().consecutiveFailureThreshold(1)
                                .waitDurationInOpenState(Duration.ofMillis(100)).openStateJitter(0).build())
                        .build())
                .build();
        delegate.then(status(500));
        mode.call(client, get("http://dead.test/"), BodyHandlers.discarding());
        ticker.advance(Duration.ofMillis(99));
        delegate.then(status(200));

        mode.call(client, get("http://healthy.test/"), BodyHandlers.discarding());

        assertThat(client.dependencyStatus("http://dead.test:80").orElseThrow().breakerState())
                .isEqualTo(BreakerState.OPEN);
    }

    private static int heldStates(ResilientHttpClient client) {
        int held = 0;
        for (int i = 0; i < 40; i++) {
            held += client.dependencyStatus("http://dead-" + i + ".test:80").isPresent() ? 1 : 0;
            held += client.dependencyStatus("http://healthy-" + i + ".test:80").isPresent() ? 1 : 0;
        }
        return held;
    }

    private static HttpRequest get(String uri) {
        return HttpRequest.newBuilder(URI.create(uri)).GET().build();
    }

    // ---- 8. the Idempotency-Key header's own protocol: 409 in progress, 422 key reused -------------

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void keyedPost_answered409BecauseTheKeyIsStillBeingProcessed_isRetriedAfterItsRetryAfter(CallMode mode)
            throws Exception {
        ResilientHttpClient client = builder().build();
        delegate.then(status(409, Map.of("Retry-After", List.of("0")), "{\"detail\":\"request in progress\"}"))
                .then(status(201, Map.of(), "{\"id\":7}"));

        HttpResponse<String> response = mode.call(client, post("{\"item\":1}"), BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(201);
        assertThat(response.body()).isEqualTo("{\"id\":7}");
        assertThat(delegate.requests).hasSize(2);
        String key = delegate.requests.get(0).headers().firstValue("Idempotency-Key").orElseThrow();
        assertThat(delegate.requests.get(1).headers().firstValue("Idempotency-Key")).contains(key);
        assertThat(client.dependencyStatus("http://api.test:80").orElseThrow().breakerState())
                .isEqualTo(BreakerState.CLOSED);
    }

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void keyedPost_answered422BecauseTheKeyWasReusedWithAnotherPayload_isReturnedUnretried(CallMode mode)
            throws Exception {
        ResilientHttpClient client = builder().build();
        delegate.then(status(422, Map.of(), "{\"detail\":\"key reused with another payload\"}"));

        HttpResponse<String> response = mode.call(client, post("{\"item\":2}"), BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(422);
        assertThat(delegate.requests).hasSize(1);
    }

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void unkeyedRequest_answered409_isAnOrdinaryConflict_andReturnedUnretried(CallMode mode) throws Exception {
        ResilientHttpClient client = builder().build();
        delegate.then(status(409));

        HttpResponse<String> response = mode.call(client,
                HttpRequest.newBuilder(URI.create("http://api.test/doc")).PUT(BodyPublishers.ofString("x")).build(),
                BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(409);
        assertThat(delegate.requests).hasSize(1);
    }
}
