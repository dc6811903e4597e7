package dev.ballast.it.http;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static com.github.tomakehurst.wiremock.stubbing.Scenario.STARTED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.github.tomakehurst.wiremock.http.Fault;
import dev.ballast.http.DependencyConfig;
import dev.ballast.http.HeldScheduler;
import dev.ballast.http.HttpClientListener;
import dev.ballast.http.HttpClientListener.RetryDecisionEvent;
import dev.ballast.http.ResilientHttpClient;
import dev.ballast.http.RetriesExhaustedException;
import dev.ballast.http.RetryDecision;
import dev.ballast.http.breaker.BreakerConfig;
import dev.ballast.http.breaker.BreakerState;
import dev.ballast.http.budget.RetryBudgetConfig;
import dev.ballast.http.bulkhead.BulkheadConfig;
import dev.ballast.http.idempotency.IdempotencyKeyConfig;
import dev.ballast.http.retry.Backoff;
import dev.ballast.http.retry.Jitter;
import dev.ballast.http.retry.RetryConfig;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpResponse.PushPromiseHandler;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Attempts to make {@link ResilientHttpClient} misbehave on the wire: hostile Retry-After values,
 * redirects under retry, body handlers that throw or never get closed, push-promise handlers,
 * storms of concurrent calls, cancellation at random points, attempt timeouts shorter than the
 * server, and failures whose messages carry secrets. Every test checks what the server saw and, via
 * {@link WireMockSupport}, that every bulkhead permit came back.
 */
@Timeout(120)
class AdversarialIT extends WireMockSupport {

    private static final Instant NOW = Instant.parse("2026-01-15T12:00:00Z");

    private final HeldScheduler held = new HeldScheduler();

    @AfterEach
    void stopScheduler() {
        held.shutdownNow();
    }

    private void stubThen(String path, ResponseDefinitionBuilder first, ResponseDefinitionBuilder second) {
        server.stubFor(any(urlPathEqualTo(path))
                .inScenario(path)
                .whenScenarioStateIs(STARTED)
                .willReturn(first)
                .willSetStateTo("second"));
        server.stubFor(any(urlPathEqualTo(path))
                .inScenario(path)
                .whenScenarioStateIs("second")
                .willReturn(second));
    }

    // ---- Retry-After ------------------------------------------------------------------------------

