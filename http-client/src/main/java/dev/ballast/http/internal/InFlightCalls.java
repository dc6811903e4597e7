package dev.ballast.http.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The calls of one client that are in flight: for {@code shutdownNow} (which aborts them), for
 * termination (which waits until there are none) and for the timer's pass over their attempts'
 * bounds ({@link DeadlineTimer.Source}).
 *
 * <p>Intrusive: a call links itself in through two fields of its own ({@link Call#inFlightPrev},
 * {@link Call#inFlightNext}), so joining and leaving allocate nothing, where a concurrent set
 * allocates a node per call. Striped: a call goes to one of a fixed number of lists, chosen by the
 * thread that starts it, each guarded by its own monitor, so callers on different threads seldom
 * meet on one. A traversal visits each list in turn under its monitor and is weakly consistent, like a
 * concurrent collection's iterator: a call that joins or leaves meanwhile may or may not be seen.
 *
 * <p>Thread-safe.
 */
final class InFlightCalls {

    private static final class Stripe {
        /** Written under this stripe's monitor; read without it by {@link #isEmpty()}. */
        volatile @Nullable Call head;
    }

    private final Stripe[] stripes;
    private final int mask;

    InFlightCalls() {
        int wanted = Integer.highestOneBit(Math.max(1, Runtime.getRuntime().availableProcessors()) * 4 - 1) << 1;
        int n = Math.min(64, Math.max(8, wanted));
        stripes = new Stripe[n];
        for (int i = 0; i < n; i++) {
            stripes[i] = new Stripe();
        }
        mask = n - 1;
    }

    /**
     * Adds {@code call}, which must not be in flight already (each call is added once), to the stripe
     * of the calling thread: a thread making calls one after another finds its stripe in its own cache.
     */
    void add(Call call) {
        long thread = Thread.currentThread().getId();
        int index = (int) (thread ^ (thread >>> 32)) & mask;
        Stripe stripe = stripes[index];
        synchronized (stripe) {
            call.inFlightStripe = index;
            Call head = stripe.head;
            call.inFlightNext = head;
            call.inFlightPrev = null;
            if (head != null) {
                head.inFlightPrev = call;
            }
            stripe.head = call;
        }
    }

    /**
     * Removes {@code call}.
     *
     * @return whether it was in flight: true exactly once per call added
     */
    boolean remove(Call call) {
        int index = call.inFlightStripe;
        if (index < 0) {
            return false; // never added; once added, the stripe stays set until this removal (under its monitor)
        }
        Stripe stripe = stripes[index];
        synchronized (stripe) {
            if (call.inFlightStripe < 0) {
                return false; // removed meanwhile
            }
            call.inFlightStripe = -1;
            Call prev = call.inFlightPrev;
            Call next = call.inFlightNext;
            if (prev == null) {
                stripe.head = next;
            } else {
                prev.inFlightNext = next;
            }
            if (next != null) {
                next.inFlightPrev = prev;
            }
            call.inFlightPrev = null;
            call.inFlightNext = null;
            return true;
        }
    }

    /** Whether no call is in flight. */
    boolean isEmpty() {
        for (Stripe stripe : stripes) {
            if (stripe.head != null) {
                return false;
            }
        }
        return true;
    }

    /** Runs {@code action} for every call in flight, outside any monitor (weakly consistent). */
    void forEach(Consumer<Call> action) {
        List<Call> calls = new ArrayList<>();
        for (Stripe stripe : stripes) {
            if (stripe.head == null) {
                continue;
            }
            synchronized (stripe) {
                for (Call c = stripe.head; c != null; c = c.inFlightNext) {
                    calls.add(c);
                }
            }
        }
        calls.forEach(action);
    }

    /**
     * The timer's pass: polls the bound of every call's {@linkplain Call#bounded bounded attempt}
     * (see {@link Attempt#pollBound}). Bounds that have passed are fired after the monitor is left,
     * so no expiry action runs while callers are kept from joining or leaving.
     *
     * @param fire whether to fire the bounds that have passed; if not, they count as pending
     * @return whether any bound is still pending
     */
    boolean pollBounds(long now, long[] earliest, boolean fire) {
        boolean pending = false;
        @Nullable List<Attempt<?>> due = null;
        for (Stripe stripe : stripes) {
            if (stripe.head == null) {
                continue;
            }
            synchronized (stripe) {
                for (Call c = stripe.head; c != null; c = c.inFlightNext) {
                    Attempt<?> attempt = c.bounded;
                    if (attempt == null) {
                        continue;
                    }
                    int state = attempt.pollBound(now, earliest);
                    if (state > 0 || state < 0 && !fire) {
                        pending = true;
                    } else if (state < 0) {
                        if (due == null) {
                            due = new ArrayList<>(2);
                        }
                        due.add(attempt);
                    }
                }
            }
        }
        if (due != null) {
            for (Attempt<?> attempt : due) {
                attempt.fireBound();
            }
        }
        return pending;
    }
}
