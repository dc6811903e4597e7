package dev.ballast.storage.cache;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.object.Freshness;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.Source;
import dev.ballast.test.FakeObjectStore;
import dev.ballast.testkit.FakeTime;
import dev.ballast.testkit.LeakCheck;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A degraded read within a bounded time (issue 24, item 7): a store that accepts the read and never
 * answers costs a caller the read deadline, not the store's own timeouts. Each test's store stays hung
 * until the test has its answer, so an answer proves that the read did not wait for the store; no
 * test measures time.
 */
@Timeout(30)
@ExtendWith(LeakCheck.class)
class ReadDeadlineTest {

    /** A store whose reads, once {@link #hang()} is called, wait until {@link #answer()}. */
    private static final class HungStore extends FakeObjectStore {
        private volatile CountDownLatch answer = new CountDownLatch(0);
        /** Counted down by the first read to reach the store after {@link #hang()}. */
        volatile CountDownLatch entered = new CountDownLatch(1);

        volatile String lastReadThread = "";

        void hang() {
            entered = new CountDownLatch(1);
            answer = new CountDownLatch(1);
        }

        void answer() {
            answer.countDown();
        }

        boolean stillHung() {
            return answer.getCount() > 0;
        }

        @Override
        public ObjectRead get(String key, ReadOptions options) {
            lastReadThread = Thread.currentThread().getName();
            entered.countDown();
            try {
                answer.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return super.get(key, options);
        }
    }

    private final HungStore store = new HungStore();
    private final FakeTime clock = new FakeTime();

    @AfterEach
    void letTheStoreAnswer() {
        store.answer(); // the abandoned reads end; LeakCheck then sees their late answers closed
    }

    private LastKnownGoodStore cache(LastKnownGoodConfig.Builder config) {
        LastKnownGoodStore objects = LastKnownGoodStore.wrap(store, config.build(), clock);
        objects.put("k", ObjectContent.ofBytes("v1".getBytes(UTF_8)));
        objects.get("k").readAllBytes(); // the last-known-good copy
        return objects;
    }

    @Test
    void aStoreThatNeverAnswersCostsAReadTheReadDeadlineAndTheCachedCopyIsServedMarked() {
        LastKnownGoodStore objects = cache(LastKnownGoodConfig.builder().readDeadline(Duration.ofMillis(100)));
        clock.advance(Duration.ofSeconds(70));
        store.hang();

        try (ObjectRead read = objects.get("k")) {
            assertThat(store.stillHung())
                    .as("answered while the store still had not")
                    .isTrue();
            assertThat(read.source()).isEqualTo(Source.CACHE);
            assertThat(read.degraded()).isTrue();
            assertThat(read.age()).isEqualTo(Duration.ofSeconds(70));
            assertThat(read.freshness()).isEqualTo(Freshness.UNKNOWN);
            assertThat(read.degradedReason())
                    .hasValueSatisfying(r ->
                            assertThat(r).contains("did not answer the GET of 'k' within the read deadline PT0.1S"));
            assertThat(new String(read.readAllBytes(), UTF_8)).isEqualTo("v1");
        }
        assertThat(objects.counters().degradedReads()).isEqualTo(1);
    }

    @Test
    void withNothingCachedAStoreThatNeverAnswersFailsAtTheDeadlineNamingIt() {
        LastKnownGoodStore objects = LastKnownGoodStore.wrap(
                store,
                LastKnownGoodConfig.builder()
                        .readDeadline(Duration.ofMillis(100))
                        .build(),
                clock);
        store.hang();

        assertThatThrownBy(() -> objects.get("never-read"))
                .isInstanceOfSatisfying(StorageUnavailableException.class, e -> {
                    assertThat(e.key()).isEqualTo("never-read");
                    assertThat(e.getMessage())
                            .contains("within the read deadline PT0.1S", "no last-known-good copy is cached");
                    assertThat(e.outcomeUnknown())
                            .as("the GET may have reached the store")
                            .isTrue();
                });
        assertThat(store.stillHung()).isTrue();
    }

