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
    /** Guarded by this. */
    private final List<Meter> registered = new ArrayList<>();
    /** Guarded by this. */
    private boolean removed;

    DependencyMeters(
            String dependency, MeterRegistry registry, Tags tags, Supplier<@Nullable ResilientHttpClient> client) {
        this.dependency = dependency;
        this.registry = registry;
        this.tags = tags.and(MetricNames.DEPENDENCY_TAG, dependency);
        this.client = client;
        synchronized (this) {
            for (BreakerState state : STATES) {
                registered.add(Gauge.builder(
                                MetricNames.CIRCUIT_BREAKER_STATE,
                                this,
                                m -> m.read(s -> s.breakerState() == state ? 1 : 0))
                        .description("1 for the circuit breaker's current state, 0 for the others")
                        .tags(this.tags)
                        .tag(MetricNames.STATE_TAG, lower(state))
                        .register(registry));
            }
            registered.add(FunctionCounter.builder(
                            MetricNames.CIRCUIT_BREAKER_NOT_PERMITTED_CALLS,
                            this,
                            m -> m.read(DependencyStatus::circuitOpenRejections))
                    .description("Attempts the open circuit breaker rejected without a network call")
                    .tags(this.tags)
                    .register(registry));
            registered.add(Gauge.builder(
                            MetricNames.BULKHEAD_AVAILABLE_CONCURRENT_CALLS,
                            this,
                            m -> m.read(s -> unbounded(s.availableBulkheadPermits(), s.maxConcurrentCalls())))
                    .description("Bulkhead permits not held")
                    .tags(this.tags)
                    .register(registry));
            registered.add(Gauge.builder(
                            MetricNames.BULKHEAD_MAX_ALLOWED_CONCURRENT_CALLS,
                            this,
                            m -> m.read(s -> unbounded(s.maxConcurrentCalls(), s.maxConcurrentCalls())))
                    .description("The bulkhead's size: attempts allowed in flight at once")
                    .tags(this.tags)
                    .register(registry));
            registered.add(FunctionCounter.builder(
                            MetricNames.BULKHEAD_NOT_PERMITTED_CALLS,
                            this,
                            m -> m.read(DependencyStatus::bulkheadFullRejections))
                    .description("Attempts the full bulkhead rejected without a network call")
                    .tags(this.tags)
                    .register(registry));
            registered.add(Gauge.builder(
                            MetricNames.CONCURRENCY_LIMIT,
                            this,
                            m -> m.read(s -> unbounded(s.concurrencyLimit(), s.concurrencyLimit())))
                    .description("The adaptive concurrency limit: attempts allowed in flight at once now;"
                            + " +Inf when the limit is disabled")
                    .tags(this.tags)
                    .register(registry));
            registered.add(Gauge.builder(
                            MetricNames.CONCURRENCY_LIMIT_IN_FLIGHT,
                            this,
                            m -> m.read(DependencyStatus::attemptsInFlight))
                    .description("Attempts in flight now")
                    .tags(this.tags)
                    .register(registry));
            registered.add(FunctionCounter.builder(
                            MetricNames.CONCURRENCY_LIMIT_NOT_PERMITTED_CALLS,
                            this,
                            m -> m.read(DependencyStatus::concurrencyLimitRejections))
                    .description("Attempts the concurrency limit rejected without a network call")
                    .tags(this.tags)
                    .register(registry));
            registered.add(Gauge.builder(
                            MetricNames.RETRY_BUDGET_TOKENS, this, m -> m.read(DependencyStatus::availableRetries))
                    .description("Retries the retry budget would permit now; +Inf when the budget is disabled")
                    .tags(this.tags)
                    .register(registry));
        }
    }

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
            meter = create.get();
            registered.add(meter);
            slots.set(i, meter);
        }
        return meter;
    }

    /** Removes every meter of this dependency from the registry; later events record nothing. */
    synchronized void remove() {
        removed = true;
        for (Meter meter : registered) {
            registry.remove(meter);
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
