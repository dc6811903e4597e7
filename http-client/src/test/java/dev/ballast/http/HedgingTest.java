package dev.ballast.http;

import static dev.ballast.http.Await.awaitTrue;
import static dev.ballast.http.ScriptedHttpClient.hang;
import static dev.ballast.http.ScriptedHttpClient.status;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.http.budget.RetryBudgetConfig;
import dev.ballast.http.hedging.HedgingConfig;
import dev.ballast.http.idempotency.IdempotencyKeyConfig;
import dev.ballast.testkit.FakeTime;
import dev.ballast.testkit.LeakCheck;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Hedging on the injected ticker: a second attempt after the hedging delay when the first has not
 * answered, the first good answer winning, the other cancelled, counted in the retry budget, and
 * never for a request that may not be sent twice.
 */
@Timeout(30)
@ExtendWith(LeakCheck.class)
class HedgingTest {

    private static final String ORIGIN = "http://replicas.test:80";

    private final FakeTime ticker = new FakeTime();
    private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
    private final ScriptedHttpClient delegate = new ScriptedHttpClient();
    private final ExecutorService callers = Executors.newCachedThreadPool();
    private final List<String> hedges = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
        callers.shutdownNow();
    }

    private ResilientHttpClient client(HedgingConfig hedging) {
        return ResilientHttpClient.newBuilder()
                .delegate(delegate)
                .ticker(ticker)
                .scheduler(scheduler)
                .defaultDependency(DependencyConfig.builder().hedging(hedging).build())
                .listener(new HttpClientListener() {
                    @Override
                    public void onHedge(String correlationId, String dependency, int attempt, Duration delay) {
                        hedges.add(dependency + " attempt " + attempt + " after " + delay.toMillis() + " ms");
                    }
                })
                .build();
    }

    private static HttpRequest get(String path) {
        return HttpRequest.newBuilder(URI.create("http://replicas.test" + path)).build();
    }

    private <T> Future<HttpResponse<T>> call(
            CallMode mode, ResilientHttpClient client, HttpRequest request, HttpResponse.BodyHandler<T> handler) {
        return callers.submit(() -> mode.call(client, request, handler));
    }

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void aFirstAttemptWithoutAnswerAfterTheDelayIsHedgedTheFirstAnswerWinsAndTheOtherIsCancelled(CallMode mode)
            throws Exception {
        ResilientHttpClient client = client(HedgingConfig.fixedDelay(Duration.ofMillis(100)));
        delegate.then(hang()).then(status(200, Map.of(), "from the second replica"));
        Future<HttpResponse<String>> call = call(mode, client, get("/item"), BodyHandlers.ofString());
        awaitTrue("first attempt sent", () -> delegate.requests.size() == 1);
        double budgetBefore = client.dependencyStatus(ORIGIN).orElseThrow().availableRetries();

        ticker.advance(Duration.ofMillis(100));

        HttpResponse<String> response = call.get(10, TimeUnit.SECONDS);
        assertThat(response.body()).isEqualTo("from the second replica");
        assertThat(delegate.requests).hasSize(2);
        assertThat(delegate.requests.get(1).uri())
                .isEqualTo(delegate.requests.get(0).uri());
        awaitTrue("the slow attempt cancelled", () -> delegate.exchanges.get(0).isCancelled());
        assertThat(hedges).containsExactly(ORIGIN + " attempt 2 after 100 ms");
        // the hedge withdrew one retry token
        assertThat(client.dependencyStatus(ORIGIN).orElseThrow().availableRetries())
                .isEqualTo(budgetBefore - 1);
        awaitTrue(
                "attempts in flight ended",
                () -> client.dependencyStatus(ORIGIN).orElseThrow().attemptsInFlight() == 0);
    }

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void theFirstAttemptAnsweringFirstWinsOverItsHedge(CallMode mode) throws Exception {
        ResilientHttpClient client = client(HedgingConfig.fixedDelay(Duration.ofMillis(100)));
        java.util.concurrent.CompletableFuture<Object> first = new java.util.concurrent.CompletableFuture<>();
        java.util.concurrent.atomic.AtomicReference<ScriptedHttpClient.Exchange<?>> firstExchange =
                new java.util.concurrent.atomic.AtomicReference<>();
        delegate.then(exchange -> {
                    firstExchange.set(exchange);
                    return first;
                })
                .then(hang());
        Future<HttpResponse<String>> call = call(mode, client, get("/item"), BodyHandlers.ofString());
        awaitTrue("first attempt sent", () -> delegate.requests.size() == 1);
        ticker.advance(Duration.ofMillis(100));
        awaitTrue("hedge sent", () -> delegate.requests.size() == 2);

        first.complete(ScriptedHttpClient.respond(firstExchange.get(), 200, Map.of(), "from the first replica"));

        assertThat(call.get(10, TimeUnit.SECONDS).body()).isEqualTo("from the first replica");
        awaitTrue("the hedge cancelled", () -> delegate.exchanges.get(1).isCancelled());
    }

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void aPostWithoutIdempotencyKeyIsNeverHedged(CallMode mode) throws Exception {
        ResilientHttpClient client = ResilientHttpClient.newBuilder()
                .delegate(delegate)
                .ticker(ticker)
                .scheduler(scheduler)
                .idempotencyKeys(IdempotencyKeyConfig.builder()
                        .policy(IdempotencyKeyConfig.Policy.NEVER)
                        .build())
                .defaultDependency(DependencyConfig.builder()
                        .hedging(HedgingConfig.fixedDelay(Duration.ofMillis(100)))
                        .build())
                .build();
        java.util.concurrent.CompletableFuture<Object> answer = new java.util.concurrent.CompletableFuture<>();
        java.util.concurrent.atomic.AtomicReference<ScriptedHttpClient.Exchange<?>> post =
                new java.util.concurrent.atomic.AtomicReference<>();
        delegate.then(exchange -> {
                    post.set(exchange);
                    return answer;
                })
                .then(hang())
                .then(status(200));
        Future<HttpResponse<String>> unkeyed = call(
                mode,
                client,
                HttpRequest.newBuilder(URI.create("http://replicas.test/orders"))
                        .POST(BodyPublishers.ofString("{}"))
                        .build(),
                BodyHandlers.ofString());
        awaitTrue("post sent", () -> delegate.requests.size() == 1);
        // a hedgeable call whose delay ends after the POST's: once it is hedged, the POST's would have been
        Future<HttpResponse<String>> hedged = call(mode, client, get("/item"), BodyHandlers.ofString());
        awaitTrue("get sent", () -> delegate.requests.size() == 2);

        ticker.advance(Duration.ofMillis(200));

        assertThat(hedged.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        scheduler.submit(() -> {}).get(10, TimeUnit.SECONDS); // whatever that timer pass scheduled has run
        answer.complete(ScriptedHttpClient.respond(post.get(), 201, Map.of(), "created"));
        assertThat(unkeyed.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
        assertThat(delegate.requests).extracting(HttpRequest::method).containsExactly("POST", "GET", "GET");
    }

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void aKeyedPostIsHedgedWithTheSameKeyOnBothAttempts(CallMode mode) throws Exception {
        ResilientHttpClient client = client(HedgingConfig.fixedDelay(Duration.ofMillis(100)));
        delegate.then(hang()).then(status(201));
        Future<HttpResponse<String>> call = call(
                mode,
                client,
                HttpRequest.newBuilder(URI.create("http://replicas.test/orders"))
                        .POST(BodyPublishers.ofString("{}"))
                        .build(),
                BodyHandlers.ofString());
        awaitTrue("post sent", () -> delegate.requests.size() == 1);

        ticker.advance(Duration.ofMillis(100));

        assertThat(call.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
        String key =
                delegate.requests.get(0).headers().firstValue("Idempotency-Key").orElseThrow();
        assertThat(delegate.requests.get(1).headers().firstValue("Idempotency-Key"))
                .contains(key);
    }

    @Test
    void theRetryBudgetBoundsHedgesAnEmptyBudgetSendsNone() throws Exception {
        HedgingConfig hedging = HedgingConfig.fixedDelay(Duration.ofMillis(100));
        ResilientHttpClient client = ResilientHttpClient.newBuilder()
                .delegate(delegate)
                .ticker(ticker)
                .scheduler(scheduler)
                // one first attempt deposits 0.1 token and there is no floor: a hedge cannot be paid for
                .defaultDependency(DependencyConfig.builder()
                        .hedging(hedging)
                        .retryBudget(RetryBudgetConfig.builder()
                                .ratio(0.1)
                                .minRetriesPerSecond(0)
                                .build())
                        .build())
                .dependency(
                        "http://other.test",
                        DependencyConfig.builder()
                                .hedging(hedging)
                                .retryBudget(RetryBudgetConfig.disabled())
                                .build())
                .listener(new HttpClientListener() {
                    @Override
                    public void onHedge(String correlationId, String dependency, int attempt, Duration delay) {
                        hedges.add(dependency);
                    }
                })
                .build();
        java.util.concurrent.CompletableFuture<Object> answer = new java.util.concurrent.CompletableFuture<>();
        java.util.concurrent.atomic.AtomicReference<ScriptedHttpClient.Exchange<?>> only =
                new java.util.concurrent.atomic.AtomicReference<>();
        delegate.then(exchange -> {
                    only.set(exchange);
                    return answer;
                })
                .then(hang())
                .then(status(200));
        Future<HttpResponse<String>> call = call(CallMode.SEND_ASYNC, client, get("/item"), BodyHandlers.ofString());
        awaitTrue("sent", () -> delegate.requests.size() == 1);
        // a call to a dependency with budget whose hedge is due after this one's: once it is hedged, this one's
        // hedge has been considered
        Future<HttpResponse<String>> other = call(
                CallMode.SEND_ASYNC,
                client,
                HttpRequest.newBuilder(URI.create("http://other.test/item")).build(),
                BodyHandlers.ofString());
        awaitTrue("other sent", () -> delegate.requests.size() == 2);

        ticker.advance(Duration.ofMillis(200));
        assertThat(other.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        scheduler.submit(() -> {}).get(10, TimeUnit.SECONDS);
        answer.complete(ScriptedHttpClient.respond(only.get(), 200, Map.of(), "only"));

        assertThat(call.get(10, TimeUnit.SECONDS).body()).isEqualTo("only");
        assertThat(delegate.requests)
                .extracting(r -> r.uri().getHost())
                .containsExactly("replicas.test", "other.test", "other.test");
        assertThat(hedges).containsExactly("http://other.test:80");
    }

    @Test
    void aPercentileDelayIsThatPercentileOfTheRecentLatencies() throws Exception {
        ResilientHttpClient client = client(HedgingConfig.percentileDelay(95, Duration.ofSeconds(1)));
        for (int i = 1; i <= 20; i++) {
            long millis = i * 10L; // latencies 10 ms .. 200 ms: the 95th percentile is 190 ms
            delegate.then(exchange -> {
                ticker.advance(Duration.ofMillis(millis));
                return status(200).apply(exchange);
            });
        }
        for (int i = 0; i < 20; i++) {
            client.send(get("/item"), BodyHandlers.discarding());
        }
        delegate.then(hang()).then(status(200, Map.of(), "hedged"));
        Future<HttpResponse<String>> call = call(CallMode.SEND_ASYNC, client, get("/item"), BodyHandlers.ofString());
        awaitTrue("sent", () -> delegate.requests.size() == 21);

        ticker.advance(Duration.ofSeconds(1));

        assertThat(call.get(10, TimeUnit.SECONDS).body()).isEqualTo("hedged");
        assertThat(hedges).containsExactly(ORIGIN + " attempt 2 after 190 ms");
    }
    /**
     * The field case: a hedged GET whose first attempt answers late. The hedge's headers are kept first,
     * so the call commits to it; the first attempt, answering while the hedge's body still arrives, runs
     * nothing of the caller's.
     */
    @ParameterizedTest
    @EnumSource(CallMode.class)
    void theCallersHandlerRunsOnceForTheAttemptWhoseHeadersCameFirstNeverForTheLateOne(CallMode mode) throws Exception {
        ResilientHttpClient client = client(HedgingConfig.fixedDelay(Duration.ofMillis(100)));
        java.util.concurrent.CompletableFuture<Object> first = new java.util.concurrent.CompletableFuture<>();
        java.util.concurrent.atomic.AtomicReference<ScriptedHttpClient.Exchange<?>> firstExchange =
                new java.util.concurrent.atomic.AtomicReference<>();
        ScriptedHttpClient.StallingBody hedgeBody = new ScriptedHttpClient.StallingBody();
        delegate.then(exchange -> {
                    firstExchange.set(exchange);
                    return first;
                })
                .then(hedgeBody.step(200, "from the second "));
        java.util.concurrent.atomic.AtomicInteger handlerRuns = new java.util.concurrent.atomic.AtomicInteger();
        HttpResponse.BodyHandler<String> counting = info -> {
            handlerRuns.incrementAndGet();
            return HttpResponse.BodySubscribers.ofString(java.nio.charset.StandardCharsets.UTF_8);
        };
        Future<HttpResponse<String>> call = call(mode, client, get("/item"), counting);
        awaitTrue("first attempt sent", () -> delegate.requests.size() == 1);

        ticker.advance(Duration.ofMillis(100));
        awaitTrue("the hedge's headers handed to the handler", () -> handlerRuns.get() == 1);
        awaitTrue(
                "the late first attempt cancelled",
                () -> delegate.exchanges.get(0).isCancelled());
        // the first attempt's answer arrives anyway (it was on the wire when it was cancelled)
        first.complete(ScriptedHttpClient.respond(firstExchange.get(), 200, Map.of(), "from the first replica"));
        hedgeBody.finish("replica");

        assertThat(call.get(10, TimeUnit.SECONDS).body()).isEqualTo("from the second replica");
        assertThat(handlerRuns).hasValue(1);
        awaitTrue(
                "every attempt ended",
                () -> client.dependencyStatus(ORIGIN).orElseThrow().attemptsInFlight() == 0);
    }

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void anOfFileHandlerIsNeverTruncatedByTheAttemptTheCallDidNotReturn(
            CallMode mode, @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        ResilientHttpClient client = client(HedgingConfig.fixedDelay(Duration.ofMillis(100)));
        java.util.concurrent.CompletableFuture<Object> first = new java.util.concurrent.CompletableFuture<>();
        java.util.concurrent.atomic.AtomicReference<ScriptedHttpClient.Exchange<?>> firstExchange =
                new java.util.concurrent.atomic.AtomicReference<>();
        ScriptedHttpClient.StallingBody hedgeBody = new ScriptedHttpClient.StallingBody();
        delegate.then(exchange -> {
                    firstExchange.set(exchange);
                    return first;
                })
                .then(hedgeBody.step(200, "from the second "));
        java.nio.file.Path file = dir.resolve("download");
        Future<HttpResponse<java.nio.file.Path>> call = call(mode, client, get("/item"), BodyHandlers.ofFile(file));
        awaitTrue("first attempt sent", () -> delegate.requests.size() == 1);

        ticker.advance(Duration.ofMillis(100));
        awaitTrue("the hedge's body is being written", () -> java.nio.file.Files.exists(file));
        first.complete(ScriptedHttpClient.respond(firstExchange.get(), 200, Map.of(), "from the first replica"));
        hedgeBody.finish("replica");

        assertThat(call.get(10, TimeUnit.SECONDS).body()).isEqualTo(file);
        assertThat(java.nio.file.Files.readString(file)).isEqualTo("from the second replica");
    }
}
