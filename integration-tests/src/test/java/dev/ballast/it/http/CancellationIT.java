package dev.ballast.it.http;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.http.DependencyConfig;
import dev.ballast.http.HeldScheduler;
import dev.ballast.http.ResilientHttpClient;
import dev.ballast.http.breaker.BreakerConfig;
import dev.ballast.http.breaker.BreakerState;
import dev.ballast.http.budget.RetryBudgetConfig;
import dev.ballast.http.retry.Backoff;
import dev.ballast.http.retry.Jitter;
import dev.ballast.http.retry.RetryConfig;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Cancelling a call (the future of {@code sendAsync}, an interrupt of {@code send}) stops it
 * completely: no further attempt, every permit released, and no breaker failure.
 */
@Timeout(60)
class CancellationIT extends WireMockSupport {

    private final HeldScheduler scheduler = new HeldScheduler();
    private final ExecutorService callers = Executors.newSingleThreadExecutor();

    @AfterEach
    void stopThreads() {
        callers.shutdownNow();
        scheduler.shutdownNow();
    }

    /** A client whose backoffs wait on the held scheduler, and whose breaker opens on one failure. */
    private ResilientHttpClient client(int maxAttempts) {
        return track(clientBuilder()
                .scheduler(scheduler)
                .retry(RetryConfig.builder()
                        .maxAttempts(maxAttempts)
                        .backoff(Backoff.exponential(Duration.ofSeconds(1), Duration.ofSeconds(1), Jitter.NONE))
                        .build())
                .defaultDependency(DependencyConfig.builder()
                        .breaker(BreakerConfig.builder()
                                .consecutiveFailureThreshold(1)
                                .build())
                        .retryBudget(RetryBudgetConfig.disabled())
                        .build())
                .build());
    }

    /** Runs a blocking {@code send} on a caller thread the test can interrupt; yields what it threw. */
    private Future<Throwable> sendOnCallerThread(
            ResilientHttpClient client, String path, AtomicReference<Thread> caller) {
        return callers.submit(() -> {
            caller.set(Thread.currentThread());
            try {
                client.send(httpGet(path), BodyHandlers.ofString());
                return null;
            } catch (Exception e) {
                return e;
            }
        });
    }

    private void awaitAllPermits(ResilientHttpClient client) {
        int max = DependencyConfig.ofDefaults().bulkhead().maxConcurrentCalls();
        awaitTrue(
                "every bulkhead permit released",
                () -> client.dependencyStatus(dependency()).orElseThrow().availableBulkheadPermits() == max);
    }

    @Test
    void sendAsyncCancelledDuringBackoffSendsNoFurtherRequestAndCompletesWithCancellation() throws Exception {
        // given a call that failed once and waits out its backoff
        server.stubFor(get("/down").willReturn(aResponse().withStatus(503)));
        ResilientHttpClient client = client(5);
        CompletableFuture<HttpResponse<String>> call = client.sendAsync(httpGet("/down"), BodyHandlers.ofString());
        assertThat(listener.awaitRetrying()).isTrue();
        // the decision is reported just before its backoff is scheduled: wait for the backoff itself
        awaitTrue("the backoff is scheduled", () -> !scheduler.held().isEmpty());

        // when
        call.cancel(true);

        // then the caller sees a cancellation, and releasing every held delay starts nothing
        assertThatThrownBy(call::join).isInstanceOf(CancellationException.class);
        assertThat(scheduler.held())
                .as("the pending backoff was cancelled")
                .anySatisfy(task -> assertThat(task.isCancelled()).isTrue());
        scheduler.runHeld();
        awaitAllPermits(client);
        assertThat(listener.attemptsStarted).hasValue(1);
        assertThat(server.getAllServeEvents()).hasSize(1);
    }

    @Test
    void sendInterruptedDuringBackoffThrowsInterruptedAndSendsNoFurtherRequest() throws Exception {
        // given
        server.stubFor(get("/down").willReturn(aResponse().withStatus(503)));
        ResilientHttpClient client = client(5);
        AtomicReference<Thread> caller = new AtomicReference<>();
        Future<Throwable> outcome = sendOnCallerThread(client, "/down", caller);
        assertThat(listener.awaitRetrying()).isTrue();

        // when
        caller.get().interrupt();

        // then
        assertThat(outcome.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        scheduler.runHeld();
        awaitAllPermits(client);
        assertThat(listener.attemptsStarted).hasValue(1);
        assertThat(server.getAllServeEvents()).hasSize(1);
    }

    @Test
    void sendAsyncCancelledInFlightReleasesItsPermitAndIsNoBreakerFailure() throws Exception {
        // given an exchange the server holds for 3 s
        server.stubFor(get("/slow").willReturn(aResponse().withStatus(200).withFixedDelay(3000)));
        ResilientHttpClient client = client(3);
        CompletableFuture<HttpResponse<String>> call = client.sendAsync(httpGet("/slow"), BodyHandlers.ofString());
        int max = DependencyConfig.ofDefaults().bulkhead().maxConcurrentCalls();
        awaitTrue(
                "attempt holds a bulkhead permit",
                () -> client.dependencyStatus(dependency())
                        .map(s -> s.availableBulkheadPermits() == max - 1)
                        .orElse(false));

        // when
        call.cancel(true);

        // then
        assertThatThrownBy(call::join).isInstanceOf(CancellationException.class);
        awaitAllPermits(client);
        // one failure would have opened this breaker
        assertThat(client.dependencyStatus(dependency()).orElseThrow().breakerState())
                .isEqualTo(BreakerState.CLOSED);
        scheduler.runHeld();
        assertThat(listener.attemptsStarted).hasValue(1);
    }

    @Test
    void sendInterruptedInFlightReleasesItsPermitAndIsNoBreakerFailure() throws Exception {
        // given
        server.stubFor(get("/slow").willReturn(aResponse().withStatus(200).withFixedDelay(3000)));
        ResilientHttpClient client = client(3);
        int max = DependencyConfig.ofDefaults().bulkhead().maxConcurrentCalls();
        AtomicReference<Thread> caller = new AtomicReference<>();
        Future<Throwable> outcome = sendOnCallerThread(client, "/slow", caller);
        awaitTrue(
                "attempt holds a bulkhead permit",
                () -> client.dependencyStatus(dependency())
                        .map(s -> s.availableBulkheadPermits() == max - 1)
                        .orElse(false));

        // when
        caller.get().interrupt();

        // then
        assertThat(outcome.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        awaitAllPermits(client);
        assertThat(client.dependencyStatus(dependency()).orElseThrow().breakerState())
                .isEqualTo(BreakerState.CLOSED);
        scheduler.runHeld();
        assertThat(listener.attemptsStarted).hasValue(1);
    }
}
