package dev.ballast.http.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.within;

import com.sun.net.httpserver.HttpServer;
import dev.ballast.http.BulkheadFullException;
import dev.ballast.http.CircuitOpenException;
import dev.ballast.http.DependencyConfig;
import dev.ballast.http.ResilientHttpClient;
import dev.ballast.http.breaker.BreakerConfig;
import dev.ballast.http.bulkhead.BulkheadConfig;
import dev.ballast.http.retry.Backoff;
import dev.ballast.http.retry.Jitter;
import dev.ballast.http.retry.RetryConfig;
import dev.ballast.testkit.FakeTime;
import dev.ballast.testkit.LeakCheck;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every meter of {@link HttpClientMetrics}, read from a {@link SimpleMeterRegistry} after calls to a
 * loopback server through the real JDK client. The server moves the client's ticker by
 * {@link #EXCHANGE} while it answers, so every recorded duration is exact.
 */
@Timeout(60)
@ExtendWith(LeakCheck.class)
class HttpClientMetricsTest {

    private static final Duration EXCHANGE = Duration.ofMillis(5);
    private static final Duration OPEN_FOR = Duration.ofSeconds(1);

    private final FakeTime ticker = new FakeTime();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final List<Server> servers = new ArrayList<>();
    private final List<ResilientHttpClient> clients = new ArrayList<>();

    @AfterEach
    void stop() {
        clients.forEach(ResilientHttpClient::shutdownNow);
        servers.forEach(Server::stop);
    }

    /** A loopback server answering each {@code /item} with the next scripted status, {@code /hold} when released. */
    final class Server {
        final Queue<Integer> statuses = new ConcurrentLinkedQueue<>();
        final CountDownLatch holdArrived = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        private final ExecutorService executor = Executors.newCachedThreadPool();
        private final HttpServer http;

        Server() throws IOException {
            http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            http.setExecutor(executor);
            http.createContext("/", exchange -> {
                int status = 200;
                if (exchange.getRequestURI().getPath().equals("/hold")) {
                    holdArrived.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                } else {
                    Integer next = statuses.poll();
                    status = next == null ? 200 : next;
                }
                ticker.advance(EXCHANGE);
                exchange.sendResponseHeaders(status, -1);
                exchange.close();
            });
            http.start();
            servers.add(this);
        }

        String dependency() {
            return "http://127.0.0.1:" + http.getAddress().getPort();
        }

        HttpRequest get(String path) {
            return HttpRequest.newBuilder(URI.create(dependency() + path)).GET().build();
        }

        void stop() {
            release.countDown();
            http.stop(0);
            executor.shutdownNow();
        }
    }

    private ResilientHttpClient.Builder builder(HttpClientMetrics metrics) {
        return ResilientHttpClient.newBuilder()
                .version(java.net.http.HttpClient.Version.HTTP_1_1)
                .ticker(ticker)
                .retry(RetryConfig.builder()
                        .maxAttempts(2)
                        .backoff(Backoff.exponential(Duration.ofMillis(1), Duration.ofMillis(1), Jitter.NONE))
                        .build())
                .defaultDependency(DependencyConfig.builder()
                        .breaker(BreakerConfig.builder()
                                .consecutiveFailureThreshold(2)
                                .waitDurationInOpenState(OPEN_FOR)
                                .openStateJitter(0)
                                .build())
                        .bulkhead(BulkheadConfig.builder(1).build())
                        .build())
                .listener(metrics);
    }

    private ResilientHttpClient client(ResilientHttpClient.Builder builder) {
        ResilientHttpClient client = builder.build();
        clients.add(client);
        return client;
    }

    /** The client {@code builder} makes, with {@code metrics} bound to the test's registry. */
    private ResilientHttpClient bound(HttpClientMetrics metrics, ResilientHttpClient.Builder builder) {
        ResilientHttpClient client = client(builder);
        metrics.bindTo(registry);
        return client;
    }

    @Test
    void everyMeterAfterASuccessA503RetriedAnOpenCircuitAndAFullBulkhead() throws Exception {
        Server server = new Server();
        String dependency = server.dependency();
        HttpClientMetrics metrics = HttpClientMetrics.create(Tags.of("client", "payments"));
        ResilientHttpClient client = bound(metrics, builder(metrics));

        // a success
        assertThat(client.send(server.get("/item"), BodyHandlers.discarding()).statusCode())
                .isEqualTo(200);
        // a 503 retried into a success
        server.statuses.add(503);
        assertThat(client.send(server.get("/item"), BodyHandlers.discarding()).statusCode())
                .isEqualTo(200);
        // two 503s in a row open the circuit; the call returns the last 503
        server.statuses.add(503);
        server.statuses.add(503);
        assertThat(client.send(server.get("/item"), BodyHandlers.discarding()).statusCode())
                .isEqualTo(503);
        // the open circuit rejects without a network call
        assertThat(catchThrowable(() -> client.send(server.get("/item"), BodyHandlers.discarding())))
                .isInstanceOf(CircuitOpenException.class);
        assertThat(gauge(MetricNames.CIRCUIT_BREAKER_STATE, dependency, "state", "open"))
                .isEqualTo(1);
        // its window over, a probe succeeds and closes it
        ticker.advance(OPEN_FOR);
        assertThat(client.send(server.get("/item"), BodyHandlers.discarding()).statusCode())
                .isEqualTo(200);
        // the bulkhead's one permit is held by a call in flight: the next call is rejected
        CompletableFuture<HttpResponse<Void>> held = client.sendAsync(server.get("/hold"), BodyHandlers.discarding());
        assertThat(server.holdArrived.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(gauge(MetricNames.BULKHEAD_AVAILABLE_CONCURRENT_CALLS, dependency))
                .isEqualTo(0);
        assertThat(catchThrowable(() -> client.send(server.get("/item"), BodyHandlers.discarding())))
                .isInstanceOf(BulkheadFullException.class);
        server.release.countDown();
        assertThat(held.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);

        long ms = EXCHANGE.toMillis();
        Map<String, String> expected = new TreeMap<>();
        expected.put(
                line(MetricNames.CALLS, dependency, "kind", "successful_without_retry", "outcome", "success"),
                "count=3 totalMs=" + 3 * ms);
        expected.put(
                line(MetricNames.CALLS, dependency, "kind", "successful_with_retry", "outcome", "success"),
                "count=1 totalMs=" + 2 * ms);
        expected.put(
                line(MetricNames.CALLS, dependency, "kind", "failed_with_retry", "outcome", "transient"),
                "count=1 totalMs=" + 2 * ms);
        expected.put(
                line(MetricNames.CALLS, dependency, "kind", "failed_without_retry", "outcome", "rejected"),
                "count=2 totalMs=0");
        expected.put(line(MetricNames.ATTEMPTS, dependency, "outcome", "success"), "count=4 totalMs=" + 4 * ms);
        expected.put(line(MetricNames.ATTEMPTS, dependency, "outcome", "transient"), "count=3 totalMs=" + 3 * ms);
        expected.put(line(MetricNames.RETRIES, dependency, "reason", "transient"), "2.0");
        expected.put(line(MetricNames.CIRCUIT_BREAKER_STATE, dependency, "state", "closed"), "1.0");
        expected.put(line(MetricNames.CIRCUIT_BREAKER_STATE, dependency, "state", "open"), "0.0");
        expected.put(line(MetricNames.CIRCUIT_BREAKER_STATE, dependency, "state", "half_open"), "0.0");
        expected.put(line(MetricNames.CIRCUIT_BREAKER_TRANSITIONS, dependency, "from", "closed", "to", "open"), "1.0");
        expected.put(
                line(MetricNames.CIRCUIT_BREAKER_TRANSITIONS, dependency, "from", "open", "to", "half_open"), "1.0");
        expected.put(
                line(MetricNames.CIRCUIT_BREAKER_TRANSITIONS, dependency, "from", "half_open", "to", "closed"), "1.0");
        expected.put(line(MetricNames.CIRCUIT_BREAKER_NOT_PERMITTED_CALLS, dependency), "1.0");
        expected.put(line(MetricNames.BULKHEAD_AVAILABLE_CONCURRENT_CALLS, dependency), "1.0");
        expected.put(line(MetricNames.BULKHEAD_MAX_ALLOWED_CONCURRENT_CALLS, dependency), "1.0");
        expected.put(line(MetricNames.BULKHEAD_NOT_PERMITTED_CALLS, dependency), "1.0");
        expected.put(line(MetricNames.CONCURRENCY_LIMIT, dependency), "10000.0");
        expected.put(line(MetricNames.CONCURRENCY_LIMIT_IN_FLIGHT, dependency), "0.0");
        expected.put(line(MetricNames.CONCURRENCY_LIMIT_NOT_PERMITTED_CALLS, dependency), "0.0");
        // the reserve (10 retries/s over 10 s), plus 0.1 per first attempt the breaker let through (6), less 2 retries
        expected.put(line(MetricNames.RETRY_BUDGET_TOKENS, dependency), "98.6");
        assertThat(readAll(registry)).containsExactlyEntriesOf(expected);
    }

    @Test
    void theMetersOfAnEvictedDependencyAreRemovedAndItsNextCallStartsANewSet() throws Exception {
        Server a = new Server();
        Server b = new Server();
        HttpClientMetrics metrics = HttpClientMetrics.create();
        ResilientHttpClient client = bound(metrics, builder(metrics).maxDependencies(1));

        client.send(a.get("/item"), BodyHandlers.discarding());
        client.send(a.get("/item"), BodyHandlers.discarding());
        assertThat(dependencies(registry)).containsExactly(a.dependency());

        client.send(b.get("/item"), BodyHandlers.discarding()); // a is idle: the client forgets it
        assertThat(dependencies(registry)).containsExactly(b.dependency());

        client.send(a.get("/item"), BodyHandlers.discarding()); // and b for a
        assertThat(dependencies(registry)).containsExactly(a.dependency());
        assertThat(registry.get(MetricNames.CALLS)
                        .tag("dependency", a.dependency())
                        .timer()
                        .count())
                .as("calls to a since its state was created again")
                .isEqualTo(1);
    }

    @Test
    void manyDependenciesHoldMetersForNoMoreThanTheClientKeeps() throws Exception {
        Server server = new Server();
        HttpClientMetrics metrics = HttpClientMetrics.create();
        // one dependency key per request path: a crawler-like caller
        ResilientHttpClient client = bound(
                metrics,
                builder(metrics)
                        .maxDependencies(4)
                        .dependencyResolver(request -> request.uri().getPath()));

        for (int i = 0; i < 40; i++) {
            client.send(server.get("/page" + i), BodyHandlers.discarding());
        }

        assertThat(dependencies(registry)).hasSizeLessThanOrEqualTo(4).contains("/page39");
    }

    @Test
    void eventsBeforeBindingAreNotCountedAndTheMetersAppearWithTheFirstEventAfter() throws Exception {
        Server server = new Server();
        HttpClientMetrics metrics = HttpClientMetrics.create();
        ResilientHttpClient client = client(builder(metrics));

        client.send(server.get("/item"), BodyHandlers.discarding());
        metrics.bindTo(registry);
        assertThat(registry.getMeters()).isEmpty();
        client.send(server.get("/item"), BodyHandlers.discarding());

        assertThat(registry.get(MetricNames.CALLS).timer().count()).isEqualTo(1);
    }

    @Test
    void closeRemovesEveryMeterAndLaterCallsPublishNothing() throws Exception {
        Server server = new Server();
        HttpClientMetrics metrics = HttpClientMetrics.create();
        ResilientHttpClient client = bound(metrics, builder(metrics));
        client.send(server.get("/item"), BodyHandlers.discarding());
        assertThat(registry.getMeters()).isNotEmpty();

        metrics.close();
        client.send(server.get("/item"), BodyHandlers.discarding());

        assertThat(registry.getMeters()).isEmpty();
        assertThatThrownBy(() -> metrics.bindTo(registry)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void oneInstanceObservesOneClientAndPublishesToOneRegistry() {
        HttpClientMetrics metrics = HttpClientMetrics.create();
        client(builder(metrics));

        assertThatThrownBy(() -> builder(metrics).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("create one per client");
        HttpClientMetrics twice = HttpClientMetrics.create();
        assertThatThrownBy(() -> builder(twice).listener(twice).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("added twice");
        metrics.bindTo(registry);
        metrics.bindTo(registry); // the same registry again: nothing changes
        assertThatThrownBy(() -> metrics.bindTo(new SimpleMeterRegistry()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("CompositeMeterRegistry");
    }

    @Test
    void aTagNamedDependencyIsRefused() {
        assertThatThrownBy(() -> HttpClientMetrics.create(Tags.of("dependency", "x")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'dependency'");
    }

    @Test
    void theGaugesReadTheClientsOwnStatus() throws Exception {
        Server server = new Server();
        HttpClientMetrics metrics = HttpClientMetrics.create();
        ResilientHttpClient client = bound(metrics, builder(metrics));

        client.send(server.get("/item"), BodyHandlers.discarding());

        var status = client.dependencyStatus(server.dependency()).orElseThrow();
        assertThat(gauge(MetricNames.RETRY_BUDGET_TOKENS, server.dependency()))
                .isCloseTo(status.availableRetries(), within(1e-9));
        assertThat(gauge(MetricNames.BULKHEAD_MAX_ALLOWED_CONCURRENT_CALLS, server.dependency()))
                .isEqualTo(status.maxConcurrentCalls());
        assertThat(gauge(MetricNames.CONCURRENCY_LIMIT, server.dependency())).isEqualTo(status.concurrencyLimit());
    }

    @Test
    void withNoFixedBulkheadTheBulkheadGaugesReadInfinityAndTheLimitItsValue() throws Exception {
        Server server = new Server();
        HttpClientMetrics metrics = HttpClientMetrics.create();
        ResilientHttpClient client = bound(metrics, builder(metrics).defaultDependency(DependencyConfig.ofDefaults()));

        client.send(server.get("/item"), BodyHandlers.discarding());

        assertThat(gauge(MetricNames.BULKHEAD_MAX_ALLOWED_CONCURRENT_CALLS, server.dependency()))
                .isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(gauge(MetricNames.BULKHEAD_AVAILABLE_CONCURRENT_CALLS, server.dependency()))
                .isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(gauge(MetricNames.CONCURRENCY_LIMIT, server.dependency()))
                .isEqualTo(client.dependencyStatus(server.dependency())
                        .orElseThrow()
                        .concurrencyLimit())
                .isEqualTo(10_000);
        assertThat(gauge(MetricNames.CONCURRENCY_LIMIT_IN_FLIGHT, server.dependency()))
                .isZero();
    }

    @Test
    void withTheDependencyTagIgnoredEveryCallIsCountedThroughEvictions() throws Exception {
        registry.config().meterFilter(MeterFilter.ignoreTags("dependency"));
        Server server = new Server();
        HttpClientMetrics metrics = HttpClientMetrics.create();
        // one dependency key per path, four kept: every few calls evict one
        ResilientHttpClient client = bound(
                metrics,
                builder(metrics)
                        .maxDependencies(4)
                        .dependencyResolver(request -> request.uri().getPath()));

        for (int i = 0; i < 3_000; i++) {
            client.send(server.get("/page" + i % 40), BodyHandlers.discarding());
        }

        assertThat(registry.get(MetricNames.CALLS).timer().count()).isEqualTo(3_000);
        assertThat(registry.get(MetricNames.ATTEMPTS).timer().count()).isEqualTo(3_000);
        // the merged gauge adds up the dependencies the client holds now: four, all closed
        assertThat(registry.get(MetricNames.CIRCUIT_BREAKER_STATE)
                        .tag("state", "closed")
                        .gauge()
                        .value())
                .isEqualTo(4);
        assertThat(registry.get(MetricNames.CIRCUIT_BREAKER_STATE)
                        .tag("state", "open")
                        .gauge()
                        .value())
                .isZero();
    }

    @Test
    void mergedRejectionCountersKeepTheCountsOfEvictedDependencies() throws Exception {
        registry.config().meterFilter(MeterFilter.ignoreTags("dependency"));
        Server server = new Server();
        HttpClientMetrics metrics = HttpClientMetrics.create();
        ResilientHttpClient client = bound(
                metrics,
                builder(metrics)
                        .maxDependencies(1)
                        .dependencyResolver(request -> request.uri().getPath()));
        // /a: two 503s open its breaker, then one call is refused
        server.statuses.add(503);
        server.statuses.add(503);
        client.send(server.get("/a"), BodyHandlers.discarding());
        assertThat(catchThrowable(() -> client.send(server.get("/a"), BodyHandlers.discarding())))
                .isInstanceOf(CircuitOpenException.class);

        // not published before the eviction: the count is taken when the client lets /a go
        ticker.advance(OPEN_FOR.multipliedBy(100)); // /a idle long enough to be forgotten
        client.send(server.get("/b"), BodyHandlers.discarding());

        assertThat(registry.get(MetricNames.CIRCUIT_BREAKER_NOT_PERMITTED_CALLS)
                        .functionCounter()
                        .count())
                .as("the refusal counted for /a, which the client no longer holds")
                .isEqualTo(1);
        assertThat(registry.get(MetricNames.CALLS).timers().stream()
                        .mapToLong(Timer::count)
                        .sum())
                .isEqualTo(3);
    }

    @Test
    void closeRemovesMergedMetersThatOnlyEvictedDependenciesHeld() throws Exception {
        registry.config().meterFilter(MeterFilter.ignoreTags("dependency"));
        Server server = new Server();
        HttpClientMetrics metrics = HttpClientMetrics.create();
        ResilientHttpClient client = bound(
                metrics,
                builder(metrics)
                        .maxDependencies(1)
                        .dependencyResolver(request -> request.uri().getPath()));
        server.statuses.add(503); // /a: retried once, the only retry of the run
        client.send(server.get("/a"), BodyHandlers.discarding());
        client.send(server.get("/b"), BodyHandlers.discarding()); // /a is evicted
        assertThat(registry.get(MetricNames.RETRIES).counter().count()).isEqualTo(1);

        metrics.close();

        assertThat(registry.getMeters()).isEmpty();
    }

    @Test
    void twoClientsWithTheSameTagsOnOneRegistryAreRefusedAtBindTime() throws Exception {
        HttpClientMetrics first = HttpClientMetrics.create();
        bound(first, builder(first));
        HttpClientMetrics second = HttpClientMetrics.create();
        client(builder(second));

        assertThatThrownBy(() -> second.bindTo(registry))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("same tags")
                .hasMessageContaining(first.toString())
                .hasMessageContaining(second.toString())
                .hasMessageContaining("Tags.of(\"client\"");

        // distinct tags: both publish, one breaker-state series each
        Server server = new Server();
        HttpClientMetrics payments = HttpClientMetrics.create(Tags.of("client", "payments"));
        HttpClientMetrics search = HttpClientMetrics.create(Tags.of("client", "search"));
        ResilientHttpClient a = bound(payments, builder(payments));
        ResilientHttpClient b = bound(search, builder(search));
        server.statuses.add(503);
        server.statuses.add(503);
        a.send(server.get("/item"), BodyHandlers.discarding()); // opens a's breaker only
        b.send(server.get("/item"), BodyHandlers.discarding());
        assertThat(registry.get(MetricNames.CIRCUIT_BREAKER_STATE)
                        .tags("client", "payments", "state", "open")
                        .gauge()
                        .value())
                .isEqualTo(1);
        assertThat(registry.get(MetricNames.CIRCUIT_BREAKER_STATE)
                        .tags("client", "search", "state", "open")
                        .gauge()
                        .value())
                .isZero();
    }

    @Test
    void aClosedInstanceFreesItsTagsForAnother() {
        HttpClientMetrics first = HttpClientMetrics.create();
        first.bindTo(registry);
        first.close();
        HttpClientMetrics second = HttpClientMetrics.create();
        second.bindTo(registry); // no refusal: the first publishes nothing any more
        assertThat(registry.getMeters()).isEmpty();
    }

    // ---- reading the registry ------------------------------------------------------------------------

    private double gauge(String name, String dependency, String... tags) {
        return registry.get(name)
                .tag("dependency", dependency)
                .tags(tags)
                .gauge()
                .value();
    }

    /** Every meter as "name{tags}" → its value: count and total of a timer, the value of the others. */
    static Map<String, String> readAll(MeterRegistry registry) {
        Map<String, String> meters = new TreeMap<>();
        for (Meter meter : registry.getMeters()) {
            String value;
            if (meter instanceof Timer timer) {
                value = "count=" + timer.count() + " totalMs=" + Math.round(timer.totalTime(TimeUnit.MILLISECONDS));
            } else {
                value = String.valueOf(
                        Math.round(meter.measure().iterator().next().getValue() * 1e9) / 1e9);
            }
            meters.put(meter.getId().getName() + meter.getId().getTags(), value);
        }
        return meters;
    }

    /** The key {@link #readAll} gives a meter with these tags (besides client=payments and the dependency). */
    static String line(String name, String dependency, String... tags) {
        List<Tag> all = Tags.of(tags).and("client", "payments").and("dependency", dependency).stream()
                .toList();
        return name + all;
    }

    static List<String> dependencies(MeterRegistry registry) {
        return registry.getMeters().stream()
                .map(m -> m.getId().getTag("dependency"))
                .distinct()
                .sorted()
                .toList();
    }
}
