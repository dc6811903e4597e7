package dev.ballast.bench;

import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;

/**
 * {@link TracingCostBenchmark} measured as CPU time rather than elapsed time, for a machine shared
 * with other work: its rows take turns within every round, so they share whatever load there is, and
 * each is charged the CPU time of the calling thread per call, the CPU time of the SDK's batch span
 * processor thread while it ran (the export of its spans, to an exporter that drops them), and the
 * bytes the calling thread allocated per call (which no load changes). The first half of the rounds
 * is warm-up.
 *
 * <p>Usage: {@code java -cp benchmarks/target/benchmarks.jar dev.ballast.bench.TracingCpuPerCall [rounds]}
 * (default 16 rounds of 200,000 calls per row). Prints one line per row, in nanoseconds per call.
 */
public final class TracingCpuPerCall {

    private static final int CALLS_PER_ROUND = 200_000;

    private interface Call {
        Object run() throws Exception;
    }

    private TracingCpuPerCall() {}

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 16;
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        TracingCostBenchmark benchmark = new TracingCostBenchmark();
        benchmark.setUp();
        String[] names = {"untraced", "tracedNoop", "tracedUnsampled", "sdkUnsampledByHand", "traced", "sdkSpansByHand"
        };
        Call[] calls = {
            benchmark::untraced,
            benchmark::tracedNoop,
            benchmark::tracedUnsampled,
            benchmark::sdkUnsampledByHand,
            benchmark::traced,
            benchmark::sdkSpansByHand
        };
        double[] cpu = new double[calls.length];
        double[] exporter = new double[calls.length];
        double[] wall = new double[calls.length];
        double[] bytes = new double[calls.length];
        for (int round = 0; round < rounds; round++) {
            boolean counted = round >= rounds / 2;
            for (int k = 0; k < calls.length; k++) {
                long exporterBefore = exporterCpuNanos(threads);
                long cpuBefore = threads.getCurrentThreadCpuTime();
                long bytesBefore = threads.getCurrentThreadAllocatedBytes();
                long wallBefore = System.nanoTime();
                for (int i = 0; i < CALLS_PER_ROUND; i++) {
                    calls[k].run();
                }
                if (counted) {
                    wall[k] += System.nanoTime() - wallBefore;
                    cpu[k] += threads.getCurrentThreadCpuTime() - cpuBefore;
                    bytes[k] += threads.getCurrentThreadAllocatedBytes() - bytesBefore;
                    exporter[k] += exporterCpuNanos(threads) - exporterBefore;
                }
            }
        }
        double counted = (double) (rounds - rounds / 2) * CALLS_PER_ROUND;
        for (int k = 0; k < calls.length; k++) {
            System.out.printf(
                    "%-18s calling thread %7.1f ns CPU per call, span processor thread %6.1f ns, %7.1f ns elapsed,"
                            + " %5.0f B allocated per call%n",
                    names[k], cpu[k] / counted, exporter[k] / counted, wall[k] / counted, bytes[k] / counted);
        }
        benchmark.tearDown();
    }

    /** CPU time of the SDK's batch span processor threads so far. */
    private static long exporterCpuNanos(ThreadMXBean threads) {
        long sum = 0;
        for (long id : threads.getAllThreadIds()) {
            ThreadInfo info = threads.getThreadInfo(id);
            if (info != null && info.getThreadName().startsWith("BatchSpanProcessor")) {
                sum += Math.max(0, threads.getThreadCpuTime(id));
            }
        }
        return sum;
    }
}
