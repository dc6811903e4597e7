package dev.ballast.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.ballast.http.ScriptedHttpClient.Exchange;
import dev.ballast.http.ScriptedHttpClient.Step;
import dev.ballast.http.limit.ConcurrencyLimitConfig;
import dev.ballast.testkit.FakeTime;
import dev.ballast.testkit.LeakCheck;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * An attempt over the adaptive concurrency limit waits for a place (issue 21 items 6 and 7): a burst
 * that {@code HttpClient} would complete completes, and only a wait that runs out is refused.
 */
@Timeout(60)
class ConcurrencyLimitWaitTest {

    private static final String API = "http://api.test:80";

    @RegisterExtension
    static final LeakCheck leaks = new LeakCheck();

    private final FakeTime time = new FakeTime();
    private final HeldScheduler scheduler = new HeldScheduler();
    private final ScriptedHttpClient delegate = new ScriptedHttpClient();

    /** The exchanges the queueing server has accepted and not yet answered, oldest first. */
    private final ConcurrentLinkedQueue<Queued> serverQueue = new ConcurrentLinkedQueue<>();

    private final AtomicInteger atServer = new AtomicInteger();
    private final AtomicInteger mostAtServer = new AtomicInteger();

    private record Queued(Exchange<?> exchange, CompletableFuture<HttpResponse<?>> answer) {}

    @AfterEach
    void stopScheduler() {
        scheduler.shutdownNow();
    }

    private static HttpRequest get() {
        return HttpRequest.newBuilder(URI.create(API + "/item")).GET().build();
    }

    /** Answers 200 after {@code millis} of the fake ticker. */
    private Step answerAfter(long millis) {
        return exchange -> {
            time.advance(Duration.ofMillis(millis));
            return CompletableFuture.completedFuture(ScriptedHttpClient.respond(exchange, 200, Map.of(), "ok"));
        };
    }

    /** A server with a queue: it accepts every exchange and answers them in arrival order when told to. */
    private Step queued() {
        return exchange -> {
            CompletableFuture<HttpResponse<?>> answer = new CompletableFuture<>();
            // queued before counted: a test that sees the count above zero always finds the exchange
            serverQueue.add(new Queued(exchange, answer));
            int now = atServer.incrementAndGet();
            mostAtServer.accumulateAndGet(now, Math::max);
            return answer;
        };
    }

