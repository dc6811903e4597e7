package dev.ballast.http.internal;

import dev.ballast.http.hedging.HedgingConfig;
import java.util.Arrays;

/**
 * The latencies of a dependency's most recent answered attempts, {@value HedgingConfig#LATENCY_SAMPLES}
 * of them, and a percentile over them: the delay of percentile-derived hedging. The percentile is
 * recomputed (a sort of the window) at most once every {@value #RECOMPUTE_EVERY} new latencies, so
 * reading it costs one volatile read. Thread-safe.
 */
final class LatencyWindow {

    private static final int RECOMPUTE_EVERY = 16;

    private final long[] nanos = new long[HedgingConfig.LATENCY_SAMPLES];
    private final double percentile;
    private int next;
    private int count;
    private int sinceComputed;
    private volatile long cached = -1;

    LatencyWindow(double percentile) {
        this.percentile = percentile;
    }

    /** Records the latency of one answered attempt. */
    synchronized void record(long latencyNanos) {
        nanos[next] = Math.max(0, latencyNanos);
        next = (next + 1) % nanos.length;
        count = Math.min(count + 1, nanos.length);
        if (count >= HedgingConfig.MIN_LATENCY_SAMPLES && (cached < 0 || ++sinceComputed >= RECOMPUTE_EVERY)) {
            long[] sorted = Arrays.copyOf(nanos, count);
            Arrays.sort(sorted);
            int index = (int) Math.ceil(percentile / 100.0 * count) - 1;
            cached = sorted[Math.max(0, Math.min(count - 1, index))];
            sinceComputed = 0;
        }
    }

    /**
     * The percentile of the recent latencies, in nanoseconds (nearest-rank), or {@code -1} while fewer
     * than {@value HedgingConfig#MIN_LATENCY_SAMPLES} are known.
     */
    long percentileNanos() {
        return cached;
    }
}
