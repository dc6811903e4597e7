package dev.ballast.it.http;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
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
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.SubmissionPublisher;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Non-idempotent requests whose outcome is unknown: without an idempotency key they are never
 * re-sent; with one, every attempt carries the same key so the server can deduplicate.
 */
@Timeout(60)
class IdempotencyIT extends WireMockSupport {

    private static final Duration SERVER_DELAY = Duration.ofMillis(2500);
    private static final Duration ATTEMPT_TIMEOUT = Duration.ofMillis(800);

    private void stubSlowOrders() {
        // The server receives and processes the order, but answers only after the attempt timeout.
        server.stubFor(
                post("/orders").willReturn(aResponse().withStatus(201).withFixedDelay((int) SERVER_DELAY.toMillis())));
    }

    /**
     * Sends one quick request first so that class loading and connection set-up of the JDK client
     * cannot eat the short attempt timeout before the order even reaches the server.
     */
    private void warmUp(ResilientHttpClient client) throws Exception {
        server.stubFor(com.github.tomakehurst.wiremock.client.WireMock.get("/warm-up")
                .willReturn(aResponse().withStatus(204)));
        client.send(httpGet("/warm-up"), BodyHandlers.discarding());
    }

    private List<ServeEvent> orders() {
        return served().stream()
                .filter(e -> e.getRequest().getUrl().equals("/orders"))
                .toList();
    }

