package dev.ballast.http.internal;

import java.net.http.HttpResponse;
import java.util.Map;
import java.util.Optional;
import java.util.WeakHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Where a call's correlation id is found after the call: on the response it returned (which is a
 * {@link CorrelatedResponse}) and, for the exception it ended with, in a map from that exception to
 * the call's correlation seed whose keys are held weakly, so an exception nobody holds any more is
 * forgotten with it. The map is split in stripes by identity hash, each guarded by its own lock; only
 * failing calls write to it.
 */
public final class Correlation {

    private static final int STRIPES = 16;

    @SuppressWarnings({"unchecked", "rawtypes"}) // an array of a generic type is made raw
    private static final Map<Throwable, Long>[] FAILURES = new Map[STRIPES];

    static {
        for (int i = 0; i < STRIPES; i++) {
            FAILURES[i] = new WeakHashMap<>();
        }
    }

    private Correlation() {}

    /** The correlation id a call with {@code seed} has: as {@link Call#correlationId()} makes it. */
    static String id(long seed) {
        return Long.toHexString(seed | Long.MIN_VALUE);
    }

    /** Records that a call with correlation {@code seed} ends with {@code failure}; returns {@code failure}. */
    static <X extends Throwable> X tag(X failure, long seed) {
        Map<Throwable, Long> stripe = FAILURES[(System.identityHashCode(failure) & 0x7fffffff) % STRIPES];
        synchronized (stripe) {
            stripe.putIfAbsent(failure, seed);
        }
        return failure;
    }

    /**
     * The correlation id of the call {@code failure} ended, or of the call whose failure has
     * {@code failure} as its cause (at most 8 levels up: a {@code CompletionException} or an
     * {@code IOException} wrapping it).
     */
    public static Optional<String> of(Throwable failure) {
        Throwable t = failure;
        for (int depth = 0; t != null && depth < 8; depth++, t = t.getCause()) {
            Map<Throwable, Long> stripe = FAILURES[(System.identityHashCode(t) & 0x7fffffff) % STRIPES];
            Long seed;
            synchronized (stripe) {
                seed = stripe.get(t);
            }
            if (seed != null) {
                return Optional.of(id(seed));
            }
        }
        return Optional.empty();
    }

    /** The correlation id of the call that returned {@code response}, if a {@code ResilientHttpClient} returned it. */
    public static Optional<String> of(HttpResponse<?> response) {
        return response instanceof CorrelatedResponse<?> correlated
                ? Optional.of(id(correlated.seed))
                : Optional.empty();
    }

    /** {@code response}, as the call with correlation {@code seed} hands it to its caller. */
    @SuppressWarnings("unchecked")
    static <T> HttpResponse<T> response(@Nullable HttpResponse<T> response, long seed) {
        if (response == null || response instanceof CorrelatedResponse<?>) {
            return response;
        }
        return new CorrelatedResponse<>(response, seed);
    }
}
