package dev.ballast.spring.boot;

import dev.ballast.http.DependencyConfig;
import dev.ballast.http.ResilientHttpClient;
import dev.ballast.http.breaker.BreakerConfig;
import dev.ballast.http.budget.RetryBudgetConfig;
import dev.ballast.http.bulkhead.BulkheadConfig;
import dev.ballast.http.hedging.HedgingConfig;
import dev.ballast.http.idempotency.IdempotencyKeyConfig;
import dev.ballast.http.limit.ConcurrencyLimitConfig;
import dev.ballast.http.retry.Backoff;
import dev.ballast.http.retry.RetryConfig;
import dev.ballast.spring.boot.BallastHttpProperties.Breaker;
import dev.ballast.spring.boot.BallastHttpProperties.Bulkhead;
import dev.ballast.spring.boot.BallastHttpProperties.ConcurrencyLimit;
import dev.ballast.spring.boot.BallastHttpProperties.Dependency;
import dev.ballast.spring.boot.BallastHttpProperties.Hedging;
import dev.ballast.spring.boot.BallastHttpProperties.RetryBudget;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Applies {@link BallastHttpProperties} to a {@link ResilientHttpClient.Builder}. Every value is
 * checked by the builder it goes to, never here: what the builder refuses becomes an
 * {@link InvalidBallastPropertyException} naming the property, found from the option the builder's
 * message names.
 */
final class HttpClientSettings {

    static final String PREFIX = "ballast.http";

    private HttpClientSettings() {}

    static void apply(BallastHttpProperties p, ResilientHttpClient.Builder builder) {
        if (p.connectTimeout() != null) {
            checked(PREFIX + ".connect-timeout", List.of(), () -> builder.connectTimeout(p.connectTimeout()));
        }
        if (p.followRedirects() != null) {
            builder.followRedirects(p.followRedirects());
        }
        if (p.version() != null) {
            builder.version(p.version());
        }
        checked(PREFIX, List.of("totalTimeout"), () -> builder.totalTimeout(p.totalTimeout()));
        checked(PREFIX, List.of("attemptTimeout"), () -> builder.attemptTimeout(p.attemptTimeout()));
        checked(PREFIX, List.of("maxDependencies"), () -> builder.maxDependencies(p.maxDependencies()));

        BallastHttpProperties.Backoff backoff = p.retry().backoff();
        Backoff exponential = checked(
                PREFIX + ".retry.backoff",
                List.of("base", "cap"),
                () -> Backoff.exponential(backoff.base(), backoff.cap(), backoff.jitter()));
        builder.retry(checked(
                PREFIX + ".retry",
                List.of("maxAttempts", "maxRetryAfter"),
                () -> RetryConfig.builder()
                        .maxAttempts(p.retry().maxAttempts())
                        .maxRetryAfter(p.retry().maxRetryAfter())
                        .backoff(exponential)
                        .build()));
        builder.idempotencyKeys(checked(
                PREFIX + ".idempotency-keys",
                List.of("headerName"),
                () -> IdempotencyKeyConfig.builder()
                        .policy(p.idempotencyKeys().policy())
                        .headerName(p.idempotencyKeys().headerName())
                        .build()));

        Dependency defaults = p.defaults();
        builder.defaultDependency(dependency(PREFIX + ".defaults", defaults, null));
        Map<String, Dependency> named = p.dependencies() != null ? p.dependencies() : Map.of();
        named.forEach((key, settings) ->
                builder.dependency(key, dependency(PREFIX + ".dependencies[" + key + "]", settings, defaults)));
    }

    /** Builds the client, naming the dependency key a refused key came from. */
    static ResilientHttpClient build(BallastHttpProperties p, ResilientHttpClient.Builder builder) {
        try {
            return builder.build();
        } catch (IllegalArgumentException e) {
            Map<String, Dependency> named = p.dependencies() != null ? p.dependencies() : Map.of();
            String property = PREFIX + ".dependencies";
            for (String key : named.keySet()) {
                if (String.valueOf(e.getMessage()).contains("'" + key + "'")) {
                    property = PREFIX + ".dependencies[" + key + "]";
                    break;
                }
            }
            throw new InvalidBallastPropertyException(property, String.valueOf(e.getMessage()), e);
        }
    }