    private HttpRequest order() {
        return HttpRequest.newBuilder(uri("/orders"))
                .POST(BodyPublishers.ofString("{\"sku\":42}"))
                .build();
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void postWhenAttemptTimesOutAfterServerReceivedItAndNoKeySendsExactlyOneRequest(Mode mode) throws Exception {
        // given
        stubSlowOrders();
        ResilientHttpClient client = track(clientBuilder()
                .attemptTimeout(ATTEMPT_TIMEOUT)
                .idempotencyKeys(IdempotencyKeyConfig.builder()
                        .policy(IdempotencyKeyConfig.Policy.NEVER)
                        .build())
                .build());
        warmUp(client);

        // when
        Throwable thrown = catchThrowable(() -> mode.call(client, order(), BodyHandlers.ofString()));

        // then the ambiguous failure is returned unretried, as the attempt's own exception
        assertThat(thrown).isInstanceOf(HttpTimeoutException.class);
        assertThat(listener.attemptsStarted)
                .as("warm-up plus one order attempt")
                .hasValue(2);
        assertThat(listener.lastDecision().decision()).isEqualTo(RetryDecision.ABORTED);
        assertThat(listener.lastDecision().reason()).isEqualTo("not retried: non-idempotent and outcome unknown");
        awaitTrue("server logged the order", () -> orders().size() >= 1);
        assertThat(orders()).hasSize(1);
        assertThat(orders().get(0).getRequest().containsHeader(IdempotencyKeyConfig.DEFAULT_HEADER))
                .isFalse();
        assertAttemptsEqualServedRequests();
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void postWhenAttemptsTimeOutWithKeyPolicyEveryAttemptCarriesTheSameIdempotencyKey(Mode mode) throws Exception {
        // given the default key policy (non-idempotent methods get a key)
        stubSlowOrders();
        ResilientHttpClient client =
                track(clientBuilder().attemptTimeout(ATTEMPT_TIMEOUT).build());
        warmUp(client);

        // when
        Throwable thrown = catchThrowable(() -> mode.call(client, order(), BodyHandlers.ofString()));

        // then all attempts failed ambiguously, and the server saw one key three times
        assertThat(thrown).isInstanceOf(RetriesExhaustedException.class);
        RetriesExhaustedException exhausted = (RetriesExhaustedException) thrown;
        assertThat(exhausted.attempts()).isEqualTo(3);
        assertThat(exhausted.dependency()).isEqualTo(dependency());
        assertThat(exhausted.getSuppressed()).hasSize(3).allMatch(HttpTimeoutException.class::isInstance);
        awaitTrue("server logged three orders", () -> orders().size() >= 3);
        List<ServeEvent> served = orders();
        assertThat(served).hasSize(3);
        List<String> keys = served.stream()
                .map(e -> e.getRequest().getHeader(IdempotencyKeyConfig.DEFAULT_HEADER))
                .toList();
        assertThat(keys.get(0)).isNotBlank();
        assertThat(keys).containsOnly(keys.get(0));
        assertThat(served)
                .allSatisfy(e -> assertThat(e.getRequest().getBodyAsString()).isEqualTo("{\"sku\":42}"));
        assertAttemptsEqualServedRequests();
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void postWithCallerSuppliedKeyKeepsTheCallersKeyOnEveryAttempt(Mode mode) throws Exception {
        // given
        server.stubFor(post("/orders")
                .inScenario("o")
                .whenScenarioStateIs("Started")
                .willReturn(aResponse().withStatus(503))
                .willSetStateTo("ok"));
        server.stubFor(post("/orders")
                .inScenario("o")
                .whenScenarioStateIs("ok")
                .willReturn(aResponse().withStatus(201)));
        ResilientHttpClient client = client();
        HttpRequest request = HttpRequest.newBuilder(uri("/orders"))
                .header(IdempotencyKeyConfig.DEFAULT_HEADER, "caller-key-1")
                .POST(BodyPublishers.ofString("x"))
                .build();

        // when
        int status = mode.call(client, request, BodyHandlers.ofString()).statusCode();

        // then
        assertThat(status).isEqualTo(201);
        assertThat(served())
                .extracting(e -> e.getRequest().getHeader(IdempotencyKeyConfig.DEFAULT_HEADER))
                .containsExactly("caller-key-1", "caller-key-1");
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void bodyThatCannotBeReplayedIsNeverRetriedButAReplayableWrapperIs(Mode mode) throws Exception {
        // given a server that fails the first PUT of each body
        server.stubFor(com.github.tomakehurst.wiremock.client.WireMock.put("/blob")
                .inScenario("b")
                .whenScenarioStateIs("Started")
                .willReturn(aResponse().withStatus(503))
                .willSetStateTo("ok"));
        server.stubFor(com.github.tomakehurst.wiremock.client.WireMock.put("/blob")
                .inScenario("b")
                .whenScenarioStateIs("ok")
                .willReturn(aResponse().withStatus(200)));
        ResilientHttpClient client = client();
        byte[] bytes = "payload".getBytes(StandardCharsets.UTF_8);
        HttpRequest oneShot = HttpRequest.newBuilder(uri("/blob"))
                .PUT(BodyPublishers.fromPublisher(publisherOf(bytes), bytes.length))
                .build();

        // when a one-shot publisher fails
        int first = mode.call(client, oneShot, BodyHandlers.ofString()).statusCode();

        // then it is returned unretried
        assertThat(first).isEqualTo(503);
        assertThat(listener.lastDecision().reason()).isEqualTo("not retried: request body cannot be replayed");
        assertThat(served()).hasSize(1);

        // when the same body is wrapped as replayable and fails again
        server.setScenarioState("b", "Started");
        HttpRequest replayable = HttpRequest.newBuilder(uri("/blob"))
                .PUT(ReplayableBodyPublisher.ofSupplier(
                        () -> BodyPublishers.fromPublisher(publisherOf(bytes), bytes.length), bytes.length))
                .build();
        int second = mode.call(client, replayable, BodyHandlers.ofString()).statusCode();

        // then it is retried with the same bytes
        assertThat(second).isEqualTo(200);
        assertThat(served()).hasSize(3);
        assertThat(served().subList(1, 3))
                .allSatisfy(e -> assertThat(e.getRequest().getBodyAsString()).isEqualTo("payload"));
        assertAttemptsEqualServedRequests();
    }

    private static SubmissionPublisher<ByteBuffer> publisherOf(byte[] bytes) {
        SubmissionPublisher<ByteBuffer> publisher = new SubmissionPublisher<>() {
            @Override
            public void subscribe(java.util.concurrent.Flow.Subscriber<? super ByteBuffer> subscriber) {
                super.subscribe(subscriber);
                submit(ByteBuffer.wrap(bytes));
                close();
            }
        };
        return publisher;
    }
}
