package dev.ballast.http;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Delayed;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * A scheduler that runs immediate tasks at once but holds every delayed task (backoffs, timeouts)
 * until the test calls {@link #runHeld()}: time passes only when the test says so, so a test can
 * observe what a pending backoff would do without sleeping through it.
 */
public final class HeldScheduler extends ScheduledThreadPoolExecutor {

    private final List<HeldTask<?>> held = new CopyOnWriteArrayList<>();
    /** A permit per task held, for {@link #awaitHeld}. */
    private final Semaphore heldCount = new Semaphore(0);

    public HeldScheduler() {
        super(2, runnable -> {
            Thread thread = new Thread(runnable, "held-scheduler");
            thread.setDaemon(true);
            return thread;
        });
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
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
        HeldTask<V> task = new HeldTask<>(callable, unit.toNanos(delay));
        held.add(task);
        heldCount.release();
        return task;
    }

    /** Delayed tasks that were neither run nor cancelled. */
    public List<HeldTask<?>> pending() {
        return held.stream().filter(t -> !t.isDone()).<HeldTask<?>>map(t -> t).toList();
    }

    /** Every delayed task handed to this scheduler that {@link #runHeld()} has not yet taken. */
    public List<HeldTask<?>> held() {
        return List.copyOf(held);
    }

    /**
     * Waits until {@code count} more delayed tasks have been held than earlier waits took, and takes
     * them; for a test that must know a backoff is pending before it runs it, without polling.
     *
     * @return whether they were held within {@code timeout}
     */
    public boolean awaitHeld(int count, Duration timeout) throws InterruptedException {
        return heldCount.tryAcquire(count, timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Runs every held task that was not cancelled, on this scheduler's threads, and forgets them. */
    public void runHeld() {
        for (HeldTask<?> task : held) {
            held.remove(task);
            if (!task.isDone()) {
                execute(task);
            }
        }
    }

    public static final class HeldTask<V> extends FutureTask<V> implements ScheduledFuture<V> {

        public final long delayNanos;

        HeldTask(Callable<V> callable, long delayNanos) {
            super(callable);
            this.delayNanos = delayNanos;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(delayNanos, TimeUnit.NANOSECONDS);
        }

        @Override
        public int compareTo(Delayed other) {
            return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
        }
    }
}
