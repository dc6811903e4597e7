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
import dev.ballast.http.breaker.BreakerConfig;
import dev.ballast.http.breaker.BreakerState;
import dev.ballast.http.budget.RetryBudgetConfig;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The breaker's slow-call rule on the wire: a server that answers 200, but slower than the slow-call
 * duration threshold, is cut off like one that answers 503, while a fast one is not.
 */
@Timeout(60)
class SlowCallIT extends WireMockSupport {

    private ResilientHttpClient clientCallingAbove(Duration slowCallDurationThreshold) {
        return track(clientBuilder()
                .defaultDependency(DependencyConfig.builder()
                        .breaker(BreakerConfig.builder()
                                .slidingWindowSize(4)
                                .minimumNumberOfCalls(4)
                                .consecutiveFailureThreshold(0)
                                .slowCallRateThreshold(75)
                                .slowCallDurationThreshold(slowCallDurationThreshold)
                                .build())
                        .retryBudget(RetryBudgetConfig.disabled())
                        .build())
                .build());
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void successesSlowerThanTheThresholdOpenTheBreakerAndLaterCallsSendNothing(Mode mode) throws Exception {
        server.stubFor(get("/report")
                .willReturn(aResponse().withStatus(200).withBody("done").withFixedDelay(400)));
        ResilientHttpClient client = clientCallingAbove(Duration.ofMillis(100));

        for (int i = 0; i < 4; i++) {
            assertThat(mode.call(client, httpGet("/report"), BodyHandlers.ofString())
                            .statusCode())
                    .isEqualTo(200);
        }
        Throwable rejected = catchThrowable(() -> mode.call(client, httpGet("/report"), BodyHandlers.ofString()));

        assertThat(rejected).isInstanceOf(CircuitOpenException.class);
        assertThat(client.dependencyStatus(dependency()).orElseThrow().breakerState())
                .isEqualTo(BreakerState.OPEN);
        assertThat(listener.transitions).containsExactly("CLOSED->OPEN");
        server.verify(4, getRequestedFor(urlPathEqualTo("/report")));
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void successesFasterThanTheThresholdLeaveItClosed(Mode mode) throws Exception {
        server.stubFor(get("/quick").willReturn(aResponse().withStatus(200).withBody("done")));
        ResilientHttpClient client = clientCallingAbove(Duration.ofSeconds(5));

        for (int i = 0; i < 8; i++) {
            assertThat(mode.call(client, httpGet("/quick"), BodyHandlers.ofString())
                            .statusCode())
                    .isEqualTo(200);
        }

        assertThat(client.dependencyStatus(dependency()).orElseThrow().breakerState())
                .isEqualTo(BreakerState.CLOSED);
        assertThat(listener.transitions).isEmpty();
    }
}
