package dev.ballast.http.internal;

import dev.ballast.http.DependencyPolicy;
import dev.ballast.http.Ticker;
import dev.ballast.http.breaker.BreakerListener;
import dev.ballast.http.breaker.CircuitBreaker;
import dev.ballast.http.budget.RetryBudget;
import dev.ballast.http.bulkhead.Bulkhead;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * One {@link Dependency} per dependency key, created on first use from that key's policy.
 * Thread-safe. Entries are never evicted: the dependency resolver should map requests onto a
 * bounded set of keys (the default, {@code scheme://host:port}, does for any realistic service).
 */
final class Dependencies {

    private final Map<String, DependencyPolicy> policies;
    private final DependencyPolicy defaultPolicy;
    private final Ticker ticker;
    private final Supplier<RandomGenerator> random;
    private final BreakerListener breakerListener;
    private final ConcurrentMap<String, Dependency> byName = new ConcurrentHashMap<>();

    Dependencies(Map<String, DependencyPolicy> policies, DependencyPolicy defaultPolicy, Ticker ticker,
                 Supplier<RandomGenerator> random, BreakerListener breakerListener) {
        this.policies = Map.copyOf(policies);
        this.defaultPolicy = defaultPolicy;
        this.ticker = ticker;
        this.random = random;
        this.breakerListener = breakerListener;
    }

    Dependency get(String name) {
        return byName.computeIfAbsent(name, this::create);
    }

    Optional<Dependency> existing(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    private Dependency create(String name) {
        DependencyPolicy policy = policies.getOrDefault(name, defaultPolicy);
        CircuitBreaker breaker = new CircuitBreaker(name, policy.breaker(), ticker, random, breakerListener);
        Bulkhead bulkhead = new Bulkhead(name, policy.bulkhead());
        RetryBudget budget = new RetryBudget(policy.retryBudget(), ticker);
        return new Dependency(name, breaker, bulkhead, policy.bulkhead().maxConcurrentCalls(), budget);
    }
}
