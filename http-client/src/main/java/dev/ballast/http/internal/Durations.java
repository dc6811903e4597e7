package dev.ballast.http.internal;

import java.time.Duration;

/** Duration arithmetic that saturates instead of throwing on overflow. */
final class Durations {

    private Durations() {
    }

    static long saturatedNanos(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException overflow) {
            return duration.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }

    static long saturatedAdd(long a, long b) {
        long sum = a + b;
        // Overflow iff both operands have the same sign and the sum's sign differs.
        if (((a ^ sum) & (b ^ sum)) < 0) {
            return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return sum;
    }
}
