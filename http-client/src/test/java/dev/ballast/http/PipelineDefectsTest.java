package dev.ballast.http;

import static dev.ballast.http.Await.awaitTrue;
import static dev.ballast.http.ScriptedHttpClient.failure;
import static dev.ballast.http.ScriptedHttpClient.hang;
import static dev.ballast.http.ScriptedHttpClient.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.ballast.http.breaker.BreakerConfig;
import dev.ballast.http.breaker.BreakerState;
import dev.ballast.http.budget.RetryBudgetConfig;
import dev.ballast.http.bulkhead.BulkheadConfig;
import dev.ballast.http.retry.Backoff;
import dev.ballast.http.retry.Jitter;
import dev.ballast.http.retry.RetryConfig;
import dev.ballast.testkit.FakeTime;
import dev.ballast.testkit.LeakCheck;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.security.cert.CertificateException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Defects found in the pipeline, each pinned by a test that failed before its fix: breaker reports of
 * answerless failures, the retry budget on cancellation, the bulkhead wait against the total timeout,
 * the bound on per-dependency state, and the warning about the JDK's own re-sends.
 */
@Timeout(30)
@ExtendWith(LeakCheck.class)
class PipelineDefectsTest {

    private static final String ORIGIN = "http://api.test:80";

    private final FakeTime ticker = new FakeTime();
    private final HeldScheduler scheduler = new HeldScheduler();
    private final ScriptedHttpClient delegate = new ScriptedHttpClient();

    @AfterEach
    void stopScheduler() {
        scheduler.shutdownNow();
    }

    private ResilientHttpClient.Builder builder() {
        return ResilientHttpClient.newBuilder()
                .delegate(delegate)
                .ticker(ticker)
                .scheduler(scheduler)
                .retry(RetryConfig.builder().maxAttempts(1).build());
    }

    private static HttpRequest get(String uri) {
        return HttpRequest.newBuilder(URI.create(uri)).GET().build();
    }

    private static DependencyConfig opensOnOneFailureForOneSecond() {
        return DependencyConfig.builder()
                .breaker(BreakerConfig.builder()
                        .consecutiveFailureThreshold(1)
                        .waitDurationInOpenState(Duration.ofSeconds(1))
                        .openStateJitter(0)
                        .build())
                .build();
    }

    // ---- a. an answerless permanent failure never closes a half-open breaker ---------------------

    @Test
    void halfOpenProbeFailingWithACertificateErrorReopensTheBreakerInsteadOfClosingIt() throws Exception {
        ResilientHttpClient client =
                builder().defaultDependency(opensOnOneFailureForOneSecond()).build();
        delegate.then(status(503));
        client.send(get("http://api.test/x"), BodyHandlers.discarding());
        assertThat(client.dependencyStatus(ORIGIN).orElseThrow().breakerState()).isEqualTo(BreakerState.OPEN);
        ticker.advance(Duration.ofSeconds(2));
        SSLHandshakeException certificateFailure = new SSLHandshakeException("PKIX path building failed");
        certificateFailure.initCause(new CertificateException("unknown issuer"));
        delegate.then(failure(certificateFailure));

        assertThatThrownBy(() -> client.send(get("http://api.test/x"), BodyHandlers.discarding()))
                .isInstanceOf(SSLHandshakeException.class);

        // the probe got no answer from the dependency: it must not count as a success
        assertThat(client.dependencyStatus(ORIGIN).orElseThrow().breakerState()).isEqualTo(BreakerState.OPEN);
        assertThatThrownBy(() -> client.send(get("http://api.test/x"), BodyHandlers.discarding()))
                .isInstanceOf(CircuitOpenException.class);
        assertThat(delegate.requests).hasSize(2);
    }

    @Test
    void halfOpenProbeAnswered404ClosesTheBreakerBecauseTheDependencyAnswered() throws Exception {
        ResilientHttpClient client =
                builder().defaultDependency(opensOnOneFailureForOneSecond()).build();
        delegate.then(status(503)).then(status(404));
        client.send(get("http://api.test/x"), BodyHandlers.discarding());
        ticker.advance(Duration.ofSeconds(2));

        HttpResponse<Void> response = client.send(get("http://api.test/x"), BodyHandlers.discarding());

        assertThat(response.statusCode()).isEqualTo(404);
        assertThat(client.dependencyStatus(ORIGIN).orElseThrow().breakerState()).isEqualTo(BreakerState.CLOSED);
    }

    /** Retry budget: reserve 10 tokens, each first attempt deposits 0.5. */
    private ResilientHttpClient budgetedClientWithOneSecondBackoff() {
        return builder()
                .retry(RetryConfig.builder()
                        .maxAttempts(3)
                        .backoff(Backoff.exponential(Duration.ofSeconds(1), Duration.ofSeconds(1), Jitter.NONE))
                        .build())
                .defaultDependency(DependencyConfig.builder()
                        .retryBudget(RetryBudgetConfig.builder()
                                .ratio(0.5)
                                .minRetriesPerSecond(1)
                                .ttl(Duration.ofSeconds(10))
                                .build())
                        .build())
                .build();
    }

