package dev.ballast.it.http;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.stubbing.Scenario.STARTED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.github.tomakehurst.wiremock.http.Fault;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;
import dev.ballast.http.HeldScheduler;
import dev.ballast.http.HttpClientListener.RetryDecisionEvent;
import dev.ballast.http.ResilientHttpClient;
import dev.ballast.http.RetriesExhaustedException;
import dev.ballast.http.RetryDecision;
import dev.ballast.http.retry.Backoff;
import dev.ballast.http.retry.Jitter;
import dev.ballast.http.retry.RetryConfig;
import java.io.InputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Retry behaviour on the wire: what the server sees for each kind of answer, through send and sendAsync. */
@Timeout(60)
class RetryIT extends WireMockSupport {

    private void stubSequence(String path, int... statuses) {
        String state = STARTED;
        for (int i = 0; i < statuses.length; i++) {
            String next = i == statuses.length - 1 ? state : "after-" + i;
            server.stubFor(get(urlPathEqualTo(path))
                    .inScenario(path)
                    .whenScenarioStateIs(state)
                    .willReturn(aResponse().withStatus(statuses[i]).withBody("body-" + i))
                    .willSetStateTo(next));
            state = next;
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void transientThenSuccessWhenServerAnswers503TwiceReturns200AfterExactlyThreeRequests(Mode mode) throws Exception {
        // given
        stubSequence("/flaky", 503, 503, 200);
        ResilientHttpClient client = client();

        // when
        HttpResponse<String> response = mode.call(client, httpGet("/flaky"), BodyHandlers.ofString());

        // then
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("body-2");
        server.verify(3, getRequestedFor(urlPathEqualTo("/flaky")));
        assertThat(listener.decisions)
                .extracting(RetryDecisionEvent::decision)
                .containsExactly(RetryDecision.RETRYING, RetryDecision.RETRYING, RetryDecision.SUCCEEDED);
        assertAttemptsEqualServedRequests();
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void discardedResponsesWhenRetriedNeverReachTheCallersBodyHandler(Mode mode) throws Exception {
        // given a handler that would leak an InputStream for every response it is given
        stubSequence("/stream", 503, 503, 200);
        ResilientHttpClient client = client();
        AtomicInteger handed = new AtomicInteger();
        BodyHandler<InputStream> counting = info -> {
            handed.incrementAndGet();
            return BodyHandlers.ofInputStream().apply(info);
        };

        // when
        HttpResponse<InputStream> response = mode.call(client, httpGet("/stream"), counting);

        // then only the final response was handed over; the two 503 bodies were drained by the client
        try (InputStream body = response.body()) {
            assertThat(new String(body.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("body-2");
        }
        assertThat(handed).hasValue(1);
        server.verify(3, getRequestedFor(urlPathEqualTo("/stream")));
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void permanentWhenServerAnswers400SendsExactlyOneRequest(Mode mode) throws Exception {
        // given
        stubSequence("/bad", 400, 200);
        ResilientHttpClient client = client();

        // when
        HttpResponse<String> response = mode.call(client, httpGet("/bad"), BodyHandlers.ofString());

        // then
        assertThat(response.statusCode()).isEqualTo(400);
        server.verify(1, getRequestedFor(urlPathEqualTo("/bad")));
        assertThat(listener.lastDecision().decision()).isEqualTo(RetryDecision.ABORTED);
        assertThat(listener.lastDecision().reason()).isEqualTo("not retried: permanent outcome");
        assertAttemptsEqualServedRequests();
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void throttledWhenServerSendsRetryAfterOneSecondSecondRequestArrivesNoEarlierThanOneSecondLater(Mode mode)
            throws Exception {
        // given: our own backoff is at most 50 ms, so only Retry-After can explain a 1 s gap
        server.stubFor(get("/throttled")
                .inScenario("t")
                .whenScenarioStateIs(STARTED)
                .willReturn(aResponse().withStatus(429).withHeader("Retry-After", "1"))
                .willSetStateTo("ok"));
        server.stubFor(get("/throttled")
                .inScenario("t")
                .whenScenarioStateIs("ok")
                .willReturn(aResponse().withStatus(200)));
        ResilientHttpClient client = client();

        // when
        HttpResponse<String> response = mode.call(client, httpGet("/throttled"), BodyHandlers.ofString());

        // then
        assertThat(response.statusCode()).isEqualTo(200);
        List<ServeEvent> served = served();
        assertThat(served).hasSize(2);
        long gapMillis = served.get(1).getRequest().getLoggedDate().getTime()
                - served.get(0).getRequest().getLoggedDate().getTime();
        assertThat(gapMillis).isGreaterThanOrEqualTo(1000);
        assertThat(listener.decisions.get(0).delay()).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
        assertAttemptsEqualServedRequests();
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void throttledWhenRetryAfterExceedsTotalTimeoutReturnsThe429AtOnceWithoutSleeping(Mode mode) throws Exception {
        // given: maxRetryAfter allows 100 s, but the total timeout is 5 s; any scheduled delay would be held forever
        server.stubFor(get("/slow-down").willReturn(aResponse().withStatus(429).withHeader("Retry-After", "100")));
        HeldScheduler scheduler = new HeldScheduler();
        ResilientHttpClient client = track(clientBuilder()
                .scheduler(scheduler)
                .totalTimeout(Duration.ofSeconds(5))
                .retry(RetryConfig.builder()
                        .maxAttempts(3)
                        .maxRetryAfter(Duration.ofMinutes(5))
                        .backoff(Backoff.exponential(Duration.ofMillis(10), Duration.ofMillis(50), Jitter.FULL))
                        .build())
                .build());

        // when
        HttpResponse<String> response = mode.call(client, httpGet("/slow-down"), BodyHandlers.ofString());

        // then
        assertThat(response.statusCode()).isEqualTo(429);
        server.verify(1, getRequestedFor(urlPathEqualTo("/slow-down")));
        RetryDecisionEvent decision = listener.lastDecision();
        assertThat(decision.decision()).isEqualTo(RetryDecision.GAVE_UP);
        assertThat(decision.reason()).contains("overrun the total timeout");
        assertThat(decision.delay()).isZero();
        assertAttemptsEqualServedRequests();
        scheduler.shutdownNow();
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void throttledWhenRetryAfterExceedsMaxRetryAfterReturnsThe429AtOnce(Mode mode) throws Exception {
        // given: default maxRetryAfter is 30 s
        server.stubFor(get("/slow-down").willReturn(aResponse().withStatus(429).withHeader("Retry-After", "100")));
        ResilientHttpClient client =
                track(clientBuilder().totalTimeout(Duration.ofMinutes(10)).build());

        // when
        HttpResponse<String> response = mode.call(client, httpGet("/slow-down"), BodyHandlers.ofString());

        // then
        assertThat(response.statusCode()).isEqualTo(429);
        server.verify(1, getRequestedFor(urlPathEqualTo("/slow-down")));
        assertThat(listener.lastDecision().decision()).isEqualTo(RetryDecision.GAVE_UP);
        assertThat(listener.lastDecision().reason()).contains("exceeds maxRetryAfter");
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void connectionResetOnGetIsRetried(Mode mode) throws Exception {
        // given: a fresh client, so the reset hits a fresh connection and the JDK does not re-send on its own
        server.stubFor(get("/reset")
                .inScenario("r")
                .whenScenarioStateIs(STARTED)
                .willReturn(aResponse().withFault(Fault.CONNECTION_RESET_BY_PEER))
                .willSetStateTo("ok"));
        server.stubFor(get("/reset")
                .inScenario("r")
                .whenScenarioStateIs("ok")
                .willReturn(aResponse().withStatus(200).withBody("recovered")));
        ResilientHttpClient client = client();

        // when
        HttpResponse<String> response = mode.call(client, httpGet("/reset"), BodyHandlers.ofString());

        // then
        assertThat(response.body()).isEqualTo("recovered");
        server.verify(2, getRequestedFor(urlPathEqualTo("/reset")));
        assertThat(listener.decisions.get(0).decision()).isEqualTo(RetryDecision.RETRYING);
        assertThat(listener.decisions.get(0).errorClass()).isNotNull();
        assertAttemptsEqualServedRequests();
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void requestTimeoutIsTheAttemptTimeoutForThatRequest(Mode mode) {
        // given a client attempt timeout of 10 s, but a request that allows 300 ms per attempt
        server.stubFor(get("/slow").willReturn(aResponse().withStatus(200).withFixedDelay(2000)));
        ResilientHttpClient client = track(clientBuilder()
                .attemptTimeout(Duration.ofSeconds(10))
                .retry(RetryConfig.builder()
                        .maxAttempts(2)
                        .backoff(Backoff.exponential(Duration.ofMillis(10), Duration.ofMillis(50), Jitter.FULL))
                        .build())
                .build());
        HttpRequest request = HttpRequest.newBuilder(uri("/slow"))
                .timeout(Duration.ofMillis(300))
                .build();

        // when
        Throwable thrown = catchThrowable(() -> mode.call(client, request, BodyHandlers.ofString()));

        // then both attempts timed out long before the server answered, and the GET was retried once
        assertThat(thrown).isInstanceOf(RetriesExhaustedException.class);
        assertThat(thrown.getSuppressed()).hasSize(2).allMatch(HttpTimeoutException.class::isInstance);
        assertThat(listener.decisions)
                .extracting(RetryDecisionEvent::decision)
                .containsExactly(RetryDecision.RETRYING, RetryDecision.GAVE_UP);
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void totalTimeoutBoundsTheWholeCallEvenWithALongAttemptTimeout(Mode mode) {
        // given
        server.stubFor(get("/slow").willReturn(aResponse().withStatus(200).withFixedDelay(5000)));
        ResilientHttpClient client = track(clientBuilder()
                .attemptTimeout(Duration.ofSeconds(30))
                .totalTimeout(Duration.ofMillis(700))
                .build());

        // when
        Throwable thrown = catchThrowable(() -> mode.call(client, httpGet("/slow"), BodyHandlers.ofString()));

        // then the call failed with a timeout, after one attempt, with no retry started past the deadline
        assertThat(thrown)
                .isInstanceOf(HttpTimeoutException.class)
                .hasMessage("total timeout of 700 ms exceeded for dependency '" + dependency() + "' after 1 attempt");
        assertThat(thrown.getSuppressed()).allMatch(HttpTimeoutException.class::isInstance);
        assertThat(listener.attemptsStarted).hasValue(1);
        assertThat(listener.lastDecision().decision()).isEqualTo(RetryDecision.GAVE_UP);
        assertThat(listener.lastDecision().reason()).isEqualTo("total timeout exceeded");
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void decisionEventsNeverCarryQueryStringsOrCredentials(Mode mode) throws Exception {
        // given
        stubSequence("/signed", 503, 200);
        ResilientHttpClient client = client();
        HttpRequest request = HttpRequest.newBuilder(uri("/signed?X-Amz-Signature=query-secret&token=query-secret"))
                .header("Authorization", "Bearer header-secret")
                .header("Cookie", "session=header-secret")
                .header("X-Amz-Security-Token", "header-secret")
                .build();

        // when
        mode.call(client, request, BodyHandlers.ofString());

        // then
        assertThat(listener.decisions).hasSize(2).allSatisfy(event -> {
            assertThat(event.path()).isEqualTo("/signed");
            assertThat(event.toString()).doesNotContain("secret");
        });
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void listenersAreAllCalledAndOneThatThrowsChangesNothing(Mode mode) throws Exception {
        // given a listener that throws on every event, added before a recording one
        stubSequence("/flaky", 503, 200);
        RecordingListener second = new RecordingListener();
        ResilientHttpClient client = track(clientBuilder()
                .listener(new dev.ballast.http.HttpClientListener() {
                    @Override
                    public void onAttemptStarted(String correlationId, String dependency, int attempt) {
                        throw new IllegalStateException("listener bug");
                    }

                    @Override
                    public void onRetryDecision(RetryDecisionEvent event) {
                        throw new IllegalStateException("listener bug");
                    }
                })
                .listener(second)
                .build());

        // when
        HttpResponse<String> response = mode.call(client, httpGet("/flaky"), BodyHandlers.ofString());

        // then the call is unaffected and every listener saw every event
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(listener.decisions)
                .extracting(RetryDecisionEvent::decision)
                .containsExactly(RetryDecision.RETRYING, RetryDecision.SUCCEEDED);
        assertThat(second.decisions)
                .extracting(RetryDecisionEvent::correlationId)
                .containsExactly(
                        listener.decisions.get(0).correlationId(),
                        listener.decisions.get(0).correlationId());
        assertThat(second.attemptsStarted).hasValue(2);
    }
}
