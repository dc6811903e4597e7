package dev.ballast.http.internal;

import dev.ballast.http.CircuitOpenException;
import dev.ballast.http.HttpClientListener;
import dev.ballast.http.Ticker;
import dev.ballast.http.breaker.BreakerConfig;
import dev.ballast.http.breaker.BreakerState;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * The circuit breaker of one dependency: a CLOSED / OPEN / HALF_OPEN state machine configured by
 * {@link BreakerConfig} (see there for the rules), with time from an injected {@link Ticker} and the
 * open-state jitter from an injected {@link RandomGenerator}.
 *
 * <h2>Use</h2>
 * Each call asks {@link #acquirePermission()} first and reports its result on the returned
 * {@link Permit} exactly once: {@link Permit#onSuccess(long)}, {@link Permit#onFailure(long)} (each
 * with the call's duration, for the slow-call rule) for a breaker
 * failure ({@link dev.ballast.http.classify.Outcome#isBreakerFailure()}), {@link Permit#onIgnored()} for
 * an answer that is no breaker failure (such as a 404), {@link Permit#onAbandoned()} when the call
 * ended without an answer (cancelled, interrupted, timed out by the caller), or
 * {@link Permit#onNotAttempted()} when it was never sent (a full bulkhead rejected it). The client's
 * own attempts use the same protocol without the permit object: {@link #acquireTicket()} gives the
 * permission as a number, reported once through {@link #report(long, Report, long)}.
 *
 * <h2>Generations</h2>
 * Every transition starts a new generation. A permit belongs to the generation in which it was
 * acquired, and its report is ignored once the breaker has moved on: a slow call admitted while
 * CLOSED that fails after the breaker opened and half-opened cannot fail the half-open probe's
 * verdict, and a stale success cannot close the breaker.
 *
 * <h2>Thread-safety</h2>
 * Thread-safe. State is guarded by one lock held for a few field updates; {@link #acquirePermission()}
 * never waits for another call to finish, and while CLOSED it takes no lock at all (it reads one
 * volatile field). The {@link HttpClientListener} is told of transitions under that lock, so it sees
 * every transition once and in order; the client's listener fan-out also logs them, once.
 *
 * <p>The OPEN to HALF_OPEN transition happens on the first {@link #acquirePermission()} after the open
 * duration has elapsed; {@link #state()} reports OPEN until then.
 */
public final class CircuitBreaker {

    private final String dependency;
    private final BreakerConfig config;
    private final Ticker ticker;
    private final Supplier<RandomGenerator> random;
    private final HttpClientListener listener;

    private final ReentrantLock lock = new ReentrantLock();

    /** Written under lock, read without it. */
    private volatile BreakerState state = BreakerState.CLOSED;
    /**
     * The current generation while CLOSED, {@code -1} otherwise: the lock-free fast path of
     * {@link #acquirePermission()}. Written under lock at every transition.
     */
    private volatile long closedGeneration;
    /**
     * While OPEN, the ticker reading at which the open duration ends: the lock-free rejection path.
     * Written under lock before {@link #state} becomes OPEN.
     */
    private volatile long openUntil;
    /** How many times the breaker has opened; written under lock before {@link #state} becomes OPEN. */
    private volatile long openPeriods;
    /** The open period whose first rejection has been claimed by {@link #firstRejectionOfOpenPeriod()}. */
    @SuppressWarnings("unused") // accessed through REJECTION_CLAIMED
    private volatile long rejectionClaimed;

    /**
     * Whether the sliding window is full of fast successes (no failure, no slow call in it) while
     * CLOSED: then one more fast success changes nothing (it replaces an equal entry, and the window
     * is a set of equal entries whichever one is next), so it is not recorded at all, and a healthy
     * dependency's calls take no lock to report. Written under lock whenever the window changes.
     */
    private volatile boolean cleanWindow;

    // Everything below is guarded by lock.
    private long generation;

    /** Ring buffer of the last slidingWindowSize outcomes, true = failure. */
    private final boolean[] window;
    /** The same calls, true = slower than the slow-call duration threshold. */
    private final boolean[] slowWindow;

    private int windowNext;
    private int recorded;
    private int failuresInWindow;
    private int slowInWindow;
    private int consecutiveFailures;
    /** {@link BreakerConfig#slowCallDurationThreshold()} in nanoseconds. */
    private final long slowCallNanos;

    private long openedAt;
    private long openNanos;

    private long halfOpenedAt;
    private int probesIssued;
    private int probeSuccesses;
    private int slowProbes;

    /**
     * Creates a CLOSED breaker.
     *
     * @param dependency the dependency key it protects, used in exceptions, logs and listener events
     * @param config     the rules
     * @param ticker     the source of elapsed time
     * @param random     supplies the randomness of the open-duration jitter, for example
     *                   {@code ThreadLocalRandom::current}
     * @param listener   receives state transitions ({@link HttpClientListener#NONE} for none)
     * @throws NullPointerException if an argument is {@code null}
     */
    public CircuitBreaker(
            String dependency,
            BreakerConfig config,
            Ticker ticker,
            Supplier<RandomGenerator> random,
            HttpClientListener listener) {
        this.dependency = Objects.requireNonNull(dependency, "dependency");
        this.config = Objects.requireNonNull(config, "config");
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.random = Objects.requireNonNull(random, "random");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.window = new boolean[config.slidingWindowSize()];
        this.slowWindow = new boolean[config.slidingWindowSize()];
        this.slowCallNanos = Durations.saturatedNanos(config.slowCallDurationThreshold());
    }

    /**
     * Returns the dependency key this breaker protects.
     *
     * @return the dependency key
     */
    public String dependency() {
        return dependency;
    }

    /**
     * Returns the configuration.
     *
     * @return the configuration
     */
    public BreakerConfig config() {
        return config;
    }

    /**
     * Returns the current state. An OPEN breaker whose open duration has elapsed stays OPEN until the
     * next {@link #acquirePermission()}.
     *
     * @return the state
     */
    public BreakerState state() {
        return state;
    }

    /**
     * Tells whether forgetting this breaker at {@code nowNanos} lifts no protection: it is CLOSED; or
     * OPEN with its open duration over (its next call would be a half-open probe anyway); or
     * HALF_OPEN (the caller checks that no call of the dependency is in flight, so no probe is
     * outstanding). Lock-free; a concurrent transition may make the answer stale at once.
     *
     * @param nowNanos a reading of this breaker's ticker
     * @return whether the breaker holds nothing worth keeping
     */
    public boolean atRest(long nowNanos) {
        BreakerState current = state;
        return current != BreakerState.OPEN || openUntil - nowNanos <= 0;
    }

    /**
     * Returns how long an OPEN breaker keeps rejecting calls before it admits a probe.
     *
     * @return the remaining open time; {@link Duration#ZERO} unless OPEN with time remaining
     */
    public Duration remainingOpenTime() {
        lock.lock();
        try {
            return state == BreakerState.OPEN ? Duration.ofNanos(remainingOpenNanos(ticker.read())) : Duration.ZERO;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Asks to make one call. Never blocks on other calls.
     *
     * <ul>
     *   <li>CLOSED: always permitted.</li>
     *   <li>OPEN: rejected until the (jittered) open duration has elapsed; then the breaker turns
     *       HALF_OPEN and this call may become a probe.</li>
     *   <li>HALF_OPEN: permitted while fewer than
     *       {@link BreakerConfig#permittedNumberOfCallsInHalfOpenState()} probes were admitted in this
     *       half-open period; otherwise rejected with a remaining open time of zero
     *       ({@link CircuitOpenException#halfOpenProbesInFlight(String)}). If the probes have
     *       not all reported within {@link BreakerConfig#maxWaitDurationInHalfOpenState()}, the missing
     *       reports count as failures: the breaker opens again and the call is rejected.</li>
     * </ul>
     *
     * @return the permit on which to report the call's result
     * @throws CircuitOpenException if the call is not permitted; nothing may be sent
     */
    public Permit acquirePermission() throws CircuitOpenException {
        return new GenerationPermit(acquireTicket());
    }

    /**
     * {@link #acquirePermission()} without the permit object: the permission as a number, a
     * <em>ticket</em> (its generation and whether it is a half-open probe), on which the holder reports
     * through {@link #report(long, Report, long)}, at most once (the holder keeps its own "reported"
     * flag). The client's attempts hold their permission this way, so a call allocates nothing for it.
     *
     * @return the ticket, never {@link #NO_TICKET}
     * @throws CircuitOpenException if the call is not permitted; nothing may be sent
     */
    long acquireTicket() throws CircuitOpenException {
        long closed = closedGeneration;
        if (closed >= 0) {
            // A ticket of a generation that has just ended is harmless: its report is ignored.
            return ticket(closed, false);
        }
        if (state == BreakerState.OPEN) {
            // Rejecting without the lock is as if it had happened just before a concurrent transition.
            long remaining = openUntil - ticker.read();
            if (remaining > 0) {
                throw CircuitOpenException.open(dependency, remaining);
            }
        }
        lock.lock();
        try {
            long now = ticker.read();
            if (state == BreakerState.CLOSED) {
                return ticket(generation, false);
            }
            if (state == BreakerState.OPEN) {
                long remaining = remainingOpenNanos(now);
                if (remaining > 0) {
                    throw CircuitOpenException.open(dependency, remaining);
                }
                transitionTo(BreakerState.HALF_OPEN, now);
            }
            if (probesIssued < config.permittedNumberOfCallsInHalfOpenState()) {
                probesIssued++;
                return ticket(generation, true);
            }
            if (now - halfOpenedAt >= config.maxWaitDurationInHalfOpenState().toNanos()) {
                transitionTo(BreakerState.OPEN, now);
                throw CircuitOpenException.open(dependency, openNanos);
            }
            throw CircuitOpenException.halfOpenProbesInFlight(dependency);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Claims the first rejection of the current open period: true exactly once per period (for the
     * one rejection that logs it), false for every other. Lock-free: one volatile read on the common
     * path.
     *
     * @return whether the caller's rejection is the first of this open period
     */
    public boolean firstRejectionOfOpenPeriod() {
        long period = openPeriods;
        long claimed = rejectionClaimed;
        return claimed != period && REJECTION_CLAIMED.compareAndSet(this, claimed, period);
    }

    private long remainingOpenNanos(long now) {
        return Math.max(0, openNanos - (now - openedAt));
    }

    /** The value of a ticket that was never granted; {@link #report(long, Report, long)} ignores it. */
    static final long NO_TICKET = -1;

    /** A ticket: the generation shifted left by one, the low bit set for a half-open probe. Never negative. */
    private static long ticket(long generation, boolean probe) {
        return generation << 1 | (probe ? 1 : 0);
    }

    /**
     * Reports the call a ticket of {@link #acquireTicket()} permitted; the holder makes sure it reports
     * once. {@link #NO_TICKET} is ignored.
     *
     * @param ticket        the ticket, or {@link #NO_TICKET}
     * @param report        what became of the call (as the {@link Permit} methods of the same names)
     * @param durationNanos how long the call took, for {@code SUCCESS} and {@code FAILURE}; else 0
     */
    void report(long ticket, Report report, long durationNanos) {
        if (ticket != NO_TICKET) {
            report(ticket >>> 1, (ticket & 1) != 0, report, durationNanos);
        }
    }

    /** What became of a permitted call: as {@link Permit}'s methods of the same names. */
    enum Report {
        SUCCESS,
        FAILURE,
        IGNORED,
        ABANDONED,
        NOT_ATTEMPTED
    }

    private void report(long permitGeneration, boolean probe, Report report, long durationNanos) {
        boolean slow = (report == Report.SUCCESS || report == Report.FAILURE) && durationNanos > slowCallNanos;
        if (report == Report.SUCCESS && !slow && !probe && cleanWindow) {
            // Read without the lock: at this moment either the window is clean (recording changes nothing) or
            // the permit's generation is over (its report is ignored). Either way there is nothing to do.
            return;
        }
        lock.lock();
        try {
            if (permitGeneration != generation) {
                return;
            }
            if (probe) {
                long now = ticker.read();
                // A probe's generation is a HALF_OPEN one, and it is still current.
                if (report == Report.NOT_ATTEMPTED) {
                    probesIssued--;
                } else if (report == Report.SUCCESS || report == Report.IGNORED) {
                    probeSuccesses++;
                    if (slow) {
                        slowProbes++;
                    }
                    int permitted = config.permittedNumberOfCallsInHalfOpenState();
                    if (probeSuccesses >= permitted) {
                        boolean tooSlow = slowProbes * 100.0 >= config.slowCallRateThreshold() * permitted;
                        transitionTo(tooSlow ? BreakerState.OPEN : BreakerState.CLOSED, now);
                    }
                } else {
                    transitionTo(BreakerState.OPEN, now);
                }
            } else if (report == Report.SUCCESS) {
                record(false, slow);
            } else if (report == Report.FAILURE) {
                record(true, slow);
            }
        } finally {
            lock.unlock();
        }
    }

    private void record(boolean failure, boolean slow) {
        if (recorded == window.length) {
            if (window[windowNext]) {
                failuresInWindow--;
            }
            if (slowWindow[windowNext]) {
                slowInWindow--;
            }
        } else {
            recorded++;
        }
        window[windowNext] = failure;
        slowWindow[windowNext] = slow;
        windowNext = (windowNext + 1) % window.length;
        if (failure) {
            failuresInWindow++;
            consecutiveFailures++;
        } else {
            consecutiveFailures = 0;
        }
        if (slow) {
            slowInWindow++;
        }
        int consecutiveThreshold = config.consecutiveFailureThreshold();
        boolean tooManyInARow = consecutiveThreshold > 0 && consecutiveFailures >= consecutiveThreshold;
        boolean enough = recorded >= config.minimumNumberOfCalls();
        boolean rateTooHigh = enough && failuresInWindow * 100.0 >= config.failureRateThreshold() * recorded;
        boolean tooSlow = enough && slowInWindow * 100.0 >= config.slowCallRateThreshold() * recorded;
        if (tooManyInARow || rateTooHigh || tooSlow) {
            transitionTo(BreakerState.OPEN, ticker.read());
        } else {
            cleanWindow = recorded == window.length && failuresInWindow == 0 && slowInWindow == 0;
        }
    }

    private void transitionTo(BreakerState to, long now) {
        BreakerState from = state;
        generation++;
        cleanWindow = false;
        switch (to) {
            case OPEN -> {
                openedAt = now;
                openNanos = jitteredOpenNanos();
                openUntil = Durations.saturatedAdd(now, openNanos);
                openPeriods++;
            }
            case HALF_OPEN -> {
                halfOpenedAt = now;
                probesIssued = 0;
                probeSuccesses = 0;
                slowProbes = 0;
            }
            case CLOSED -> {
                Arrays.fill(window, false);
                Arrays.fill(slowWindow, false);
                windowNext = 0;
                recorded = 0;
                failuresInWindow = 0;
                slowInWindow = 0;
                consecutiveFailures = 0;
            }
        }
        state = to;
        closedGeneration = to == BreakerState.CLOSED ? generation : -1;
        try {
            listener.onBreakerStateTransition(dependency, from, to);
        } catch (Throwable e) {
            // A listener must never change the breaker's state; the client's own fan-out logs such bugs.
        }
    }

    private long jitteredOpenNanos() {
        long wait = config.waitDurationInOpenState().toNanos();
        double jitter = config.openStateJitter();
        if (jitter == 0) {
            return wait;
        }
        double factor = 1 + jitter * (2 * random.get().nextDouble() - 1);
        return (long) (wait * factor);
    }

    /**
     * Describes this breaker, for logs.
     *
     * @return for example {@code CircuitBreaker['api:443' CLOSED]}
     */
    @Override
    public String toString() {
        return "CircuitBreaker['" + dependency + "' " + state + "]";
    }

    /**
     * Permission for one call, on which the call reports its result. Report once: the first report
     * wins and later ones are ignored. A permit acquired in an earlier generation (before the
     * breaker's last transition) never affects the current state. Thread-safe.
     */
    public interface Permit {

        /** The dependency answered and the answer is a success. */
        void onSuccess();

        /** The call ended in a breaker failure (a transient or ambiguous outcome). */
        void onFailure();

        /**
         * The dependency answered with a success after {@code durationNanos}: a slow call if that is
         * above {@link BreakerConfig#slowCallDurationThreshold()}. The default implementation, for test
         * doubles, is {@link #onSuccess()}.
         *
         * @param durationNanos how long the call took, in nanoseconds of the breaker's ticker
         */
        default void onSuccess(long durationNanos) {
            onSuccess();
        }

        /**
         * The call ended in a breaker failure after {@code durationNanos}. The default implementation,
         * for test doubles, is {@link #onFailure()}.
         *
         * @param durationNanos how long the call took, in nanoseconds of the breaker's ticker
         */
        default void onFailure(long durationNanos) {
            onFailure();
        }

        /**
         * Dependency answered with a non-breaker-failure (e.g. 404): not a failure; in HALF_OPEN counts
         * as success. In CLOSED it is not recorded in the sliding window at all.
         */
        void onIgnored();

        /**
         * Cancelled/interrupted/timed out without an answer: ignored when CLOSED, a FAILURE for a
         * half-open probe, because a probe that does not report must not keep the breaker half-open.
         */
        void onAbandoned();

        /**
         * The call was never made: a later stage (for example a full bulkhead) rejected it before any
         * I/O. Nothing is recorded, and a half-open probe slot is given back so that another call can
         * probe. The default implementation, for test doubles, treats it as {@link #onAbandoned()}.
         */
        default void onNotAttempted() {
            onAbandoned();
        }
    }

    private final class GenerationPermit implements Permit {

        private final long ticket;

        @SuppressWarnings("unused") // accessed through REPORTED
        private volatile int reported;

        GenerationPermit(long ticket) {
            this.ticket = ticket;
        }

        private void once(Report report, long durationNanos) {
            if (REPORTED.compareAndSet(this, 0, 1)) {
                report(ticket, report, durationNanos);
            }
        }

        @Override
        public void onSuccess() {
            once(Report.SUCCESS, 0);
        }

        @Override
        public void onFailure() {
            once(Report.FAILURE, 0);
        }

        @Override
        public void onSuccess(long durationNanos) {
            once(Report.SUCCESS, durationNanos);
        }

        @Override
        public void onFailure(long durationNanos) {
            once(Report.FAILURE, durationNanos);
        }

        @Override
        public void onIgnored() {
            once(Report.IGNORED, 0);
        }

        @Override
        public void onAbandoned() {
            once(Report.ABANDONED, 0);
        }

        @Override
        public void onNotAttempted() {
            once(Report.NOT_ATTEMPTED, 0);
        }
    }

    private static final VarHandle REPORTED;
    private static final VarHandle REJECTION_CLAIMED;

    static {
        try {
            REPORTED = MethodHandles.lookup().findVarHandle(GenerationPermit.class, "reported", int.class);
            REJECTION_CLAIMED =
                    MethodHandles.lookup().findVarHandle(CircuitBreaker.class, "rejectionClaimed", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
