package dev.ballast.cli;

import java.util.HashSet;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Stops the selector thread of a JDK {@code HttpClient} a command built, once the command is done with
 * the client. On JDK 17 to 20 {@code HttpClient} has no {@code close}: its selector thread
 * ({@code HttpClient-N-SelectorManager}) waits in {@code epoll_wait}, native code, until the client is
 * garbage collected, and {@link System#exit} waits up to 300 ms for every thread in native code before
 * it ends the process (HotSpot's {@code VM_Exit::wait_for_threads_in_native_to_block}): every command
 * on an S3 endpoint ended about 0.32 s after its last line (measured with {@code strace -f}: nothing
 * but the JVM's wait between the summary's {@code write} and {@code exit_group}). That thread checks
 * its interrupt status each round and, interrupted, leaves its loop and closes the client's selector
 * and connections, as {@code HttpClient.shutdownNow()} does on JDK 21, where closing the client stops
 * it anyway. Not thread-safe; one per client.
 */
final class HttpSelectorThreads {
    /** How the JDK names a client's selector thread: {@code HttpClient-<id>-SelectorManager}. */
    static final String PREFIX = "HttpClient-";

    static final String SUFFIX = "-SelectorManager";

    /** How long {@link #stop} waits for each thread to end: 1 s (it ends within a millisecond). */
    private static final long JOIN_MILLIS = 1000;

    private final Set<Thread> threads;

    private HttpSelectorThreads(Set<Thread> threads) {
        this.threads = threads;
    }

    /**
     * Runs {@code build}, which builds a client (the JDK starts its selector thread in the client's
     * constructor), and returns what it built with the selector threads that appeared meanwhile.
     */
    static <T> Built<T> startedBy(Supplier<T> build) {
        Set<Thread> before = running();
        T built = build.get();
        Set<Thread> started = running();
        started.removeAll(before);
        return new Built<>(built, new HttpSelectorThreads(started));
    }

    /** A client and the selector threads its building started. */
    record Built<T>(T client, HttpSelectorThreads selectors) {}

    /** The threads found, for tests. */
    Set<Thread> threads() {
        return Set.copyOf(threads);
    }

    /**
     * Interrupts each thread and waits (up to 1 s each) until it has ended; call only once no request
     * of the client is in flight (after its close), as any still running would fail. Never throws; an
     * interrupt of the calling thread is kept.
     */
    void stop() {
        boolean interrupted = false;
        for (Thread t : threads) {
            t.interrupt();
            try {
                t.join(JOIN_MILLIS);
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        threads.clear();
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** The live selector threads in the calling thread's group and its subgroups (where the JDK starts them). */
    private static Set<Thread> running() {
        ThreadGroup group = Thread.currentThread().getThreadGroup();
        Thread[] all = new Thread[group.activeCount() + 16];
        int n = group.enumerate(all, true);
        Set<Thread> out = new HashSet<>();
        for (int i = 0; i < n; i++) {
            String name = all[i].getName();
            if (name.startsWith(PREFIX) && name.endsWith(SUFFIX)) {
                out.add(all[i]);
            }
        }
        return out;
    }
}
