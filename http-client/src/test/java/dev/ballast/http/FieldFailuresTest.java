package dev.ballast.http;

import static dev.ballast.http.ScriptedHttpClient.failure;
import static dev.ballast.http.ScriptedHttpClient.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.ballast.http.breaker.BreakerConfig;
import dev.ballast.http.breaker.BreakerState;
import dev.ballast.http.budget.RetryBudgetConfig;
import dev.ballast.http.idempotency.IdempotencyKeyConfig;
import dev.ballast.http.retry.Backoff;
import dev.ballast.http.retry.Jitter;
import dev.ballast.http.retry.RetryConfig;
import dev.ballast.testkit.FakeTime;
import dev.ballast.testkit.LeakCheck;
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
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Failures reported from the field, each with the input it was reported with: the request, what
 * the server (here a scripted delegate) answered, and what the caller must observe.
 */
@Timeout(30)
@ExtendWith(LeakCheck.class)
class FieldFailuresTest {

    private final FakeTime ticker = new FakeTime();
    private final HeldScheduler scheduler = new HeldScheduler();
    private final ScriptedHttpClient delegate = new ScriptedHttpClient();
    private final java.util.concurrent.ScheduledThreadPoolExecutor immediate =
            new java.util.concurrent.ScheduledThreadPoolExecutor(1);

    private final java.util.concurrent.ExecutorService readers = java.util.concurrent.Executors.newCachedThreadPool();

    @AfterEach
    void stopSchedulers() {
        scheduler.shutdownNow();
        immediate.shutdownNow();
        readers.shutdownNow();
    }

    /** Retries at once (1 ns backoff) on a real scheduler, so a test sees the whole call. */
    private ResilientHttpClient.Builder builder() {
        return ResilientHttpClient.newBuilder()
                .delegate(delegate)
                .ticker(ticker)
                .scheduler(immediate)
                .retry(RetryConfig.builder()
                        .maxAttempts(3)
                        .backoff(Backoff.exponential(Duration.ofNanos(1), Duration.ofNanos(1), Jitter.NONE))
                        .build())
                .defaultDependency(DependencyConfig.builder()
                        .retryBudget(RetryBudgetConfig.disabled())
                        .build());
    }

    private static HttpRequest post(String body) {
        return HttpRequest.newBuilder(URI.create("http://api.test/orders"))
                .POST(BodyPublishers.ofString(body))
                .build();
    }

