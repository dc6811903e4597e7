package dev.ballast.http.breaker;

import dev.ballast.http.Ticker;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * One {@link CircuitBreaker} per dependency key, created on first use and kept for the registry's
 * life: isolation is per dependency, never per call site or per client. Thread-safe; concurrent first
 * calls for one key get the same breaker.
 */
public final class BreakerRegistry {

    private final Function<String, BreakerConfig> configFor;
    private final Ticker ticker;
    private final Supplier<RandomGenerator> random;
    private final BreakerListener listener;
    private final Map<String, CircuitBreaker> breakers = new ConcurrentHashMap<>();

    /**
     * Creates an empty registry.
     *
     * @param configFor the configuration of each dependency key, asked once per key; must not return
     *                  {@code null}; not {@code null}
     * @param ticker    the source of elapsed time shared by all breakers; not {@code null}
     * @param random    supplies the open-duration jitter randomness; not {@code null}
     * @param listener  receives every breaker's transitions; not {@code null}
     * @throws NullPointerException if an argument is {@code null}
     */
    public BreakerRegistry(Function<String, BreakerConfig> configFor, Ticker ticker,
                           Supplier<RandomGenerator> random, BreakerListener listener) {
        this.configFor = Objects.requireNonNull(configFor, "configFor");
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.random = Objects.requireNonNull(random, "random");
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    /**
     * Returns the breaker of a dependency, creating a CLOSED one on first use.
     *
     * @param dependency the dependency key, for example {@code "https://api.example.com:443"}; not {@code null}
     * @return the dependency's breaker; always the same instance for equal keys
     * @throws NullPointerException if {@code dependency} is {@code null} or {@code configFor} returned
     *                              {@code null} for it
     */
    public CircuitBreaker forDependency(String dependency) {
        Objects.requireNonNull(dependency, "dependency");
        return breakers.computeIfAbsent(dependency, key -> new CircuitBreaker(key,
                Objects.requireNonNull(configFor.apply(key), () -> "configFor returned null for dependency '" + key + "'"),
                ticker, random, listener));
    }
}
