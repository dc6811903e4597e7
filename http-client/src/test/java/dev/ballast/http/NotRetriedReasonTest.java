package dev.ballast.http;

import static dev.ballast.http.ScriptedHttpClient.failure;
import static dev.ballast.http.ScriptedHttpClient.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.ballast.http.budget.RetryBudgetConfig;
import dev.ballast.http.idempotency.IdempotencyKeyConfig;
import dev.ballast.http.retry.RetryConfig;
import dev.ballast.testkit.FakeTime;
import dev.ballast.testkit.LeakCheck;
import java.io.ByteArrayInputStream;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The exception a caller gets says why the call was not retried, keeping the type it would have
 * had; a DNS failure names the host; a client that retries warns once per dependency about bodies
 * it cannot replay, naming the fix.
 */
@Timeout(30)
@ExtendWith(LeakCheck.class)
class NotRetriedReasonTest {

    private final FakeTime ticker = new FakeTime();
    private final HeldScheduler scheduler = new HeldScheduler();
    private final ScriptedHttpClient delegate = new ScriptedHttpClient();

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    private ResilientHttpClient.Builder builder() {
        return ResilientHttpClient.newBuilder()
                .delegate(delegate)
                .ticker(ticker)
                .scheduler(scheduler);
    }

    /** A body the JDK cannot send twice: an input stream. */
    private static HttpRequest streamedPost(String host) {
        return HttpRequest.newBuilder(URI.create("http://" + host + "/upload"))
                .POST(BodyPublishers.ofInputStream(
                        () -> new ByteArrayInputStream("payload".getBytes(StandardCharsets.UTF_8))))
                .build();
    }

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void aBodyThatCannotBeReplayedIsNamedWithItsFixOnTheAttemptsOwnException(CallMode mode) {
        ResilientHttpClient client = builder().build();
        delegate.then(failure(new ConnectException("Connection refused")));

        Throwable thrown =
                catchThrowable(() -> mode.call(client, streamedPost("upload.test"), BodyHandlers.ofString()));

        assertThat(thrown)
                .isExactlyInstanceOf(ConnectException.class)
                .hasMessageContaining("Connection refused")
                .hasMessageContaining(
                        "call to dependency 'http://upload.test:80' not retried:" + " request body cannot be replayed")
                .hasMessageContaining("request body cannot be replayed after attempt 1; wrap the body in"
                        + " dev.ballast.http.ReplayableBodyPublisher")
                .hasMessageEndingWith("use the Spring request factory of ballast-spring-boot-starter,"
                        + " which sends bodies up to ballast.http.request-factory.max-buffered-request-size"
                        + " (1 MiB by default) replayably)");
        assertThat(thrown.getCause()).hasMessage("Connection refused");
        assertThat(delegate.requests).hasSize(1);
    }

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void anAmbiguousFailureOfAnUnkeyedPostSaysItWasNotIdempotent(CallMode mode) {
        ResilientHttpClient client =
                builder().idempotencyKeys(IdempotencyKeyConfig.disabled()).build();
        delegate.then(failure(new SocketException("Connection reset")));
        HttpRequest post = HttpRequest.newBuilder(URI.create("http://orders.test/orders"))
                .POST(BodyPublishers.ofString("{}"))
                .build();

        Throwable thrown = catchThrowable(() -> mode.call(client, post, BodyHandlers.ofString()));

        assertThat(thrown)
                .isExactlyInstanceOf(SocketException.class)
                .hasMessage("Connection reset (call to dependency 'http://orders.test:80'"
                        + " not retried: non-idempotent and outcome unknown after attempt 1)");
    }

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void anEmptyRetryBudgetIsNamed(CallMode mode) {
        ResilientHttpClient client = builder()
                .defaultDependency(DependencyConfig.builder()
                        .retryBudget(RetryBudgetConfig.builder()
                                .ratio(0)
                                .minRetriesPerSecond(0)
                                .build())
                        .build())
                .build();
        delegate.then(failure(new ConnectException("Connection refused")));

        Throwable thrown = catchThrowable(() -> mode.call(client, get("budget.test"), BodyHandlers.ofString()));

        assertThat(thrown)
                .isInstanceOf(RetriesExhaustedException.class)
                .hasMessageContaining("not retried: retry budget exhausted")
                .hasMessageContaining("last failure: java.net.ConnectException: Connection refused");
    }

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void anUnresolvableHostIsNamed(CallMode mode) {
        ResilientHttpClient client = ResilientHttpClient.newBuilder()
                .retry(RetryConfig.builder().maxAttempts(1).build())
                .build();
        try {
            Throwable thrown =
                    catchThrowable(() -> mode.call(client, get("no-such-host.invalid"), BodyHandlers.ofString()));

            assertThat(thrown).isInstanceOf(RetriesExhaustedException.class);
            assertThat(thrown.getCause())
                    .isExactlyInstanceOf(ConnectException.class)
                    .hasMessage("cannot resolve host 'no-such-host.invalid'");
            assertThat(thrown).hasMessageContaining("cannot resolve host 'no-such-host.invalid'");
        } finally {
            client.close();
        }
    }

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void aResponseReturnedUnretriedCarriesItsReasonInTheDecisionEvent(CallMode mode) throws Exception {
        List<HttpClientListener.RetryDecisionEvent> decisions = new java.util.concurrent.CopyOnWriteArrayList<>();
        ResilientHttpClient client = builder()
                .listener(new HttpClientListener() {
                    @Override
                    public void onRetryDecision(RetryDecisionEvent event) {
                        decisions.add(event);
                    }
                })
                .build();
        delegate.then(status(503));

        assertThat(mode.call(client, streamedPost("answer.test"), BodyHandlers.ofString())
                        .statusCode())
                .isEqualTo(503);

        assertThat(decisions).singleElement().satisfies(event -> {
            assertThat(event.decision()).isEqualTo(RetryDecision.ABORTED);
            assertThat(event.reason()).isEqualTo("not retried: request body cannot be replayed");
        });
    }

    @Test
    void aClientThatRetriesWarnsOncePerDependencyAboutBodiesItCannotReplay() throws Exception {
        ResilientHttpClient client = builder().build();
        delegate.then(status(200)).then(status(200)).then(status(200));

        List<String> warnings = LogCapture.linesMentioning("warned.test", () -> {
            client.send(streamedPost("warned.test"), BodyHandlers.ofString());
            client.send(streamedPost("warned.test"), BodyHandlers.ofString());
            client.sendAsync(streamedPost("warned.test"), BodyHandlers.ofString())
                    .get();
        });

        assertThat(warnings)
                .singleElement()
                .satisfies(line -> assertThat(line)
                        .contains("WARN", "request body cannot be replayed dependency=http://warned.test:80")
                        .contains("ReplayableBodyPublisher", "ballast-spring-boot-starter"));
    }

    @Test
    void aClientThatDoesNotRetryDoesNotWarn() throws Exception {
        ResilientHttpClient client =
                builder().retry(RetryConfig.builder().maxAttempts(1).build()).build();
        delegate.then(status(200));

        List<String> warnings = LogCapture.linesMentioning(
                "quiet.test", () -> client.send(streamedPost("quiet.test"), BodyHandlers.ofString()));

        assertThat(warnings).isEmpty();
    }

    private static HttpRequest get(String host) {
        return HttpRequest.newBuilder(URI.create("http://" + host + "/item")).build();
    }
}
