package dev.ballast.http;

import static dev.ballast.http.Await.awaitTrue;
import static dev.ballast.http.ScriptedHttpClient.hang;
import static dev.ballast.http.ScriptedHttpClient.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.ballast.http.breaker.BreakerConfig;
import dev.ballast.http.retry.Backoff;
import dev.ballast.http.retry.Jitter;
import dev.ballast.http.retry.RetryConfig;
import dev.ballast.testkit.FakeTime;
import dev.ballast.testkit.LeakCheck;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The caller-thread fast path: what a healthy call does not do (hand off to another thread,
 * schedule a task), how an attempt timeout reaches a {@code send} blocked in the wrapped client
 * without leaking an interrupt, and how cheap a rejection is.
 */
@Timeout(30)
@ExtendWith(LeakCheck.class)
class FastPathTest {

    private static final String ORIGIN = "http://api.test:80";

    private final FakeTime ticker = new FakeTime();
    private final CountingScheduler scheduler = new CountingScheduler();
    private final ScriptedHttpClient delegate = new ScriptedHttpClient();

    @AfterEach
    void stopScheduler() {
        scheduler.shutdownNow();
    }

    private ResilientHttpClient.Builder builder() {
        return ResilientHttpClient.newBuilder()
                .delegate(delegate)
                .ticker(ticker)
                .scheduler(scheduler);
    }

    private static HttpRequest get() {
        return HttpRequest.newBuilder(URI.create("http://api.test/item")).GET().build();
    }

    @Test
    void healthySendRunsTheWrappedClientOnTheCallersThreadAndSchedulesNothing() throws Exception {
        ResilientHttpClient client = builder().build();
        delegate.then(status(200, java.util.Map.of(), "ok"));

        HttpResponse<String> response = client.send(get(), BodyHandlers.ofString());

        assertThat(response.body()).isEqualTo("ok");
        assertThat(delegate.sendThreads).containsExactly(Thread.currentThread());
        assertThat(scheduler.tasks).as("tasks handed to the scheduler").hasValue(0);
    }

    @Test
    void sendAsyncWithoutRetryCallsTheWrappedClientFromTheCallingThreadAndSchedulesNothing() throws Exception {
        ResilientHttpClient client = builder().build();
        AtomicReference<Thread> sentFrom = new AtomicReference<>();
        delegate.then(exchange -> {
            sentFrom.set(Thread.currentThread());
            return CompletableFuture.completedFuture(ScriptedHttpClient.respond(exchange, 404, java.util.Map.of(), ""));
        });

        HttpResponse<String> response =
                client.sendAsync(get(), BodyHandlers.ofString()).get(10, TimeUnit.SECONDS);

        assertThat(response.statusCode()).isEqualTo(404);
        assertThat(sentFrom.get()).isSameAs(Thread.currentThread());
        assertThat(scheduler.tasks).as("tasks handed to the scheduler").hasValue(0);
    }

    @Test
    void sendAsyncThatRetriesSchedulesExactlyItsBackoff() throws Exception {
        ResilientHttpClient client = builder()
                .retry(RetryConfig.builder()
                        .maxAttempts(2)
                        .backoff(Backoff.exponential(Duration.ofMillis(1), Duration.ofMillis(1), Jitter.NONE))
                        .build())
                .build();
        delegate.then(status(503)).then(status(200));

        HttpResponse<String> response =
                client.sendAsync(get(), BodyHandlers.ofString()).get(10, TimeUnit.SECONDS);

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(scheduler.tasks).as("one backoff").hasValue(1);
    }