    // ---- b. a retry cancelled during its backoff gives its budget token back ----------------------

    @Test
    void cancelDuringBackoffRefundsTheRetryBudgetTokenAndSendsNothingMore() {
        ResilientHttpClient client = budgetedClientWithOneSecondBackoff();
        delegate.then(status(503)).then(status(200));

        CompletableFuture<HttpResponse<String>> call =
                client.sendAsync(get("http://api.test/x"), BodyHandlers.ofString());
        // reserve 10 + deposit 0.5 - the retry's token 1
        awaitTrue(
                "retry decided",
                () -> client.dependencyStatus(ORIGIN).orElseThrow().availableRetries() < 10);
        assertThat(client.dependencyStatus(ORIGIN).orElseThrow().availableRetries())
                .isCloseTo(9.5, within(1e-9));

        call.cancel(true);
        // the attempt's thread may still be finishing its decision: the refund can land just after
        awaitTrue(
                "token refunded",
                () -> client.dependencyStatus(ORIGIN).orElseThrow().availableRetries() > 10);
        scheduler.runHeld();

        assertThat(call).isCompletedExceptionally();
        assertThatThrownBy(call::join).isInstanceOf(CancellationException.class);
        assertThat(client.dependencyStatus(ORIGIN).orElseThrow().availableRetries())
                .isCloseTo(10.5, within(1e-9));
        assertThat(delegate.requests).hasSize(1);
    }

    @Test
    void cancelAfterTheHeadersDecidedARetryButBeforeTheBodyDrainedRefundsTheToken() {
        ResilientHttpClient client = budgetedClientWithOneSecondBackoff();
        delegate.then(ScriptedHttpClient.headersThenStall(503));

        CompletableFuture<HttpResponse<String>> call =
                client.sendAsync(get("http://api.test/x"), BodyHandlers.ofString());
        awaitTrue(
                "retry decided on the headers",
                () -> client.dependencyStatus(ORIGIN).orElseThrow().availableRetries() < 10);

        call.cancel(true);

        assertThat(delegate.exchanges.get(0)).isCancelled();
        awaitTrue(
                "token refunded",
                () -> client.dependencyStatus(ORIGIN).orElseThrow().availableRetries() > 10);
        assertThat(client.dependencyStatus(ORIGIN).orElseThrow().availableRetries())
                .isCloseTo(10.5, within(1e-9));
        assertThat(delegate.requests).hasSize(1);
    }

    // ---- c. the bulkhead wait never outlives the total timeout ------------------------------------

    @Test
    void bulkheadWaitLongerThanTheTotalTimeoutIsCappedByTheTimeTheCallHasLeft() {
        ResilientHttpClient client = builder()
                .totalTimeout(Duration.ofSeconds(5))
                .defaultDependency(DependencyConfig.builder()
                        .bulkhead(BulkheadConfig.builder(1)
                                .maxWaitDuration(Duration.ofHours(1))
                                .build())
                        .build())
                .build();
        delegate.then(hang());
        CompletableFuture<HttpResponse<Void>> holder =
                client.sendAsync(get("http://api.test/a"), BodyHandlers.discarding());
        awaitTrue("first call holds the only permit", () -> delegate.requests.size() == 1);
        ticker.advance(Duration.ofSeconds(2));
        int heldBefore = scheduler.held().size();

        CompletableFuture<HttpResponse<Void>> queued =
                client.sendAsync(get("http://api.test/b"), BodyHandlers.discarding());

        awaitTrue(
                "queued call scheduled its bulkhead wait",
                () -> scheduler.held().size() > heldBefore);
        assertThat(scheduler.held().subList(heldBefore, scheduler.held().size()))
                .allSatisfy(task -> assertThat(task.delayNanos)
                        .isLessThanOrEqualTo(Duration.ofSeconds(5).toNanos()));
        assertThat(scheduler.held())
                .anySatisfy(task -> assertThat(task.delayNanos)
                        .isEqualTo(Duration.ofSeconds(5).toNanos()));
        queued.cancel(true);
        holder.cancel(true);
        assertThat(delegate.requests).hasSize(1);
    }

