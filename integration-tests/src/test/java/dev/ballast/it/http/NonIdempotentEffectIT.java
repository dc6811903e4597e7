package dev.ballast.it.http;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.put;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.github.tomakehurst.wiremock.stubbing.ServeEvent;
import dev.ballast.http.ReplayableBodyPublisher;
import dev.ballast.http.ResilientHttpClient;
import dev.ballast.http.RetriesExhaustedException;
import dev.ballast.http.RetryDecision;
import dev.ballast.http.idempotency.IdempotencyKeyConfig;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A PUT whose effect is not idempotent (a versioned S3 bucket stores a new version each time one
 * lands) is marked with {@link ReplayableBodyPublisher#nonIdempotent()}: retried after failures the
 * server did not act on, never after an ambiguous one, and given no idempotency key of ours.
 */
@Timeout(60)
class NonIdempotentEffectIT extends WireMockSupport {

    private static final Duration ATTEMPT_TIMEOUT = Duration.ofMillis(800);
    private static final byte[] CONTENT = "version-2".getBytes(StandardCharsets.UTF_8);

    private HttpRequest putObject(boolean markedNonIdempotent) {
        ReplayableBodyPublisher body =
                ReplayableBodyPublisher.ofSupplier(() -> BodyPublishers.ofByteArray(CONTENT), CONTENT.length);
        return HttpRequest.newBuilder(uri("/bucket/key"))
                .PUT(markedNonIdempotent ? body.nonIdempotent() : body)
                .build();
    }

    private List<ServeEvent> puts() {
        return served().stream()
                .filter(e -> e.getRequest().getUrl().equals("/bucket/key"))
                .toList();
    }

    private void warmUp(ResilientHttpClient client) throws Exception {
        server.stubFor(com.github.tomakehurst.wiremock.client.WireMock.get("/warm-up")
                .willReturn(aResponse().withStatus(204)));
        client.send(httpGet("/warm-up"), BodyHandlers.discarding());
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void putMarkedNonIdempotentWhenAttemptTimesOutAfterServerReceivedItIsNotRepeated(Mode mode) throws Exception {
        // given the server stores the PUT but answers only after the attempt timeout
        server.stubFor(put("/bucket/key").willReturn(aResponse().withStatus(200).withFixedDelay(2500)));
        ResilientHttpClient client =
                track(clientBuilder().attemptTimeout(ATTEMPT_TIMEOUT).build());
        warmUp(client);

        // when
        Throwable thrown = catchThrowable(() -> mode.call(client, putObject(true), BodyHandlers.ofString()));

        // then the ambiguous failure comes back unretried: the server holds exactly one new version
        assertThat(thrown).isInstanceOf(HttpTimeoutException.class);
        assertThat(listener.lastDecision().decision()).isEqualTo(RetryDecision.ABORTED);
        assertThat(listener.lastDecision().reason()).isEqualTo("not retried: non-idempotent and outcome unknown");
        awaitTrue("server logged the PUT", () -> puts().size() >= 1);
        assertThat(puts()).hasSize(1);
        assertThat(puts().get(0).getRequest().containsHeader(IdempotencyKeyConfig.DEFAULT_HEADER))
                .as("no key of ours: the server would ignore it")
                .isFalse();
        assertAttemptsEqualServedRequests();
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void putNotMarkedWhenAttemptTimesOutIsRepeatedAsAnIdempotentMethod(Mode mode) throws Exception {
        // given the same slow server, and a PUT whose effect is idempotent
        server.stubFor(put("/bucket/key").willReturn(aResponse().withStatus(200).withFixedDelay(2500)));
        ResilientHttpClient client =
                track(clientBuilder().attemptTimeout(ATTEMPT_TIMEOUT).build());
        warmUp(client);

        // when
        Throwable thrown = catchThrowable(() -> mode.call(client, putObject(false), BodyHandlers.ofString()));

        // then every attempt was made (RFC 9110 §9.2.2: PUT is idempotent)
        assertThat(thrown).isInstanceOf(RetriesExhaustedException.class);
        awaitTrue("server logged three PUTs", () -> puts().size() >= 3);
        assertThat(puts()).hasSize(3);
        assertAttemptsEqualServedRequests();
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void putMarkedNonIdempotentWhenServerAnswers503IsRetriedWithTheSameBytes(Mode mode) throws Exception {
        // given 503 (the server did not act on it), then 200
        server.stubFor(put("/bucket/key")
                .inScenario("p")
                .whenScenarioStateIs("Started")
                .willReturn(aResponse().withStatus(503))
                .willSetStateTo("ok"));
        server.stubFor(put("/bucket/key")
                .inScenario("p")
                .whenScenarioStateIs("ok")
                .willReturn(aResponse().withStatus(200)));
        ResilientHttpClient client = track(clientBuilder().build());

        // when
        HttpResponse<String> response = mode.call(client, putObject(true), BodyHandlers.ofString());

        // then
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(puts())
                .hasSize(2)
                .allSatisfy(e -> assertThat(e.getRequest().getBody()).isEqualTo(CONTENT));
        assertAttemptsEqualServedRequests();
    }
}
