package dev.ballast.http.internal;

import dev.ballast.http.Ticker;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * The one timer of a client, for the deadlines the JDK client does not enforce itself: the body of
 * a response (the JDK's request timeout ends when the headers arrive) and whole attempts of a
 * wrapped client that is not the JDK's.
 *
 * <p>Built for timeouts that almost never fire. Arming one pushes it onto a lock-free stack (one
 * compare-and-set, no allocation beyond the timeout itself, no task, no wake-up); disarming it is
 * one compare-and-set. A single worker thread, started on first use and gone again after
 * {@value #KEEP_ALIVE_SECONDS} s without timeouts, drains the stack, forgets disarmed timeouts and
 * fires those whose deadline has passed. It sleeps until the earliest deadline it knows of, at most
 * {@value #MAX_PARK_MILLIS} ms at a time; a newly armed timeout that is due earlier wakes it. So a
 * busy client costs this thread about {@code 1000 / MAX_PARK_MILLIS} wake-ups a second in all,
 * however many calls it makes.
 *
 * <p>The deadlines that are set most, every attempt's bound, are not armed one by one at all: they
 * live in their owners' fields and the worker polls them through a {@code Source} (the client's
 * calls in flight) on every pass, so arming one allocates nothing and writes nothing shared, and one
 * disarmed before the next pass costs the worker nothing (see {@code deadlineSet}).
 *
 * <p>One clock: deadlines are readings of the client's {@link Ticker}, and a timeout fires when the
 * ticker says its deadline has passed, however long the worker actually slept. With a test ticker
 * that only moves when advanced, nothing fires until it is.
 *
 * <p>Expiry callbacks run on the worker thread and must be short and never block. Thread-safe.
 */
public final class DeadlineTimer {

    static final int KEEP_ALIVE_SECONDS = 10;
    static final long MAX_PARK_MILLIS = 50;
    private static final long MAX_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(MAX_PARK_MILLIS);
    private static final long KEEP_ALIVE_NANOS = TimeUnit.SECONDS.toNanos(KEEP_ALIVE_SECONDS);
    private static final AtomicInteger THREAD_NUMBER = new AtomicInteger();

    private final Ticker ticker;
    /** Newly armed timeouts, linked through {@link Timeout#next}; drained by the worker. */
    private final AtomicReference<Timeout> armed = new AtomicReference<>();

    private volatile @Nullable Thread worker;
    /** The ticker reading at which the worker plans to wake; meaningful while {@link #worker} is set. */
    private volatile long plannedWakeNanos;

    private volatile boolean shutdown;

    /** Deadlines the worker polls for on every pass instead of having them armed one by one; or null. */
    private final @Nullable Source source;

    /**
     * Creates a timer; no thread is started until a timeout is armed.
     *
     * @param ticker the clock every deadline is a reading of
     */
    public DeadlineTimer(Ticker ticker) {
        this(ticker, null);
    }

    /**
     * Creates a timer that also polls {@code source} on every pass of its worker; no thread is
     * started until a timeout is armed or {@link #deadlineSet(long)} is called.
     *
     * @param ticker the clock every deadline is a reading of
     * @param source deadlines kept by their owners and polled, or {@code null} for none
     */
    DeadlineTimer(Ticker ticker, @Nullable Source source) {
        this.ticker = ticker;
        this.source = source;
    }

    /**
     * Deadlines that live in their owners' own fields rather than in a {@link Timeout} each: an
     * attempt's bound is a field of the attempt, and its call is in the pipeline's set of calls in
     * flight anyway. Arming one is writing that field and calling {@link #deadlineSet(long)}, with
     * nothing allocated and nothing pushed, and a deadline disarmed before the worker's next pass is
     * never seen by it at all. The worker polls the source on each pass (at least every
     * {@value #MAX_PARK_MILLIS} ms while anything is pending), so the cost of the polled deadlines
     * is per pass and per call still in flight, not per call made.
     */
    interface Source {

        /**
         * Fires every pending deadline that has passed at {@code now} (if {@code fire}) and tells the
         * earliest of those still pending. Called on the worker's thread only.
         *
         * @param now a reading of the timer's ticker
         * @param earliest element 0 holds a deadline; lowered to the earliest pending one, if earlier
         * @param fire whether to fire the deadlines that have passed; if not, they count as pending
         * @return whether any deadline is still pending
         */
        boolean poll(long now, long[] earliest, boolean fire);
    }

    /**
     * A deadline of the {@link Source} was set (written to its owner's field, which the source
     * reads) after its owner was put where the source finds it: wakes the worker if it plans to
     * sleep past that deadline, and starts it if there is none. Cheap: two volatile reads and, in the
     * rare case, an unpark. A deadline at least {@value #MAX_PARK_MILLIS} ms away never wakes the
     * worker: it passes at least that often while anything is pending, so its next pass sees it in
     * time.
     *
     * @param deadlineNanos the deadline, a reading of the timer's ticker
     * @param nowNanos a recent reading of the ticker, at or before the deadline was set
     */
    void deadlineSet(long deadlineNanos, long nowNanos) {
        boolean soon = deadlineNanos - nowNanos < MAX_PARK_NANOS;
        if (soon) {
            // The owner's field may have been written with a release store: it must be visible before the
            // planned wake-up is read, or a pass that missed it would sleep past it (a Dekker pairing with
            // the worker, which writes the planned wake-up before its pass reads the fields).
            VarHandle.fullFence();
        }
        Thread running = worker;
        if (running == null) {
            startWorker();
        } else if (soon && deadlineNanos - plannedWakeNanos < 0) {
            LockSupport.unpark(running);
        }
    }

    /**
     * Arms {@code timeout}: unless disarmed first, {@link Timeout#expire()} runs once on the timer's
     * thread after the ticker passes its deadline. Each timeout may be armed once. Works after
     * {@link #shutdown()} too, for the calls still in flight then.
     *
     * @param timeout the timeout to arm
     */
    public void arm(Timeout timeout) {
        Timeout head;
        do {
            head = armed.get();
            timeout.next = head;
        } while (!armed.compareAndSet(head, timeout));
        Thread running = worker;
        if (running == null) {
            startWorker();
        } else if (timeout.deadlineNanos - plannedWakeNanos < 0) {
            LockSupport.unpark(running);
        }
    }

    /** Lets the worker stop as soon as nothing is armed, without its keep-alive; armed timeouts still fire. Idempotent. */
    public void shutdown() {
        shutdown = true;
        Thread running = worker;
        if (running != null) {
            LockSupport.unpark(running);
        }
    }

    /** Whether the worker thread is gone after {@link #shutdown()}. */
    public boolean isTerminated() {
        return shutdown && worker == null;
    }

    /**
     * Waits up to {@code nanos} for the worker to end after {@link #shutdown()}.
     *
     * @return whether it has ended
     * @throws InterruptedException if interrupted while waiting
     */
    public boolean awaitTermination(long nanos) throws InterruptedException {
        long deadline = System.nanoTime() + Math.max(0, nanos);
        while (!isTerminated()) {
            Thread running = worker;
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            if (running != null) {
                TimeUnit.NANOSECONDS.timedJoin(running, left);
            } else {
                Thread.onSpinWait();
            }
        }
        return true;
    }

    private synchronized void startWorker() {
        if (worker != null) {
            return;
        }
        Thread thread = new Thread(this::work, "ballast-http-timer-" + THREAD_NUMBER.incrementAndGet());
        thread.setDaemon(true);
        // Not the context class loader of whichever caller armed first: the timer must pin no application's.
        thread.setContextClassLoader(DeadlineTimer.class.getClassLoader());
        plannedWakeNanos = ticker.read();
        worker = thread;
        thread.start();
    }

    private void work() {
        List<Timeout> live = new ArrayList<>();
        long[] earliestPolled = new long[1];
        long idleSince = System.nanoTime();
        while (true) {
            // While this pass polls, any deadline set wakes the worker again: one the poll missed is
            // then seen by the next pass rather than after the planned sleep.
            plannedWakeNanos = ticker.read() + Long.MAX_VALUE / 2;
            for (Timeout t = armed.getAndSet(null); t != null; ) {
                Timeout next = t.next;
                t.next = null;
                if (t.pending()) {
                    live.add(t);
                }
                t = next;
            }
            long now = ticker.read();
            long earliest = now + MAX_PARK_NANOS;
            int kept = 0;
            for (int i = 0; i < live.size(); i++) {
                Timeout t = live.get(i);
                if (!t.pending()) {
                    continue;
                }
                if (t.deadlineNanos - now <= 0) {
                    t.fire();
                    continue;
                }
                if (t.deadlineNanos - earliest < 0) {
                    earliest = t.deadlineNanos;
                }
                live.set(kept++, t);
            }
            live.subList(kept, live.size()).clear();
            boolean polledPending = false;
            if (source != null) {
                earliestPolled[0] = earliest;
                polledPending = pollSource(now, earliestPolled, true);
                earliest = earliestPolled[0];
            }
            if (!live.isEmpty() || polledPending) {
                idleSince = System.nanoTime();
            } else if (armed.get() == null
                    && (shutdown || System.nanoTime() - idleSince > KEEP_ALIVE_NANOS)
                    && retire()) {
                return;
            }
            plannedWakeNanos = earliest;
            if (armed.get() == null) {
                // A timeout armed after this check sees the planned wake-up and unparks if it is due sooner.
                LockSupport.parkNanos(this, Math.max(1, Math.min(earliest - now, MAX_PARK_NANOS)));
            }
        }
    }

    private boolean pollSource(long now, long[] earliest, boolean fire) {
        try {
            return source.poll(now, earliest, fire);
        } catch (RuntimeException e) {
            return true; // the timer thread must survive; the next pass polls again
        }
    }

    /** Lets the worker go unless a timeout was armed or a deadline set meanwhile; then the caller keeps working. */
    private synchronized boolean retire() {
        if (armed.get() != null) {
            return false;
        }
        worker = null;
        // Re-checked: an arm() or deadlineSet() that read the old worker before it was cleared must not be lost.
        // A deadline set before that read was written before it, so this poll sees it.
        long[] earliest = {ticker.read() + MAX_PARK_NANOS};
        // Nothing is fired here (an expiry action might arm a timeout while no worker is set): one that
        // has passed counts as pending, and the next pass fires it.
        if (armed.get() != null || source != null && pollSource(ticker.read(), earliest, false)) {
            worker = Thread.currentThread();
            return false;
        }
        return true;
    }

    /**
     * One deadline. Subclasses say what happens when it passes. A timeout is pending until it is
     * either {@linkplain #disarm() disarmed} or fired, exactly one of which happens.
     */
    public abstract static class Timeout {

        private static final int PENDING = 0;
        private static final int DISARMED = 1;
        private static final int FIRED = 2;

        final long deadlineNanos;

        @SuppressWarnings("unused") // accessed through STATE
        private volatile int state;

        @Nullable
        Timeout next;

        /**
         * Creates a pending timeout.
         *
         * @param deadlineNanos the ticker reading at which it fires
         */
        protected Timeout(long deadlineNanos) {
            this.deadlineNanos = deadlineNanos;
        }

        /**
         * Disarms this timeout unless it has fired already.
         *
         * @return {@code true} if it will never fire; {@code false} if it fired
         */
        public final boolean disarm() {
            return STATE.compareAndSet(this, PENDING, DISARMED) || (int) STATE.getVolatile(this) == DISARMED;
        }

        /** Whether this timeout fired. */
        public final boolean fired() {
            return (int) STATE.getVolatile(this) == FIRED;
        }

        final boolean pending() {
            return (int) STATE.getVolatile(this) == PENDING;
        }

        final void fire() {
            if (STATE.compareAndSet(this, PENDING, FIRED)) {
                try {
                    expire();
                } catch (RuntimeException e) {
                    // The timer thread must survive any expiry action; the action's owner reports its own failures.
                }
            }
        }

        /** Runs once, on the timer's thread, when the deadline has passed. Short and non-blocking. */
        protected abstract void expire();

        private static final VarHandle STATE;

        static {
            try {
                STATE = MethodHandles.lookup().findVarHandle(Timeout.class, "state", int.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }
    }
}
