package dev.ballast.test;

import dev.ballast.http.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;

/**
 * Test time that moves only when a test moves it: one object that is both the wall clock
 * ({@link Clock}, UTC unless {@link #withZone} says otherwise) and the monotonic {@link Ticker}
 * (nanoseconds). {@link #advance} moves both together; {@link #set} jumps the wall clock (as an NTP
 * step would) and moves the ticker forward by the gap, never back. A clock made by
 * {@link #withZone} is a view sharing this one's time: moving either moves both. Thread-safe.
 *
 * <p>Give the same instance to everything under test, so breaker cool-downs, backoff, Retry-After
 * waits and cache ages are tested without sleeping: {@code ResilientHttpClient.newBuilder().clock(time)
 * .ticker(time)} and {@code StorageFacade.newBuilder().clock(time)}. (Ballast's own modules keep an
 * identical copy in their test sources, {@code dev.ballast.testkit.FakeTime}, because this kit depends
 * on them.)
 */
public final class FakeTime extends Clock implements Ticker {

    /** Where a new clock starts when the test does not say. */
    public static final Instant DEFAULT_START = Instant.parse("2026-01-01T00:00:00Z");

    /** The ticker's first reading: arbitrary and negative, as {@code System.nanoTime()} may be. */
    public static final long FIRST_TICKER_READING = -7_000_000_000L;

    /** What every view shares. */
    private static final class State {
        private Instant wall;
        private long nanos;

        State(Instant wall, long nanos) {
            this.wall = wall;
            this.nanos = nanos;
        }
    }

    private final State state;
    private final ZoneId zone;

    /** Starts at {@link #DEFAULT_START}, ticker at {@link #FIRST_TICKER_READING}. */
    public FakeTime() {
        this(DEFAULT_START);
    }

    /** Starts the wall clock at {@code start}, the ticker at {@link #FIRST_TICKER_READING}. */
    public FakeTime(Instant start) {
        this(new State(Objects.requireNonNull(start, "start"), FIRST_TICKER_READING), ZoneOffset.UTC);
    }

    private FakeTime(State state, ZoneId zone) {
        this.state = state;
        this.zone = Objects.requireNonNull(zone, "zone");
    }

    /**
     * Moves the wall clock and the ticker forward together.
     *
     * @param duration how far; not negative
     * @throws IllegalArgumentException if {@code duration} is negative
     */
    public void advance(Duration duration) {
        if (duration.isNegative()) {
            throw new IllegalArgumentException("duration must be >= 0 but was " + duration);
        }
        synchronized (state) {
            state.wall = state.wall.plus(duration);
            state.nanos += duration.toNanos();
        }
    }

    /**
     * Moves both forward by nanoseconds.
     *
     * @param delta how far, in nanoseconds; not negative
     */
    public void advanceNanos(long delta) {
        advance(Duration.ofNanos(delta));
    }

    /**
     * Sets the wall clock to {@code instant}; the ticker moves forward by the gap when it is later
     * than now and stays where it is otherwise (a monotonic clock never goes back).
     *
     * @param instant the new wall-clock time
     */
    public void set(Instant instant) {
        Objects.requireNonNull(instant, "instant");
        synchronized (state) {
            Duration gap = Duration.between(state.wall, instant);
            if (!gap.isNegative()) {
                state.nanos += gap.toNanos();
            }
            state.wall = instant;
        }
    }

    @Override
    public long read() {
        synchronized (state) {
            return state.nanos;
        }
    }

    @Override
    public Instant instant() {
        synchronized (state) {
            return state.wall;
        }
    }

    @Override
    public ZoneId getZone() {
        return zone;
    }

    @Override
    public FakeTime withZone(ZoneId zone) {
        return new FakeTime(state, zone);
    }

    @Override
    public String toString() {
        return "FakeTime[" + instant() + ", " + zone + ", ticker " + read() + "]";
    }
}
