package dev.ballast.storage.micrometer;

import dev.ballast.storage.StorageListener;
import dev.ballast.storage.object.StoreCapabilities;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.WeakHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * Publishes what a {@link dev.ballast.storage.StorageFacade}'s object store did as Micrometer
 * meters; {@link StorageMetricNames} lists them. It is both the facade's {@link StorageListener}
 * and a {@link MeterBinder}:
 *
 * <pre>{@code
 * StorageMetrics metrics = StorageMetrics.create(Tags.of("storage", "backups"));
 * StorageFacade facade = StorageFacade.newBuilder()
 *     .s3(endpoint).bucket("backups")
 *     .listener(metrics)
 *     .build();
 * metrics.bindTo(meterRegistry);
 * }</pre>
 *
 * <p>Meters are registered with their first event after {@link #bindTo} (the capability gauges at
 * {@code bindTo} when the facade was built before), so a healthy store publishes only the series it
 * has; events before {@code bindTo} are not counted. Every tag takes a handful of fixed values, so
 * nothing needs evicting. Durations are those of the facade's ticker
 * ({@link dev.ballast.storage.StorageFacade.Builder#ticker}).
 *
 * <p>This class needs {@code ballast-storage-adapter} on the class path, which
 * {@code ballast-micrometer} declares optional: a user of the HTTP meters alone does not get it.
 *
 * <p>One instance observes one facade and publishes to one registry (bind a
 * {@link io.micrometer.core.instrument.composite.CompositeMeterRegistry} to publish to several). Two
 * instances with the same tags are refused on one registry: give each a tag naming its facade. Thread-safe.
 */
public final class StorageMetrics implements StorageListener, MeterBinder, AutoCloseable {

    /** The open instances bound to each registry; weak, so that an instance never closed keeps no registry alive. */
    private static final Map<MeterRegistry, List<WeakReference<StorageMetrics>>> BOUND = new WeakHashMap<>();

    private final Tags tags;
    private final Object lock = new Object();
    /** Guarded by lock. */
    private final List<Meter> registered = new ArrayList<>();

    private volatile @Nullable MeterRegistry registry;
    private volatile @Nullable CapabilitiesKnown capabilities;
    /** Guarded by lock. */
    private boolean capabilityGauges;

    private volatile boolean closed;

    private StorageMetrics(Tags tags) {
        this.tags = tags;
    }

    /** Returns metrics whose meters carry no tags but their own; bound to no registry yet. */
    public static StorageMetrics create() {
        return new StorageMetrics(Tags.empty());
    }

    /**
     * Returns metrics whose meters all carry {@code tags} too, for example {@code storage=backups} to
     * tell the meters of several facades apart.
     *
     * @param tags tags added to every meter; none may be named {@value StorageMetricNames#STORE_TAG}
     * @return new metrics, bound to no registry yet
     * @throws IllegalArgumentException if a tag is named {@value StorageMetricNames#STORE_TAG}
     */
    public static StorageMetrics create(Iterable<Tag> tags) {
        Tags all = Tags.of(Objects.requireNonNull(tags, "tags"));
        for (Tag tag : all) {
            if (tag.getKey().equals(StorageMetricNames.STORE_TAG)) {
                throw new IllegalArgumentException("tags must not include '" + StorageMetricNames.STORE_TAG
                        + "', which every meter sets to the store kind, but was " + all);
            }
        }
        return new StorageMetrics(all);
    }

    /**
     * Publishes to {@code registry} from now on. Binding the same registry again does nothing.
     *
     * @throws IllegalStateException if bound to another registry already, or closed, or another open
     *     instance with the same tags is bound to {@code registry} (the two facades would be merged
     *     into one series)
     */
    @Override
    public void bindTo(MeterRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        synchronized (lock) {
            if (closed) {
                throw new IllegalStateException("StorageMetrics is closed; create a new one to publish again");
            }
            MeterRegistry bound = this.registry;
            if (bound == registry) {
                return;
            }
            if (bound != null) {
                throw new IllegalStateException("StorageMetrics is bound to " + bound
                        + " already; bind a CompositeMeterRegistry to publish to several registries");
            }
            synchronized (BOUND) {
                List<WeakReference<StorageMetrics>> others = BOUND.computeIfAbsent(registry, r -> new ArrayList<>());
                others.removeIf(ref -> ref.get() == null);
                for (WeakReference<StorageMetrics> ref : others) {
                    StorageMetrics other = ref.get();
                    if (other != null && other.tags.equals(tags)) {
                        throw new IllegalStateException("Two StorageMetrics with the same tags " + tags
                                + " cannot publish to one registry: " + other + " is bound to it already, and "
                                + this + " would merge a second facade into its series; create each with a tag"
                                + " naming its facade, e.g. StorageMetrics.create(Tags.of(\"storage\", \"backups\"))");
                    }
                }
                others.add(new WeakReference<>(this));
            }
            this.registry = registry;
            registerCapabilities();
        }
    }

    /** Removes every meter this instance registered and stops publishing. Idempotent. */
    @Override
    public void close() {
        synchronized (lock) {
            closed = true;
            MeterRegistry bound = registry;
            if (bound != null) {
                registered.forEach(bound::remove);
                synchronized (BOUND) {
                    List<WeakReference<StorageMetrics>> others = BOUND.get(bound);
                    if (others != null) {
                        others.removeIf(ref -> ref.get() == null || ref.get() == this);
                    }
                }
            }
            registered.clear();
        }
    }

    @Override
    public void onOperationEnded(OperationEnded event, @Nullable Object context) {
        MeterRegistry r = live();
        if (r == null) {
            return;
        }
        keep(Timer.builder(StorageMetricNames.OPERATIONS)
                        .description("Operations the object store ran, by operation and outcome, and the time"
                                + " each took (a get: until its stream was read to the end or closed)")
                        .tags(tags)
                        .tag(StorageMetricNames.STORE_TAG, event.store())
                        .tag(StorageMetricNames.OPERATION_TAG, event.operation().tag())
                        .tag(StorageMetricNames.OUTCOME_TAG, event.outcome().tag())
                        .register(r))
                .record(event.durationNanos(), TimeUnit.NANOSECONDS);
        if (event.outcome() == Outcome.SUCCESS && event.bytes() > 0) {
            keep(DistributionSummary.builder(StorageMetricNames.BYTES)
                            .description("Object bytes each successful operation moved: read from a get,"
                                    + " written by a put")
                            .baseUnit("bytes")
                            .tags(tags)
                            .tag(StorageMetricNames.STORE_TAG, event.store())
                            .tag(
                                    StorageMetricNames.OPERATION_TAG,
                                    event.operation().tag())
                            .register(r))
                    .record(event.bytes());
        }
    }

    @Override
    public void onDegradedRead(DegradedRead event) {
        MeterRegistry r = live();
        if (r == null) {
            return;
        }
        keep(Timer.builder(StorageMetricNames.DEGRADED_READS)
                        .description("Reads served from the last-known-good cache because the store was"
                                + " unavailable, by reason; the value recorded is the age of the data served")
                        .tags(tags)
                        .tag(StorageMetricNames.STORE_TAG, event.store())
                        .tag(StorageMetricNames.REASON_TAG, event.reason().tag())
                        .register(r))
                .record(event.age());
    }

    @Override
    public void onUnavailableRead(UnavailableRead event) {
        count(
                StorageMetricNames.UNAVAILABLE_READS,
                "Reads that failed: the store was unavailable and no acceptable copy was cached",
                event.store(),
                StorageMetricNames.REASON_TAG,
                event.reason().tag(),
                StorageMetricNames.CACHED_TAG,
                event.expiredCopy() ? "expired" : "none");
    }

    @Override
    public void onStaleRead(StaleRead event) {
        count(
                StorageMetricNames.STALE_READS,
                "Reads that found a version older than one already seen",
                event.store(),
                StorageMetricNames.HANDLING_TAG,
                event.refused() ? "refused" : "returned");
    }

    @Override
    public void onIntegrityFailure(IntegrityFailure event) {
        count(
                StorageMetricNames.INTEGRITY_FAILURES,
                "Reads whose bytes did not match the recorded SHA-256 or length",
                event.store());
    }

    @Override
    public void onConditionalWriteRefused(ConditionalWriteRefused event) {
        count(
                StorageMetricNames.CONDITIONAL_WRITE_REFUSALS,
                "Conditional writes the store refused",
                event.store(),
                StorageMetricNames.OPERATION_TAG,
                event.operation().tag(),
                StorageMetricNames.REASON_TAG,
                event.refusal().tag());
    }

    /** Keeps the capabilities; their gauges are registered now if bound, else at {@link #bindTo}. */
    @Override
    public void onCapabilities(CapabilitiesKnown event) {
        synchronized (lock) {
            capabilities = event;
            capabilityGauges = false;
            registerCapabilities();
        }
    }

    /** Guarded by lock. */
    private void registerCapabilities() {
        MeterRegistry r = registry;
        CapabilitiesKnown known = capabilities;
        if (r == null || known == null || closed || capabilityGauges) {
            return;
        }
        capabilityGauges = true;
        capability(r, known.store(), "versioning", StoreCapabilities::versioningEnabled);
        capability(r, known.store(), "put_if_absent", StoreCapabilities::putIfAbsent);
        capability(r, known.store(), "put_if_match", StoreCapabilities::putIfMatch);
        capability(r, known.store(), "additional_checksums", StoreCapabilities::additionalChecksums);
    }

    private void capability(MeterRegistry r, String store, String name, Predicate<StoreCapabilities> has) {
        registered.add(Gauge.builder(StorageMetricNames.CAPABILITY, this, m -> m.has(store, has))
                .description("1 when the object store has the capability, 0 when not")
                .tags(tags)
                .tag(StorageMetricNames.STORE_TAG, store)
                .tag(StorageMetricNames.CAPABILITY_TAG, name)
                .strongReference(true)
                .register(r));
    }

    private double has(String store, Predicate<StoreCapabilities> has) {
        CapabilitiesKnown known = capabilities;
        if (known == null || !known.store().equals(store)) {
            return Double.NaN;
        }
        return has.test(known.capabilities()) ? 1 : 0;
    }

    private void count(String name, String description, String store, String... extra) {
        MeterRegistry r = live();
        if (r == null) {
            return;
        }
        keep(Counter.builder(name)
                        .description(description)
                        .tags(tags)
                        .tag(StorageMetricNames.STORE_TAG, store)
                        .tags(extra)
                        .register(r))
                .increment();
    }

    private @Nullable MeterRegistry live() {
        return closed ? null : registry;
    }

    /** Remembers {@code meter} for {@link #close()}; the registry hands back the same instance for the same id. */
    private <M extends Meter> M keep(M meter) {
        synchronized (lock) {
            if (!registered.contains(meter)) {
                registered.add(meter);
            }
        }
        return meter;
    }

    @Override
    public String toString() {
        return "StorageMetrics[tags=" + tags + "]";
    }
}
