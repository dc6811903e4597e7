package dev.ballast.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.ballast.http.ScriptedHttpClient.Step;
import dev.ballast.http.limit.ConcurrencyLimitConfig;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The adaptive concurrency limit through the client: learned from latency on the injected ticker. */
@Timeout(30)
class ConcurrencyLimitTest {

    private static final String SLOW = "http://slow.test:80";
    private static final String OTHER = "http://other.test:80";

    @RegisterExtension
    static final LeakCheck leaks = new LeakCheck();

    private final FakeTime time = new FakeTime();
    private final ScriptedHttpClient delegate = new ScriptedHttpClient();

    private static HttpRequest get(String origin) {
        return HttpRequest.newBuilder(URI.create(origin + "/item")).GET().build();
    }

    /** Answers 200 after {@code millis} of the fake ticker: the headers arrive that late. */
    private Step answerAfter(long millis) {
        return exchange -> {
            time.advance(Duration.ofMillis(millis));
            return CompletableFuture.completedFuture(ScriptedHttpClient.respond(exchange, 200, Map.of(), "ok"));
        };
    }

    /** Sends {@code calls} calls one after another, each answered after {@code millis}, then closes the window. */
    private void window(ResilientHttpClient client, long millis, int calls) throws Exception {
        for (int i = 0; i < calls; i++) {
            if (i == calls - 1) {
                time.advance(ConcurrencyLimitConfig.DEFAULT_WINDOW);
            }
            delegate.then(answerAfter(millis));
            assertThat(client.send(get(SLOW), BodyHandlers.ofString()).statusCode())
                    .isEqualTo(200);
        }
    }

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void aDependencyThatQueuesIsLimitedWithoutANetworkCallAndOnlyItself(CallMode mode) throws Exception {
        // given a dependency whose latency went from 10 ms to 100 ms, one call at a time
        ResilientHttpClient client = leaks.watch(
                ResilientHttpClient.newBuilder()
                        .delegate(delegate)
                        .ticker(time)
                        .dependency(
                                SLOW,
                                DependencyConfig.builder()
                                        .concurrencyLimit(ConcurrencyLimitConfig.builder()
                                                .initialLimit(100)
                                                .minLimit(2)
                                                .maxLimit(100)
                                                .minWindowSamples(5)
                                                .maxWaitDuration(Duration.ZERO)
                                                .build())
                                        .build())
                        .build(),
                SLOW,
                OTHER);
        window(client, 10, 6);
        assertThat(client.dependencyStatus(SLOW).orElseThrow().concurrencyLimit())
                .isEqualTo(100);
        window(client, 100, 6);
        assertThat(client.dependencyStatus(SLOW).orElseThrow().concurrencyLimit())
                .as("1 in flight x tolerance 2 / 10x slower, floored at minLimit")
                .isEqualTo(2);

        // when two calls are in flight and a third is made
        delegate.then(ScriptedHttpClient.hang()).then(ScriptedHttpClient.hang());
        CompletableFuture<HttpResponse<String>> first = client.sendAsync(get(SLOW), BodyHandlers.ofString());
        CompletableFuture<HttpResponse<String>> second = client.sendAsync(get(SLOW), BodyHandlers.ofString());
        int sent = delegate.requests.size();
        Throwable refused = catchThrowable(() -> mode.call(client, get(SLOW), BodyHandlers.ofString()));

        // then, configured not to wait, it is refused at once, with nothing sent, and not retried
        assertThat(refused)
                .isInstanceOf(ConcurrencyLimitExceededException.class)
                .hasMessage("Concurrency limit of 'http://slow.test:80' reached: 2 attempts in flight,"
                        + " as many as its latency allows now; did not wait for a place");
        assertThat(((ConcurrencyLimitExceededException) refused).dependency()).isEqualTo(SLOW);
        assertThat(delegate.requests).hasSize(sent);
        DependencyStatus status = client.dependencyStatus(SLOW).orElseThrow();
        assertThat(status.concurrencyLimitRejections()).isEqualTo(1);
        assertThat(status.attemptsInFlight()).isEqualTo(2);

        // and another dependency is not limited by it
        delegate.then(answerAfter(1));
        assertThat(mode.call(client, get(OTHER), BodyHandlers.ofString()).body())
                .isEqualTo("ok");
        assertThat(client.dependencyStatus(OTHER).orElseThrow().concurrencyLimit())
                .isEqualTo(ConcurrencyLimitConfig.DEFAULT_INITIAL_LIMIT);

        // and the places come back when the calls end
        first.cancel(true);
        second.cancel(true);
        Await.awaitTrue(
                "attempts in flight ended",
                () -> client.dependencyStatus(SLOW).orElseThrow().attemptsInFlight() == 0);
    }