    @Test
    void sendBlockedInTheWrappedClientIsEndedByItsAttemptTimeoutOnTheTickerWithoutLeakingTheInterrupt() {
        ResilientHttpClient client = builder()
                .attemptTimeout(Duration.ofSeconds(2))
                .retry(RetryConfig.builder().maxAttempts(1).build())
                .build();
        delegate.then(hang());
        AtomicInteger advanced = new AtomicInteger();
        Thread mover = new Thread(() -> {
            awaitTrue("exchange started", () -> delegate.exchanges.size() == 1);
            ticker.advance(Duration.ofSeconds(2));
            advanced.incrementAndGet();
        });
        mover.start();

        Throwable thrown = catchThrowable(() -> client.send(get(), BodyHandlers.ofString()));

        assertThat(advanced).as("only the ticker ends the attempt").hasValue(1);
        assertThat(thrown)
                .isInstanceOf(RetriesExhaustedException.class)
                .cause()
                .isInstanceOf(HttpTimeoutException.class)
                .hasMessage("attempt timeout of 2000 ms elapsed");
        assertThat(Thread.currentThread().isInterrupted())
                .as("the timer's interrupt stays inside the call")
                .isFalse();
        assertThat(delegate.exchanges.get(0)).isCancelled();
        assertThat(client.dependencyStatus(ORIGIN).orElseThrow().attemptsInFlight())
                .isZero();
    }

    @Test
    void sendAsyncExchangeThatHangsIsCancelledByItsAttemptTimeoutOnTheTicker() {
        ResilientHttpClient client = builder()
                .attemptTimeout(Duration.ofSeconds(2))
                .retry(RetryConfig.builder().maxAttempts(1).build())
                .build();
        delegate.then(hang());

        CompletableFuture<HttpResponse<String>> call = client.sendAsync(get(), BodyHandlers.ofString());
        ticker.advance(Duration.ofMillis(1999));
        assertThat(call).as("not before the ticker says so").isNotDone();
        ticker.advance(Duration.ofMillis(1));

        assertThat(call)
                .failsWithin(Duration.ofSeconds(10))
                .withThrowableThat()
                .havingCause()
                .isInstanceOf(RetriesExhaustedException.class)
                .havingCause()
                .isInstanceOf(HttpTimeoutException.class)
                .withMessage("attempt timeout of 2000 ms elapsed");
        assertThat(delegate.exchanges.get(0)).isCancelled();
    }

    @Test
    void openCircuitRejectionHasNoStackTraceIsCountedAndIsNotLoggedAtInfo() throws Exception {
        ResilientHttpClient client = builder()
                .retry(RetryConfig.builder().maxAttempts(1).build())
                .defaultDependency(DependencyConfig.builder()
                        .breaker(BreakerConfig.builder()
                                .consecutiveFailureThreshold(1)
                                .build())
                        .build())
                .build();
        delegate.then(status(503));
        client.send(get(), BodyHandlers.discarding());
        PrintStream originalErr = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        Throwable first;
        Throwable second;
        try {
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            first = catchThrowable(() -> client.send(get(), BodyHandlers.discarding()));
            second = catchThrowable(() -> client.send(get(), BodyHandlers.discarding()));
        } finally {
            System.setErr(originalErr);
        }

        assertThat(first).isInstanceOf(CircuitOpenException.class);
        assertThat(first.getStackTrace()).isEmpty();
        assertThat(second).isInstanceOf(CircuitOpenException.class).isNotSameAs(first);
        assertThat(client.dependencyStatus(ORIGIN).orElseThrow().circuitOpenRejections())
                .isEqualTo(2);
        assertThat(captured.toString(StandardCharsets.UTF_8)).doesNotContain("rejected");
        assertThat(delegate.requests).hasSize(1);
    }

    @Test
    void aHealthyCallOnLoopbackHandsTheWrappedJdkClientsExecutorNoMoreTasksThanTheRawClientDoes() throws Exception {
        ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread serving = new Thread(() -> serveOkUntilClosed(server), "loopback-ok");
        serving.start();
        CountingExecutor jdkExecutor = new CountingExecutor();
        HttpClient raw = HttpClient.newBuilder().executor(jdkExecutor).build();
        try {
            ResilientHttpClient client = ResilientHttpClient.newBuilder()
                    .delegate(raw)
                    .scheduler(scheduler)
                    .build();
            HttpRequest request = HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + server.getLocalPort() + "/item"))
                    .build();
            raw.send(request, BodyHandlers.ofString()); // opens the connection both then reuse

