package dev.ballast.http;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** Bounded waits for a condition another thread establishes; never a fixed sleep. */
public final class Await {

    private Await() {}

    /**
     * Polls {@code condition} every few milliseconds until it holds.
     *
     * @param what described in the failure
     * @param condition the condition
     * @throws AssertionError if it does not hold within 10 seconds
     */
    public static void awaitTrue(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for: " + what);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
        }
    }
}
