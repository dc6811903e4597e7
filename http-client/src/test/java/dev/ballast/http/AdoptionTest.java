package dev.ballast.http;

import static dev.ballast.http.Await.awaitTrue;
import static dev.ballast.http.ScriptedHttpClient.hang;
import static dev.ballast.http.ScriptedHttpClient.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.http.bulkhead.BulkheadConfig;
import dev.ballast.testkit.FakeTime;
import dev.ballast.testkit.LeakCheck;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** What a new user trips on in the first hour, each with the input it was reported with. */
@Timeout(30)
@ExtendWith(LeakCheck.class)
class AdoptionTest {

    private final ScriptedHttpClient delegate = new ScriptedHttpClient();
    private final ExecutorService callers = Executors.newFixedThreadPool(3);

    @AfterEach
    void stopCallers() {
        callers.shutdownNow();
    }

    private static DependencyConfig bulkheadOfOne() {
        return DependencyConfig.builder()
                .bulkhead(BulkheadConfig.builder(1).build())
                .build();
    }

    // ---- 1. a policy key is normalised the way requests are resolved, or rejected at build() -------

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void policyKeyWithATrailingSlashAppliesToItsOriginThreeConcurrentCallsGetOnePermit(CallMode mode) throws Exception {
        ResilientHttpClient client = ResilientHttpClient.newBuilder()
                .delegate(delegate)
                .dependency("http://127.0.0.1:8089/", bulkheadOfOne())
                .build();
        delegate.then(hang());
        HttpRequest request =
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:8089/slow")).build();
        List<Future<Throwable>> calls = new ArrayList<>();
        calls.add(callers.submit(() -> outcome(mode, client, request)));
        awaitTrue("first call holds the permit", () -> delegate.requests.size() == 1);

        calls.add(callers.submit(() -> outcome(mode, client, request)));
        calls.add(callers.submit(() -> outcome(mode, client, request)));

        assertThat(calls.get(1).get(10, TimeUnit.SECONDS)).isInstanceOf(BulkheadFullException.class);
        assertThat(calls.get(2).get(10, TimeUnit.SECONDS)).isInstanceOf(BulkheadFullException.class);
        assertThat(delegate.requests).hasSize(1);
        DependencyStatus status =
                client.dependencyStatus("http://127.0.0.1:8089/").orElseThrow();
        assertThat(status.dependency()).isEqualTo("http://127.0.0.1:8089");
        assertThat(status.maxConcurrentCalls()).isEqualTo(1);
        assertThat(status.availableBulkheadPermits()).isZero();
        delegate.exchanges.get(0).cancel(true);
        client.shutdownNow();
    }

    private static Throwable outcome(CallMode mode, ResilientHttpClient client, HttpRequest request) {
        try {
            mode.call(client, request, BodyHandlers.discarding());
            return null;
        } catch (Throwable t) {
            return t;
        }
    }

