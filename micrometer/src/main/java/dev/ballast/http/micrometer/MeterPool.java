package dev.ballast.http.micrometer;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.function.DoubleSupplier;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * What every {@link HttpClientMetrics} bound to one registry shares: which instances are bound (two
 * with the same tags are refused), and every meter they registered with who holds it. A
 * {@link io.micrometer.core.instrument.config.MeterFilter} that drops or rewrites a tag (for
 * example {@code ignoreTags("dependency")}) makes the registry hand several dependencies (or
 * clients) one meter; the pool then keeps it while any of them holds it, never removes it on an
 * eviction while the filter merges it (its counts would be lost), and makes a merged gauge or
 * function counter the sum over its holders. Thread-safe: every method is serialized on the pool.
 */
final class MeterPool {

    /**
     * Weak both ways: a pool reaches its registry (through the meters' readers), so a strong value
     * would keep every registry ever bound alive; the instances bound to it hold the pool instead.
     */
    private static final Map<MeterRegistry, WeakReference<MeterPool>> POOLS = new WeakHashMap<>();

    /** The instances bound to the registry and not closed, in binding order. */
    private final List<HttpClientMetrics> bound = new ArrayList<>();
    /** Every meter registered through this pool, with its holders. */
    private final Map<Meter, Holders> meters = new IdentityHashMap<>();

    private MeterPool() {}

    /** The pool of {@code registry}: one while any instance bound to the registry holds it. */
    static MeterPool of(MeterRegistry registry) {
        synchronized (POOLS) {
            WeakReference<MeterPool> ref = POOLS.get(registry);
            MeterPool pool = ref == null ? null : ref.get();
            if (pool == null) {
                pool = new MeterPool();
                POOLS.put(registry, new WeakReference<>(pool));
            }
            return pool;
        }
    }

    /**
     * Records that {@code metrics}, whose meters carry {@code tags}, publishes to this pool's registry.
     *
     * @throws IllegalStateException if another open instance with equal tags is bound already: both
     *     would register the same meters, and the registry would merge two clients into one series
     */
    synchronized void bind(HttpClientMetrics metrics, Tags tags, MeterRegistry registry) {
        for (HttpClientMetrics other : bound) {
            if (other != metrics && other.tags().equals(tags)) {
                throw new IllegalStateException("Two HttpClientMetrics with the same tags " + tags
                        + " cannot publish to one registry ("
                        + registry.getClass().getSimpleName()
                        + "): " + other + " is bound to it already, and " + metrics
                        + " would register the same meters, merging the two clients into one series;"
                        + " create each with a tag naming its client, e.g."
                        + " HttpClientMetrics.create(Tags.of(\"client\", \"payments\"))");
            }
        }
        if (!bound.contains(metrics)) {
            bound.add(metrics);
        }
    }

    synchronized void unbind(HttpClientMetrics metrics) {
        bound.remove(metrics);
    }

    /**
     * Registers a meter whose value is read from holders (a gauge or a function counter): {@code
     * register} is given the holders to read and returns the meter the registry gave back. When the
     * registry gave back a meter this pool holds already (a filter merged the two), {@code reader}
     * joins its holders and the meter reads their sum.
     *
     * @param cumulative a function counter: the last value of a holder that leaves is kept in the sum
     */
    synchronized Meter share(
            Object owner, boolean cumulative, Function<Holders, Meter> register, DoubleSupplier reader) {
        Holders candidate = new Holders(cumulative);
        Meter meter = register.apply(candidate);
        Holders holders = meters.computeIfAbsent(meter, m -> candidate);
        holders.add(reader);
        holders.owners.add(owner);
        return meter;
    }

    /** Records one more holder of a counter or timer the registry gave back, registered by {@code owner}. */
    synchronized <M extends Meter> M hold(Object owner, M meter) {
        Holders holders = meters.computeIfAbsent(meter, m -> new Holders(false));
        holders.add(null);
        holders.owners.add(owner);
        return meter;
    }

    /**
     * {@code owner} closed, its dependencies' holders released: every meter it registered that no
     * dependency holds now and no other open instance registered is removed, merged meters an
     * eviction kept included.
     */
    synchronized void close(MeterRegistry registry, Object owner) {
        var it = meters.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<Meter, Holders> entry = it.next();
            Meter meter = entry.getKey();
            Holders holders = entry.getValue();
            if (holders.owners.remove(owner) && holders.owners.isEmpty() && holders.isEmpty()) {
                it.remove(); // an IdentityHashMap entry is unusable after this
                registry.remove(meter);
            }
        }
    }

    /**
     * One holder of {@code meter}, {@code reader} for a shared one, leaves. The meter is removed from
     * the registry when no holder is left and its id still carries the {@code dependency} tag with
     * {@code dependency} as value: then it was this dependency's alone. A meter a filter merged
     * stays, keeping its counts (its cardinality is bounded by the filter), until every instance that
     * registered it has closed ({@link #close}).
     */
    synchronized void release(MeterRegistry registry, Meter meter, @Nullable DoubleSupplier reader, String dependency) {
        Holders holders = meters.get(meter);
        if (holders == null) {
            return;
        }
        holders.remove(reader);
        if (holders.isEmpty() && dependency.equals(meter.getId().getTag(MetricNames.DEPENDENCY_TAG))) {
            meters.remove(meter);
            registry.remove(meter);
        }
    }

    /** Who holds one meter; for a gauge or function counter, what it reads. */
    static final class Holders {
        private final boolean cumulative;
        /** The instances that registered this meter and have not closed; guarded by the pool. */
        final Set<Object> owners = Collections.newSetFromMap(new IdentityHashMap<>());

        private final List<@Nullable DoubleSupplier> readers = new ArrayList<>();
        /** For a function counter: what holders that left had counted. */
        private double retired;

        Holders(boolean cumulative) {
            this.cumulative = cumulative;
        }

        synchronized void add(@Nullable DoubleSupplier reader) {
            readers.add(reader);
        }

        synchronized void remove(@Nullable DoubleSupplier reader) {
            if (readers.remove(reader) && cumulative && reader != null) {
                double last = reader.getAsDouble();
                if (!Double.isNaN(last)) {
                    retired += last;
                }
            }
        }

        synchronized boolean isEmpty() {
            return readers.isEmpty();
        }

        /**
         * The sum of the holders' values (NaN values left out); NaN when none has a value, except for
         * a function counter, which keeps what its departed holders counted.
         */
        synchronized double value() {
            double sum = 0;
            boolean any = false;
            for (DoubleSupplier reader : readers) {
                if (reader != null) {
                    double v = reader.getAsDouble();
                    if (!Double.isNaN(v)) {
                        sum += v;
                        any = true;
                    }
                }
            }
            if (cumulative) {
                return retired + sum;
            }
            return any ? sum : Double.NaN;
        }
    }
}
