package dev.ballast.http.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.ballast.http.BulkheadFullException;
import dev.ballast.http.bulkhead.BulkheadConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class BulkheadTest {

    private static final Duration LONG_WAIT = Duration.ofSeconds(20);

    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
        threads.shutdownNow();
    }

    private static Bulkhead bulkhead(int size, Duration maxWait) {
        return new Bulkhead(
                "db:5432", BulkheadConfig.builder(size).maxWaitDuration(maxWait).build());
    }

    /** Waits, without sleeping, until a condition holds; fails after ten seconds. */
    private static void await(BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline)
                    .as("condition not reached in time")
                    .isNegative();
            Thread.yield();
        }
    }

    @Test
    void admitsAtMostMaxConcurrentCalls() throws Exception {
        Bulkhead bulkhead = bulkhead(2, Duration.ZERO);

        Bulkhead.Permit first = bulkhead.tryAcquire(Duration.ZERO);
        bulkhead.tryAcquire(Duration.ZERO);
        BulkheadFullException e =
                catchThrowableOfType(BulkheadFullException.class, () -> bulkhead.tryAcquire(Duration.ZERO));

        assertThat(e.dependency()).isEqualTo("db:5432");
        assertThat(e.maxConcurrentCalls()).isEqualTo(2);
        assertThat(e.maxWait()).isZero();
        assertThat(bulkhead.availablePermits()).isZero();

        first.close();
        assertThat(bulkhead.availablePermits()).isEqualTo(1);
        assertThat(bulkhead.tryAcquire(Duration.ZERO)).isNotNull();
    }

    @Test
    void aBlockedCallIsRejectedAfterMaxWait() throws Exception {
        Bulkhead bulkhead = bulkhead(1, Duration.ZERO);
        Bulkhead.Permit holder = bulkhead.tryAcquire(Duration.ZERO);

        BulkheadFullException e =
                catchThrowableOfType(BulkheadFullException.class, () -> bulkhead.tryAcquire(Duration.ofMillis(20)));

        assertThat(e.maxWait()).isEqualTo(Duration.ofMillis(20));
        assertThat(bulkhead.waitingCalls()).isZero();
        holder.close();
        assertThat(bulkhead.availablePermits())
                .as("the rejected waiter got no permit")
                .isEqualTo(1);
    }

    @Test
    void aBlockedCallGetsTheReleasedPermit() throws Exception {
        Bulkhead bulkhead = bulkhead(1, Duration.ZERO);
        Bulkhead.Permit holder = bulkhead.tryAcquire(Duration.ZERO);
        Future<Bulkhead.Permit> waiter = threads.submit(() -> bulkhead.tryAcquire(LONG_WAIT));
        await(() -> bulkhead.waitingCalls() == 1);

        holder.close();

        Bulkhead.Permit handedOver = waiter.get(10, TimeUnit.SECONDS);
        assertThat(bulkhead.availablePermits()).isZero();
        handedOver.close();
        assertThat(bulkhead.availablePermits()).isEqualTo(1);
    }

    @Test
    void blockedCallsAreServedInArrivalOrder() throws Exception {
        Bulkhead bulkhead = bulkhead(1, Duration.ZERO);
        Bulkhead.Permit holder = bulkhead.tryAcquire(Duration.ZERO);
        Future<Bulkhead.Permit> first = threads.submit(() -> bulkhead.tryAcquire(LONG_WAIT));
        await(() -> bulkhead.waitingCalls() == 1);
        Future<Bulkhead.Permit> second = threads.submit(() -> bulkhead.tryAcquire(LONG_WAIT));
        await(() -> bulkhead.waitingCalls() == 2);

        holder.close();
        Bulkhead.Permit firstPermit = first.get(10, TimeUnit.SECONDS);

        assertThat(second).isNotDone();
        assertThatThrownBy(() -> bulkhead.tryAcquire(Duration.ZERO))
                .as("a newcomer never overtakes a waiter")
                .isInstanceOf(BulkheadFullException.class);
        firstPermit.close();
        second.get(10, TimeUnit.SECONDS).close();
        assertThat(bulkhead.availablePermits()).isEqualTo(1);
    }

    @Test
    void asyncWaitersAreServedInArrivalOrder() throws Exception {
        Bulkhead bulkhead = bulkhead(1, LONG_WAIT);
        Bulkhead.Permit holder = bulkhead.acquireAsync(scheduler).get(1, TimeUnit.SECONDS);
        CompletableFuture<Bulkhead.Permit> a = bulkhead.acquireAsync(scheduler);
        CompletableFuture<Bulkhead.Permit> b = bulkhead.acquireAsync(scheduler);
        CompletableFuture<Bulkhead.Permit> c = bulkhead.acquireAsync(scheduler);
        assertThat(List.of(a, b, c)).noneMatch(CompletableFuture::isDone);

        holder.close();
        assertThat(a).isCompleted();
        assertThat(b).isNotDone();
        a.join().close();
        assertThat(b).isCompleted();
        assertThat(c).isNotDone();
        b.join().close();
        c.join().close();

        assertThat(bulkhead.availablePermits()).isEqualTo(1);
        assertThat(bulkhead.waitingCalls()).isZero();
    }

    @Test
    void aCancelledAsyncWaiterWithdrawsItself() throws Exception {
        Bulkhead bulkhead = bulkhead(1, LONG_WAIT);
        Bulkhead.Permit holder = bulkhead.tryAcquire(Duration.ZERO);
        CompletableFuture<Bulkhead.Permit> cancelled = bulkhead.acquireAsync(scheduler);
        CompletableFuture<Bulkhead.Permit> next = bulkhead.acquireAsync(scheduler);

        assertThat(cancelled.cancel(true)).isTrue();
        assertThat(bulkhead.waitingCalls()).isEqualTo(1);
        holder.close();

        assertThat(next).isCompleted();
        assertThat(cancelled).isCancelled();
        assertThat(bulkhead.availablePermits()).isZero();
        next.join().close();
        assertThat(bulkhead.availablePermits()).isEqualTo(1);
    }

    @Test
    void aCancelledLastWaiterLeavesThePermitFree() throws Exception {
        Bulkhead bulkhead = bulkhead(1, LONG_WAIT);
        Bulkhead.Permit holder = bulkhead.tryAcquire(Duration.ZERO);
        bulkhead.acquireAsync(scheduler).cancel(false);

        holder.close();

        assertThat(bulkhead.availablePermits()).isEqualTo(1);
        assertThat(bulkhead.waitingCalls()).isZero();
    }

    @Test
    void anAsyncWaiterFailsWithBulkheadFullAfterMaxWait() throws Exception {
        Bulkhead bulkhead = bulkhead(1, Duration.ofMillis(20));
        Bulkhead.Permit holder = bulkhead.tryAcquire(Duration.ZERO);

        CompletableFuture<Bulkhead.Permit> waiter = bulkhead.acquireAsync(scheduler);

        ExecutionException e = catchThrowableOfType(ExecutionException.class, () -> waiter.get(10, TimeUnit.SECONDS));
        assertThat(e).hasCauseInstanceOf(BulkheadFullException.class);
        assertThat(bulkhead.waitingCalls()).isZero();
        holder.close();
        assertThat(bulkhead.availablePermits()).isEqualTo(1);
    }

    @Test
    void asyncAcquireCompletesAtOnceWhenFreeAndFailsAtOnceWhenFullWithoutWait() throws Exception {
        Bulkhead bulkhead = bulkhead(1, Duration.ZERO);

        CompletableFuture<Bulkhead.Permit> free = bulkhead.acquireAsync(scheduler);
        CompletableFuture<Bulkhead.Permit> full = bulkhead.acquireAsync(scheduler);

        assertThat(free).isCompleted();
        assertThat(full).isCompletedExceptionally();
        assertThatThrownBy(full::join).hasCauseInstanceOf(BulkheadFullException.class);
    }

    @Test
    void aRejectingSchedulerFailsTheWaiterAndLeavesNoTrace() throws Exception {
        Bulkhead bulkhead = bulkhead(1, LONG_WAIT);
        Bulkhead.Permit holder = bulkhead.tryAcquire(Duration.ZERO);
        scheduler.shutdown();

        CompletableFuture<Bulkhead.Permit> waiter = bulkhead.acquireAsync(scheduler);

        assertThatThrownBy(waiter::join).hasCauseInstanceOf(RejectedExecutionException.class);
        assertThat(bulkhead.waitingCalls()).isZero();
        holder.close();
        assertThat(bulkhead.availablePermits()).isEqualTo(1);
    }

    @Test
    void closingAPermitTwiceReleasesItOnce() throws Exception {
        Bulkhead bulkhead = bulkhead(2, Duration.ZERO);
        Bulkhead.Permit first = bulkhead.tryAcquire(Duration.ZERO);
        bulkhead.tryAcquire(Duration.ZERO);

        first.close();
        first.close();
        first.close();

        assertThat(bulkhead.availablePermits()).isEqualTo(1);
        bulkhead.tryAcquire(Duration.ZERO);
        first.close();
        assertThat(bulkhead.availablePermits()).isZero();
        assertThatThrownBy(() -> bulkhead.tryAcquire(Duration.ZERO)).isInstanceOf(BulkheadFullException.class);
    }

    @Test
    void anInterruptedWaiterWithdrawsAndHoldsNoPermit() throws Exception {
        Bulkhead bulkhead = bulkhead(1, Duration.ZERO);
        Bulkhead.Permit holder = bulkhead.tryAcquire(Duration.ZERO);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread waiter = new Thread(() -> {
            try {
                bulkhead.tryAcquire(LONG_WAIT);
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
        waiter.start();
        await(() -> bulkhead.waitingCalls() == 1);

        waiter.interrupt();
        waiter.join(10_000);

        assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
        assertThat(bulkhead.waitingCalls()).isZero();
        holder.close();
        assertThat(bulkhead.availablePermits()).isEqualTo(1);
    }

    @Test
    void anAlreadyInterruptedThreadTakesNoPermit() {
        Bulkhead bulkhead = bulkhead(1, Duration.ZERO);
        Thread.currentThread().interrupt();

        assertThatThrownBy(() -> bulkhead.tryAcquire(LONG_WAIT)).isInstanceOf(InterruptedException.class);

        assertThat(Thread.interrupted())
                .as("the flag is consumed, as the JDK's blocking methods do")
                .isFalse();
        assertThat(bulkhead.availablePermits()).isEqualTo(1);
    }

    @Test
    void underContentionNeverMoreThanTheLimitRunAndEveryPermitComesBack() throws Exception {
        int limit = 3;
        Bulkhead bulkhead = bulkhead(limit, LONG_WAIT);
        AtomicInteger running = new AtomicInteger();
        AtomicInteger maxRunning = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < 16; t++) {
            boolean async = t % 2 == 0;
            workers.add(threads.submit(() -> {
                start.await();
                for (int i = 0; i < 300; i++) {
                    Bulkhead.Permit permit = async
                            ? bulkhead.acquireAsync(scheduler).get(20, TimeUnit.SECONDS)
                            : bulkhead.tryAcquire(LONG_WAIT);
                    try {
                        maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
                        running.decrementAndGet();
                    } finally {
                        permit.close();
                        permit.close();
                    }
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> worker : workers) {
            worker.get(25, TimeUnit.SECONDS);
        }

        assertThat(maxRunning.get()).isBetween(1, limit);
        assertThat(bulkhead.availablePermits()).isEqualTo(limit);
        assertThat(bulkhead.waitingCalls()).isZero();
    }

    @Test
    void timeoutsRacingReleasesNeverLoseOrDuplicateAPermit() throws Exception {
        Bulkhead bulkhead = bulkhead(1, Duration.ofNanos(1));
        for (int i = 0; i < 500; i++) {
            Bulkhead.Permit holder = bulkhead.tryAcquire(LONG_WAIT);
            CompletableFuture<Bulkhead.Permit> waiter = bulkhead.acquireAsync(scheduler);
            holder.close();
            try {
                waiter.get(10, TimeUnit.SECONDS).close();
            } catch (ExecutionException e) {
                assertThat(e).hasCauseInstanceOf(BulkheadFullException.class);
            }
            assertThat(bulkhead.availablePermits()).as("round %d", i).isEqualTo(1);
        }
    }

    @Test
    void badArgumentsAreRejected() {
        Bulkhead bulkhead = bulkhead(1, Duration.ZERO);
        assertThatThrownBy(() -> bulkhead.tryAcquire(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("maxWait");
        assertThatThrownBy(() -> bulkhead.tryAcquire(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxWait must be >= 0 but was PT-0.001S");
        assertThatThrownBy(() -> bulkhead.acquireAsync(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("scheduler");
        assertThatThrownBy(() -> new Bulkhead(null, BulkheadConfig.ofDefaults()))
                .isInstanceOf(NullPointerException.class);
    }

    @Test
    void configDefaultsAndValidation() {
        BulkheadConfig defaults = BulkheadConfig.ofDefaults();
        assertThat(defaults.maxConcurrentCalls()).isEqualTo(64).isEqualTo(BulkheadConfig.DEFAULT_MAX_CONCURRENT_CALLS);
        assertThat(defaults.maxWaitDuration()).isZero();
        assertThat(defaults.toBuilder()
                        .maxWaitDuration(Duration.ofSeconds(1))
                        .build()
                        .maxConcurrentCalls())
                .isEqualTo(64);
        assertThat(BulkheadConfig.builder(64).build()).isEqualTo(defaults);

        assertThatThrownBy(() -> BulkheadConfig.builder(0).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxConcurrentCalls must be >= 1 but was 0");
        assertThatThrownBy(() -> BulkheadConfig.builder(1)
                        .maxWaitDuration(Duration.ofSeconds(-1))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxWaitDuration must be >= 0");
        assertThatThrownBy(() -> BulkheadConfig.builder(1).maxWaitDuration(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("maxWaitDuration");
    }

    /**
     * Takers that find a place free take it without the lock, and a release looks for waiters without
     * it: under contention of takers, waiters and releases on every thread, no place may be lost (a
     * waiter left waiting while one is free would run out its long wait and fail) and no more than
     * the capacity may be held at once.
     */
    @Test
    void underContentionNoPlaceIsLostAndNoMoreThanTheCapacityIsHeld() throws Exception {
        Bulkhead bulkhead = bulkhead(2, LONG_WAIT);
        AtomicInteger holding = new AtomicInteger();
        AtomicInteger mostHeld = new AtomicInteger();
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
            boolean async = t % 2 == 1;
            workers.add(threads.submit(() -> {
                for (int i = 0; i < 3_000; i++) {
                    Bulkhead.Permit permit = bulkhead.tryAcquireNow();
                    if (permit == null) {
                        permit = async ? bulkhead.acquireAsync(scheduler).get() : bulkhead.tryAcquire(LONG_WAIT);
                    }
                    mostHeld.accumulateAndGet(holding.incrementAndGet(), Math::max);
                    holding.decrementAndGet();
                    permit.close();
                }
                return null;
            }));
        }
        for (Future<?> worker : workers) {
            worker.get(25, TimeUnit.SECONDS);
        }
        assertThat(mostHeld.get()).isLessThanOrEqualTo(2);
        assertThat(bulkhead.availablePermits()).isEqualTo(2);
        assertThat(bulkhead.waitingCalls()).isZero();
    }
}