    @Test
    void anInterruptedCallerIsCancelledNotServedTheCachedCopyAsIfTheStoreHadFailed() {
        LastKnownGoodStore objects = cache(LastKnownGoodConfig.builder().readDeadline(Duration.ofSeconds(20)));
        store.hang();

        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(() -> objects.get("k"))
                    .isInstanceOf(java.io.UncheckedIOException.class)
                    .hasCauseInstanceOf(java.io.InterruptedIOException.class)
                    .hasMessageContaining("Interrupted while waiting");
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
        assertThat(objects.counters().degradedReads()).isZero();
    }

    @Test
    void aDeadlineTooLongToCountInNanosecondsMeansWaitingForTheStore() {
        LastKnownGoodStore objects =
                cache(LastKnownGoodConfig.builder().readDeadline(Duration.ofSeconds(Long.MAX_VALUE)));

        try (ObjectRead read = objects.get("k")) {
            assertThat(read.source()).isEqualTo(Source.LIVE);
            assertThat(new String(read.readAllBytes(), UTF_8)).isEqualTo("v1");
        }
    }

    @Test
    void aStoreThatAnswersWithinTheDeadlineIsReadLive() {
        LastKnownGoodStore objects = cache(LastKnownGoodConfig.builder().readDeadline(Duration.ofSeconds(20)));

        try (ObjectRead read = objects.get("k")) {
            assertThat(read.source()).isEqualTo(Source.LIVE);
            assertThat(new String(read.readAllBytes(), UTF_8)).isEqualTo("v1");
        }
        assertThat(store.lastReadThread).startsWith("ballast-live-read-");
    }

    @Test
    void onceAsManyReadsAsAllowedWaitOnTheStoreTheNextFallsBackWithoutBeingSent() throws Exception {
        LastKnownGoodStore objects = cache(LastKnownGoodConfig.builder()
                .readDeadline(Duration.ofMillis(100))
                .maxWaitingReads(1));
        store.hang();
        objects.get("k").close(); // abandoned at the deadline; its thread still waits on the store
        assertThat(store.entered.await(10, TimeUnit.SECONDS)).isTrue();
        int getsSent = store.gets.get();

        try (ObjectRead read = objects.get("k")) {
            assertThat(read.degraded()).isTrue();
            assertThat(read.degradedReason())
                    .hasValueSatisfying(r -> assertThat(r).contains("was not sent", "live reads already waiting"));
        }
        assertThat(store.gets.get()).as("GETs that reached the store").isEqualTo(getsSent);
    }

    @Test
    void readsThatMayNotFallBackAndAZeroDeadlineWaitForTheStoreOnTheCallersThread() {
        LastKnownGoodStore objects = cache(LastKnownGoodConfig.builder().readDeadline(Duration.ofMillis(100)));
        objects.get("k", ReadOptions.latest().withAllowCache(false)).close();
        assertThat(store.lastReadThread).isEqualTo(Thread.currentThread().getName());

        LastKnownGoodStore noDeadline = LastKnownGoodStore.wrap(
                store, LastKnownGoodConfig.builder().readDeadline(Duration.ZERO).build(), clock);
        store.lastReadThread = "";
        noDeadline.get("k").close();
        assertThat(store.lastReadThread).isEqualTo(Thread.currentThread().getName());
    }

    @Test
    void aNegativeDeadlineIsRefusedNamingIt() {
        assertThatThrownBy(() -> LastKnownGoodConfig.builder()
                        .readDeadline(Duration.ofSeconds(-1))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("readDeadline must be >= 0 (ZERO for no deadline) but was PT-1S");
        assertThat(LastKnownGoodConfig.ofDefaults().readDeadline()).isEqualTo(Duration.ofSeconds(3));
    }
}
