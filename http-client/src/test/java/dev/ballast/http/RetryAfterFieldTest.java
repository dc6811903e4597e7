package dev.ballast.http;

import static dev.ballast.http.Await.awaitTrue;
import static dev.ballast.http.ScriptedHttpClient.status;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.testkit.FakeTime;
import dev.ballast.testkit.LeakCheck;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The field case of a 429 whose {@code Retry-After} date has a one-digit day, as Java's
 * {@code DateTimeFormatter.RFC_1123_DATE_TIME} writes it on the 1st to the 9th of a month: the
 * client waits for the instant the server named, through {@code send} and {@code sendAsync}.
 */
@Timeout(30)
@ExtendWith(LeakCheck.class)
class RetryAfterFieldTest {

    private static final String ONE_DIGIT_DAY = "Tue, 1 Dec 2026 18:39:01 GMT";

    private final HeldScheduler scheduler = new HeldScheduler();
    private final ScriptedHttpClient delegate = new ScriptedHttpClient();
    private final List<HttpClientListener.RetryDecisionEvent> decisions = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    private ResilientHttpClient client(FakeTime time) {
        return ResilientHttpClient.newBuilder()
                .delegate(delegate)
                .clock(time)
                .ticker(time)
                .scheduler(scheduler)
                .listener(new HttpClientListener() {
                    @Override
                    public void onRetryDecision(RetryDecisionEvent event) {
                        decisions.add(event);
                    }
                })
                .build();
    }

    private static HttpRequest get() {
        return HttpRequest.newBuilder(URI.create("http://quota.test/items")).build();
    }

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void aOneDigitDayDateFurtherAwayThanMaxRetryAfterIsUnderstoodAndTheResponseReturnedAtOnce(CallMode mode)
            throws Exception {
        // 60 s before the named instant; maxRetryAfter is 30 s by default.
        ResilientHttpClient client = client(new FakeTime(Instant.parse("2026-12-01T18:38:01Z")));
        delegate.then(status(429, Map.of("Retry-After", List.of(ONE_DIGIT_DAY)), "slow down"))
                .then(status(200));

        HttpResponse<String> response = mode.call(client, get(), BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(429);
        assertThat(delegate.requests).hasSize(1);
        assertThat(decisions).singleElement().satisfies(event -> {
            assertThat(event.decision()).isEqualTo(RetryDecision.GAVE_UP);
            assertThat(event.reason()).isEqualTo("Retry-After of 60000 ms exceeds maxRetryAfter of 30000 ms");
        });
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                ONE_DIGIT_DAY,
                "Tue, 01 Dec 2026 18:39:01 GMT",
                "tue, 1 dec 2026 18:39:01 gmt",
                "Tue,  1 Dec 2026 18:39:01 +0000",
                "1 Dec 2026 18:39:01 GMT",
                "Tuesday, 01-Dec-26 18:39:01 GMT",
                "Tue Dec  1 18:39:01 2026"
            })
    void theRetryWaitsExactlyUntilTheInstantTheServerNamed(String retryAfter) throws Exception {
        ResilientHttpClient client = client(new FakeTime(Instant.parse("2026-12-01T18:39:00Z")));
        delegate.then(status(429, Map.of("Retry-After", List.of(retryAfter)), "slow down"))
                .then(status(200));

        CompletableFuture<HttpResponse<String>> call = client.sendAsync(get(), BodyHandlers.ofString());
        awaitTrue("backoff scheduled", () -> !scheduler.pending().isEmpty());

        assertThat(scheduler.pending())
                .singleElement()
                .satisfies(backoff -> assertThat(backoff.delayNanos)
                        .isEqualTo(Duration.ofSeconds(1).toNanos()));
        assertThat(delegate.requests).hasSize(1);
        scheduler.runHeld();
        assertThat(call.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    }

    @Test
    void sendWaitsAtLeastTheServersWaitBeforeTheSecondAttempt() throws Exception {
        ResilientHttpClient client = client(new FakeTime(Instant.parse("2026-12-01T18:39:00.800Z")));
        delegate.then(status(429, Map.of("Retry-After", List.of(ONE_DIGIT_DAY)), "slow down"))
                .then(status(200));

        HttpResponse<String> response = client.send(get(), BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(decisions.get(0).decision()).isEqualTo(RetryDecision.RETRYING);
        assertThat(decisions.get(0).delay()).isGreaterThanOrEqualTo(Duration.ofMillis(200));
    }
}
