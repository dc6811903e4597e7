package dev.ballast.http;

import static dev.ballast.http.Await.awaitTrue;
import static dev.ballast.http.ScriptedHttpClient.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.http.budget.RetryBudgetConfig;
import dev.ballast.http.retry.Backoff;
import dev.ballast.http.retry.Jitter;
import dev.ballast.http.retry.RetryConfig;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A request whose own timeout is longer than the client's total timeout (S3's
 * CompleteMultipartUpload, which may take minutes) keeps that whole attempt and the usual time for
 * retries after it, while every other request stays within the total timeout.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class RequestOwnTimeoutTest {

    private final ManualTicker ticker = new ManualTicker();
    private final HeldScheduler scheduler = new HeldScheduler();
    private final ScriptedHttpClient delegate = new ScriptedHttpClient();

    @AfterEach
    void stopScheduler() {
        scheduler.shutdownNow();
    }

    private ResilientHttpClient client() {
        return ResilientHttpClient.newBuilder()
                .delegate(delegate)
                .ticker(ticker)
                .scheduler(scheduler)
                .totalTimeout(Duration.ofSeconds(5))
                .retry(RetryConfig.builder().maxAttempts(2)
                        .backoff(Backoff.exponential(Duration.ofSeconds(1), Duration.ofSeconds(1), Jitter.NONE)).build())
                .defaultPolicy(DependencyPolicy.builder().retryBudget(RetryBudgetConfig.disabled()).build())
                .build();
    }

    /** The first attempt answers 503; the retry's backoff runs after {@code elapsed}. */
    private CompletableFuture<HttpResponse<Void>> retriedAfter(HttpRequest request, Duration elapsed) {
        delegate.then(status(503)).then(status(200));
        CompletableFuture<HttpResponse<Void>> call = client().sendAsync(request, BodyHandlers.discarding());
        awaitTrue("retry backoff scheduled", () -> !scheduler.held().isEmpty() || call.isDone());
        ticker.advance(elapsed);
        scheduler.runHeld();
        return call;
    }

    @Test
    void aRequestWithALongerOwnTimeoutIsRetriedPastTheClientsTotalTimeout() {
        HttpRequest slow = HttpRequest.newBuilder(URI.create("http://s3.test/bucket/key"))
                .timeout(Duration.ofMinutes(2))
                .GET()
                .build();

        CompletableFuture<HttpResponse<Void>> call = retriedAfter(slow, Duration.ofSeconds(30));

        assertThat(call.join().statusCode()).isEqualTo(200);
        assertThat(delegate.requests).hasSize(2);
    }

    @Test
    void aRequestWithoutItsOwnTimeoutEndsAtTheClientsTotalTimeout() {
        HttpRequest plain = HttpRequest.newBuilder(URI.create("http://s3.test/bucket/key")).GET().build();

        CompletableFuture<HttpResponse<Void>> call = retriedAfter(plain, Duration.ofSeconds(30));

        assertThatThrownBy(call::join).isInstanceOf(CompletionException.class)
                .hasCauseInstanceOf(HttpTimeoutException.class);
        assertThat(delegate.requests).hasSize(1);
    }
}
