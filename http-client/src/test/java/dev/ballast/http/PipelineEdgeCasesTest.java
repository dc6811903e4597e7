package dev.ballast.http;

import static dev.ballast.http.Await.awaitTrue;
import static dev.ballast.http.ScriptedHttpClient.hang;
import static dev.ballast.http.ScriptedHttpClient.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.http.retry.RetryConfig;
import dev.ballast.testkit.FakeTime;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Inputs a caller should not send and lifecycle races: a broken dependency resolver, shutdown with
 * calls in flight. Each test asserts what the caller sees and what reached the wrapped client.
 */
@Timeout(30)
@ExtendWith(LeakCheck.class)
class PipelineEdgeCasesTest {

    private final FakeTime ticker = new FakeTime();
    private final HeldScheduler scheduler = new HeldScheduler();
    private final ScriptedHttpClient delegate = new ScriptedHttpClient();
    private final ExecutorService callers = Executors.newSingleThreadExecutor();

    @AfterEach
    void stop() {
        callers.shutdownNow();
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

    @Test
    void dependencyResolverReturningNullFailsNamingTheResolverAndSendsNothing() throws Exception {
        ResilientHttpClient client =
                builder().dependencyResolver(request -> null).build();

        assertThatThrownBy(() -> client.send(get("http://api.test/"), BodyHandlers.discarding()))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("dependencyResolver returned null");
        assertThat(delegate.requests).isEmpty();
        client.shutdown();
        assertThat(client.awaitTermination(Duration.ofSeconds(5)))
                .as("no call left registered")
                .isTrue();
    }

    @Test
    void dependencyResolverThatThrowsPropagatesItsExceptionSendsNothingAndLeavesTheClientUsable() throws Exception {
        ResilientHttpClient client = builder()
                .dependencyResolver(request -> {
                    if (request.uri().getPath().equals("/bad")) {
                        throw new IllegalStateException("no dependency for /bad");
                    }
                    return "good";
                })
                .build();
        delegate.then(status(200));

        assertThatThrownBy(() -> client.send(get("http://api.test/bad"), BodyHandlers.discarding()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("no dependency for /bad");
        HttpResponse<Void> ok = client.send(get("http://api.test/fine"), BodyHandlers.discarding());

        assertThat(ok.statusCode()).isEqualTo(200);
        assertThat(delegate.requests).extracting(r -> r.uri().getPath()).containsExactly("/fine");
        assertThat(client.dependencyStatus("good").orElseThrow().attemptsInFlight())
                .isZero();
    }

    @Test
    void shutdownNowWithASendInFlightMakesSendThrowIOExceptionAndCancelsTheExchange() throws Exception {
        ResilientHttpClient client = builder().build();
        delegate.then(hang());
        Future<Throwable> blocked = callers.submit(() -> {
            try {
                client.send(get("http://api.test/slow"), BodyHandlers.discarding());
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
        awaitTrue("exchange started", () -> delegate.exchanges.size() == 1);

        client.shutdownNow();

        assertThat(blocked.get(10, TimeUnit.SECONDS))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("shut down")
                .hasMessageContaining("http://api.test:80");
        assertThat(delegate.exchanges.get(0)).isCancelled();
        assertThat(client.awaitTermination(Duration.ofSeconds(5))).isTrue();
    }

    @Test
    void shutdownNowWithASendAsyncInFlightFailsItsFutureWithIOException() {
        ResilientHttpClient client = builder().build();
        delegate.then(hang());
        CompletableFuture<HttpResponse<Void>> call =
                client.sendAsync(get("http://api.test/slow"), BodyHandlers.discarding());
        awaitTrue("exchange started", () -> delegate.exchanges.size() == 1);

        client.shutdownNow();

        assertThat(call)
                .failsWithin(Duration.ofSeconds(5))
                .withThrowableThat()
                .havingCause()
                .isInstanceOf(IOException.class);
        assertThat(delegate.exchanges.get(0)).isCancelled();
    }

    @Test
    void shutdownWithACallInFlightLetsItFinishAndRejectsNewCalls() throws Exception {
        ResilientHttpClient client = builder().build();
        CompletableFuture<Object> answer = new CompletableFuture<>();
        AtomicReference<ScriptedHttpClient.Exchange<?>> exchange = new AtomicReference<>();
        delegate.then(e -> {
            exchange.set(e);
            return answer;
        });
        CompletableFuture<HttpResponse<String>> call =
                client.sendAsync(get("http://api.test/slow"), BodyHandlers.ofString());
        awaitTrue("exchange started", () -> delegate.exchanges.size() == 1);

        client.shutdown();

        assertThat(client.isTerminated()).isFalse();
        assertThatThrownBy(() -> client.send(get("http://api.test/new"), BodyHandlers.discarding()))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("shut down");
        answer.complete(ScriptedHttpClient.respond(exchange.get(), 200, Map.of(), "finished"));
        assertThat(call)
                .succeedsWithin(Duration.ofSeconds(5))
                .extracting(HttpResponse::body)
                .isEqualTo("finished");
        assertThat(client.awaitTermination(Duration.ofSeconds(5))).isTrue();
        assertThat(delegate.requests).hasSize(1);
    }
}