    /**
     * Values that ask for no server-imposed wait: the retry follows our own (short) backoff. (A
     * fraction such as {@code 1.5} is not among them: it is read as the wait it names, which is never
     * shortened; see {@code RetryAfterTest}.)
     */
    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "abc",
                "-5",
                "0",
                "''",
                "Sun, 06 Nov 1994 08:49:37 GMT",
                "Thu, 31 Feb 2026 10:00:00 GMT",
                "1e3",
                "0x10",
                "+5",
                "5 5"
            })
    void retryAfterGarbageNegativeZeroOrPastIsRetriedOnOurBackoff(String value) throws Exception {
        stubThen(
                "/ra",
                aResponse().withStatus(503).withHeader("Retry-After", value),
                aResponse().withStatus(200));
        ResilientHttpClient client =
                track(clientBuilder().clock(Clock.fixed(NOW, ZoneOffset.UTC)).build());

        HttpResponse<String> response = client.send(httpGet("/ra"), BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(200);
        server.verify(2, getRequestedFor(urlPathEqualTo("/ra")));
        assertThat(listener.decisions.get(0).decision()).isEqualTo(RetryDecision.RETRYING);
        assertThat(listener.decisions.get(0).delay()).isLessThanOrEqualTo(Duration.ofMillis(50));
    }

    /** Values far beyond any deadline: the response is returned at once, never slept on. */
    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "99999999999999999999999",
                "9223372036854775807",
                "86400",
                "Fri, 31 Dec 9999 23:59:59 GMT",
                "Thu, 15 Jan 2026 12:01:00 GMT"
            })
    void retryAfterHugeOrFarFutureReturnsTheResponseAtOnce(String value) throws Exception {
        server.stubFor(get("/huge").willReturn(aResponse().withStatus(503).withHeader("Retry-After", value)));
        ResilientHttpClient client = track(clientBuilder()
                .clock(Clock.fixed(NOW, ZoneOffset.UTC))
                .scheduler(held)
                .build());

        HttpResponse<String> response = client.send(httpGet("/huge"), BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(503);
        server.verify(1, getRequestedFor(urlPathEqualTo("/huge")));
        assertThat(listener.lastDecision().decision()).isEqualTo(RetryDecision.GAVE_UP);
    }

    @Test
    void retryAfterAsAnHttpDateIsWaitedOutAsAFloorUnderTheBackoff() throws Exception {
        String inTwoSeconds =
                DateTimeFormatter.RFC_1123_DATE_TIME.format(NOW.plusSeconds(2).atOffset(ZoneOffset.UTC));
        stubThen(
                "/date",
                aResponse().withStatus(429).withHeader("Retry-After", inTwoSeconds),
                aResponse().withStatus(200));
        ResilientHttpClient client = track(clientBuilder()
                .clock(Clock.fixed(NOW, ZoneOffset.UTC))
                .scheduler(held)
                .build());

        CompletableFuture<HttpResponse<String>> call = client.sendAsync(httpGet("/date"), BodyHandlers.ofString());
        awaitTrue(
                "backoff of exactly the server's 2 s scheduled",
                () -> held.pending().stream()
                        .anyMatch(t -> t.delayNanos == Duration.ofSeconds(2).toNanos()));
        assertThat(server.getAllServeEvents()).hasSize(1);
        held.pending().stream()
                .filter(t -> t.delayNanos == Duration.ofSeconds(2).toNanos())
                .findFirst()
                .orElseThrow()
                .run();

        assertThat(call.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        server.verify(2, getRequestedFor(urlPathEqualTo("/date")));
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void retryAfterBeyondTheDeadlineOnTheSecondAttemptReturnsThatResponseWithoutAThirdRequest(Mode mode)
            throws Exception {
        String path = "/second";
        server.stubFor(get(path)
                .inScenario(path)
                .whenScenarioStateIs(STARTED)
                .willReturn(aResponse().withStatus(503))
                .willSetStateTo("throttled"));
        server.stubFor(get(path)
                .inScenario(path)
                .whenScenarioStateIs("throttled")
                .willReturn(aResponse().withStatus(429).withHeader("Retry-After", "20")));
        ResilientHttpClient client =
                track(clientBuilder().totalTimeout(Duration.ofSeconds(5)).build());

        HttpResponse<String> response = mode.call(client, httpGet(path), BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(429);
        server.verify(2, getRequestedFor(urlPathEqualTo(path)));
        assertThat(listener.lastDecision().reason()).contains("would overrun the total timeout");
        assertAttemptsEqualServedRequests();
    }

    // ---- redirects --------------------------------------------------------------------------------

    @ParameterizedTest
    @EnumSource(Mode.class)
    void redirectsFollowedByTheJdkRetryTheHopThatFailedNotTheRequestThatWasAnswered(Mode mode) throws Exception {
        server.stubFor(get("/old").willReturn(aResponse().withStatus(302).withHeader("Location", "/new")));
        stubThen(
                "/new",
                aResponse().withStatus(503).withBody("discarded"),
                aResponse().withStatus(200).withBody("moved"));
        ResilientHttpClient client = track(
                clientBuilder().followRedirects(HttpClient.Redirect.NORMAL).build());

        HttpResponse<String> response = mode.call(client, httpGet("/old"), BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("moved");
        assertThat(response.uri().getPath()).isEqualTo("/new");
        // attempt 1 is the redirect chain /old -> /new (503); attempt 2 sends only the hop that failed
        server.verify(1, getRequestedFor(urlPathEqualTo("/old")));
        server.verify(2, getRequestedFor(urlPathEqualTo("/new")));
        assertThat(listener.attemptsStarted).hasValue(2);
    }

    // ---- body handlers ----------------------------------------------------------------------------

    @ParameterizedTest
    @EnumSource(Mode.class)
    void bodyHandlerThatThrowsFailsTheCallOnceReleasesItsPermitAndIsNoBreakerFailure(Mode mode) {
        server.stubFor(get("/ok").willReturn(aResponse().withStatus(200).withBody("fine")));
        ResilientHttpClient client = client();
        BodyHandler<String> broken = info -> {
            throw new IllegalStateException("handler bug");
        };

        Throwable thrown = catchThrowable(() -> mode.call(client, httpGet("/ok"), broken));

        // as the JDK client fails: send wraps the handler's exception in an IOException, sendAsync does not
        Throwable own = mode == Mode.SEND ? thrown.getCause() : thrown;
        assertThat(own).isInstanceOf(IllegalStateException.class).hasMessage("handler bug");
        if (mode == Mode.SEND) {
            assertThat(thrown).isInstanceOf(java.io.IOException.class).hasMessage("handler bug");
        }
        server.verify(1, getRequestedFor(urlPathEqualTo("/ok")));
        assertThat(client.dependencyStatus(dependency()).orElseThrow().breakerState())
                .isEqualTo(BreakerState.CLOSED);
    }

    @Test
    void inputStreamBodiesNeverClosedByTheCallerDoNotLeakBulkheadPermits() throws Exception {
        server.stubFor(get("/stream").willReturn(aResponse().withStatus(200).withBody("x".repeat(100_000))));
        ResilientHttpClient client = track(clientBuilder()
                .defaultDependency(DependencyConfig.builder()
                        .bulkhead(BulkheadConfig.builder(2).build())
                        .retryBudget(RetryBudgetConfig.disabled())
                        .build())
                .build());
        List<InputStream> abandoned = new ArrayList<>();

        for (int i = 0; i < 10; i++) {
            abandoned.add(client.send(httpGet("/stream"), BodyHandlers.ofInputStream())
                    .body());
        }

        // ten calls through a bulkhead of two: none rejected, though no stream was read or closed
        assertThat(listener.rejections).isEmpty();
        server.verify(10, getRequestedFor(urlPathEqualTo("/stream")));
        assertThat(client.dependencyStatus(dependency()).orElseThrow().availableBulkheadPermits())
                .isEqualTo(2);
        for (InputStream stream : abandoned) {
            stream.close();
        }
    }

    @Test
    void sendAsyncWithAPushPromiseHandlerOverHttp11RetriesAndNeverOffersAPromise() throws Exception {
        stubThen(
                "/push",
                aResponse().withStatus(503),
                aResponse().withStatus(200).withBody("pushed?"));
        ResilientHttpClient client = client();
        AtomicInteger promises = new AtomicInteger();
        PushPromiseHandler<String> handler = (initiating, push, acceptor) -> promises.incrementAndGet();

        HttpResponse<String> response = client.sendAsync(httpGet("/push"), BodyHandlers.ofString(), handler)
                .get(10, TimeUnit.SECONDS);

        assertThat(response.body()).isEqualTo("pushed?");
        assertThat(promises).hasValue(0);
        server.verify(2, getRequestedFor(urlPathEqualTo("/push")));
    }

    // ---- load -------------------------------------------------------------------------------------

    @Test
    void sendAsyncStormAgainstASlowServerWithASmallBulkheadHoldsNoThreadWhileWaiting() throws Exception {
        server.stubFor(get("/slow").willReturn(aResponse().withStatus(200).withFixedDelay(20)));
        ResilientHttpClient client = track(clientBuilder()
                .defaultDependency(DependencyConfig.builder()
                        .bulkhead(BulkheadConfig.builder(4)
                                .maxWaitDuration(Duration.ofSeconds(60))
                                .build())
                        .retryBudget(RetryBudgetConfig.disabled())
                        .build())
                .build());
        client.send(httpGet("/slow"), BodyHandlers.discarding()); // start the client's own threads first
        int threadsBefore = Thread.activeCount();
        int calls = 300;
        List<CompletableFuture<HttpResponse<Void>>> futures = new ArrayList<>();

        for (int i = 0; i < calls; i++) {
            futures.add(client.sendAsync(httpGet("/slow"), BodyHandlers.discarding()));
        }
        int threadsWhileQueued = Thread.activeCount();
        int waiting = client.dependencyStatus(dependency()).orElseThrow().availableBulkheadPermits();
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(100, TimeUnit.SECONDS);

        assertThat(futures).allSatisfy(f -> assertThat(f.join().statusCode()).isEqualTo(200));
        assertThat(waiting).isZero();
        // hundreds of queued calls, but no thread per waiter: only the JDK client's few workers
        assertThat(threadsWhileQueued - threadsBefore).isLessThan(20);
        server.verify(calls + 1, getRequestedFor(urlPathEqualTo("/slow")));
        assertThat(listener.rejections).isEmpty();
    }

    // ---- cancellation races -----------------------------------------------------------------------

    @Test
    void cancellationAtRandomPointsNeverLeaksPermitsAndNoRequestFollowsTheSettledCancel() throws Exception {
        server.stubFor(get(urlPathMatching("/race/.*"))
                .willReturn(aResponse().withStatus(503).withUniformRandomDelay(0, 5)));
        SplittableRandom random = new SplittableRandom(20261129);
        for (int run = 0; run < 25; run++) {
            RecordingListener runListener = new RecordingListener();
            String path = "/race/" + run;
            // cancel at a random event: an attempt start (before the exchange) or a decision (in backoff)
            int cancelAtEvent = 1 + random.nextInt(12);
            AtomicReference<CompletableFuture<HttpResponse<String>>> call = new AtomicReference<>();
            AtomicInteger events = new AtomicInteger();
            AtomicBoolean cancelRequested = new AtomicBoolean();
            Runnable maybeCancel = () -> {
                if (events.incrementAndGet() == cancelAtEvent) {
                    cancelRequested.set(true);
                    CompletableFuture<HttpResponse<String>> published = call.get();
                    if (published != null) {
                        published.cancel(true);
                    }
                }
            };
            ResilientHttpClient client = ResilientHttpClient.newBuilder()
                    .listener(runListener)
                    .listener(new HttpClientListener() {
                        @Override
                        public void onAttemptStarted(String correlationId, String dependency, int attempt) {
                            maybeCancel.run();
                        }

                        @Override
                        public void onRetryDecision(RetryDecisionEvent event) {
                            maybeCancel.run();
                        }
                    })
                    .retry(RetryConfig.builder()
                            .maxAttempts(50)
                            .backoff(Backoff.exponential(Duration.ofMillis(1), Duration.ofMillis(3), Jitter.FULL))
                            .build())
                    .defaultDependency(DependencyConfig.builder()
                            .breaker(BreakerConfig.builder()
                                    .consecutiveFailureThreshold(0)
                                    .slidingWindowSize(1000)
                                    .minimumNumberOfCalls(1000)
                                    .build())
                            .bulkhead(BulkheadConfig.builder(2).build())
                            .retryBudget(RetryBudgetConfig.disabled())
                            .build())
                    .build();
            call.set(client.sendAsync(httpGet(path), BodyHandlers.ofString()));
            if (cancelRequested.get()) {
                call.get().cancel(true); // the event fired before sendAsync returned
            }

            Throwable outcome = catchThrowable(() -> call.get().get(30, TimeUnit.SECONDS));
            client.shutdown();
            assertThat(client.awaitTermination(Duration.ofSeconds(10)))
                    .as("run %d settled", run)
                    .isTrue();
            int started = runListener.attemptsStarted.get();

            assertThat(outcome).as("run %d", run).isNotNull();
            assertThat(client.dependencyStatus(dependency()).orElseThrow().availableBulkheadPermits())
                    .as("run %d permits", run)
                    .isEqualTo(2);
            // a round trip through the server after the settled cancel: nothing of ours may arrive after it
            HttpClient.newHttpClient().send(httpGet("/race-sentinel-" + run), BodyHandlers.discarding());
            assertThat(server.findAll(getRequestedFor(urlPathEqualTo(path))).size())
                    .as("run %d: requests on the server vs attempts started", run)
                    .isLessThanOrEqualTo(started);
            assertThat(runListener.attemptsStarted)
                    .as("run %d: no attempt after the cancel settled", run)
                    .hasValue(started);
        }
    }

    // ---- attempt timeouts -------------------------------------------------------------------------

    @ParameterizedTest
    @EnumSource(Mode.class)
    void attemptTimeoutShorterThanTheServerRetriesAGetButNotAPostWithoutKey(Mode mode) throws Exception {
        server.stubFor(any(urlPathEqualTo("/late"))
                .willReturn(aResponse().withStatus(200).withFixedDelay(1500)));
        ResilientHttpClient client = track(clientBuilder()
                .attemptTimeout(Duration.ofMillis(150))
                .idempotencyKeys(IdempotencyKeyConfig.builder()
                        .policy(IdempotencyKeyConfig.Policy.NEVER)
                        .build())
                .build());

        Throwable getFailure = catchThrowable(() -> mode.call(client, httpGet("/late"), BodyHandlers.ofString()));
        Throwable postFailure = catchThrowable(() -> mode.call(
                client,
                HttpRequest.newBuilder(uri("/late"))
                        .POST(HttpRequest.BodyPublishers.ofString("order"))
                        .build(),
                BodyHandlers.ofString()));

        assertThat(getFailure).isInstanceOf(RetriesExhaustedException.class);
        assertThat(getFailure.getSuppressed()).hasSize(3).allMatch(HttpTimeoutException.class::isInstance);
        assertThat(postFailure).isInstanceOf(HttpTimeoutException.class);
        awaitTrue("slow requests logged", () -> server.getAllServeEvents().size() >= 4);
        server.verify(3, getRequestedFor(urlPathEqualTo("/late")));
        server.verify(1, postRequestedFor(urlPathEqualTo("/late")));
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void requestTimeoutLargerThanTheTotalTimeoutIsCappedByTheTotalTimeout(Mode mode) {
        server.stubFor(get("/late").willReturn(aResponse().withStatus(200).withFixedDelay(3000)));
        ResilientHttpClient client =
                track(clientBuilder().totalTimeout(Duration.ofMillis(400)).build());
        HttpRequest request = HttpRequest.newBuilder(uri("/late"))
                .timeout(Duration.ofMinutes(5))
                .build();

        Throwable thrown = catchThrowable(() -> mode.call(client, request, BodyHandlers.ofString()));

        assertThat(thrown).isInstanceOf(HttpTimeoutException.class).hasMessageContaining("total timeout of 400 ms");
        assertThat(listener.attemptsStarted).hasValue(1);
    }

    // ---- secrets in logs --------------------------------------------------------------------------

    @Test
    void logLinesNeverCarryQueryStringsOrCredentialsEvenWhenFailuresDo() throws Exception {
        String secret = "s3cr3t-" + System.nanoTime();
        Fault[] faults = {
            Fault.CONNECTION_RESET_BY_PEER,
            Fault.EMPTY_RESPONSE,
            Fault.MALFORMED_RESPONSE_CHUNK,
            Fault.RANDOM_DATA_THEN_CLOSE
        };
        for (Fault fault : faults) {
            server.stubFor(get(urlPathEqualTo("/fault/" + fault))
                    .willReturn(aResponse().withFault(fault)));
        }
        server.stubFor(get(urlPathEqualTo("/fault/status"))
                .willReturn(aResponse().withStatus(503).withHeader("Set-Cookie", "id=" + secret)));
        ResilientHttpClient client = client();
        PrintStream originalErr = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        List<Throwable> failures = new ArrayList<>();
        try {
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            List<String> paths = new ArrayList<>();
            for (Fault fault : faults) {
                paths.add("/fault/" + fault);
            }
            paths.add("/fault/status");
            for (String path : paths) {
                HttpRequest request = HttpRequest.newBuilder(uri(path + "?token=" + secret + "&sig=" + secret))
                        .header("Authorization", "Bearer " + secret)
                        .header("Cookie", "session=" + secret)
                        .header("X-Amz-Security-Token", secret)
                        .build();
                failures.add(catchThrowable(() -> client.send(request, BodyHandlers.ofString())));
            }
        } finally {
            System.setErr(originalErr);
        }

        String log = captured.toString(StandardCharsets.UTF_8);
        assertThat(log).contains("http retry decision").contains("/fault/").doesNotContain(secret);
        assertThat(failures.subList(0, faults.length))
                .allSatisfy(f -> assertThat(f).isNotNull());
    }
}