            int before = jdkExecutor.tasks.get();
            for (int i = 0; i < 20; i++) {
                raw.send(request, BodyHandlers.ofString());
            }
            int rawTasks = jdkExecutor.tasks.get() - before;
            before = jdkExecutor.tasks.get();
            for (int i = 0; i < 20; i++) {
                assertThat(client.send(request, BodyHandlers.ofString()).body()).isEqualTo("ok");
                client.send(request, BodyHandlers.ofByteArray());
                client.send(request, BodyHandlers.discarding());
            }
            int wrappedTasks = jdkExecutor.tasks.get() - before;

            // A hand-off per call would add 60; the JDK's own housekeeping varies by a task or two per run.
            assertThat(wrappedTasks)
                    .as("JDK executor tasks for 60 wrapped calls, raw client: %d for 20", rawTasks)
                    .isLessThanOrEqualTo(3 * rawTasks + 20);
        } finally {
            server.close();
            serving.join();
            jdkExecutor.shutdownNow();
        }
    }

    /** Answers every request on every connection with {@code 200 ok}, keeping connections open. */
    private static void serveOkUntilClosed(ServerSocket server) {
        byte[] answer = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".getBytes(StandardCharsets.US_ASCII);
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                Thread connection = new Thread(
                        () -> {
                            try (socket;
                                    InputStream in = socket.getInputStream();
                                    OutputStream out = socket.getOutputStream()) {
                                int matched = 0;
                                for (int b = in.read(); b >= 0; b = in.read()) {
                                    matched = b == "\r\n\r\n".charAt(matched) ? matched + 1 : (b == '\r' ? 1 : 0);
                                    if (matched == 4) { // end of a request's headers (GETs carry no body)
                                        out.write(answer);
                                        out.flush();
                                        matched = 0;
                                    }
                                }
                            } catch (IOException closed) {
                                // the client closed the connection
                            }
                        },
                        "loopback-ok-connection");
                connection.setDaemon(true);
                connection.start();
            } catch (IOException closed) {
                return; // the test closed the server
            }
        }
    }

    /** The wrapped JDK client's executor: counts what the client hands it. */
    static final class CountingExecutor extends ThreadPoolExecutor {

        final AtomicInteger tasks = new AtomicInteger();

        CountingExecutor() {
            super(2, 2, 1, TimeUnit.MINUTES, new LinkedBlockingQueue<>());
        }

        @Override
        public void execute(Runnable command) {
            tasks.incrementAndGet();
            super.execute(command);
        }
    }

    /** Counts every task handed to it, immediate or delayed, and runs them as a pool would. */
    static final class CountingScheduler extends ScheduledThreadPoolExecutor {

        final AtomicInteger tasks = new AtomicInteger();

        CountingScheduler() {
            super(1);
        }

        @Override
        public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
            tasks.incrementAndGet();
            return super.schedule(command, delay, unit);
        }

        @Override
        public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
            tasks.incrementAndGet();
            return super.schedule(callable, delay, unit);
        }

        @Override
        public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
            tasks.incrementAndGet();
            return super.scheduleAtFixedRate(command, initialDelay, period, unit);
        }

        @Override
        public ScheduledFuture<?> scheduleWithFixedDelay(
                Runnable command, long initialDelay, long delay, TimeUnit unit) {
            tasks.incrementAndGet();
            return super.scheduleWithFixedDelay(command, initialDelay, delay, unit);
        }

        @Override
        public void execute(Runnable command) {
            tasks.incrementAndGet();
            super.execute(command);
        }
    }
}