    @Test
    void slowErrorAnswersAreNoEvidenceOfQueueing() throws Exception {
        // given a dependency that learned a no-load latency of 10 ms
        ResilientHttpClient client = leaks.watch(
                ResilientHttpClient.newBuilder()
                        .delegate(delegate)
                        .ticker(time)
                        .retry(dev.ballast.http.retry.RetryConfig.builder()
                                .maxAttempts(1)
                                .build())
                        .defaultDependency(DependencyConfig.builder()
                                .breaker(dev.ballast.http.breaker.BreakerConfig.builder()
                                        .consecutiveFailureThreshold(0)
                                        .failureRateThreshold(100)
                                        .build())
                                .concurrencyLimit(ConcurrencyLimitConfig.builder()
                                        .initialLimit(100)
                                        .maxLimit(100)
                                        .minLimit(2)
                                        .minWindowSamples(5)
                                        .build())
                                .build())
                        .build(),
                SLOW);
        window(client, 10, 6);

        // when it answers 503 slowly, window after window
        for (int i = 0; i < 18; i++) {
            if (i % 6 == 5) {
                time.advance(ConcurrencyLimitConfig.DEFAULT_WINDOW);
            }
            delegate.then(exchange -> {
                time.advance(Duration.ofMillis(500));
                return CompletableFuture.completedFuture(ScriptedHttpClient.respond(exchange, 503, Map.of(), ""));
            });
            assertThat(client.send(get(SLOW), BodyHandlers.ofString()).statusCode())
                    .isEqualTo(503);
        }

        // then the limit has not come down: an error's latency is its own (the breaker deals with errors)
        assertThat(client.dependencyStatus(SLOW).orElseThrow().concurrencyLimit())
                .isEqualTo(100);
    }

    @Test
    void byDefaultADependencyHasAnAdaptiveLimitAndNoFixedBulkhead() throws Exception {
        ResilientHttpClient client = leaks.watch(
                ResilientHttpClient.newBuilder().delegate(delegate).ticker(time).build(), SLOW);
        delegate.then(answerAfter(1));

        client.send(get(SLOW), BodyHandlers.ofString());

        DependencyStatus status = client.dependencyStatus(SLOW).orElseThrow();
        assertThat(status.concurrencyLimit()).isEqualTo(ConcurrencyLimitConfig.DEFAULT_INITIAL_LIMIT);
        assertThat(status.maxConcurrentCalls()).isEqualTo(Integer.MAX_VALUE);
        assertThat(status.availableBulkheadPermits()).isEqualTo(Integer.MAX_VALUE);
        assertThat(status.attemptsInFlight()).isZero();
        assertThat(DependencyConfig.ofDefaults().bulkhead().enabled()).isFalse();
        assertThat(DependencyConfig.ofDefaults().concurrencyLimit()).isEqualTo(ConcurrencyLimitConfig.ofDefaults());
    }

    @Test
    void aDisabledLimitNeverRefuses() throws Exception {
        ResilientHttpClient client = leaks.watch(
                ResilientHttpClient.newBuilder()
                        .delegate(delegate)
                        .ticker(time)
                        .defaultDependency(DependencyConfig.builder()
                                .concurrencyLimit(ConcurrencyLimitConfig.disabled())
                                .build())
                        .build(),
                SLOW);
        for (int i = 0; i < 50; i++) {
            delegate.then(ScriptedHttpClient.hang());
        }
        List<CompletableFuture<HttpResponse<String>>> calls = new java.util.ArrayList<>();
        for (int i = 0; i < 50; i++) {
            calls.add(client.sendAsync(get(SLOW), BodyHandlers.ofString()));
        }

        DependencyStatus status = client.dependencyStatus(SLOW).orElseThrow();
        assertThat(status.concurrencyLimit()).isEqualTo(Integer.MAX_VALUE);
        assertThat(status.attemptsInFlight()).isEqualTo(50);
        assertThat(delegate.requests).hasSize(50);
        calls.forEach(c -> c.cancel(true));
        Await.awaitTrue(
                "attempts in flight ended",
                () -> client.dependencyStatus(SLOW).orElseThrow().attemptsInFlight() == 0);
    }
}