    @ParameterizedTest(name = "policy for {0} applies to {1}")
    @CsvSource({
        "https://api.example.com, https://api.example.com/v1/items",
        "https://api.example.com, https://api.example.com:443/v1/items",
        "HTTPS://API.Example.COM:443/, https://api.example.com/",
        "http://api.example.com/v1/items, http://api.example.com:80/other",
        "' http://[::1]:8080 ', http://[::1]:8080/x",
    })
    void policyKeysAreNormalisedAsRequestsAreResolved(String key, String requestUri) throws Exception {
        ResilientHttpClient client = ResilientHttpClient.newBuilder()
                .delegate(delegate)
                .dependency(key, bulkheadOfOne())
                .build();
        delegate.then(status(200));

        client.send(HttpRequest.newBuilder(URI.create(requestUri)).build(), BodyHandlers.discarding());

        String resolved = dev.ballast.http.internal.Requests.defaultDependency(
                HttpRequest.newBuilder(URI.create(requestUri)).build());
        assertThat(client.dependencyStatus(resolved).orElseThrow().maxConcurrentCalls())
                .isEqualTo(1);
        assertThat(client.dependencyStatus(key)).isPresent();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "payments",
                "api.example.com:443",
                "ftp://files.example.com",
                "https://user@api.example.com",
                "https://api.example.com/?tenant=1",
                "https://api.example.com/#top",
                "https:///path",
                "",
                "http://a b"
            })
    void aKeyThatCannotNameADependencyIsRejectedAtBuildNamingTheKey(String key) {
        ResilientHttpClient.Builder builder =
                ResilientHttpClient.newBuilder().delegate(delegate).dependency(key, bulkheadOfOne());

        assertThatThrownBy(builder::build)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("dependency key '" + key + "' cannot name a dependency because ")
                .hasMessageContaining("'https://api.example.com:443'");
    }

    @Test
    void twoKeysNamingOneDependencyAreRejectedAtBuild() {
        ResilientHttpClient.Builder builder = ResilientHttpClient.newBuilder()
                .delegate(delegate)
                .dependency("https://api.example.com", bulkheadOfOne())
                .dependency("https://api.example.com:443/", DependencyConfig.ofDefaults());

        assertThatThrownBy(builder::build)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("both name the dependency 'https://api.example.com:443'");
    }

    @Test
    void withACustomResolverKeysAreTakenAsGiven() throws Exception {
        ResilientHttpClient client = ResilientHttpClient.newBuilder()
                .delegate(delegate)
                .dependencyResolver(request -> "payments")
                .dependency("payments", bulkheadOfOne())
                .build();
        delegate.then(status(200));

        client.send(
                HttpRequest.newBuilder(URI.create("https://pay.example.com/")).build(), BodyHandlers.discarding());

        assertThat(client.dependencyStatus("payments").orElseThrow().maxConcurrentCalls())
                .isEqualTo(1);
    }

    @Test
    void aPolicyForAnotherHostNameOfTheSameOriginIsCalledOutOnTheFirstCall() throws Exception {
        ResilientHttpClient client = ResilientHttpClient.newBuilder()
                .delegate(delegate)
                .dependency("http://127.0.0.1:8089", bulkheadOfOne())
                .build();
        delegate.then(status(200));

        List<String> lines = LogCapture.linesMentioning(
                "http://localhost:8089",
                () -> client.send(
                        HttpRequest.newBuilder(URI.create("http://localhost:8089/"))
                                .build(),
                        BodyHandlers.discarding()));

        assertThat(lines)
                .singleElement()
                .asString()
                .contains("WARN", "http://localhost:8089", "http://127.0.0.1:8089", "without DNS");
    }

    // ---- 2. a call that already has an answer returns it when a later attempt is refused ----------

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void twoCallsAnswered500TheBreakerOpensOnTheFifthAttemptAndTheSecondCallReturnsThe500(CallMode mode)
            throws Exception {
        // defaults (3 attempts, the breaker opens after 5 failures in a row), retried at once
        ResilientHttpClient client = ResilientHttpClient.newBuilder()
                .delegate(delegate)
                .retry(dev.ballast.http.retry.RetryConfig.builder()
                        .backoff(dev.ballast.http.retry.Backoff.exponential(
                                java.time.Duration.ofNanos(1),
                                java.time.Duration.ofNanos(1),
                                dev.ballast.http.retry.Jitter.NONE))
                        .build())
                .build();
        for (int i = 1; i <= 5; i++) {
            delegate.then(status(500, java.util.Map.of(), "{\"error\":\"attempt " + i + "\"}"));
        }
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://five-hundred.test/500"))
                .build();

        java.net.http.HttpResponse<String> first = mode.call(client, request, BodyHandlers.ofString());
        java.net.http.HttpResponse<String> second = mode.call(client, request, BodyHandlers.ofString());

        assertThat(first.statusCode()).isEqualTo(500);
        assertThat(first.body()).isEqualTo("{\"error\":\"attempt 3\"}");
        assertThat(second.statusCode()).isEqualTo(500);
        assertThat(second.body()).isEqualTo("{\"error\":\"attempt 5\"}");
        assertThat(second.request().uri()).isEqualTo(request.uri());
        assertThat(delegate.requests).hasSize(5);
        DependencyStatus status =
                client.dependencyStatus("http://five-hundred.test:80").orElseThrow();
        assertThat(status.breakerState()).isEqualTo(dev.ballast.http.breaker.BreakerState.OPEN);
        assertThat(status.circuitOpenRejections()).isEqualTo(1);
        // a call with no answer yet still fails with the rejection
        assertThatThrownBy(() -> mode.call(client, request, BodyHandlers.ofString()))
                .isInstanceOf(CircuitOpenException.class);
    }

    @Test
    void aRetryRefusedByAFullBulkheadReturnsTheAnswerTheCallAlreadyHas() throws Exception {
        HeldScheduler held = new HeldScheduler();
        try {
            ResilientHttpClient client = ResilientHttpClient.newBuilder()
                    .delegate(delegate)
                    .scheduler(held)
                    .dependency("http://full.test", bulkheadOfOne())
                    .build();
            delegate.then(status(503, java.util.Map.of(), "busy")).then(hang());
            java.util.concurrent.CompletableFuture<java.net.http.HttpResponse<String>> answered = client.sendAsync(
                    HttpRequest.newBuilder(URI.create("http://full.test/a")).build(), BodyHandlers.ofString());
            awaitTrue("backoff scheduled", () -> !held.pending().isEmpty());
            java.util.concurrent.CompletableFuture<java.net.http.HttpResponse<String>> holder = client.sendAsync(
                    HttpRequest.newBuilder(URI.create("http://full.test/b")).build(), BodyHandlers.ofString());
            awaitTrue("the other call holds the only permit", () -> delegate.requests.size() == 2);

            held.runHeld();

            assertThat(answered)
                    .succeedsWithin(java.time.Duration.ofSeconds(10))
                    .satisfies(response -> {
                        assertThat(response.statusCode()).isEqualTo(503);
                        assertThat(response.body()).isEqualTo("busy");
                    });
            assertThat(client.dependencyStatus("http://full.test").orElseThrow().bulkheadFullRejections())
                    .isOne();
            holder.cancel(true);
        } finally {
            held.shutdownNow();
        }
    }

    // ---- 8. one log line per event, at the right level --------------------------------------------

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void a404ThatIsSimplyReturnedIsNotLoggedAtInfo(CallMode mode) throws Exception {
        ResilientHttpClient client =
                ResilientHttpClient.newBuilder().delegate(delegate).build();
        delegate.then(status(404)).then(status(400));

        List<String> lines = LogCapture.linesMentioning("http://logs-404.test", () -> {
            mode.call(
                    client,
                    HttpRequest.newBuilder(URI.create("http://logs-404.test/missing"))
                            .build(),
                    BodyHandlers.discarding());
            // the storage probe's deliberately refused PUT is the same case
            mode.call(
                    client,
                    HttpRequest.newBuilder(URI.create("http://logs-404.test/.ballast/probe"))
                            .PUT(java.net.http.HttpRequest.BodyPublishers.ofString("x"))
                            .build(),
                    BodyHandlers.discarding());
        });

        assertThat(lines).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void aBreakerTransitionIsLoggedOnce(CallMode mode) throws Exception {
        ResilientHttpClient client = ResilientHttpClient.newBuilder()
                .delegate(delegate)
                .retry(dev.ballast.http.retry.RetryConfig.builder()
                        .maxAttempts(1)
                        .build())
                .defaultDependency(DependencyConfig.builder()
                        .breaker(dev.ballast.http.breaker.BreakerConfig.builder()
                                .consecutiveFailureThreshold(1)
                                .build())
                        .build())
                .build();
        delegate.then(status(500));

        List<String> lines = LogCapture.linesMentioning(
                "http://logs-breaker.test",
                () -> mode.call(
                        client,
                        HttpRequest.newBuilder(URI.create("http://logs-breaker.test/"))
                                .build(),
                        BodyHandlers.discarding()));

        assertThat(lines)
                .filteredOn(line -> line.contains("circuit breaker transition"))
                .singleElement()
                .asString()
                .contains("WARN", "from=CLOSED", "to=OPEN");
    }

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void rejectionsWhileTheBreakerIsOpenAreLoggedOncePerOpenPeriodAndCountedEachTime(CallMode mode) throws Exception {
        FakeTime ticker = new FakeTime();
        ResilientHttpClient client = ResilientHttpClient.newBuilder()
                .delegate(delegate)
                .ticker(ticker)
                .retry(dev.ballast.http.retry.RetryConfig.builder()
                        .maxAttempts(1)
                        .build())
                .defaultDependency(DependencyConfig.builder()
                        .breaker(dev.ballast.http.breaker.BreakerConfig.builder()
                                .consecutiveFailureThreshold(1)
                                .openStateJitter(0)
                                .waitDurationInOpenState(java.time.Duration.ofSeconds(5))
                                .build())
                        .build())
                .build();
        HttpRequest request =
                HttpRequest.newBuilder(URI.create("http://logs-open.test/")).build();
        delegate.then(status(500)).then(status(500));

        List<String> lines = LogCapture.linesMentioning("http://logs-open.test", () -> {
            mode.call(client, request, BodyHandlers.discarding()); // opens the breaker
            for (int i = 0; i < 50; i++) {
                outcome(mode, client, request); // rejected: first open period
            }
            ticker.advance(java.time.Duration.ofSeconds(6));
            mode.call(client, request, BodyHandlers.discarding()); // the probe fails: open again
            for (int i = 0; i < 50; i++) {
                outcome(mode, client, request); // rejected: second open period
            }
        });

        assertThat(lines)
                .filteredOn(line -> line.contains("rejects calls"))
                .hasSize(2)
                .allSatisfy(line -> assertThat(line).contains("INFO", "circuitOpenRejections"));
        assertThat(lines).filteredOn(line -> line.contains("outcome=rejected")).isEmpty();
        assertThat(client.dependencyStatus("http://logs-open.test:80")
                        .orElseThrow()
                        .circuitOpenRejections())
                .isEqualTo(100);
        assertThat(delegate.requests).hasSize(2);
    }

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void aTotalTimeoutGiveUpIsLoggedOnce(CallMode mode) throws Exception {
        FakeTime ticker = new FakeTime();
        ResilientHttpClient client = ResilientHttpClient.newBuilder()
                .delegate(delegate)
                .ticker(ticker)
                .totalTimeout(java.time.Duration.ofSeconds(2))
                .build();
        delegate.then(hang());
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://logs-timeout.test/slow"))
                .build();

        List<String> lines = LogCapture.linesMentioning("http://logs-timeout.test", () -> {
            Future<Throwable> call = callers.submit(() -> outcome(mode, client, request));
            awaitTrue("exchange started", () -> delegate.requests.size() == 1);
            ticker.advance(java.time.Duration.ofSeconds(3));
            assertThat(call.get(10, TimeUnit.SECONDS))
                    .isInstanceOf(java.net.http.HttpTimeoutException.class)
                    .hasMessageContaining("total timeout");
            client.shutdown();
            assertThat(client.awaitTermination(java.time.Duration.ofSeconds(5))).isTrue();
        });

        assertThat(lines)
                .filteredOn(line -> line.contains("gave_up"))
                .singleElement()
                .asString()
                .contains("WARN", "total timeout exceeded");
    }
}
