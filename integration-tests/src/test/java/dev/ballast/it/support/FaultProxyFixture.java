package dev.ballast.it.support;

import dev.ballast.http.DependencyConfig;
import dev.ballast.http.ResilientHttpClient;
import dev.ballast.http.breaker.BreakerConfig;
import dev.ballast.http.retry.Backoff;
import dev.ballast.http.retry.Jitter;
import dev.ballast.http.retry.RetryConfig;
import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.S3MockServer;
import dev.ballast.storage.object.s3.S3Endpoint;
import dev.ballast.storage.object.s3.S3ObjectStore;
import dev.ballast.storage.object.s3.S3StoreConfig;
import dev.ballast.testkit.FakeTime;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.UUID;
import java.util.function.UnaryOperator;

/**
 * A {@link StorageFacade} whose S3 traffic goes through a {@link ResilientHttpClient} and a
 * {@link FaultProxy} to S3Mock ({@link S3MockServer}), in a fresh versioned bucket, plus a store that talks to S3Mock
 * directly (bypassing the proxy) to see what the server really holds.
 *
 * <p>The client retries twice with short full-jitter backoff, and its circuit breaker opens after
 * {@value #BREAKER_CONSECUTIVE_FAILURES} consecutive failures and stays open for 10 minutes, so a
 * test sees it open and then observes that no further request reaches the proxy.
 */
public final class FaultProxyFixture implements AutoCloseable {

    /** Credentials for S3Mock, which does not check signatures. */
    private static final String ACCESS_KEY = "ballast";

    private static final String SECRET_KEY = "ballast-secret";

    /** Consecutive failed attempts after which the proxy's circuit breaker opens. */
    public static final int BREAKER_CONSECUTIVE_FAILURES = 3;

    public final FaultProxy proxy;
    public final String bucket;
    /**
     * The facade's wall clock and the HTTP client's ticker (circuit breaker open duration) in one:
     * both move only when advanced, and together.
     */
    public final FakeTime time = new FakeTime(Instant.parse("2026-06-01T00:00:00Z"));

    public final StorageFacade facade;
    /** The same bucket, straight to the server. */
    public final ObjectStore server;

    private final ResilientHttpClient http;
    private final HttpClient direct;

    private FaultProxyFixture(UnaryOperator<S3StoreConfig.Builder> options) throws IOException {
        URI s3 = S3MockServer.endpoint();
        proxy = FaultProxy.start(s3);
        bucket = "fault-" + UUID.randomUUID().toString().substring(0, 13).toLowerCase(Locale.ROOT);
        http = ResilientHttpClient.newBuilder()
                .retry(RetryConfig.builder()
                        .maxAttempts(3)
                        .backoff(Backoff.exponential(Duration.ofMillis(5), Duration.ofMillis(40), Jitter.FULL))
                        .build())
                .ticker(time)
                .attemptTimeout(Duration.ofSeconds(10))
                .totalTimeout(Duration.ofSeconds(30))
                .defaultDependency(DependencyConfig.builder()
                        .breaker(BreakerConfig.builder()
                                .consecutiveFailureThreshold(BREAKER_CONSECUTIVE_FAILURES)
                                .waitDurationInOpenState(Duration.ofMinutes(10))
                                .build())
                        .build())
                .build();
        facade = StorageFacade.newBuilder()
                .s3(endpoint(proxy.uri(), http))
                .bucket(bucket)
                .s3Config(
                        options.apply(S3StoreConfig.builder().createBucket(true).enableVersioning(true))
                                .build())
                .clock(time)
                .build();
        direct = HttpClient.newHttpClient();
        server = S3ObjectStore.open(endpoint(s3, direct), bucket, S3StoreConfig.ofDefaults());
    }

    /** A fixture with the default object-store options. */
    public static FaultProxyFixture create() throws IOException {
        return new FaultProxyFixture(UnaryOperator.identity());
    }

    /** A fixture whose object-store options are adjusted by {@code options}. */
    public static FaultProxyFixture create(UnaryOperator<S3StoreConfig.Builder> options) throws IOException {
        return new FaultProxyFixture(options);
    }

    private static S3Endpoint endpoint(URI uri, HttpClient httpClient) {
        return S3Endpoint.newBuilder()
                .endpoint(uri)
                .region("us-east-1")
                .credentials(ACCESS_KEY, SECRET_KEY)
                .pathStyle(true)
                .httpClient(httpClient)
                .build();
    }

    @Override
    public void close() throws IOException {
        try {
            facade.close();
            if (server instanceof AutoCloseable closeable) {
                closeable.close();
            }
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException(e);
        } finally {
            http.close();
            proxy.close();
        }
    }
}
