package dev.ballast.http;

import static dev.ballast.http.ScriptedHttpClient.status;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.http.breaker.BreakerConfig;
import dev.ballast.http.breaker.BreakerState;
import dev.ballast.http.retry.RetryConfig;
import dev.ballast.testkit.FakeTime;
import dev.ballast.testkit.LeakCheck;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What a 429 Too Many Requests does to the dependency's breaker: by default it counts as a failure
 * (the design notes' breaker table: "Throttling signal, 429: counts, but honour Retry-After first"),
 * and {@code BreakerConfig.throttlingIsFailure(false)} makes it neutral for one dependency.
 */
@Timeout(30)
@ExtendWith(LeakCheck.class)
class ThrottlingBreakerTest {

    private static final String ORIGIN = "http://quota.test:80";

    private final FakeTime ticker = new FakeTime();
    private final HeldScheduler scheduler = new HeldScheduler();
    private final ScriptedHttpClient delegate = new ScriptedHttpClient();

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    private ResilientHttpClient client(DependencyConfig dependency) {
        return ResilientHttpClient.newBuilder()
                .delegate(delegate)
                .ticker(ticker)
                .scheduler(scheduler)
                .retry(RetryConfig.builder().maxAttempts(1).build())
                .defaultDependency(dependency)
                .build();
    }

    private static HttpRequest get() {
        return HttpRequest.newBuilder(URI.create("http://quota.test/items")).build();
    }

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void fiveTooManyRequestsInARowOpenTheBreakerByDefault(CallMode mode) throws Exception {
        ResilientHttpClient client = client(DependencyConfig.ofDefaults());
        for (int i = 0; i < BreakerConfig.DEFAULT_CONSECUTIVE_FAILURE_THRESHOLD; i++) {
            delegate.then(status(429, Map.of("Retry-After", List.of("1")), "slow down"));
        }

        for (int i = 0; i < BreakerConfig.DEFAULT_CONSECUTIVE_FAILURE_THRESHOLD; i++) {
            HttpResponse<String> response = mode.call(client, get(), BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(429);
        }

        assertThat(client.dependencyStatus(ORIGIN).orElseThrow().breakerState()).isEqualTo(BreakerState.OPEN);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> mode.call(client, get(), BodyHandlers.ofString()))
                .isInstanceOf(CircuitOpenException.class);
        assertThat(delegate.requests).hasSize(BreakerConfig.DEFAULT_CONSECUTIVE_FAILURE_THRESHOLD);
    }

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void withThrottlingNeutralTheSameFiveLeaveTheBreakerClosed(CallMode mode) throws Exception {
        ResilientHttpClient client = client(DependencyConfig.builder()
                .breaker(BreakerConfig.builder().throttlingIsFailure(false).build())
                .build());
        for (int i = 0; i < BreakerConfig.DEFAULT_CONSECUTIVE_FAILURE_THRESHOLD + 1; i++) {
            delegate.then(status(429, Map.of("Retry-After", List.of("1")), "slow down"));
        }

        for (int i = 0; i < BreakerConfig.DEFAULT_CONSECUTIVE_FAILURE_THRESHOLD + 1; i++) {
            assertThat(mode.call(client, get(), BodyHandlers.ofString()).statusCode())
                    .isEqualTo(429);
        }

        assertThat(client.dependencyStatus(ORIGIN).orElseThrow().breakerState()).isEqualTo(BreakerState.CLOSED);
    }

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void conflictsOfAKeyStillBeingProcessedNeverOpenTheBreaker(CallMode mode) throws Exception {
        ResilientHttpClient client = client(DependencyConfig.ofDefaults());
        HttpRequest post = HttpRequest.newBuilder(URI.create("http://quota.test/orders"))
                .POST(HttpRequest.BodyPublishers.ofString("{}"))
                .build();
        for (int i = 0; i < BreakerConfig.DEFAULT_CONSECUTIVE_FAILURE_THRESHOLD + 1; i++) {
            delegate.then(status(409));
        }

        for (int i = 0; i < BreakerConfig.DEFAULT_CONSECUTIVE_FAILURE_THRESHOLD + 1; i++) {
            assertThat(mode.call(client, post, BodyHandlers.ofString()).statusCode())
                    .isEqualTo(409);
        }

        assertThat(client.dependencyStatus(ORIGIN).orElseThrow().breakerState()).isEqualTo(BreakerState.CLOSED);
    }
}
