package dev.ballast.test;

/**
 * Measures live heap (used after a requested full collection) at checkpoints against a baseline.
 * Callers checkpoint every few MiB of streamed content, so a client that held the whole object in
 * memory shows up as growth of about the object's size. Thread-safe.
 */
final class HeapProbe {
    private long baseline;
    private long peak;

    /** Takes the baseline and resets the peak. */
    public synchronized void baseline() {
        baseline = liveHeap();
        peak = baseline;
    }

    /** Records the live heap now. */
    public synchronized void checkpoint() {
        peak = Math.max(peak, liveHeap());
    }

    /** Peak live heap above the baseline, in bytes (0 if never above). */
    public synchronized long peakGrowth() {
        return Math.max(0, peak - baseline);
    }

    private long liveHeap() {
        System.gc();
        Runtime runtime = Runtime.getRuntime();
        return runtime.totalMemory() - runtime.freeMemory();
    }
}