    // ---- 1. every "not processed" signal of the JDK is safe to retry, whatever the method ----------

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void refusedStreamOfAnUnkeyedPostIsRetriedBecauseTheServerDidNotProcessIt(CallMode mode) throws Exception {
        ResilientHttpClient client = builder()
                .idempotencyKeys(IdempotencyKeyConfig.builder()
                        .policy(IdempotencyKeyConfig.Policy.NEVER)
                        .build())
                .build();
        delegate.then(failure(new IOException("Received RST_STREAM: Stream not processed")))
                .then(status(201));

        HttpResponse<String> response = mode.call(client, post("{\"item\":1}"), BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(201);
        assertThat(delegate.requests).hasSize(2);
        assertThat(delegate.requests.get(0).headers().firstValue("Idempotency-Key"))
                .isEmpty();
    }

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void notProcessedByPeerOfAPutMarkedNonIdempotentIsRetried(CallMode mode) throws Exception {
        ResilientHttpClient client = builder().build();
        HttpRequest put = HttpRequest.newBuilder(URI.create("http://api.test/bucket/key"))
                .PUT(ReplayableBodyPublisher.ofSupplier(() -> BodyPublishers.ofString("v2"), 2)
                        .nonIdempotent())
                .build();
        delegate.then(failure(new IOException("request not processed by peer"))).then(status(200));

        HttpResponse<String> response = mode.call(client, put, BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(delegate.requests).hasSize(2);
    }

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void aResetThatIsNotARefusalOfAnUnkeyedPostIsStillNotRetried(CallMode mode) {
        ResilientHttpClient client = builder()
                .idempotencyKeys(IdempotencyKeyConfig.builder()
                        .policy(IdempotencyKeyConfig.Policy.NEVER)
                        .build())
                .build();
        delegate.then(failure(new IOException("Received RST_STREAM: Internal error")));

        Throwable thrown = catchThrowable(() -> mode.call(client, post("{}"), BodyHandlers.ofString()));

        assertThat(thrown)
                .isInstanceOf(IOException.class)
                .hasMessageStartingWith("Received RST_STREAM: Internal error")
                .hasMessageContaining("not retried: non-idempotent and outcome unknown");
        assertThat(delegate.requests).hasSize(1);
    }

    // ---- 2. state for dead dependencies goes away: an OPEN breaker past its open window is idle ------

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void fortyDeadHostsWithOpenBreakersThenFortyHealthyOnesKeepAtMostMaxDependenciesStates(CallMode mode)
            throws Exception {
        ResilientHttpClient client = builder()
                .retry(RetryConfig.builder().maxAttempts(1).build())
                .maxDependencies(4)
                .defaultDependency(DependencyConfig.builder()
                        .breaker(BreakerConfig.builder()
                                .consecutiveFailureThreshold(1)
                                .waitDurationInOpenState(Duration.ofMillis(100))
                                .openStateJitter(0)
                                .build())
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
    void anOpenBreakerWithinItsOpenWindowIsStillNeverEvicted(CallMode mode) throws Exception {
        ResilientHttpClient client = builder()
                .retry(RetryConfig.builder().maxAttempts(1).build())
                .maxDependencies(1)
                .defaultDependency(DependencyConfig.builder()
                        .breaker(BreakerConfig.builder()
                                .consecutiveFailureThreshold(1)
                                .waitDurationInOpenState(Duration.ofMillis(100))
                                .openStateJitter(0)
                                .build())
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

    // ---- 3. a body handler that cannot parse a complete 200 is the caller's failure, not the dependency's

    private static final HttpResponse.BodyHandler<String> PARSER_THAT_FAILS =
            info -> HttpResponse.BodySubscribers.mapping(
                    HttpResponse.BodySubscribers.ofString(java.nio.charset.StandardCharsets.UTF_8), s -> {
                        throw new java.io.UncheckedIOException(new IOException("parse error"));
                    });

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void aHandlerThatCannotParseAComplete200IsNotRetriedAndNeverOpensTheBreaker(CallMode mode) throws Exception {
        // defaults: 3 attempts, the breaker opens after 5 failures in a row
        ResilientHttpClient client = ResilientHttpClient.newBuilder()
                .delegate(delegate)
                .ticker(ticker)
                .scheduler(immediate)
                .build();
        for (int i = 0; i < 6; i++) {
            delegate.then(status(200, Map.of("Content-Type", List.of("text/html")), "<html><body>maintenance</body>"));
        }

        for (int call = 0; call < 2; call++) {
            Throwable thrown = catchThrowable(() -> mode.call(client, get("http://html.test/api"), PARSER_THAT_FAILS));
            if (mode == CallMode.SEND) {
                // what the JDK's send throws for a failing handler: an IOException, its cause kept
                assertThat(thrown)
                        .isInstanceOf(IOException.class)
                        .hasCauseInstanceOf(java.io.UncheckedIOException.class);
            } else {
                assertThat(thrown).isInstanceOf(java.io.UncheckedIOException.class);
            }
            assertThat(thrown).hasRootCauseMessage("parse error");
        }
        HttpResponse<String> plain = mode.call(client, get("http://html.test/api"), BodyHandlers.ofString());

        assertThat(delegate.requests).hasSize(3);
        assertThat(plain.statusCode()).isEqualTo(200);
        assertThat(client.dependencyStatus("http://html.test:80").orElseThrow().breakerState())
                .isEqualTo(BreakerState.CLOSED);
    }

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void aHandlerFailingOnA503StillCountsThe503ForTheBreakerButIsNotRetried(CallMode mode) {
        ResilientHttpClient client = builder()
                .retry(RetryConfig.builder().maxAttempts(1).build())
                .defaultDependency(DependencyConfig.builder()
                        .breaker(BreakerConfig.builder()
                                .consecutiveFailureThreshold(1)
                                .build())
                        .build())
                .build();
        delegate.then(status(503, Map.of(), "<html>down</html>"));

        catchThrowable(() -> mode.call(client, get("http://down.test/api"), PARSER_THAT_FAILS));

        assertThat(delegate.requests).hasSize(1);
        assertThat(client.dependencyStatus("http://down.test:80").orElseThrow().breakerState())
                .isEqualTo(BreakerState.OPEN);
    }

    // ---- 4. a RuntimeException from a body handler keeps the JDK's contract --------------------------

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void aHandlerThrowingIllegalStateExceptionFailsAsTheJdkClientFails(CallMode mode) {
        ResilientHttpClient client = builder().build();
        IllegalStateException bug = new IllegalStateException("handler bug");
        delegate.then(status(200, Map.of(), "ok"));

        Throwable thrown = catchThrowable(() -> mode.call(client, get("http://api.test/x"), info -> {
            throw bug;
        }));

        if (mode == CallMode.SEND) {
            // HttpClient.send: "IOException if an I/O error occurs"; the JDK wraps the handler's exception
            assertThat(thrown)
                    .isInstanceOf(IOException.class)
                    .hasMessage("handler bug")
                    .hasCause(bug);
        } else {
            // HttpClient.sendAsync: the JDK's future fails with the handler's exception itself
            assertThat(thrown).isSameAs(bug);
        }
        assertThat(delegate.requests).hasSize(1);
    }

    // ---- 5. a stalled body is bounded when the caller streams it, unless exempted --------------------

    /** attemptTimeout 500 ms, totalTimeout 1500 ms; the server sent 10 of 1000 bytes and went silent. */
    private ResilientHttpClient stallingClient() {
        return builder()
                .attemptTimeout(Duration.ofMillis(500))
                .totalTimeout(Duration.ofMillis(1500))
                .build();
    }

    private static final String TEN_BYTES = "0123456789";

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void aStalledBodyReadThroughOfInputStreamFailsWithTheAttemptTimeoutAndTheExchangeIsAborted(CallMode mode)
            throws Exception {
        ResilientHttpClient client = stallingClient();
        ScriptedHttpClient.StallingBody stall = new ScriptedHttpClient.StallingBody();
        delegate.then(stall.step(200, TEN_BYTES));
        HttpResponse<java.io.InputStream> response =
                mode.call(client, get("http://stall.test/file"), BodyHandlers.ofInputStream());
        java.util.concurrent.Future<byte[]> read =
                readers.submit(() -> response.body().readAllBytes());

        ticker.advance(Duration.ofMillis(501));

        Throwable thrown = catchThrowable(() -> read.get(10, java.util.concurrent.TimeUnit.SECONDS));
        assertThat(thrown)
                .isInstanceOf(java.util.concurrent.ExecutionException.class)
                .hasCauseInstanceOf(IOException.class)
                .hasRootCauseInstanceOf(java.net.http.HttpTimeoutException.class)
                .hasRootCauseMessage("attempt timeout of 500 ms elapsed while the response body was being read");
        assertThat(stall.cancelled).isTrue();
    }

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void aStalledBodyReadThroughOfLinesFailsWithTheAttemptTimeout(CallMode mode) throws Exception {
        ResilientHttpClient client = stallingClient();
        ScriptedHttpClient.StallingBody stall = new ScriptedHttpClient.StallingBody();
        delegate.then(stall.step(200, "line 1\nline"));
        HttpResponse<java.util.stream.Stream<String>> response =
                mode.call(client, get("http://stall.test/log"), BodyHandlers.ofLines());
        java.util.concurrent.Future<Long> read =
                readers.submit(() -> response.body().count());

        ticker.advance(Duration.ofMillis(501));

        assertThat(catchThrowable(() -> read.get(10, java.util.concurrent.TimeUnit.SECONDS)))
                .hasRootCauseInstanceOf(java.net.http.HttpTimeoutException.class);
        assertThat(stall.cancelled).isTrue();
    }

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void aStalledBodyReadThroughOfPublisherFailsItsSubscriberWithTheAttemptTimeout(CallMode mode) throws Exception {
        ResilientHttpClient client = stallingClient();
        ScriptedHttpClient.StallingBody stall = new ScriptedHttpClient.StallingBody();
        delegate.then(stall.step(200, TEN_BYTES));
        HttpResponse<java.util.concurrent.Flow.Publisher<List<java.nio.ByteBuffer>>> response =
                mode.call(client, get("http://stall.test/feed"), BodyHandlers.ofPublisher());
        java.util.concurrent.CompletableFuture<Throwable> error = new java.util.concurrent.CompletableFuture<>();
        response.body().subscribe(new java.util.concurrent.Flow.Subscriber<>() {
            @Override
            public void onSubscribe(java.util.concurrent.Flow.Subscription subscription) {
                subscription.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(List<java.nio.ByteBuffer> item) {}

            @Override
            public void onError(Throwable throwable) {
                error.complete(throwable);
            }

            @Override
            public void onComplete() {
                error.complete(null);
            }
        });

        ticker.advance(Duration.ofMillis(501));

        assertThat(error.get(10, java.util.concurrent.TimeUnit.SECONDS))
                .isInstanceOf(java.net.http.HttpTimeoutException.class);
        assertThat(stall.cancelled).isTrue();
    }

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void aStalledBodyReadThroughOfByteArrayConsumerFailsTheCallWithTheAttemptTimeout(CallMode mode) {
        ResilientHttpClient client = builder()
                .retry(RetryConfig.builder().maxAttempts(1).build())
                .attemptTimeout(Duration.ofMillis(500))
                .totalTimeout(Duration.ofMillis(1500))
                .build();
        ScriptedHttpClient.StallingBody stall = new ScriptedHttpClient.StallingBody();
        delegate.then(stall.step(200, TEN_BYTES));
        java.util.concurrent.Future<Throwable> call = readers.submit(() -> catchThrowable(() ->
                mode.call(client, get("http://stall.test/chunks"), BodyHandlers.ofByteArrayConsumer(bytes -> {}))));
        Await.awaitTrue("exchange started", () -> delegate.requests.size() == 1);

        ticker.advance(Duration.ofMillis(501));

        // one attempt, timed out: the retry layer gave up on it
        assertThat(catchThrowable(() -> {
                    throw call.get(10, java.util.concurrent.TimeUnit.SECONDS);
                }))
                .isInstanceOf(RetriesExhaustedException.class)
                .cause()
                .isInstanceOf(java.net.http.HttpTimeoutException.class)
                .hasMessageContaining("500 ms");
        assertThat(delegate.exchanges.get(0)).isCancelled();
    }

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void aBodyExemptedPerRequestMayBeReadPastTheAttemptTimeout(CallMode mode) throws Exception {
        ResilientHttpClient client = stallingClient();
        ScriptedHttpClient.StallingBody bounded = new ScriptedHttpClient.StallingBody();
        ScriptedHttpClient.StallingBody exempt = new ScriptedHttpClient.StallingBody();
        delegate.then(bounded.step(200, TEN_BYTES)).then(exempt.step(200, TEN_BYTES));
        HttpResponse<java.io.InputStream> boundedResponse =
                mode.call(client, get("http://stall.test/a"), BodyHandlers.ofInputStream());
        HttpResponse<java.io.InputStream> exemptResponse =
                mode.call(client, get("http://stall.test/b"), BodyTimeout.exempt(BodyHandlers.ofInputStream()));
        java.util.concurrent.Future<byte[]> exemptRead =
                readers.submit(() -> exemptResponse.body().readAllBytes());

        ticker.advance(Duration.ofMillis(501));
        // the bounded body is aborted by the timer's pass over both deadlines; once its abort (run on the
        // client's scheduler) is done, so is anything that pass scheduled
        Await.awaitTrue("bounded body aborted", bounded.cancelled::get);
        immediate.submit(() -> {}).get(10, java.util.concurrent.TimeUnit.SECONDS);
        exempt.finish("x".repeat(990));

        assertThat(exemptRead.get(10, java.util.concurrent.TimeUnit.SECONDS)).hasSize(1000);
        assertThat(exempt.cancelled).isFalse();
        boundedResponse.body().close();
    }

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void aStreamedBodyThatEndsInTimeIsReadInFull(CallMode mode) throws Exception {
        ResilientHttpClient client = stallingClient();
        ScriptedHttpClient.StallingBody stall = new ScriptedHttpClient.StallingBody();
        delegate.then(stall.step(200, TEN_BYTES));
        HttpResponse<java.io.InputStream> response =
                mode.call(client, get("http://stall.test/ok"), BodyHandlers.ofInputStream());
        java.util.concurrent.Future<byte[]> read =
                readers.submit(() -> response.body().readAllBytes());

        stall.finish("x".repeat(990));

        assertThat(read.get(10, java.util.concurrent.TimeUnit.SECONDS)).hasSize(1000);
        assertThat(stall.cancelled).isFalse();
    }

    // ---- 6. a delegate that never runs the body handler -----------------------------------------------

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void aDelegateThatNeverRunsTheHandlerIsClassifiedFromItsResponseEvenWithoutHeaders(CallMode mode) throws Exception {
        ResilientHttpClient client = builder().build();
        delegate.then(ScriptedHttpClient.responseWithoutRunningTheHandler(503, null))
                .then(ScriptedHttpClient.responseWithoutRunningTheHandler(200, null));

        HttpResponse<String> response = mode.call(client, get("http://double.test/"), BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(delegate.requests).hasSize(2);
    }

    // ---- 10. slow calls: a dependency that answers 200 in 20 s is as dead as one that answers 503 -------

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void aDependencyAnswering200In20SecondsOpensTheBreakerOnItsSlowCallRate(CallMode mode) throws Exception {
        ResilientHttpClient client = builder()
                .attemptTimeout(Duration.ofSeconds(30))
                .totalTimeout(Duration.ofSeconds(60))
                .defaultDependency(DependencyConfig.builder()
                        .breaker(BreakerConfig.builder()
                                .slidingWindowSize(4)
                                .minimumNumberOfCalls(4)
                                .slowCallRateThreshold(50)
                                .slowCallDurationThreshold(Duration.ofSeconds(10))
                                .build())
                        .build())
                .build();
        for (int i = 0; i < 4; i++) {
            delegate.then(exchange -> {
                ticker.advance(Duration.ofSeconds(20)); // the server takes 20 s to answer
                return ScriptedHttpClient.status(200, Map.of(), "slow but fine").apply(exchange);
            });
        }

        for (int i = 0; i < 4; i++) {
            assertThat(mode.call(client, get("http://slow.test/"), BodyHandlers.ofString())
                            .statusCode())
                    .isEqualTo(200);
        }
        Throwable rejected = catchThrowable(() -> mode.call(client, get("http://slow.test/"), BodyHandlers.ofString()));

        assertThat(rejected).isInstanceOf(CircuitOpenException.class);
        assertThat(delegate.requests).hasSize(4);
    }

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void answersFasterThanTheSlowCallThresholdNeverOpenIt(CallMode mode) throws Exception {
        ResilientHttpClient client = builder()
                .defaultDependency(DependencyConfig.builder()
                        .breaker(BreakerConfig.builder()
                                .slidingWindowSize(4)
                                .minimumNumberOfCalls(4)
                                .slowCallRateThreshold(50)
                                .slowCallDurationThreshold(Duration.ofSeconds(10))
                                .build())
                        .build())
                .build();
        for (int i = 0; i < 8; i++) {
            delegate.then(exchange -> {
                ticker.advance(Duration.ofSeconds(9));
                return ScriptedHttpClient.status(200, Map.of(), "fine").apply(exchange);
            });
        }

        for (int i = 0; i < 8; i++) {
            mode.call(client, get("http://quick.test/"), BodyHandlers.ofString());
        }

        assertThat(client.dependencyStatus("http://quick.test:80").orElseThrow().breakerState())
                .isEqualTo(BreakerState.CLOSED);
    }

    // ---- 8. the Idempotency-Key header's own protocol: 409 in progress, 422 key reused -------------

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void keyedPostAnswered409BecauseTheKeyIsStillBeingProcessedIsRetriedAfterItsRetryAfter(CallMode mode)
            throws Exception {
        ResilientHttpClient client = builder().build();
        delegate.then(status(409, Map.of("Retry-After", List.of("0")), "{\"detail\":\"request in progress\"}"))
                .then(status(201, Map.of(), "{\"id\":7}"));

        HttpResponse<String> response = mode.call(client, post("{\"item\":1}"), BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(201);
        assertThat(response.body()).isEqualTo("{\"id\":7}");
        assertThat(delegate.requests).hasSize(2);
        String key =
                delegate.requests.get(0).headers().firstValue("Idempotency-Key").orElseThrow();
        assertThat(delegate.requests.get(1).headers().firstValue("Idempotency-Key"))
                .contains(key);
        assertThat(client.dependencyStatus("http://api.test:80").orElseThrow().breakerState())
                .isEqualTo(BreakerState.CLOSED);
    }

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void keyedPostAnswered422BecauseTheKeyWasReusedWithAnotherPayloadIsReturnedUnretried(CallMode mode)
            throws Exception {
        ResilientHttpClient client = builder().build();
        delegate.then(status(422, Map.of(), "{\"detail\":\"key reused with another payload\"}"));

        HttpResponse<String> response = mode.call(client, post("{\"item\":2}"), BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(422);
        assertThat(delegate.requests).hasSize(1);
    }

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void unkeyedRequestAnswered409IsAnOrdinaryConflictAndReturnedUnretried(CallMode mode) throws Exception {
        ResilientHttpClient client = builder().build();
        delegate.then(status(409));

        HttpResponse<String> response = mode.call(
                client,
                HttpRequest.newBuilder(URI.create("http://api.test/doc"))
                        .PUT(BodyPublishers.ofString("x"))
                        .build(),
                BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(409);
        assertThat(delegate.requests).hasSize(1);
    }
}
