package dev.ballast.it.http;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.ballast.http.CircuitOpenException;
import dev.ballast.http.DependencyConfig;
import dev.ballast.http.ResilientHttpClient;
import dev.ballast.http.RetryDecision;
import dev.ballast.http.breaker.BreakerConfig;
import dev.ballast.http.breaker.BreakerState;
import dev.ballast.http.budget.RetryBudgetConfig;
import dev.ballast.http.retry.Backoff;
import dev.ballast.http.retry.Jitter;
import dev.ballast.http.retry.RetryConfig;
import dev.ballast.testkit.FakeTime;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The per-dependency circuit breaker seen from the wire: what reaches the server in each state. */
@Timeout(60)
class CircuitBreakerIT extends WireMockSupport {

    private static final Duration OPEN_WAIT = Duration.ofSeconds(10);

    private final FakeTime ticker = new FakeTime();

    private ResilientHttpClient clientWithBreaker(BreakerConfig breaker, int maxAttempts) {
        return track(clientBuilder()
                .ticker(ticker)
                .retry(RetryConfig.builder()
                        .maxAttempts(maxAttempts)
                        .backoff(Backoff.exponential(Duration.ofMillis(5), Duration.ofMillis(20), Jitter.FULL))
                        .build())
                .defaultDependency(DependencyConfig.builder()
                        .breaker(breaker)
                        .retryBudget(RetryBudgetConfig.disabled())
                        .build())
                .build());
    }