    /**
     * The dependency's config: {@code own} settings over {@code inherited} ones (those of
     * {@code ballast.http.defaults}, or null for the defaults themselves) over the library's defaults.
     */
    static DependencyConfig dependency(String prefix, Dependency own, @Nullable Dependency inherited) {
        DependencyConfig.Builder config = DependencyConfig.builder();
        config.breaker(breaker(prefix + ".breaker", own.breaker(), inherited != null ? inherited.breaker() : null));
        config.concurrencyLimit(concurrencyLimit(
                prefix + ".concurrency-limit",
                own.concurrencyLimit(),
                inherited != null ? inherited.concurrencyLimit() : null));
        config.bulkhead(
                bulkhead(prefix + ".bulkhead", own.bulkhead(), inherited != null ? inherited.bulkhead() : null));
        config.retryBudget(retryBudget(
                prefix + ".retry-budget", own.retryBudget(), inherited != null ? inherited.retryBudget() : null));
        HedgingConfig hedging =
                hedging(prefix + ".hedging", own.hedging(), inherited != null ? inherited.hedging() : null);
        if (hedging != null) {
            config.hedging(hedging);
        }
        return config.build();
    }

    private static BreakerConfig breaker(String prefix, Breaker own, @Nullable Breaker inherited) {
        BreakerConfig.Builder b = BreakerConfig.builder();
        for (Breaker layer : layers(inherited, own)) {
            set(layer.failureRateThreshold(), b::failureRateThreshold);
            set(layer.slidingWindowSize(), b::slidingWindowSize);
            set(layer.minimumNumberOfCalls(), b::minimumNumberOfCalls);
            set(layer.consecutiveFailureThreshold(), b::consecutiveFailureThreshold);
            set(layer.slowCallRateThreshold(), b::slowCallRateThreshold);
            set(layer.slowCallDurationThreshold(), b::slowCallDurationThreshold);
            set(layer.waitDurationInOpenState(), b::waitDurationInOpenState);
            set(layer.openStateJitter(), b::openStateJitter);
            set(layer.permittedNumberOfCallsInHalfOpenState(), b::permittedNumberOfCallsInHalfOpenState);
            set(layer.maxWaitDurationInHalfOpenState(), b::maxWaitDurationInHalfOpenState);
            set(layer.throttlingIsFailure(), b::throttlingIsFailure);
        }
        return checked(
                prefix,
                List.of(
                        "failureRateThreshold",
                        "slidingWindowSize",
                        "minimumNumberOfCalls",
                        "consecutiveFailureThreshold",
                        "slowCallRateThreshold",
                        "slowCallDurationThreshold",
                        "waitDurationInOpenState",
                        "openStateJitter",
                        "permittedNumberOfCallsInHalfOpenState",
                        "maxWaitDurationInHalfOpenState"),
                b::build);
    }

    /**
     * The adaptive limit: on unless a layer says {@code enabled: false}. {@code initial-limit} left out
     * is the ceiling, {@code max-limit} (as in the library, whose default starts at its default ceiling),
     * so that a lower {@code max-limit} alone is accepted.
     */
    private static ConcurrencyLimitConfig concurrencyLimit(
            String prefix, ConcurrencyLimit own, @Nullable ConcurrencyLimit inherited) {
        ConcurrencyLimitConfig.Builder b = ConcurrencyLimitConfig.builder();
        boolean enabled = true;
        Integer initial = null;
        int max = ConcurrencyLimitConfig.DEFAULT_MAX_LIMIT;
        for (ConcurrencyLimit layer : layers(inherited, own)) {
            enabled = layer.enabled() != null ? layer.enabled() : enabled;
            initial = layer.initialLimit() != null ? layer.initialLimit() : initial;
            max = layer.maxLimit() != null ? layer.maxLimit() : max;
            set(layer.minLimit(), b::minLimit);
            set(layer.latencyTolerance(), b::latencyTolerance);
            set(layer.window(), b::window);
            set(layer.minWindowSamples(), b::minWindowSamples);
            set(layer.maxWaitDuration(), b::maxWaitDuration);
            set(layer.maxWaitingCalls(), b::maxWaitingCalls);
        }
        b.maxLimit(max).initialLimit(initial != null ? initial : max);
        ConcurrencyLimitConfig built = checked(
                prefix,
                List.of(
                        "initialLimit",
                        "minLimit",
                        "maxLimit",
                        "latencyTolerance",
                        "window",
                        "minWindowSamples",
                        "maxWaitDuration",
                        "maxWaitingCalls"),
                b::build);
        return enabled ? built : ConcurrencyLimitConfig.disabled();
    }

