package dev.ballast.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.http.DependencyConfig;
import dev.ballast.http.bulkhead.BulkheadConfig;
import dev.ballast.http.limit.ConcurrencyLimitConfig;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/**
 * What the ballast.http.defaults and ballast.http.dependencies properties become, bound by Spring
 * Boot's own binder (so the records' {@code @DefaultValue}s apply as they do at start-up).
 */
@Timeout(30)
class HttpClientSettingsTest {

    private static final String PAYMENTS = "https://payments.internal:443";

    @Test
    void withNoPropertiesADependencyHasTheLibrarysDefaultsNoFixedBulkheadAndTheAdaptiveLimit() {
        // given
        BallastHttpProperties http = bind(Map.of());

        // when
        DependencyConfig defaults = defaults(http);

        // then
        assertThat(defaults).usingRecursiveComparison().isEqualTo(DependencyConfig.ofDefaults());
        assertThat(defaults.bulkhead()).isEqualTo(BulkheadConfig.disabled());
        assertThat(defaults.concurrencyLimit()).isEqualTo(ConcurrencyLimitConfig.ofDefaults());
        assertThat(defaults.breaker().throttlingIsFailure()).isTrue();
    }

    @Test
    void theConcurrencyLimitsOptionsMapToTheBuilderAndADependencyInheritsWhatItLeavesOut() {
        // given
        BallastHttpProperties http = bind(Map.of(
                "ballast.http.defaults.concurrency-limit.min-limit",
                "4",
                "ballast.http.defaults.concurrency-limit.window",
                "500ms",
                "ballast.http.dependencies[" + PAYMENTS + "].concurrency-limit.latency-tolerance",
                "1.5",
                "ballast.http.dependencies[" + PAYMENTS + "].concurrency-limit.min-window-samples",
                "25",
                "ballast.http.dependencies[" + PAYMENTS + "].concurrency-limit.initial-limit",
                "100",
                "ballast.http.dependencies[" + PAYMENTS + "].concurrency-limit.max-limit",
                "400",
                "ballast.http.dependencies[" + PAYMENTS + "].concurrency-limit.max-wait-duration",
                "250ms",
                "ballast.http.dependencies[" + PAYMENTS + "].concurrency-limit.max-waiting-calls",
                "64"));

        // when
        ConcurrencyLimitConfig defaults = defaults(http).concurrencyLimit();
        ConcurrencyLimitConfig payments = payments(http).concurrencyLimit();

        // then
        assertThat(defaults)
                .isEqualTo(ConcurrencyLimitConfig.builder()
                        .minLimit(4)
                        .window(Duration.ofMillis(500))
                        .build());
        assertThat(payments)
                .isEqualTo(ConcurrencyLimitConfig.builder()
                        .minLimit(4)
                        .window(Duration.ofMillis(500))
                        .latencyTolerance(1.5)
                        .minWindowSamples(25)
                        .initialLimit(100)
                        .maxLimit(400)
                        .maxWaitDuration(Duration.ofMillis(250))
                        .maxWaitingCalls(64)
                        .build());
    }

    @Test
    void aLowerMaxLimitAloneStartsTheLimitAtThatCeiling() {
        // given: the library's initial limit is its default ceiling, 10,000, above this max-limit
        BallastHttpProperties http = bind(Map.of("ballast.http.defaults.concurrency-limit.max-limit", "200"));

        // when
        ConcurrencyLimitConfig limit = defaults(http).concurrencyLimit();

        // then
        assertThat(limit.maxLimit()).isEqualTo(200);
        assertThat(limit.initialLimit()).isEqualTo(200);
    }

    @Test
    void theConcurrencyLimitIsTurnedOffForOneDependencyOrForAll() {
        // given
        BallastHttpProperties one =
                bind(Map.of("ballast.http.dependencies[" + PAYMENTS + "].concurrency-limit.enabled", "false"));
        BallastHttpProperties all = bind(Map.of(
                "ballast.http.defaults.concurrency-limit.enabled",
                "false",
                "ballast.http.dependencies[" + PAYMENTS + "].concurrency-limit.enabled",
                "true"));

        // then
        assertThat(defaults(one).concurrencyLimit()).isEqualTo(ConcurrencyLimitConfig.ofDefaults());
        assertThat(payments(one).concurrencyLimit()).isEqualTo(ConcurrencyLimitConfig.disabled());
        assertThat(defaults(all).concurrencyLimit()).isEqualTo(ConcurrencyLimitConfig.disabled());
        assertThat(payments(all).concurrencyLimit()).isEqualTo(ConcurrencyLimitConfig.ofDefaults());
    }

    @Test
    void aFixedBulkheadExistsOnlyWhereOneIsConfiguredAndADependencyCanTurnAnInheritedOneOff() {
        // given
        BallastHttpProperties sized =
                bind(Map.of("ballast.http.dependencies[" + PAYMENTS + "].bulkhead.max-concurrent-calls", "16"));
        BallastHttpProperties everywhere = bind(Map.of(
                "ballast.http.defaults.bulkhead.max-wait-duration",
                "20ms",
                "ballast.http.dependencies[" + PAYMENTS + "].bulkhead.enabled",
                "false"));
        BallastHttpProperties switchedOn = bind(Map.of("ballast.http.defaults.bulkhead.enabled", "true"));

        // then
        assertThat(defaults(sized).bulkhead()).isEqualTo(BulkheadConfig.disabled());
        assertThat(payments(sized).bulkhead())
                .isEqualTo(BulkheadConfig.builder(16).build());
        assertThat(defaults(everywhere).bulkhead())
                .isEqualTo(BulkheadConfig.builder(BulkheadConfig.DEFAULT_MAX_CONCURRENT_CALLS)
                        .maxWaitDuration(Duration.ofMillis(20))
                        .build());
        assertThat(payments(everywhere).bulkhead()).isEqualTo(BulkheadConfig.disabled());
        assertThat(defaults(switchedOn).bulkhead()).isEqualTo(BulkheadConfig.ofDefaults());
    }

    @Test
    void throttlingIsFailureIsSetForAllOrOneDependency() {
        // given
        BallastHttpProperties http = bind(Map.of(
                "ballast.http.defaults.breaker.throttling-is-failure",
                "false",
                "ballast.http.dependencies[" + PAYMENTS + "].breaker.sliding-window-size",
                "30"));
        BallastHttpProperties one =
                bind(Map.of("ballast.http.dependencies[" + PAYMENTS + "].breaker.throttling-is-failure", "false"));

        // then
        assertThat(defaults(http).breaker().throttlingIsFailure()).isFalse();
        assertThat(payments(http).breaker().throttlingIsFailure()).isFalse();
        assertThat(payments(http).breaker().slidingWindowSize()).isEqualTo(30);
        assertThat(defaults(one).breaker().throttlingIsFailure()).isTrue();
        assertThat(payments(one).breaker().throttlingIsFailure()).isFalse();
    }

    private static BallastHttpProperties bind(Map<String, String> properties) {
        return new Binder(new MapConfigurationPropertySource(properties))
                .bindOrCreate("ballast.http", BallastHttpProperties.class);
    }

    private static DependencyConfig defaults(BallastHttpProperties http) {
        return HttpClientSettings.dependency(HttpClientSettings.PREFIX + ".defaults", http.defaults(), null);
    }

    private static DependencyConfig payments(BallastHttpProperties http) {
        assertThat(http.dependencies()).containsKey(PAYMENTS);
        return HttpClientSettings.dependency(
                HttpClientSettings.PREFIX + ".dependencies[" + PAYMENTS + "]",
                http.dependencies().get(PAYMENTS),
                http.defaults());
    }
}
