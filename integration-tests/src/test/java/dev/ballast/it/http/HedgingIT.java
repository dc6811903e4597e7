package dev.ballast.it.http;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.stubbing.Scenario.STARTED;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.http.DependencyConfig;
import dev.ballast.http.HttpClientListener;
import dev.ballast.http.ResilientHttpClient;
import dev.ballast.http.budget.RetryBudgetConfig;
import dev.ballast.http.hedging.HedgingConfig;
import dev.ballast.http.idempotency.IdempotencyKeyConfig;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Hedging on the wire: a first request the server sits on is hedged after the delay, the hedge's
 * quick answer is the call's, and a request that may not be sent twice is never hedged.
 */
@Timeout(60)
class HedgingIT extends WireMockSupport {

    private final List<Integer> hedgedAttempts = new CopyOnWriteArrayList<>();

    private ResilientHttpClient hedgingClient(IdempotencyKeyConfig keys) {
        return track(clientBuilder()
                .idempotencyKeys(keys)
                .defaultDependency(DependencyConfig.builder()
                        .hedging(HedgingConfig.fixedDelay(Duration.ofMillis(200)))
                        .retryBudget(RetryBudgetConfig.disabled())
                        .build())
                .listener(new HttpClientListener() {
                    @Override
                    public void onHedge(String correlationId, String dependency, int attempt, Duration delay) {
                        hedgedAttempts.add(attempt);
                    }
                })
                .build());
    }

    /** The first request is answered after 1.5 s, every later one at once. */
    private void stubSlowThenFast(String path, boolean post) {
        var first = (post ? post(path) : get(path))
                .inScenario(path)
                .whenScenarioStateIs(STARTED)
                .willReturn(aResponse().withStatus(200).withBody("slow replica").withFixedDelay(1_500))
                .willSetStateTo("warm");
        var later = (post ? post(path) : get(path))
                .inScenario(path)
                .whenScenarioStateIs("warm")
                .willReturn(aResponse().withStatus(200).withBody("fast replica"));
        server.stubFor(first);
        server.stubFor(later);
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aGetTheServerSitsOnIsHedgedAfterTheDelayAndTheHedgesAnswerWins(Mode mode) throws Exception {
        stubSlowThenFast("/item", false);
        ResilientHttpClient client = hedgingClient(IdempotencyKeyConfig.ofDefaults());

        HttpResponse<String> response = mode.call(client, httpGet("/item"), BodyHandlers.ofString());

        assertThat(response.body()).isEqualTo("fast replica");
        assertThat(hedgedAttempts).containsExactly(2);
        server.verify(2, getRequestedFor(urlPathEqualTo("/item")));
        assertAttemptsEqualServedRequests();
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aPostWithoutIdempotencyKeyIsNeverHedged(Mode mode) throws Exception {
        stubSlowThenFast("/orders", true);
        ResilientHttpClient client = hedgingClient(IdempotencyKeyConfig.builder()
                .policy(IdempotencyKeyConfig.Policy.NEVER)
                .build());

        HttpResponse<String> response = mode.call(
                client,
                HttpRequest.newBuilder(uri("/orders"))
                        .POST(BodyPublishers.ofString("{}"))
                        .build(),
                BodyHandlers.ofString());

        assertThat(response.body()).isEqualTo("slow replica");
        assertThat(hedgedAttempts).isEmpty();
        server.verify(1, postRequestedFor(urlPathEqualTo("/orders")));
    }
}
