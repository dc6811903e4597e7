package dev.ballast.http.internal;

import java.time.Duration;

/**
 * The one home of duration arithmetic in this module: conversions to nanoseconds and sums that
 * saturate at {@code Long.MIN_VALUE}/{@code Long.MAX_VALUE} instead of throwing or wrapping, so a
 * configured "forever" ({@code Duration.ofDays(365_000)}) never overflows a deadline. Stateless.
 */
public final class Durations {

    /** The longest duration whose nanoseconds fit a {@code long}, about 292 years. */
    public static final Duration MAX_NANOS = Duration.ofNanos(Long.MAX_VALUE);

    private Durations() {}

    /**
     * Returns {@code duration} in nanoseconds, saturated to the {@code long} range.
     *
     * @param duration any duration
     * @return its nanoseconds, or {@code Long.MAX_VALUE}/{@code Long.MIN_VALUE} if it does not fit
     */
    public static long saturatedNanos(Duration duration) {
        if (duration.compareTo(MAX_NANOS) >= 0) {
            return Long.MAX_VALUE;
        }
        try {
            return duration.toNanos();
        } catch (ArithmeticException negativeOverflow) {
            return Long.MIN_VALUE;
        }
    }

    /**
     * Returns {@code duration} in nanoseconds, saturated, and never below zero.
     *
     * @param duration any duration
     * @return its nanoseconds in {@code [0, Long.MAX_VALUE]}
     */
    public static long nonNegativeNanos(Duration duration) {
        return Math.max(0, saturatedNanos(duration));
    }

    /**
     * Returns {@code a + b}, saturated to the {@code long} range.
     *
     * @param a a ticker reading or a duration in nanoseconds
     * @param b a duration in nanoseconds
     * @return the sum, or {@code Long.MAX_VALUE}/{@code Long.MIN_VALUE} on overflow
     */
    public static long saturatedAdd(long a, long b) {
        long sum = a + b;
        // Overflow iff both operands have the same sign and the sum's sign differs.
        if (((a ^ sum) & (b ^ sum)) < 0) {
            return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return sum;
    }

    /**
     * Returns {@code nanos} as a whole number of milliseconds, for messages.
     *
     * @param nanos nanoseconds
     * @return milliseconds, rounded down
     */
    public static long toMillis(long nanos) {
        return nanos / 1_000_000L;
    }
}
