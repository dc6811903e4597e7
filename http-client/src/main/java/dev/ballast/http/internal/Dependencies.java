package dev.ballast.http.internal;

import dev.ballast.http.DependencyConfig;
import dev.ballast.http.HttpClientListener;
import dev.ballast.http.Ticker;
import dev.ballast.http.hedging.HedgingConfig;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@link Dependency} per dependency key, created on first use from that key's configuration.
 *
 * <p>Bounded: once more than {@code maxDependencies} keys are held, the least recently used
 * <em>idle</em> dependency is forgotten (no call in flight or in a backoff, no attempt in flight,
 * bulkhead fully free, breaker CLOSED, HALF_OPEN, or OPEN with its open duration over); a later call
 * to it starts afresh with a new breaker, concurrency limit (at its initial value), bulkhead and
 * retry budget. Dependencies that are not idle are never evicted,
 * because forgetting a breaker within its open duration or a busy bulkhead would silently lift the
 * protection it provides; so while more than {@code maxDependencies} keys are busy or within an open
 * duration at once the map holds them all. Keys with an explicit configuration are evicted like
 * any other (their configuration is looked up again on re-creation).
 *
 * <p>Thread-safe: a dependency is taken with {@link #acquire(String)} and given back with
 * {@link #release(Dependency)}, and eviction removes a key only while its entry is idle, atomically
 * with respect to an acquire of the same key.
 */
final class Dependencies {

    private static final Logger LOG = LoggerFactory.getLogger("dev.ballast.http.ResilientHttpClient");

    private final Map<String, DependencyConfig> configs;
    private final DependencyConfig defaultDependency;
    private final Ticker ticker;
    private final Supplier<RandomGenerator> random;
    private final HttpClientListener breakerListener;
    private final int maxDependencies;
    private final ConcurrentMap<String, Dependency> byName = new ConcurrentHashMap<>();
    /**
     * The dependency acquired last, so that a client calling one dependency over and over skips the
     * map: a hint only, read and written without synchronisation (a {@link Dependency} is immutable
     * but for its atomic counters, so a racy read of it is safe), written only when it changes, and
     * used only if its name is the very string asked for and it can still be retained.
     */
    private @Nullable Dependency recent;

    Dependencies(
            Map<String, DependencyConfig> configs,
            DependencyConfig defaultDependency,
            Ticker ticker,
            Supplier<RandomGenerator> random,
            HttpClientListener breakerListener,
            int maxDependencies) {
        this.configs = Map.copyOf(configs);
        this.defaultDependency = defaultDependency;
        this.ticker = ticker;
        this.random = random;
        this.breakerListener = breakerListener;
        this.maxDependencies = maxDependencies;
    }

    /**
     * Takes the dependency for one logical call; pair with {@link #release(Dependency)}.
     *
     * @param name the dependency key
     * @param now a reading of the ticker, for least-recently-used eviction
     */
    Dependency acquire(String name, long now) {
        Dependency hint = recent;
        if (hint != null && hint.name() == name && hint.tryRetain()) {
            hint.lastUsedNanos().setOpaque(now);
            return hint;
        }
        Dependency known = byName.get(name);
        if (known != null && known.tryRetain()) {
            known.lastUsedNanos().setOpaque(now);
            if (hint != known) {
                recent = known;
            }
            return known;
        }
        Dependency dependency = byName.compute(name, (key, existing) -> {
            Dependency d = existing != null && existing.tryRetain() ? existing : create(key);
            if (d != existing) {
                d.activeCalls().incrementAndGet();
            }
            d.lastUsedNanos().set(now);
            return d;
        });
        if (byName.size() > maxDependencies) {
            evictIdle(now);
        }
        return dependency;
    }

    /** Ends one logical call on {@code dependency}. */
    void release(Dependency dependency) {
        dependency.activeCalls().decrementAndGet();
    }

    Optional<Dependency> existing(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    int size() {
        return byName.size();
    }

    private void evictIdle(long now) {
        while (byName.size() > maxDependencies) {
            Dependency oldest = null;
            for (Dependency d : byName.values()) {
                if (d.idle(now)
                        && (oldest == null
                                || d.lastUsedNanos().get()
                                                - oldest.lastUsedNanos().get()
                                        < 0)) {
                    oldest = d;
                }
            }
            if (oldest == null) {
                return; // every dependency is busy or protecting its caller: keep them all
            }
            Dependency candidate = oldest;
            // Re-checked under the key's lock, and retired there: an acquire that finds it retired makes a new one,
            // under the same lock, so listeners hear of the eviction before any event of the new state.
            byName.computeIfPresent(candidate.name(), (key, d) -> {
                if (d == candidate && d.idle(now) && d.retire()) {
                    breakerListener.onDependencyEvicted(key);
                    return null;
                }
                return d;
            });
            if (byName.get(candidate.name()) == candidate) {
                return; // became busy meanwhile; try again on the next acquire rather than spin
            }
        }
    }

    private Dependency create(String name) {
        DependencyConfig config = configs.get(name);
        if (config == null) {
            config = defaultDependency;
            warnIfNearMiss(name);
        }
        CircuitBreaker breaker = new CircuitBreaker(name, config.breaker(), ticker, random, breakerListener);
        Bulkhead bulkhead = config.bulkhead().enabled() ? new Bulkhead(name, config.bulkhead()) : null;
        ConcurrencyLimiter limiter = new ConcurrencyLimiter(name, config.concurrencyLimit(), ticker.read());
        RetryBudget budget = new RetryBudget(config.retryBudget(), ticker);
        HedgingConfig hedging = config.hedging().orElse(null);
        LatencyWindow latencies =
                hedging != null && hedging.delayPercentile() > 0 ? new LatencyWindow(hedging.delayPercentile()) : null;
        return new Dependency(
                name,
                breaker,
                bulkhead,
                limiter,
                config.bulkhead().maxConcurrentCalls(),
                budget,
                new AtomicInteger(),
                new AtomicLong(ticker.read()),
                new LongAdder(),
                new LongAdder(),
                new LongAdder(),
                hedging,
                latencies);
    }

    /**
     * Logs a WARN when a dependency without a configuration of its own has the scheme and port of one that
     * has one but another host name ({@code localhost} against {@code 127.0.0.1}): the likely
     * reason that configuration never applies, since host names are compared as written, without DNS.
     */
    private void warnIfNearMiss(String name) {
        int schemeEnd = name.indexOf("://");
        int portStart = name.lastIndexOf(':');
        if (configs.isEmpty() || schemeEnd < 0 || portStart <= schemeEnd) {
            return;
        }
        String scheme = name.substring(0, schemeEnd);
        String port = name.substring(portStart);
        for (String configured : configs.keySet()) {
            if (configured.startsWith(scheme + "://") && configured.endsWith(port)) {
                LOG.warn(
                        "dependency {} has no configuration of its own and gets the default one, although {} has one:"
                                + " dependency keys compare host names as written, without DNS",
                        name,
                        configured);
                return;
            }
        }
    }
}
