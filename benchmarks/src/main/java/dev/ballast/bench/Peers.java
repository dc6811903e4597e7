package dev.ballast.bench;

import dev.ballast.http.DependencyConfig;
import dev.ballast.http.ResilientHttpClient;
import dev.ballast.http.breaker.BreakerConfig;
import dev.failsafe.CircuitBreakerOpenException;
import dev.failsafe.Failsafe;
import dev.failsafe.FailsafeExecutor;
import dev.failsafe.RetryPolicy;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.core.functions.CheckedSupplier;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;

/**
 * The four ways of making one call that the benchmarks compare, each configured as its library's
 * documentation suggests for "retry 3 times, behind a circuit breaker":
 * <ul>
 *   <li>raw: the wrapped {@link HttpClient} itself;</li>
 *   <li>Failsafe 3: {@code Failsafe.with(retryPolicy, circuitBreaker)}, the retry policy handling
 *       {@code IOException} and 5xx, 3 attempts, aborting on {@link CircuitBreakerOpenException};</li>
 *   <li>resilience4j 2: {@code Retry(CircuitBreaker(send))} with default configs, retrying 5xx too,
 *       3 attempts, ignoring {@link CallNotPermittedException};</li>
 *   <li>Ballast: {@link ResilientHttpClient} with its defaults around the same client.</li>
 * </ul>
 * Breakers open for an hour once open, so an open-circuit benchmark stays open.
 */
final class Peers {

    static final Duration OPEN_FOR = Duration.ofHours(1);

    final HttpClient raw;
    final FailsafeExecutor<HttpResponse<byte[]>> failsafe;
    final dev.failsafe.CircuitBreaker<HttpResponse<byte[]>> failsafeBreaker;
    final CircuitBreaker r4jBreaker;
    final Retry r4jRetry;
    final ResilientHttpClient ballast;

    Peers(HttpClient raw, ResilientHttpClient ballast) {
        this.raw = raw;
        this.ballast = ballast;
        RetryPolicy<HttpResponse<byte[]>> retryPolicy = RetryPolicy.<HttpResponse<byte[]>>builder()
                .handle(IOException.class)
                .handleResultIf(response -> response.statusCode() >= 500)
                .abortOn(CircuitBreakerOpenException.class)
                .withMaxAttempts(3)
                .withBackoff(Duration.ofMillis(100), Duration.ofSeconds(10))
                .build();
        failsafeBreaker = dev.failsafe.CircuitBreaker.<HttpResponse<byte[]>>builder()
                .handle(IOException.class)
                .handleResultIf(response -> response.statusCode() >= 500)
                .withFailureThreshold(5)
                .withDelay(OPEN_FOR)
                .build();
        failsafe = Failsafe.with(retryPolicy, failsafeBreaker);
        r4jBreaker = CircuitBreaker.of(
                "bench",
                CircuitBreakerConfig.custom().waitDurationInOpenState(OPEN_FOR).build());
        r4jRetry = Retry.of(
                "bench",
                RetryConfig.<HttpResponse<byte[]>>custom()
                        .maxAttempts(3)
                        .retryOnResult(response -> response.statusCode() >= 500)
                        .ignoreExceptions(CallNotPermittedException.class)
                        .build());
    }

    /** Ballast with every default but a breaker that stays open for {@link #OPEN_FOR} once open. */
    static ResilientHttpClient ballastOpeningForAnHour(HttpClient delegate) {
        return ballastOpeningForAnHourBuilder(delegate).build();
    }

    /** The builder of {@link #ballastOpeningForAnHour}, for a variant with a listener. */
    static ResilientHttpClient.Builder ballastOpeningForAnHourBuilder(HttpClient delegate) {
        return ResilientHttpClient.newBuilder()
                .delegate(delegate)
                .defaultDependency(DependencyConfig.builder()
                        .breaker(BreakerConfig.builder()
                                .waitDurationInOpenState(OPEN_FOR)
                                .build())
                        .build());
    }

    HttpResponse<byte[]> raw(HttpRequest request) throws IOException, InterruptedException {
        return raw.send(request, BodyHandlers.ofByteArray());
    }

    HttpResponse<byte[]> failsafe(HttpRequest request) {
        return failsafe.get(() -> raw.send(request, BodyHandlers.ofByteArray()));
    }

    HttpResponse<byte[]> resilience4j(HttpRequest request) throws Throwable {
        CheckedSupplier<HttpResponse<byte[]>> send = () -> raw.send(request, BodyHandlers.ofByteArray());
        return Retry.decorateCheckedSupplier(r4jRetry, CircuitBreaker.decorateCheckedSupplier(r4jBreaker, send))
                .get();
    }

    HttpResponse<byte[]> ballast(HttpRequest request) throws IOException, InterruptedException {
        return ballast.send(request, BodyHandlers.ofByteArray());
    }

    void close() {
        ballast.close();
    }
}