    private static BreakerConfig.Builder consecutiveFailures(int failures) {
        return BreakerConfig.builder().consecutiveFailureThreshold(failures).waitDurationInOpenState(OPEN_WAIT);
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void openBreakerRejectsWithoutANetworkCallAndTheRejectionIsNotRetried(Mode mode) throws Exception {
        // given: 3 consecutive failures open the breaker; a call may make 5 attempts
        server.stubFor(get("/down").willReturn(aResponse().withStatus(503).withBody("down for maintenance")));
        ResilientHttpClient client = clientWithBreaker(consecutiveFailures(3).build(), 5);

        // when the first call's third failure opens the breaker mid-call
        HttpResponse<String> first = mode.call(client, httpGet("/down"), BodyHandlers.ofString());

        // then its fourth attempt is rejected without a request, and the call ends with the answer it had
        assertThat(first.statusCode()).isEqualTo(503);
        assertThat(first.body()).isEqualTo("down for maintenance");
        assertThat(listener.lastDecision().decision()).isEqualTo(RetryDecision.REJECTED);
        assertThat(listener.lastDecision().attempt()).isEqualTo(4);
        server.verify(3, getRequestedFor(urlPathEqualTo("/down")));
        assertThat(client.dependencyStatus(dependency()).orElseThrow().breakerState())
                .isEqualTo(BreakerState.OPEN);

        // when another call is made while open
        Throwable second = catchThrowable(() -> mode.call(client, httpGet("/down"), BodyHandlers.ofString()));

        // then it fails at once, is not retried, and the server sees nothing new
        assertThat(second).isInstanceOf(CircuitOpenException.class);
        assertThat(((CircuitOpenException) second).remainingOpenTime()).isPositive();
        assertThat(listener.lastDecision().decision()).isEqualTo(RetryDecision.REJECTED);
        assertThat(listener.lastDecision().attempt()).isEqualTo(1);
        server.verify(3, getRequestedFor(urlPathEqualTo("/down")));
        assertAttemptsEqualServedRequests();
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aHundredNotFoundAnswersNeverOpenTheBreaker(Mode mode) throws Exception {
        // given a breaker that opens on 5 consecutive failures or a 50 % failure rate over 10 calls
        server.stubFor(get("/missing").willReturn(aResponse().withStatus(404)));
        server.stubFor(get("/broken").willReturn(aResponse().withStatus(500)));
        ResilientHttpClient client = clientWithBreaker(
                consecutiveFailures(5)
                        .minimumNumberOfCalls(10)
                        .slidingWindowSize(20)
                        .failureRateThreshold(50)
                        .build(),
                1);

        // when
        for (int i = 0; i < 100; i++) {
            assertThat(mode.call(client, httpGet("/missing"), BodyHandlers.ofString())
                            .statusCode())
                    .isEqualTo(404);
        }

        // then
        server.verify(100, getRequestedFor(urlPathEqualTo("/missing")));
        assertThat(client.dependencyStatus(dependency()).orElseThrow().breakerState())
                .isEqualTo(BreakerState.CLOSED);
        assertThat(listener.transitions).isEmpty();

        // and the same breaker does open on real failures, so the assertion above could have failed
        for (int i = 0; i < 5; i++) {
            mode.call(client, httpGet("/broken"), BodyHandlers.ofString());
        }
        assertThat(client.dependencyStatus(dependency()).orElseThrow().breakerState())
                .isEqualTo(BreakerState.OPEN);
        assertAttemptsEqualServedRequests();
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void halfOpenBreakerUnderSixteenConcurrentCallersAdmitsExactlyThePermittedProbes(Mode mode) throws Exception {
        // given an open breaker that permits 3 half-open probes
        int probes = 3;
        server.stubFor(get("/down").willReturn(aResponse().withStatus(503)));
        // probes are slow, so every caller arrives while the probe slots are still taken
        server.stubFor(get("/probe").willReturn(aResponse().withStatus(200).withFixedDelay(1500)));
        ResilientHttpClient client = clientWithBreaker(
                consecutiveFailures(2)
                        .permittedNumberOfCallsInHalfOpenState(probes)
                        .build(),
                1);
        mode.call(client, httpGet("/down"), BodyHandlers.ofString());
        mode.call(client, httpGet("/down"), BodyHandlers.ofString());
        assertThat(client.dependencyStatus(dependency()).orElseThrow().breakerState())
                .isEqualTo(BreakerState.OPEN);

        // when the open wait (plus its maximum jitter) has passed on the breaker's ticker
        ticker.advance(OPEN_WAIT.multipliedBy(2));
        int callers = 16;
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Object>> results = new ArrayList<>();
        for (int i = 0; i < callers; i++) {
            results.add(pool.submit(() -> {
                start.await();
                try {
                    return mode.call(client, httpGet("/probe"), BodyHandlers.ofString());
                } catch (Exception e) {
                    return e;
                }
            }));
        }
        start.countDown();
        List<Object> outcomes = new ArrayList<>();
        for (Future<Object> result : results) {
            outcomes.add(result.get(30, TimeUnit.SECONDS));
        }
        pool.shutdown();

        // then exactly the permitted probes reached the server, every other caller was rejected
        assertThat(outcomes).filteredOn(HttpResponse.class::isInstance).hasSize(probes);
        assertThat(outcomes).filteredOn(CircuitOpenException.class::isInstance).hasSize(callers - probes);
        server.verify(probes, getRequestedFor(urlPathEqualTo("/probe")));
        assertThat(client.dependencyStatus(dependency()).orElseThrow().breakerState())
                .isEqualTo(BreakerState.CLOSED);
        assertAttemptsEqualServedRequests();
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void breakersAreIsolatedPerDependency(Mode mode) throws Exception {
        // given a second server: a different dependency key
        var other = newServer();
        other.stubFor(get("/ok").willReturn(aResponse().withStatus(200)));
        server.stubFor(get("/down").willReturn(aResponse().withStatus(503)));
        ResilientHttpClient client = clientWithBreaker(consecutiveFailures(2).build(), 1);

        // when the first dependency's breaker opens
        mode.call(client, httpGet("/down"), BodyHandlers.ofString());
        mode.call(client, httpGet("/down"), BodyHandlers.ofString());

        // then the second dependency is still served
        HttpResponse<String> response = mode.call(
                client,
                java.net.http.HttpRequest.newBuilder(java.net.URI.create(other.baseUrl() + "/ok"))
                        .build(),
                BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(client.dependencyStatus(dependency()).orElseThrow().breakerState())
                .isEqualTo(BreakerState.OPEN);
        assertThat(client.dependencyStatus(dependency(other)).orElseThrow().breakerState())
                .isEqualTo(BreakerState.CLOSED);
    }
}
