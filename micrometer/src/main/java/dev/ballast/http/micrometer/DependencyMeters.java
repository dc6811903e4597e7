package dev.ballast.http.micrometer;

import dev.ballast.http.DependencyStatus;
import dev.ballast.http.ResilientHttpClient;
import dev.ballast.http.RetryDecision;
import dev.ballast.http.breaker.BreakerState;
import dev.ballast.http.classify.Outcome;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;

/**
 * The meters of one dependency. Gauges and rejection counters are registered at once and read the
 * client's {@link DependencyStatus} when published; timers and counters that carry an outcome, a
 * reason or a transition are registered with their first event, so a healthy dependency publishes
 * only the series it has. Recording finds its meter in an array slot: no registry lookup, no
 * allocation. Thread-safe; registration and removal are serialized on this object.
 */
final class DependencyMeters {

    private static final Outcome[] OUTCOMES = Outcome.values();
    private static final BreakerState[] STATES = BreakerState.values();
    private static final String[] KINDS = {
        MetricNames.SUCCESSFUL_WITHOUT_RETRY,
        MetricNames.SUCCESSFUL_WITH_RETRY,
        MetricNames.FAILED_WITHOUT_RETRY,
        MetricNames.FAILED_WITH_RETRY
    };
    /** The call outcomes: every {@link Outcome}, then {@link MetricNames#REJECTED}. */
    private static final int CALL_OUTCOMES = OUTCOMES.length + 1;

    private final String dependency;
    private final MeterRegistry registry;
    private final Tags tags;
    private final Supplier<@Nullable ResilientHttpClient> client;
    private final AtomicReferenceArray<Timer> calls = new AtomicReferenceArray<>(KINDS.length * CALL_OUTCOMES);
    private final AtomicReferenceArray<Timer> attempts = new AtomicReferenceArray<>(OUTCOMES.length);
    private final AtomicReferenceArray<Counter> retries = new AtomicReferenceArray<>(OUTCOMES.length);
    private final AtomicReferenceArray<Counter> transitions = new AtomicReferenceArray<>(STATES.length * STATES.length);
    private final MeterPool pool;
    /** The {@link HttpClientMetrics} these meters belong to. */
    private final Object owner;
    /** Guarded by this. */
    private final List<Held> registered = new ArrayList<>();
    /** Guarded by this. */
    private boolean removed;

    DependencyMeters(
            String dependency,
            MeterRegistry registry,
            MeterPool pool,
            Object owner,
            Tags tags,
            Supplier<@Nullable ResilientHttpClient> client) {
        this.dependency = dependency;
        this.registry = registry;
        this.tags = tags.and(MetricNames.DEPENDENCY_TAG, dependency);
        this.client = client;
        this.pool = pool;
        this.owner = owner;
        synchronized (this) {
            for (BreakerState state : STATES) {
                gauge(
                        MetricNames.CIRCUIT_BREAKER_STATE,
                        "1 for the circuit breaker's current state, 0 for the others",
                        Tags.of(MetricNames.STATE_TAG, lower(state)),
                        s -> s.breakerState() == state ? 1 : 0);
            }
            functionCounter(
                    MetricNames.CIRCUIT_BREAKER_NOT_PERMITTED_CALLS,
                    "Attempts the open circuit breaker rejected without a network call",
                    DependencyStatus::circuitOpenRejections);
            gauge(
                    MetricNames.BULKHEAD_AVAILABLE_CONCURRENT_CALLS,
                    "Bulkhead permits not held",
                    Tags.empty(),
                    s -> unbounded(s.availableBulkheadPermits(), s.maxConcurrentCalls()));
            gauge(
                    MetricNames.BULKHEAD_MAX_ALLOWED_CONCURRENT_CALLS,
                    "The bulkhead's size: attempts allowed in flight at once",
                    Tags.empty(),
                    s -> unbounded(s.maxConcurrentCalls(), s.maxConcurrentCalls()));
            functionCounter(
                    MetricNames.BULKHEAD_NOT_PERMITTED_CALLS,
                    "Attempts the full bulkhead rejected without a network call",
                    DependencyStatus::bulkheadFullRejections);
            gauge(
                    MetricNames.CONCURRENCY_LIMIT,
                    "The adaptive concurrency limit: attempts allowed in flight at once now;"
                            + " +Inf when the limit is disabled",
                    Tags.empty(),
                    s -> unbounded(s.concurrencyLimit(), s.concurrencyLimit()));
            gauge(
                    MetricNames.CONCURRENCY_LIMIT_IN_FLIGHT,
                    "Attempts in flight now",
                    Tags.empty(),
                    DependencyStatus::attemptsInFlight);
            functionCounter(
                    MetricNames.CONCURRENCY_LIMIT_NOT_PERMITTED_CALLS,
                    "Attempts the concurrency limit rejected without a network call",
                    DependencyStatus::concurrencyLimitRejections);
            gauge(
                    MetricNames.RETRY_BUDGET_TOKENS,
                    "Retries the retry budget would permit now; +Inf when the budget is disabled",
                    Tags.empty(),
                    DependencyStatus::availableRetries);
        }
    }

    /** Registers a gauge reading {@code field} of this dependency's status, through the pool. */
    private void gauge(String name, String description, Tags extra, ToDoubleFunction<DependencyStatus> field) {
        DoubleSupplier reader = () -> read(field);
        Meter meter = pool.share(
                owner,
                false,
                holders -> Gauge.builder(name, holders, MeterPool.Holders::value)
                        .description(description)
                        .tags(tags)
                        .tags(extra)
                        .strongReference(true)
                        .register(registry),
                reader);
        registered.add(new Held(meter, reader));
    }