    /**
     * The fixed bulkhead: none (the library's default) unless a layer sets {@code enabled: true}, a size
     * or a wait; a later layer's {@code enabled: false} turns an inherited one off.
     */
    private static BulkheadConfig bulkhead(String prefix, Bulkhead own, @Nullable Bulkhead inherited) {
        boolean enabled = false;
        int max = BulkheadConfig.DEFAULT_MAX_CONCURRENT_CALLS;
        java.time.Duration wait = BulkheadConfig.DEFAULT_MAX_WAIT_DURATION;
        for (Bulkhead layer : layers(inherited, own)) {
            boolean configures = layer.maxConcurrentCalls() != null || layer.maxWaitDuration() != null;
            enabled = layer.enabled() != null ? layer.enabled() : enabled || configures;
            max = layer.maxConcurrentCalls() != null ? layer.maxConcurrentCalls() : max;
            wait = layer.maxWaitDuration() != null ? layer.maxWaitDuration() : wait;
        }
        if (!enabled) {
            return BulkheadConfig.disabled();
        }
        int size = max;
        java.time.Duration maxWait = wait;
        return checked(
                prefix,
                List.of("maxConcurrentCalls", "maxWaitDuration"),
                () -> BulkheadConfig.builder(size).maxWaitDuration(maxWait).build());
    }

    private static RetryBudgetConfig retryBudget(String prefix, RetryBudget own, @Nullable RetryBudget inherited) {
        RetryBudgetConfig.Builder b = RetryBudgetConfig.builder();
        boolean enabled = true;
        for (RetryBudget layer : layers(inherited, own)) {
            set(layer.ratio(), b::ratio);
            set(layer.minRetriesPerSecond(), b::minRetriesPerSecond);
            set(layer.ttl(), b::ttl);
            enabled = layer.enabled() != null ? layer.enabled() : enabled;
        }
        RetryBudgetConfig built = checked(prefix, List.of("ratio", "minRetriesPerSecond", "ttl"), b::build);
        return enabled ? built : RetryBudgetConfig.disabled();
    }

    private static @Nullable HedgingConfig hedging(String prefix, Hedging own, @Nullable Hedging inherited) {
        java.time.Duration delay = null;
        Double percentile = null;
        Integer maxHedged = null;
        for (Hedging layer : layers(inherited, own)) {
            delay = layer.delay() != null ? layer.delay() : delay;
            percentile = layer.delayPercentile() != null ? layer.delayPercentile() : percentile;
            maxHedged = layer.maxHedgedAttempts() != null ? layer.maxHedgedAttempts() : maxHedged;
        }
        if (delay == null) {
            if (percentile != null || maxHedged != null) {
                throw new InvalidBallastPropertyException(
                        prefix + ".delay",
                        "hedging needs a delay (the fixed delay, or the initial one with delay-percentile)",
                        new IllegalArgumentException("hedging delay is not set"));
            }
            return null;
        }
        java.time.Duration d = delay;
        Double pct = percentile;
        Integer max = maxHedged;
        return checked(prefix, List.of("delayPercentile", "maxHedgedAttempts", "delay"), () -> {
            HedgingConfig.Builder b = HedgingConfig.builder(d);
            if (pct != null) {
                b.delayPercentile(pct);
            }
            if (max != null) {
                b.maxHedgedAttempts(max);
            }
            return b.build();
        });
    }

    /** The layers of settings that apply, inherited first so that the dependency's own win. */
    private static <T> List<T> layers(@Nullable T inherited, T own) {
        return inherited == null ? List.of(own) : List.of(inherited, own);
    }

    private static <T> void set(@Nullable T value, Consumer<T> setter) {
        if (value != null) {
            setter.accept(value);
        }
    }

    /**
     * Runs {@code action}; what it refuses becomes an {@link InvalidBallastPropertyException} for the
     * first of {@code options} (builder option names) that the message names, as a property under
     * {@code prefix}, or for {@code prefix} itself.
     */
    static <T> T checked(String prefix, List<String> options, Supplier<T> action) {
        return checked(prefix, options, action, Map.of());
    }

    /**
     * As {@link #checked(String, List, Supplier)}, for options whose property is not named after them:
     * {@code properties} maps such an option to its property's last segment.
     */
    static <T> T checked(String prefix, List<String> options, Supplier<T> action, Map<String, String> properties) {
        try {
            return action.get();
        } catch (IllegalArgumentException | IllegalStateException | NullPointerException e) {
            if (e instanceof InvalidBallastPropertyException already) {
                throw already;
            }
            String message = String.valueOf(e.getMessage());
            String property = prefix;
            int earliest = Integer.MAX_VALUE;
            for (String option : options) {
                Matcher m =
                        Pattern.compile("\\b" + Pattern.quote(option) + "\\b").matcher(message);
                if (m.find() && m.start() < earliest) {
                    earliest = m.start();
                    property = prefix + "." + properties.getOrDefault(option, kebab(option));
                }
            }
            throw new InvalidBallastPropertyException(property, message, e);
        }
    }

    static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }
}
