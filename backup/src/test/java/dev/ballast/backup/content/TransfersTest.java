package dev.ballast.backup.content;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.backup.BackupException;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TransfersTest {

    @Test
    void neverMoreTasksInFlightThanTheBoundAndAwaitAllReturnsOnceEveryOutcomeIsRecorded() throws Exception {
        int bound = 8;
        BlockingQueue<Runnable> outcomes = new LinkedBlockingQueue<>();
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicInteger recorded = new AtomicInteger();
        // Outcomes are recorded later, on another thread, as a file waiting for its sync or commit is.
        Thread recorder = new Thread(() -> {
            try {
                for (int i = 0; i < 1000; i++) {
                    Runnable done = outcomes.take();
                    inFlight.decrementAndGet();
                    recorded.incrementAndGet();
                    done.run();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        recorder.start();
        try (Transfers transfers = new Transfers(2, bound)) {
            for (int i = 0; i < 1000; i++) {
                transfers.submit(done -> {
                    most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                    outcomes.add(done);
                });
            }
            transfers.awaitAll();
            assertThat(recorded.get()).isEqualTo(1000);
        }
        recorder.join();
        assertThat(most.get()).isBetween(1, bound);
    }

    @Test
    void awaitAllWaitsForAnOutcomeRecordedLaterAndATaskThatThrowsCountsAsDone() throws Exception {
        BlockingQueue<Runnable> later = new LinkedBlockingQueue<>();
        try (Transfers transfers = new Transfers(1, 4)) {
            transfers.submit(done -> {
                throw new IllegalStateException("a task that fails");
            });
            transfers.submit(later::add);
            Runnable done = later.take();
            CompletableFuture<Void> all = CompletableFuture.runAsync(transfers::awaitAll);
            assertThat(all).isNotDone();
            done.run();
            done.run(); // a second call records nothing more
            all.get(10, TimeUnit.SECONDS);
            assertThat(all).isDone();
        }
    }

    @Test
    void aBadThreadCountIsRefusedInOneSentence() {
        assertThatThrownBy(() -> new Transfers(0, 1))
                .isInstanceOf(BackupException.class)
                .hasMessage(
                        "The number of transfer threads (Backups.withTransfers) must be between 1 and 64 but was 0; pass the number of files to transfer at "
                                + "once (default 4).");
    }
}
