package dev.ballast.http.micrometer;

import dev.ballast.http.HttpClientListener;
import dev.ballast.http.ResilientHttpClient;
import dev.ballast.http.RetryDecision;
import dev.ballast.http.breaker.BreakerState;
import dev.ballast.http.classify.Outcome;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.jspecify.annotations.Nullable;

/**
 * Publishes a {@link ResilientHttpClient}'s calls, attempts, retries, circuit breakers, bulkheads
 * and retry budgets as Micrometer meters, one set per dependency; {@link MetricNames} lists them.
 * It is both the client's {@link HttpClientListener} and a {@link MeterBinder}:
 *
 * <pre>{@code
 * HttpClientMetrics metrics = HttpClientMetrics.create();
 * ResilientHttpClient client = ResilientHttpClient.newBuilder()
 *     .listener(metrics)
 *     .build();
 * metrics.bindTo(meterRegistry);
 * }</pre>
 *
 * <p>Counts and timers come from the client's events ({@link #onAttemptEnded}, {@link #onCallEnded},
 * {@link #onBreakerStateTransition}), which carry plain numbers, so recording them allocates nothing
 * in the client; gauges and rejection counters read {@link ResilientHttpClient#dependencyStatus(String)}
 * when the registry publishes, so they cost the calls nothing. Durations are measured on the client's
 * {@link dev.ballast.http.Ticker}. Timers publish no histogram unless a
 * {@link io.micrometer.core.instrument.config.MeterFilter} asks for one.
 *
 * <p>Bounded: tags are dependency keys, of which the client holds at most
 * {@link ResilientHttpClient.Builder#maxDependencies(int)}; when the client evicts an idle
 * dependency, its meters are removed from the registry, and a later call to it starts a new set
 * (counters from zero). A dependency's meters appear with its first event after {@link #bindTo}.
 *
 * <p>Filters that merge meters: when a {@link io.micrometer.core.instrument.config.MeterFilter}
 * drops or rewrites a tag (such as {@code MeterFilter.ignoreTags("dependency")}) so that the
 * registry hands several dependencies, or several clients, one meter, every event is still counted
 * in it; an eviction removes a meter only when its id, after the filters, still names the evicted
 * dependency alone, so a merged timer or counter keeps its counts. A merged gauge reads the sum over
 * the dependencies the clients hold now, and a merged rejection counter keeps what evicted
 * dependencies counted.
 *
 * <p>One instance observes one client and publishes to one registry (bind a
 * {@link io.micrometer.core.instrument.composite.CompositeMeterRegistry} to publish to several).
 * Several clients on one registry need one instance each, with a tag telling them apart
 * (conventionally {@code client=<name>}, {@link #create(Iterable)}): {@link #bindTo} refuses an
 * instance whose tags equal those of another open instance bound to the same registry, naming
 * both, rather than merge two clients' meters into one series. A call
 * cancelled by its caller, or aborted by {@link ResilientHttpClient#shutdownNow()}, while an attempt
 * or a backoff was pending may end without a decision, and is then not in {@value MetricNames#CALLS}.
 *
 * <p>Thread-safe.
 *
 * @see MetricNames
 * @see HttpClientListener
 */
public final class HttpClientMetrics implements HttpClientListener, MeterBinder, AutoCloseable {

    private final Tags tags;
    private final ConcurrentMap<String, DependencyMeters> dependencies = new ConcurrentHashMap<>();
    /** Guards the registry and client fields, and every creation and removal of a dependency's meters. */
    private final Object lock = new Object();

    private volatile @Nullable MeterRegistry registry;
    private volatile @Nullable MeterPool pool;
    private volatile @Nullable ResilientHttpClient client;
    private volatile boolean closed;

    private HttpClientMetrics(Tags tags) {
        this.tags = tags;
    }

    /**
     * Returns metrics whose meters carry no tags but their own.
     *
     * @return new metrics, bound to no registry yet
     */
    public static HttpClientMetrics create() {
        return new HttpClientMetrics(Tags.empty());
    }

    /**
     * Returns metrics whose meters all carry {@code tags} too, for example {@code client=payments}
     * to tell the meters of several clients apart.
     *
     * @param tags tags added to every meter; none may be named {@value MetricNames#DEPENDENCY_TAG}
     * @return new metrics, bound to no registry yet
     * @throws NullPointerException if {@code tags} is null
     * @throws IllegalArgumentException if a tag is named {@value MetricNames#DEPENDENCY_TAG}
     */
    public static HttpClientMetrics create(Iterable<Tag> tags) {
        Tags all = Tags.of(Objects.requireNonNull(tags, "tags"));
        for (Tag tag : all) {
            if (tag.getKey().equals(MetricNames.DEPENDENCY_TAG)) {
                throw new IllegalArgumentException("tags must not include '" + MetricNames.DEPENDENCY_TAG
                        + "', which every meter sets to its dependency key, but was " + all);
            }
        }
        return new HttpClientMetrics(all);
    }