    /** The server answers its oldest accepted exchange with 200. */
    private void serveOne() {
        Queued next = serverQueue.poll();
        atServer.decrementAndGet();
        answer(next);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void answer(Queued queued) {
        Exchange exchange = queued.exchange();
        queued.answer().complete(ScriptedHttpClient.respond(exchange, 200, Map.of(), "ok"));
    }

    private ResilientHttpClient client(ConcurrencyLimitConfig limit) {
        return leaks.watch(
                ResilientHttpClient.newBuilder()
                        .delegate(delegate)
                        .ticker(time)
                        .scheduler(scheduler)
                        .defaultDependency(DependencyConfig.builder()
                                .concurrencyLimit(limit)
                                .build())
                        .build(),
                API);
    }

    /**
     * The field's warm-up, on the fake ticker: sequential calls at 10 ms for a window, then at 100 ms
     * for a window. The median rose tenfold at one call in flight: the limit comes down to its floor.
     */
    private void warmUpThatLowersTheLimit(ResilientHttpClient client) throws Exception {
        for (long millis : new long[] {10, 100}) {
            for (int i = 0; i < 10; i++) {
                if (i == 9) { // the tenth sample, a window's length on, closes the window
                    time.advance(ConcurrencyLimitConfig.DEFAULT_WINDOW);
                }
                delegate.then(answerAfter(millis));
                assertThat(client.send(get(), BodyHandlers.ofString()).statusCode())
                        .isEqualTo(200);
            }
        }
    }

    private int limit(ResilientHttpClient client) {
        return client.dependencyStatus(API).orElseThrow().concurrencyLimit();
    }

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void aBurstAboveALoweredLimitWaitsForPlacesAndEveryCallCompletes(CallMode mode) throws Exception {
        // given a client with the default limit, lowered to its floor by a warm-up
        ResilientHttpClient client = client(ConcurrencyLimitConfig.ofDefaults());
        warmUpThatLowersTheLimit(client);
        assertThat(limit(client)).isEqualTo(ConcurrencyLimitConfig.DEFAULT_MIN_LIMIT);

        // when a burst of 100 calls, five times the limit, meets a server that queues
        int burst = 100;
        for (int i = 0; i < burst; i++) {
            delegate.then(queued());
        }
        ExecutorService callers = Executors.newFixedThreadPool(burst);
        List<Future<HttpResponse<String>>> calls = new ArrayList<>();
        try {
            for (int i = 0; i < burst; i++) {
                calls.add(callers.submit(() -> mode.call(client, get(), BodyHandlers.ofString())));
            }
            Await.awaitTrue("the limit's worth of calls reached the server", () -> atServer.get() == 20);
            Await.awaitTrue(
                    "the rest wait for a place",
                    () -> client.dependencyStatus(API).orElseThrow().attemptsInFlight() == 20
                            && delegate.requests.size() == 20 + 20);
            for (int served = 0; served < burst; served++) {
                Await.awaitTrue("the next call reached the server", () -> atServer.get() > 0);
                serveOne();
            }

            // then every call completes with 200 and none is refused
            for (Future<HttpResponse<String>> call : calls) {
                assertThat(call.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            }
        } finally {
            callers.shutdownNow();
        }
        DependencyStatus status = client.dependencyStatus(API).orElseThrow();
        assertThat(status.concurrencyLimitRejections()).isZero();
        // and the limit still bounded what reached the dependency at once
        assertThat(mostAtServer.get()).isEqualTo(20);
        assertThat(delegate.requests).hasSize(20 + burst);
        assertThat(status.attemptsInFlight()).isZero();
    }

    @Test
    void anAsyncWaitThatRunsOutIsRefusedWithNothingSent() throws Exception {
        // given a limit of 2 with both places taken, and waits of at most 2 s
        ResilientHttpClient client = client(ConcurrencyLimitConfig.builder()
                .initialLimit(2)
                .minLimit(2)
                .maxLimit(2)
                .maxWaitDuration(Duration.ofSeconds(2))
                .build());
        delegate.then(queued()).then(queued());
        CompletableFuture<HttpResponse<String>> first = client.sendAsync(get(), BodyHandlers.ofString());
        CompletableFuture<HttpResponse<String>> second = client.sendAsync(get(), BodyHandlers.ofString());
        Await.awaitTrue("both places taken", () -> atServer.get() == 2);

        // when a third call waits, and its wait runs out (the scheduler runs its 2 s timeout)
        CompletableFuture<HttpResponse<String>> third = client.sendAsync(get(), BodyHandlers.ofString());
        Await.awaitTrue(
                "the third call waits, its timeout held",
                () -> scheduler.pending().stream()
                        .anyMatch(t -> t.delayNanos == Duration.ofSeconds(2).toNanos()));
        assertThat(third).isNotDone();
        scheduler.pending().stream()
                .filter(t -> t.delayNanos == Duration.ofSeconds(2).toNanos())
                .forEach(HeldScheduler.HeldTask::run);

        // then it is refused, saying it waited, with nothing sent, and not retried
        Throwable refused =
                catchThrowable(() -> third.get(10, TimeUnit.SECONDS)).getCause();
        assertThat(refused)
                .isInstanceOf(ConcurrencyLimitExceededException.class)
                .hasMessage("Concurrency limit of 'http://api.test:80' reached: 2 attempts in flight,"
                        + " as many as its latency allows now; waited 2000 ms for a place");
        assertThat(((ConcurrencyLimitExceededException) refused).waited()).isEqualTo(Duration.ofSeconds(2));
        assertThat(delegate.requests).hasSize(2);
        assertThat(client.dependencyStatus(API).orElseThrow().concurrencyLimitRejections())
                .isOne();

        // and the calls that held places still complete
        serveOne();
        serveOne();
        assertThat(first.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        assertThat(second.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    }

    @Test
    void aWaiterTakesTheFirstPlaceThatComesFreeBeforeItsWaitRunsOut() throws Exception {
        ResilientHttpClient client = client(ConcurrencyLimitConfig.builder()
                .initialLimit(1)
                .minLimit(1)
                .maxLimit(1)
                .build());
        delegate.then(queued()).then(queued());
        CompletableFuture<HttpResponse<String>> first = client.sendAsync(get(), BodyHandlers.ofString());
        Await.awaitTrue("the place taken", () -> atServer.get() == 1);
        CompletableFuture<HttpResponse<String>> second = client.sendAsync(get(), BodyHandlers.ofString());
        Await.awaitTrue(
                "the second call waits with the default 2 s wait",
                () -> scheduler.pending().stream()
                        .anyMatch(t -> t.delayNanos == ConcurrencyLimitConfig.DEFAULT_MAX_WAIT_DURATION.toNanos()));
        assertThat(delegate.requests).hasSize(1);

        serveOne();

        assertThat(first.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        Await.awaitTrue("the waiter was sent", () -> atServer.get() == 1);
        serveOne();
        assertThat(second.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        assertThat(scheduler.pending())
                .as("the wait's timeout was cancelled")
                .noneMatch(t -> t.delayNanos == ConcurrencyLimitConfig.DEFAULT_MAX_WAIT_DURATION.toNanos());
    }

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void aFullQueueOfWaitersRefusesTheNextCallAtOnce(CallMode mode) throws Exception {
        ResilientHttpClient client = client(ConcurrencyLimitConfig.builder()
                .initialLimit(1)
                .minLimit(1)
                .maxLimit(1)
                .maxWaitingCalls(1)
                .build());
        delegate.then(queued()).then(queued());
        CompletableFuture<HttpResponse<String>> first = client.sendAsync(get(), BodyHandlers.ofString());
        Await.awaitTrue("the place taken", () -> atServer.get() == 1);
        CompletableFuture<HttpResponse<String>> waiting = client.sendAsync(get(), BodyHandlers.ofString());
        Await.awaitTrue(
                "one call waits",
                () -> scheduler.pending().stream()
                        .anyMatch(t -> t.delayNanos == ConcurrencyLimitConfig.DEFAULT_MAX_WAIT_DURATION.toNanos()));

        Throwable refused = catchThrowable(() -> mode.call(client, get(), BodyHandlers.ofString()));

        assertThat(refused)
                .isInstanceOf(ConcurrencyLimitExceededException.class)
                .hasMessageEndingWith("did not wait for a place")
                .hasMessageContaining("1 attempts in flight");
        assertThat(delegate.requests).hasSize(1);
        serveOne();
        Await.awaitTrue("the waiter was sent", () -> atServer.get() == 1);
        serveOne();
        assertThat(first.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        assertThat(waiting.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    }

    @Test
    void aQuietDependencyRelaxesItsLimitAfterIdleTime() throws Exception {
        // given a limit lowered to its floor by a warm-up
        ResilientHttpClient client = client(ConcurrencyLimitConfig.ofDefaults());
        warmUpThatLowersTheLimit(client);
        assertThat(limit(client)).isEqualTo(20);

        // when the dependency is quiet for 8 s (the field's idle gap) and a call comes
        time.advance(Duration.ofSeconds(8));
        delegate.then(answerAfter(10));
        assertThat(client.send(get(), BodyHandlers.ofString()).statusCode()).isEqualTo(200);

        // then the limit has doubled for each quiet window but the current one: 20 x 2^7
        assertThat(limit(client)).isEqualTo(2560);
    }
}