    /** Registers a function counter reading {@code field} of this dependency's status, through the pool. */
    private void functionCounter(String name, String description, ToDoubleFunction<DependencyStatus> field) {
        DoubleSupplier reader = () -> read(field);
        Meter meter = pool.share(
                owner,
                true,
                holders -> FunctionCounter.builder(name, holders, MeterPool.Holders::value)
                        .description(description)
                        .tags(tags)
                        .register(registry),
                reader);
        registered.add(new Held(meter, reader));
    }

    /** A meter this dependency holds in the pool, and what it reads for a shared one. */
    private record Held(Meter meter, @Nullable DoubleSupplier reader) {}

    /** {@code value}, or positive infinity when {@code size} says there is no bound ({@link Integer#MAX_VALUE}). */
    private static double unbounded(int value, int size) {
        return size == Integer.MAX_VALUE ? Double.POSITIVE_INFINITY : value;
    }

    /** A field of the dependency's current status; NaN while the client does not hold the dependency. */
    private double read(ToDoubleFunction<DependencyStatus> field) {
        ResilientHttpClient c = client.get();
        if (c == null) {
            return Double.NaN;
        }
        Optional<DependencyStatus> status = c.dependencyStatus(dependency);
        return status.isPresent() ? field.applyAsDouble(status.get()) : Double.NaN;
    }

    void attemptEnded(Outcome outcome, RetryDecision decision, long durationNanos) {
        int i = outcome.ordinal();
        Timer attempt = attempts.get(i);
        if (attempt == null) {
            attempt = register(
                    attempts,
                    i,
                    () -> Timer.builder(MetricNames.ATTEMPTS)
                            .description("Attempts sent to the dependency, by outcome, and the time each exchange took")
                            .tags(tags)
                            .tag(MetricNames.OUTCOME_TAG, lower(outcome))
                            .register(registry));
        }
        if (attempt != null) {
            attempt.record(durationNanos, TimeUnit.NANOSECONDS);
        }
        if (decision == RetryDecision.RETRYING) {
            Counter retry = retries.get(i);
            if (retry == null) {
                retry = register(
                        retries,
                        i,
                        () -> Counter.builder(MetricNames.RETRIES)
                                .description("Retries decided, by the outcome of the attempt that was retried")
                                .tags(tags)
                                .tag(MetricNames.REASON_TAG, lower(outcome))
                                .register(registry));
            }
            if (retry != null) {
                retry.increment();
            }
        }
    }

    void callEnded(int attempts, Outcome outcome, RetryDecision decision, long durationNanos) {
        boolean succeeded = decision == RetryDecision.SUCCEEDED;
        int kind = (succeeded ? 0 : 2) + (attempts > 1 ? 1 : 0);
        int callOutcome = decision == RetryDecision.REJECTED ? OUTCOMES.length : outcome.ordinal();
        int i = kind * CALL_OUTCOMES + callOutcome;
        Timer call = calls.get(i);
        if (call == null) {
            String outcomeTag = callOutcome == OUTCOMES.length ? MetricNames.REJECTED : lower(outcome);
            call = register(
                    calls,
                    i,
                    () -> Timer.builder(MetricNames.CALLS)
                            .description("Calls (send or sendAsync) that ended with a decision, by kind and outcome,"
                                    + " and the time each took, backoffs included")
                            .tags(tags)
                            .tag(MetricNames.KIND_TAG, KINDS[kind])
                            .tag(MetricNames.OUTCOME_TAG, outcomeTag)
                            .register(registry));
        }
        if (call != null) {
            call.record(durationNanos, TimeUnit.NANOSECONDS);
        }
    }

    void transition(BreakerState from, BreakerState to) {
        int i = from.ordinal() * STATES.length + to.ordinal();
        Counter transition = transitions.get(i);
        if (transition == null) {
            transition = register(
                    transitions,
                    i,
                    () -> Counter.builder(MetricNames.CIRCUIT_BREAKER_TRANSITIONS)
                            .description("Circuit breaker state transitions")
                            .tags(tags)
                            .tag(MetricNames.FROM_TAG, lower(from))
                            .tag(MetricNames.TO_TAG, lower(to))
                            .register(registry));
        }
        if (transition != null) {
            transition.increment();
        }
    }

    /** Registers the slot's meter unless another thread did; {@code null} once the meters were removed. */
    private synchronized <M extends Meter> @Nullable M register(
            AtomicReferenceArray<M> slots, int i, Supplier<M> create) {
        if (removed) {
            return null;
        }
        M meter = slots.get(i);
        if (meter == null) {
            meter = pool.hold(owner, create.get());
            registered.add(new Held(meter, null));
            slots.set(i, meter);
        }
        return meter;
    }

    /**
     * Lets go of every meter of this dependency; later events record nothing. A meter only this
     * dependency held is removed from the registry; one a filter merged with others' stays (see
     * {@link MeterPool#release}) until its instances close.
     */
    synchronized void remove() {
        removed = true;
        for (Held held : registered) {
            pool.release(registry, held.meter(), held.reader(), dependency);
        }
        registered.clear();
        for (AtomicReferenceArray<? extends Meter> slots : List.of(calls, attempts, retries, transitions)) {
            for (int i = 0; i < slots.length(); i++) {
                slots.set(i, null);
            }
        }
    }

    private static String lower(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT);
    }
}
