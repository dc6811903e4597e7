package dev.ballast.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A scheduler on {@link FakeTime}: a task given without delay runs at once (on one daemon thread),
 * and a delayed task ({@code schedule} with a delay above zero) waits until the test moves the time
 * past it with {@link #advance(Duration)}, which runs it on the test's thread. Give it to
 * {@code ResilientHttpClient.newBuilder().scheduler(...)} with the same {@code FakeTime} as
 * {@code clock} and {@code ticker}: backoffs and {@code Retry-After} waits of {@code sendAsync} then
 * pass when the test says so, and {@link #pendingDelays()} shows what the client is waiting for.
 * (The blocking {@code send} waits on the caller's thread and does not use a scheduler.)
 *
 * <p>{@code scheduleAtFixedRate} and {@code scheduleWithFixedDelay} are those of
 * {@link ScheduledThreadPoolExecutor}, on real time. Thread-safe. Shut it down when done.
 */
public final class FakeTimeScheduler extends ScheduledThreadPoolExecutor {

    private final FakeTime time;
    private final List<Task<?>> delayed = new ArrayList<>();

    /** A scheduler whose delays pass on {@code time}. */
    public FakeTimeScheduler(FakeTime time) {
        super(1, runnable -> {
            Thread thread = new Thread(runnable, "fake-time-scheduler");
            thread.setDaemon(true);
            return thread;
        });
        this.time = Objects.requireNonNull(time, "time");
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        Objects.requireNonNull(command, "command");
        return schedule(
                () -> {
                    command.run();
                    return null;
                },
                delay,
                unit);
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        if (delay <= 0) {
            return super.schedule(callable, 0, unit);
        }
        Task<V> task = new Task<>(callable, time.read() + unit.toNanos(delay));
        synchronized (delayed) {
            delayed.add(task);
        }
        return task;
    }

    /**
     * Moves {@code time} forward by {@code duration} and runs, on this thread and in the order they
     * fall due, the delayed tasks due by then that were not cancelled (also those they schedule).
     *
     * @return how many tasks ran
     */
    public int advance(Duration duration) {
        time.advance(duration);
        return runDue();
    }

    /** Runs the delayed tasks already due on {@code time} (it was moved directly); how many ran. */
    public int runDue() {
        int ran = 0;
        while (true) {
            Task<?> next;
            synchronized (delayed) {
                delayed.removeIf(Task::isDone);
                next = delayed.stream()
                        .filter(t -> t.dueNanos - time.read() <= 0)
                        .min(Comparator.comparingLong(t -> t.dueNanos))
                        .orElse(null);
                if (next == null) {
                    return ran;
                }
                delayed.remove(next);
            }
            next.run();
            ran++;
        }
    }

    /**
     * Runs {@code call} to its end on fake time: whenever a delayed task is pending, moves the time to
     * the soonest and runs it, until {@code call} is done (the asynchronous steps between run on
     * their own threads, so this waits for them, up to {@code timeout} of real time in all).
     *
     * @return the fake time that passed
     * @throws IllegalStateException naming the pending delays if {@code call} is not done within
     *     {@code timeout}
     */
    public Duration advanceUntilDone(java.util.concurrent.Future<?> call, Duration timeout) {
        long start = time.read();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!call.isDone()) {
            List<Duration> pending = pendingDelays();
            if (!pending.isEmpty()) {
                advance(pending.get(0).isNegative() ? Duration.ZERO : pending.get(0));
            } else if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(
                        "the call was not done within " + timeout + " and no delayed task is pending");
            } else {
                java.util.concurrent.locks.LockSupport.parkNanos(100_000);
            }
        }
        return Duration.ofNanos(time.read() - start);
    }

    /** The time left until each pending delayed task falls due, soonest first. */
    public List<Duration> pendingDelays() {
        synchronized (delayed) {
            return delayed.stream()
                    .filter(t -> !t.isDone())
                    .map(t -> Duration.ofNanos(t.dueNanos - time.read()))
                    .sorted()
                    .toList();
        }
    }

    private final class Task<V> extends FutureTask<V> implements ScheduledFuture<V> {
        final long dueNanos;

        Task(Callable<V> callable, long dueNanos) {
            super(callable);
            this.dueNanos = dueNanos;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(dueNanos - time.read(), TimeUnit.NANOSECONDS);
        }

        @Override
        public int compareTo(Delayed other) {
            return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
        }
    }
}