    /**
     * Publishes this client's meters to {@code registry}: from now on, each dependency's meters are
     * registered with its first event. Binding the same registry again does nothing.
     *
     * @param registry the registry
     * @throws NullPointerException if {@code registry} is null
     * @throws IllegalStateException if bound to another registry already, or closed, or another open
     *     instance with equal tags is bound to {@code registry} (the message names both; give each
     *     client a tag of its own, such as {@code client=payments})
     */
    @Override
    public void bindTo(MeterRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        synchronized (lock) {
            if (closed) {
                throw new IllegalStateException("HttpClientMetrics is closed; create a new one to publish again");
            }
            MeterRegistry bound = this.registry;
            if (bound != null && bound != registry) {
                throw new IllegalStateException("HttpClientMetrics is bound to " + bound
                        + " already; bind a CompositeMeterRegistry to publish to several registries");
            }
            MeterPool pool = MeterPool.of(registry);
            pool.bind(this, tags, registry);
            this.pool = pool;
            this.registry = registry;
        }
    }

    /**
     * Removes every meter this instance registered and stops publishing; later events are ignored.
     * Idempotent.
     */
    @Override
    public void close() {
        synchronized (lock) {
            closed = true;
            dependencies.values().forEach(DependencyMeters::remove);
            dependencies.clear();
            MeterPool pool = this.pool;
            MeterRegistry bound = registry;
            if (pool != null && bound != null) {
                pool.close(bound, this);
                pool.unbind(this);
            }
        }
    }

    /**
     * Takes the client whose dependencies the gauges read.
     *
     * @throws IllegalStateException if this instance was added to another client, or twice to this one
     *     (every event would then be counted twice), which fails that client's {@code build()}
     */
    @Override
    public void onClientBuilt(ResilientHttpClient client) {
        synchronized (lock) {
            ResilientHttpClient observed = this.client;
            if (observed == client) {
                throw new IllegalStateException("HttpClientMetrics was added twice to one client, so every"
                        + " event would be counted twice; add it once");
            }
            if (observed != null) {
                throw new IllegalStateException("HttpClientMetrics observes " + observed + " already; create"
                        + " one per client, with a tag telling them apart (HttpClientMetrics.create(tags))");
            }
            this.client = client;
        }
    }

    @Override
    public void onAttemptEnded(
            String dependency, int attempt, Outcome outcome, RetryDecision decision, long durationNanos) {
        if (decision == RetryDecision.REJECTED) {
            return; // no exchange: counted by the not-permitted counters, from the client's own counts
        }
        DependencyMeters meters = meters(dependency);
        if (meters != null) {
            meters.attemptEnded(outcome, decision, durationNanos);
        }
    }

    @Override
    public void onCallEnded(
            String dependency, int attempts, Outcome outcome, RetryDecision decision, long durationNanos) {
        DependencyMeters meters = meters(dependency);
        if (meters != null) {
            meters.callEnded(attempts, outcome, decision, durationNanos);
        }
    }

    @Override
    public void onBreakerStateTransition(String dependency, BreakerState from, BreakerState to) {
        DependencyMeters meters = meters(dependency);
        if (meters != null) {
            meters.transition(from, to);
        }
    }

    /** Removes the dependency's meters: its state is gone from the client, and its tag value with it. */
    @Override
    public void onDependencyEvicted(String dependency) {
        synchronized (lock) {
            DependencyMeters meters = dependencies.remove(dependency);
            if (meters != null) {
                meters.remove();
            }
        }
    }

    /** The dependency's meters, registered on first use; {@code null} while unbound or after close. */
    private @Nullable DependencyMeters meters(String dependency) {
        DependencyMeters meters = dependencies.get(dependency);
        if (meters != null || registry == null || closed) {
            return meters;
        }
        synchronized (lock) {
            if (closed) {
                return null;
            }
            MeterRegistry bound = registry;
            MeterPool shared = pool;
            if (bound == null || shared == null) {
                return null;
            }
            return dependencies.computeIfAbsent(
                    dependency, key -> new DependencyMeters(key, bound, shared, this, tags, this::client));
        }
    }

    private @Nullable ResilientHttpClient client() {
        return client;
    }

    /** The tags given to {@link #create(Iterable)}. */
    Tags tags() {
        return tags;
    }

    @Override
    public String toString() {
        ResilientHttpClient observed = client;
        return "HttpClientMetrics[tags=" + tags + ", "
                + (observed == null ? "not yet added to a client" : "observing " + observed) + "]";
    }
}
