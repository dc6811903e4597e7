package dev.ballast.http.chaos;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * What chaos to inject, how often, and whether now: immutable, thread-safe. Off by default twice
 * over: {@link #disabled()} injects nothing, and a policy built with faults injects only while its
 * flag ({@link Builder#enabledWhen}) answers true, read on every call so an operator can switch it
 * at run time (a system property, an environment variable, a feature-flag client). Each call the
 * flag lets through is faulted with probability {@link #injectionRate()}, with one of
 * {@link #faults()} picked uniformly (as Polly's chaos strategies take an injection rate and an
 * enabled generator).
 *
 * <p>The faults and what a client sees (by {@link ChaosHttpClient}; the storage facade maps them
 * to its own exceptions):
 *
 * <ul>
 *   <li>{@link Fault#LATENCY}: the call waits {@link #latency()} (default 1 s) and then goes on;
 *   <li>{@link Fault#UNAVAILABLE}: HTTP 503 with {@code Retry-After} {@link #retryAfter()} (default
 *       1 s); nothing is sent;
 *   <li>{@link Fault#RESET}: {@code SocketException: Connection reset} before anything is sent (the
 *       client cannot know that: retried only when idempotent or keyed).
 * </ul>
 */
public final class ChaosPolicy {

    /** The faults a policy can inject. */
    public enum Fault {
        /** Delay, then go on. */
        LATENCY,
        /** Answer 503 with Retry-After; the store: 503 SlowDown. */
        UNAVAILABLE,
        /** Break the connection; the store: an outcome-unknown failure. */
        RESET
    }

    /** The system property {@link #systemProperty()} reads: {@value}. */
    public static final String PROPERTY = "ballast.chaos.enabled";

    private static final ChaosPolicy DISABLED = new Builder().build();

    private final double injectionRate;
    private final Set<Fault> faults;
    private final Duration latency;
    private final Duration retryAfter;
    private final BooleanSupplier enabled;
    private final Supplier<RandomGenerator> random;

    private ChaosPolicy(Builder b) {
        this.injectionRate = b.injectionRate;
        this.faults = b.faults.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(b.faults));
        this.latency = b.latency;
        this.retryAfter = b.retryAfter;
        this.enabled = b.enabled;
        this.random = b.random;
    }

    /** A policy that never injects anything: the default of every client and facade. */
    public static ChaosPolicy disabled() {
        return DISABLED;
    }

    /** A builder: rate 0, no faults, flag always false. */
    public static Builder builder() {
        return new Builder();
    }

    /** A flag reading the system property {@value #PROPERTY} ({@code true} turns chaos on) on every call. */
    public static BooleanSupplier systemProperty() {
        return () -> Boolean.getBoolean(PROPERTY);
    }

    /** The fraction of calls faulted while enabled, 0 to 1. */
    public double injectionRate() {
        return injectionRate;
    }

    /** The faults picked from. */
    public Set<Fault> faults() {
        return faults;
    }

    /** How long {@link Fault#LATENCY} delays a call. */
    public Duration latency() {
        return latency;
    }

    /** The {@code Retry-After} of {@link Fault#UNAVAILABLE}. */
    public Duration retryAfter() {
        return retryAfter;
    }

    /**
     * The fault for the call being made, or null for none: reads the flag, then draws. Thread-safe.
     *
     * @return one of {@link #faults()}, or null
     */
    public @Nullable Fault draw() {
        if (faults.isEmpty() || injectionRate <= 0 || !enabled.getAsBoolean()) {
            return null;
        }
        RandomGenerator r = random.get();
        if (injectionRate < 1 && r.nextDouble() >= injectionRate) {
            return null;
        }
        Fault[] all = faults.toArray(Fault[]::new);
        java.util.Arrays.sort(all);
        return all[r.nextInt(all.length)];
    }

    @Override
    public String toString() {
        return "ChaosPolicy[rate " + injectionRate + ", " + faults + ", latency " + latency + ", retryAfter "
                + retryAfter + "]";
    }

    /** Builds a {@link ChaosPolicy}. Not thread-safe. */
    public static final class Builder {
        private double injectionRate;
        private final Set<Fault> faults = EnumSet.noneOf(Fault.class);
        private Duration latency = Duration.ofSeconds(1);
        private Duration retryAfter = Duration.ofSeconds(1);
        private BooleanSupplier enabled = () -> false;
        private Supplier<RandomGenerator> random = ThreadLocalRandom::current;

        private Builder() {}

        /**
         * The fraction of enabled calls to fault; 0 by default.
         *
         * @throws IllegalArgumentException unless {@code 0 <= rate <= 1}
         */
        public Builder injectionRate(double rate) {
            if (!(rate >= 0 && rate <= 1)) {
                throw new IllegalArgumentException("injectionRate must be between 0 and 1 but was " + rate);
            }
            this.injectionRate = rate;
            return this;
        }

        /** The faults to pick from (uniformly); none by default. */
        public Builder faults(Fault first, Fault... more) {
            faults.clear();
            faults.add(Objects.requireNonNull(first, "first"));
            for (Fault f : more) {
                faults.add(Objects.requireNonNull(f, "faults"));
            }
            return this;
        }

        /** The delay of {@link Fault#LATENCY}; 1 s by default; not negative. */
        public Builder latency(Duration latency) {
            if (latency.isNegative()) {
                throw new IllegalArgumentException("latency must be >= 0 but was " + latency);
            }
            this.latency = latency;
            return this;
        }

        /** The {@code Retry-After} of {@link Fault#UNAVAILABLE}; 1 s by default; whole seconds are sent. */
        public Builder retryAfter(Duration retryAfter) {
            if (retryAfter.isNegative()) {
                throw new IllegalArgumentException("retryAfter must be >= 0 but was " + retryAfter);
            }
            this.retryAfter = retryAfter;
            return this;
        }

        /** The flag read on every call; chaos happens only while it answers true. Never by default. */
        public Builder enabledWhen(BooleanSupplier enabled) {
            this.enabled = Objects.requireNonNull(enabled, "enabled");
            return this;
        }

        /** The randomness of the draws; {@code ThreadLocalRandom::current} by default. */
        public Builder random(Supplier<RandomGenerator> random) {
            this.random = Objects.requireNonNull(random, "random");
            return this;
        }

        public ChaosPolicy build() {
            return new ChaosPolicy(this);
        }
    }
}
