package dev.ballast.bench;

import com.sun.management.ThreadMXBean;
import dev.ballast.http.ResilientHttpClient;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.net.URI;
import java.net.http.HttpRequest;

/**
 * (a) measured as CPU time rather than elapsed time, for a machine shared with other work: the
 * wrappers of {@link WrapperCostBenchmark} take turns within every round, so they share whatever
 * load there is, and each is charged the CPU time of the calling thread per call (and Ballast also
 * that of its timer thread), and the bytes the calling thread allocated per call (which no load
 * changes). The first half of the rounds is warm-up.
 *
 * <p>Usage: {@code java -cp benchmarks/target/benchmarks.jar dev.ballast.bench.CpuPerCall [rounds]}
 * (default 16 rounds of 500,000 calls per wrapper). Prints one line per wrapper, in nanoseconds per call.
 */
public final class CpuPerCall {

    private static final int CALLS_PER_ROUND = 500_000;

    private interface Call {
        Object run() throws Throwable;
    }

    private CpuPerCall() {}

    public static void main(String[] args) throws Throwable {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 16;
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        InstantHttpClient instant = new InstantHttpClient(200, WrapperCostBenchmark.BODY);
        Peers peers = new Peers(
                instant, ResilientHttpClient.newBuilder().delegate(instant).build());
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:8080/item?q=1"))
                .GET()
                .build();
        String[] names = {"raw JDK client", "Failsafe", "resilience4j", "Ballast"};
        Call[] calls = {
            () -> peers.raw(request),
            () -> peers.failsafe(request),
            () -> peers.resilience4j(request),
            () -> peers.ballast(request)
        };
        double[] cpu = new double[calls.length];
        double[] wall = new double[calls.length];
        double[] bytes = new double[calls.length];
        double timer = 0;
        for (int round = 0; round < rounds; round++) {
            boolean counted = round >= rounds / 2;
            for (int k = 0; k < calls.length; k++) {
                long timerBefore = timerCpuNanos(threads);
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
                    if (k == calls.length - 1) {
                        timer += timerCpuNanos(threads) - timerBefore;
                    }
                }
            }
        }
        double counted = (double) (rounds - rounds / 2) * CALLS_PER_ROUND;
        for (int k = 0; k < calls.length; k++) {
            System.out.printf(
                    "%-15s calling thread %7.1f ns CPU per call, %7.1f ns elapsed, %5.0f B allocated per call%n",
                    names[k], cpu[k] / counted, wall[k] / counted, bytes[k] / counted);
        }
        System.out.printf("%-15s timer thread   %7.1f ns CPU per call%n", "Ballast", timer / counted);
        peers.close();
    }

    /** CPU time of Ballast's timer threads so far. */
    private static long timerCpuNanos(ThreadMXBean threads) {
        long sum = 0;
        for (long id : threads.getAllThreadIds()) {
            ThreadInfo info = threads.getThreadInfo(id);
            if (info != null && info.getThreadName().startsWith("ballast-http-timer")) {
                sum += Math.max(0, threads.getThreadCpuTime(id));
            }
        }
        return sum;
    }
}