    @Test
    void bulkheadWaitOfARetryIsCappedByWhatIsLeftAndEndsTheCallWithItsAnswerWhenItExpires() {
        ResilientHttpClient client = builder()
                .totalTimeout(Duration.ofSeconds(5))
                .retry(RetryConfig.builder()
                        .maxAttempts(2)
                        .backoff(Backoff.exponential(Duration.ofSeconds(1), Duration.ofSeconds(1), Jitter.NONE))
                        .build())
                .defaultDependency(DependencyConfig.builder()
                        .bulkhead(BulkheadConfig.builder(1)
                                .maxWaitDuration(Duration.ofHours(1))
                                .build())
                        .retryBudget(RetryBudgetConfig.disabled())
                        .build())
                .build();
        delegate.then(status(503)).then(hang());
        CompletableFuture<HttpResponse<Void>> retried =
                client.sendAsync(get("http://api.test/a"), BodyHandlers.discarding());
        awaitTrue("backoff scheduled", () -> heldWithDelay(Duration.ofSeconds(1)));
        CompletableFuture<HttpResponse<Void>> holder =
                client.sendAsync(get("http://api.test/b"), BodyHandlers.discarding());
        awaitTrue("second call holds the only permit", () -> delegate.requests.size() == 2);

        ticker.advance(Duration.ofSeconds(3)); // the retried call has 2 s left
        runHeldWithDelay(Duration.ofSeconds(1)); // its backoff ends; the retry queues for the bulkhead
        awaitTrue("retry waits no longer than the 2 s left", () -> heldWithDelay(Duration.ofSeconds(2)));
        runHeldWithDelay(Duration.ofSeconds(2));

        // the retry was refused by the full bulkhead: the call ends with the 503 it already had
        assertThat(retried)
                .succeedsWithin(Duration.ofSeconds(5))
                .extracting(HttpResponse::statusCode)
                .isEqualTo(503);
        assertThat(client.dependencyStatus(ORIGIN).orElseThrow().bulkheadFullRejections())
                .isOne();
        holder.cancel(true);
        assertThat(delegate.requests).hasSize(2);
    }

    private boolean heldWithDelay(Duration delay) {
        return scheduler.held().stream().anyMatch(t -> t.delayNanos == delay.toNanos() && !t.isDone());
    }

    private void runHeldWithDelay(Duration delay) {
        scheduler.held().stream()
                .filter(t -> t.delayNanos == delay.toNanos() && !t.isDone())
                .findFirst()
                .orElseThrow()
                .run();
    }

    // ---- f. per-dependency state is bounded, evicting only idle dependencies ----------------------

    @Test
    void dependenciesBeyondTheBoundEvictTheLeastRecentlyUsedIdleOne() throws Exception {
        ResilientHttpClient client = builder().maxDependencies(2).build();
        for (String host : new String[] {"a", "b", "c"}) {
            delegate.then(status(200));
            client.send(get("http://" + host + ".test/"), BodyHandlers.discarding());
        }

        assertThat(client.dependencyStatus("http://a.test:80")).isEmpty();
        assertThat(client.dependencyStatus("http://b.test:80")).isPresent();
        assertThat(client.dependencyStatus("http://c.test:80")).isPresent();
    }

    @Test
    void dependenciesWithAnOpenBreakerOrACallInFlightAreNeverEvicted() throws Exception {
        ResilientHttpClient client = builder()
                .maxDependencies(2)
                .defaultDependency(DependencyConfig.builder()
                        .breaker(BreakerConfig.builder()
                                .consecutiveFailureThreshold(1)
                                .build())
                        .build())
                .build();
        delegate.then(status(503));
        client.send(get("http://open.test/"), BodyHandlers.discarding());
        delegate.then(hang());
        CompletableFuture<HttpResponse<Void>> busy =
                client.sendAsync(get("http://busy.test/"), BodyHandlers.discarding());
        awaitTrue("busy call sent", () -> delegate.requests.size() == 2);
        for (String host : new String[] {"c", "d", "e"}) {
            delegate.then(status(200));
            client.send(get("http://" + host + ".test/"), BodyHandlers.discarding());
        }

        assertThat(client.dependencyStatus("http://open.test:80").orElseThrow().breakerState())
                .isEqualTo(BreakerState.OPEN);
        assertThat(client.dependencyStatus("http://busy.test:80")).isPresent();
        assertThat(client.dependencyStatus("http://c.test:80")).isEmpty();
        assertThat(client.dependencyStatus("http://d.test:80")).isEmpty();
        assertThatThrownBy(() -> client.send(get("http://open.test/"), BodyHandlers.discarding()))
                .isInstanceOf(CircuitOpenException.class);
        busy.cancel(true);
    }

    @Test
    void maxDependenciesBelowOneIsRejectedNamingTheInput() {
        assertThatThrownBy(() -> ResilientHttpClient.newBuilder().maxDependencies(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxDependencies must be >= 1 but was 0");
    }

    // ---- e. the JDK's all-method retry is called out at build time --------------------------------

    @Test
    void buildWarnsWhenJdkAllMethodRetryIsEnabledAndOnlyThen() {
        String property = "jdk.httpclient.enableAllMethodRetry";
        String previous = System.getProperty(property);
        PrintStream originalErr = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try {
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            System.clearProperty(property);
            ResilientHttpClient.newBuilder().delegate(delegate).build();
            String withoutProperty = captured.toString(StandardCharsets.UTF_8);

            System.setProperty(property, "true");
            ResilientHttpClient.newBuilder().delegate(delegate).build();
            String withProperty = captured.toString(StandardCharsets.UTF_8).substring(withoutProperty.length());

            assertThat(withoutProperty).doesNotContain(property);
            assertThat(withProperty).contains("WARN").contains(property).contains("POST");
        } finally {
            System.setErr(originalErr);
            if (previous == null) {
                System.clearProperty(property);
            } else {
                System.setProperty(property, previous);
            }
        }
    }
}
