package dev.ballast.http.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.http.DependencyConfig;
import dev.ballast.http.HttpClientListener;
import dev.ballast.http.RetryDecision;
import dev.ballast.http.breaker.BreakerConfig;
import dev.ballast.http.budget.RetryBudgetConfig;
import dev.ballast.http.bulkhead.BulkheadConfig;
import dev.ballast.http.classify.ResponseClassifier;
import dev.ballast.http.idempotency.IdempotencyKeyConfig;
import dev.ballast.http.limit.ConcurrencyLimitConfig;
import dev.ballast.http.retry.Backoff;
import dev.ballast.http.retry.Jitter;
import dev.ballast.http.retry.RetryConfig;
import dev.ballast.testkit.FakeTime;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The retry decision, check by check, with time and randomness injected. */
@Timeout(10)
class RetryDeciderTest {

    private static final Duration BACKOFF = Duration.ofMillis(200);
    private final FakeTime ticker = new FakeTime();
    private final Clock clock = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);
    private final RetryConfig retry = RetryConfig.builder()
            .maxAttempts(3)
            .maxRetryAfter(Duration.ofSeconds(30))
            .backoff(Backoff.exponential(BACKOFF, BACKOFF, Jitter.NONE))
            .build();
    private final RetryDecider decider =
            new RetryDecider(ResponseClassifier.ofDefaults(), retry, clock, () -> new SplittableRandom(1));

    /** Answers the configuration accessors (no redirects); never sends anything. */
    private static final HttpClient CONFIGURATION =
            HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();

    /** What a call reads of its client: the ticker, the maximum attempts, whether redirects are followed. */
    private final Pipeline pipeline = new Pipeline(new Pipeline.Settings(
            CONFIGURATION,
            ResponseClassifier.ofDefaults(),
            retry,
            IdempotencyKeyConfig.ofDefaults(),
            Duration.ofSeconds(30),
            Duration.ofSeconds(10),
            request -> "d",
            Map.of(),
            DependencyConfig.ofDefaults(),
            new Listeners(List.of()),
            clock,
            ticker,
            () -> new SplittableRandom(1),
            null,
            64));

    private Call call(String method, boolean keyed, boolean replayable, Duration total, RetryBudgetConfig budget) {
        HttpRequest request = HttpRequest.newBuilder(URI.create("https://api.example.com/v1/x?secret=1"))
                .method(method, HttpRequest.BodyPublishers.noBody())
                .build();
        Dependency dependency = new Dependency(
                "https://api.example.com:443",
                new CircuitBreaker(
                        "d",
                        BreakerConfig.ofDefaults(),
                        ticker,
                        () -> new SplittableRandom(1),
                        HttpClientListener.NONE),
                new Bulkhead("d", BulkheadConfig.ofDefaults()),
                new ConcurrencyLimiter("d", ConcurrencyLimitConfig.ofDefaults(), ticker.read()),
                64,
                new RetryBudget(budget, ticker),
                new AtomicInteger(),
                new AtomicLong(),
                new LongAdder(),
                new LongAdder(),
                new LongAdder(),
                null,
                null);
        boolean idempotentOrKeyed = keyed || List.of("GET", "PUT", "DELETE").contains(method);
        return new Call(
                pipeline,
                dependency,
                request,
                idempotentOrKeyed,
                keyed,
                replayable,
                0,
                Deadline.after(ticker, ticker.read(), total).atNanos(),
                1) {
            @Override
            void onStop() {}

            @Override
            void abort(IOException failure) {}

            @Override
            void attemptTimedOut(Attempt<?> attempt) {}
        };
    }

    private Call get() {
        return call("GET", false, true, Duration.ofSeconds(30), RetryBudgetConfig.ofDefaults());
    }

    private static HttpHeaders headers(String... nameValue) {
        return nameValue.length == 0
                ? HttpHeaders.of(Map.of(), (a, b) -> true)
                : HttpHeaders.of(Map.of(nameValue[0], List.of(nameValue[1])), (a, b) -> true);
    }

    @Test
    void aSuccessfulAnswerSucceeds() {
        AttemptOutcome o = decider.onResponse(get(), 1, 200, headers());
        assertThat(o.decision()).isEqualTo(RetryDecision.SUCCEEDED);
        assertThat(o.delayNanos()).isZero();
    }

    @Test
    void transientIsRetriedAfterTheBackoff() {
        AttemptOutcome o = decider.onResponse(get(), 1, 503, headers());
        assertThat(o.decision()).isEqualTo(RetryDecision.RETRYING);
        assertThat(o.delayNanos()).isEqualTo(BACKOFF.toNanos());
    }

    @Test
    void permanentIsAborted() {
        AttemptOutcome o = decider.onResponse(get(), 1, 404, headers());
        assertThat(o.decision()).isEqualTo(RetryDecision.ABORTED);
        assertThat(o.reason()).isEqualTo("not retried: permanent outcome");
    }

    @Test
    void ambiguousPostWithoutKeyIsAbortedWithTheReasonButWithKeyIsRetried() {
        HttpTimeoutException timeout = new HttpTimeoutException("read timed out");
        Call unkeyed = call("POST", false, true, Duration.ofSeconds(30), RetryBudgetConfig.ofDefaults());
        Call keyed = call("POST", true, true, Duration.ofSeconds(30), RetryBudgetConfig.ofDefaults());

        assertThat(decider.onFailure(unkeyed, 1, timeout).reason())
                .isEqualTo("not retried: non-idempotent and outcome unknown");
        assertThat(decider.onFailure(keyed, 1, timeout).decision()).isEqualTo(RetryDecision.RETRYING);
        assertThat(decider.onFailure(keyed, 1, timeout).failure()).isSameAs(timeout);
    }

    @Test
    void bodyThatCannotBeReplayedIsAborted() {
        Call call = call("PUT", false, false, Duration.ofSeconds(30), RetryBudgetConfig.ofDefaults());
        assertThat(decider.onResponse(call, 1, 503, headers()).reason())
                .isEqualTo("not retried: request body cannot be replayed");
    }

    @Test
    void lastAttemptGivesUpWithoutADelay() {
        AttemptOutcome o = decider.onResponse(get(), 3, 503, headers());
        assertThat(o.decision()).isEqualTo(RetryDecision.GAVE_UP);
        assertThat(o.reason()).isEqualTo("attempts exhausted");
        assertThat(o.delayNanos()).isZero();
    }

    @Test
    void retryAfterIsAFloorUnderTheBackoffInBothForms() {
        assertThat(decider.onResponse(get(), 1, 429, headers("Retry-After", "2"))
                        .delayNanos())
                .isEqualTo(Duration.ofSeconds(2).toNanos());
        assertThat(decider.onResponse(get(), 1, 503, headers("Retry-After", "Thu, 01 Jan 2026 00:00:05 GMT"))
                        .delayNanos())
                .isEqualTo(Duration.ofSeconds(5).toNanos());
        // shorter than our backoff, zero, or garbage: our backoff stands
        assertThat(decider.onResponse(get(), 1, 429, headers("Retry-After", "0"))
                        .delayNanos())
                .isEqualTo(BACKOFF.toNanos());
        assertThat(decider.onResponse(get(), 1, 429, headers("Retry-After", "soon"))
                        .delayNanos())
                .isEqualTo(BACKOFF.toNanos());
    }

    @Test
    void retryAfterAboveMaxRetryAfterGivesUp() {
        AttemptOutcome o = decider.onResponse(get(), 1, 429, headers("Retry-After", "31"));
        assertThat(o.decision()).isEqualTo(RetryDecision.GAVE_UP);
        assertThat(o.reason()).isEqualTo("Retry-After of 31000 ms exceeds maxRetryAfter of 30000 ms");
    }

    @Test
    void delayReachingTheTotalDeadlineGivesUpAtOnce() {
        Call call = call("GET", false, true, Duration.ofSeconds(5), RetryBudgetConfig.ofDefaults());
        ticker.advance(Duration.ofMillis(4900));

        AttemptOutcome o = decider.onResponse(call, 1, 503, headers());

        assertThat(o.decision()).isEqualTo(RetryDecision.GAVE_UP);
        assertThat(o.reason()).isEqualTo("backoff of 200 ms would overrun the total timeout");
    }

    @Test
    void emptyRetryBudgetGivesUp() {
        RetryBudgetConfig tiny =
                RetryBudgetConfig.builder().ratio(0.1).minRetriesPerSecond(0).build();
        Call call = call("GET", false, true, Duration.ofSeconds(30), tiny);

        AttemptOutcome o = decider.onResponse(call, 1, 503, headers());

        assertThat(o.decision()).isEqualTo(RetryDecision.GAVE_UP);
        assertThat(o.reason()).isEqualTo("not retried: retry budget exhausted");
    }

    @Test
    void stoppedCallIsAborted() {
        Call call = get();
        call.stop();
        assertThat(decider.onResponse(call, 1, 503, headers()).reason()).isEqualTo("cancelled");
    }
}
