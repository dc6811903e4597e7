package dev.ballast.http;

import static dev.ballast.http.ScriptedHttpClient.status;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.http.breaker.BreakerConfig;
import dev.ballast.http.breaker.BreakerState;
import dev.ballast.http.classify.Outcome;
import dev.ballast.testkit.FakeTime;
import dev.ballast.testkit.LeakCheck;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A listener that throws, whatever it throws (an exception, a {@code NoClassDefFoundError} of a
 * metrics class missing at run time, a {@code StackOverflowError}, even an {@code OutOfMemoryError}),
 * from every callback: the call still ends with what it would have ended with, its future completes,
 * and {@code close()} returns.
 */
@Timeout(30)
@ExtendWith(LeakCheck.class)
class ListenerFailureTest {

    private final FakeTime ticker = new FakeTime();
    private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
    private final ScriptedHttpClient delegate = new ScriptedHttpClient();

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    static Stream<Arguments> failures() {
        List<Supplier<Throwable>> kinds = List.of(
                () -> new IllegalStateException("listener bug"),
                () -> new NoClassDefFoundError("io/micrometer/core/instrument/Timer"),
                () -> new StackOverflowError(),
                () -> new OutOfMemoryError("listener"));
        return Stream.of(CallMode.values())
                .flatMap(mode -> kinds.stream()
                        .map(kind -> Arguments.of(mode, kind.get().getClass().getSimpleName(), kind)));
    }

    /** Throws from every callback but {@code onClientBuilt} (whose failure is documented to fail build()). */
    private static final class ThrowingListener implements HttpClientListener {
        final Supplier<Throwable> failure;
        final AtomicInteger calls = new AtomicInteger();

        ThrowingListener(Supplier<Throwable> failure) {
            this.failure = failure;
        }

        private void fail() {
            calls.incrementAndGet();
            Throwable t = failure.get();
            if (t instanceof Error e) {
                throw e;
            }
            throw (RuntimeException) t;
        }

        @Override
        public void onAttemptStarted(String correlationId, String dependency, int attempt) {
            fail();
        }

        @Override
        public void onRetryDecision(RetryDecisionEvent event) {
            fail();
        }

        @Override
        public void onAttemptEnded(
                String dependency, int attempt, Outcome outcome, RetryDecision decision, long durationNanos) {
            fail();
        }

        @Override
        public void onCallEnded(
                String dependency, int attempts, Outcome outcome, RetryDecision decision, long durationNanos) {
            fail();
        }

        @Override
        public void onBreakerStateTransition(String dependency, BreakerState from, BreakerState to) {
            fail();
        }

        @Override
        public void onRejected(String dependency, CallRejectedException rejection) {
            fail();
        }
    }

    private static HttpRequest get() {
        return HttpRequest.newBuilder(URI.create("http://metrics-missing.test/item"))
                .build();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("failures")
    void aListenerThrowingAnythingNeitherChangesNorHangsTheCallNorClose(
            CallMode mode, String kind, Supplier<Throwable> failure) throws Exception {
        ThrowingListener listener = new ThrowingListener(failure);
        ResilientHttpClient client = ResilientHttpClient.newBuilder()
                .delegate(delegate)
                .ticker(ticker)
                .scheduler(scheduler)
                .totalTimeout(Duration.ofSeconds(5))
                .defaultDependency(DependencyConfig.builder()
                        .breaker(BreakerConfig.builder()
                                .consecutiveFailureThreshold(1)
                                .build())
                        .build())
                .listener(listener)
                .build();
        delegate.then(status(503)).then(status(200, java.util.Map.of(), "ok"));

        // the 503 opens the breaker (a transition the listener fails on), the retry is refused
        // (a rejection it fails on), and the call ends with the 503 it had
        HttpResponse<String> response = mode.call(client, get(), BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(listener.calls.get()).isGreaterThanOrEqualTo(5);
        CompletableFuture<Void> closed = CompletableFuture.runAsync(client::close);
        closed.get(10, TimeUnit.SECONDS);
        assertThat(client.isTerminated()).isTrue();
    }
}
