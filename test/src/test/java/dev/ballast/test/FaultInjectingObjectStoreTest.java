package dev.ballast.test;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.storage.AccessDeniedException;
import dev.ballast.storage.AlreadyExistsException;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.PreconditionFailedException;
import dev.ballast.storage.StaleReadException;
import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.cache.LastKnownGoodConfig;
import dev.ballast.storage.object.Freshness;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.ReadOptions;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class FaultInjectingObjectStoreTest {
    private final FakeTime time = new FakeTime();
    private final FakeObjectStore fake = new FakeObjectStore(FakeObjectStore.CAPABILITIES, time);
    private final FaultInjectingObjectStore store = FaultInjectingObjectStore.newBuilder(fake)
            .seed(7)
            .passTimeWith(time::advance)
            .build();

    private static ObjectContent text(String s) {
        return ObjectContent.ofBytes(s.getBytes(UTF_8));
    }

    @Test
    void aListingFaultIsDrawnWhenTheStreamNeedsItsFirstPageNotWhenItIsMade() {
        store.put("l/a", text("1"));
        store.put("l/b", text("1"));
        store.inject(StoreFault.slowDown()).on(StoreOperation.LIST).times(1);

        java.util.stream.Stream<dev.ballast.storage.object.ListEntry> listing = store.listing(
                dev.ballast.storage.object.ListRequest.prefix("l/").withPageSize(1));
        assertThat(store.injected()).as("made, not consumed").isEmpty();
        assertThatThrownBy(listing::toList)
                .isInstanceOfSatisfying(
                        StorageUnavailableException.class,
                        e -> assertThat(e.getMessage()).contains("503 SlowDown"));

        assertThat(store.listing(dev.ballast.storage.object.ListRequest.prefix("l/")
                                .withPageSize(1))
                        .map(dev.ballast.storage.object.ListEntry::key))
                .as("one draw per listing, however many pages")
                .containsExactly("l/a", "l/b");
        assertThat(store.injected()).hasSize(1);
    }

    @Test
    void aScriptedSlowDownHitsOnlyItsKeyAndOperationForItsCountAndIsRecorded() {
        store.inject(StoreFault.slowDown()).on(StoreOperation.PUT).forKey("a").times(2);

        for (int i = 0; i < 2; i++) {
            assertThatThrownBy(() -> store.put("a", text("1")))
                    .isInstanceOfSatisfying(StorageUnavailableException.class, e -> {
                        assertThat(e.outcomeUnknown()).isFalse();
                        assertThat(e.retryable()).isTrue();
                        assertThat(e.getMessage()).contains("503 SlowDown");
                    });
        }
        store.put("b", text("1"));
        store.put("a", text("1"));

        assertThat(fake.keysPut()).containsExactly("b", "a");
        assertThat(store.injected())
                .extracting(InjectedFault::call, InjectedFault::operation, InjectedFault::key)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(1L, StoreOperation.PUT, "a"),
                        org.assertj.core.groups.Tuple.tuple(2L, StoreOperation.PUT, "a"));
        assertThat(store.calls()).isEqualTo(4);
    }

    @Test
    void faultsDrawnByProbabilityRepeatWithTheSameSeed() {
        List<Long> first = faultedCalls(42);
        assertThat(first).isEqualTo(faultedCalls(42));
        assertThat(first).isNotEqualTo(faultedCalls(43));
        assertThat(first.size()).isBetween(10, 50);
    }

    private static List<Long> faultedCalls(long seed) {
        FaultInjectingObjectStore s = FaultInjectingObjectStore.newBuilder(new FakeObjectStore())
                .seed(seed)
                .build();
        s.inject(StoreFault.serverError()).withProbability(0.3);
        for (int i = 0; i < 100; i++) {
            try {
                s.list("");
            } catch (StorageUnavailableException expected) {
                assertThat(expected.outcomeUnknown()).isTrue();
            }
        }
        return s.injected().stream().map(InjectedFault::call).toList();
    }

    @Test
    void latencyPassesOnTheTestClockWithoutSleeping() {
        store.put("k", text("v"));
        store.inject(StoreFault.latency(Duration.ofSeconds(5))).on(StoreOperation.GET);
        var before = time.instant();

        try (ObjectRead read = store.get("k")) {
            assertThat(read.readAllBytes()).isEqualTo("v".getBytes(UTF_8));
        }
        assertThat(Duration.between(before, time.instant())).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void aHangBlocksUntilTheTestReleasesIt() throws Exception {
        store.put("k", text("v"));
        store.inject(StoreFault.hang()).on(StoreOperation.GET).times(1);

        CompletableFuture<byte[]> read =
                CompletableFuture.supplyAsync(() -> store.get("k").readAllBytes());
        assertThat(store.awaitHanging(1, Duration.ofSeconds(30))).isTrue();
        assertThat(read).isNotDone();

        store.releaseHangs();
        assertThat(read.get(30, TimeUnit.SECONDS)).isEqualTo("v".getBytes(UTF_8));
        assertThat(store.hanging()).isZero();
    }

    @Test
    void aHangTheTestTimesOutFailsAsATimeoutWithoutWaiting() throws Exception {
        store.put("k", text("v"));
        store.inject(StoreFault.hang()).on(StoreOperation.GET).times(1);

        CompletableFuture<byte[]> read =
                CompletableFuture.supplyAsync(() -> store.get("k").readAllBytes());
        assertThat(store.awaitHanging(1, Duration.ofSeconds(30))).isTrue();
        store.timeOutHangs();

        assertThatThrownBy(() -> read.get(30, TimeUnit.SECONDS))
                .hasCauseInstanceOf(StorageUnavailableException.class)
                .hasMessageContaining("no answer before the deadline");
    }

    @Test
    void aBoundedHangFailsAsATimeoutWhoseOutcomeIsUnknownForAWrite() {
        store.inject(StoreFault.hang(Duration.ofMillis(20))).on(StoreOperation.PUT);

        assertThatThrownBy(() -> store.put("k", text("v")))
                .isInstanceOfSatisfying(StorageUnavailableException.class, e -> {
                    assertThat(e.outcomeUnknown()).isTrue();
                    assertThat(e.getMessage()).contains("no answer within");
                });
        assertThat(fake.keysPut()).isEmpty();
    }

    @Test
    void aStaleVersionIsReportedAsStaleOrServedMarkedStaleWhenTheReadAcceptsIt() {
        ObjectVersion v1 = store.put("k", text("one"));
        ObjectVersion v2 = store.put("k", text("two"));
        store.inject(StoreFault.staleVersion()).times(2);

        assertThatThrownBy(() -> store.get("k")).isInstanceOfSatisfying(StaleReadException.class, e -> {
            assertThat(e.expectedGeneration()).isEqualTo(v2.generation());
            assertThat(e.observedGeneration()).isEqualTo(v1.generation());
        });
        try (ObjectRead read = store.get("k", ReadOptions.latest().withAcceptStale(true))) {
            assertThat(read.freshness()).isEqualTo(Freshness.STALE);
            assertThat(read.version().versionId()).isEqualTo(v1.versionId());
            assertThat(read.readAllBytes()).isEqualTo("one".getBytes(UTF_8));
        }
        try (ObjectRead read = store.get("k")) {
            assertThat(read.readAllBytes()).isEqualTo("two".getBytes(UTF_8));
        }
    }

    @Test
    void aTruncatedOrCorruptedBodyNeverReachesTheCallerWhole() throws Exception {
        byte[] content = "0123456789abcdef".repeat(100).getBytes(UTF_8);
        store.put("k", ObjectContent.ofBytes(content));
        store.inject(StoreFault.truncatedBody(100)).times(1);
        store.inject(StoreFault.corruptedBody(5)).times(1);

        for (String expected : List.of("truncated", "SHA-256")) {
            ByteArrayOutputStream handedOver = new ByteArrayOutputStream();
            assertThatThrownBy(() -> {
                        try (ObjectRead read = store.get("k");
                                InputStream in = read.stream()) {
                            in.transferTo(handedOver);
                        }
                    })
                    .isInstanceOf(IntegrityException.class)
                    .hasMessageContaining(expected);
            assertThat(handedOver.size()).isLessThan(content.length);
        }
        assertThat(store.injected())
                .extracting(InjectedFault::fault)
                .containsExactly(StoreFault.truncatedBody(100), StoreFault.corruptedBody(5));
        try (ObjectRead read = store.get("k")) {
            assertThat(read.readAllBytes()).isEqualTo(content);
        }
        assertThat(fake.openReads()).isZero();
    }

    @Test
    void aConditionalWriteRaceLetsTheOtherWriterWin() {
        ObjectVersion original = store.put("lock", text("mine"));
        store.inject(StoreFault.conditionalWriteRace("theirs")).times(1);
        store.inject(StoreFault.conditionalWriteRace("theirs again")).times(1);

        assertThatThrownBy(() -> store.putIfMatch("lock", original.eTag(), text("update")))
                .isInstanceOf(PreconditionFailedException.class);
        assertThat(fake.currentBytes("lock")).hasValue("theirs".getBytes(UTF_8));

        store.delete("lock");
        assertThatThrownBy(() -> store.putIfAbsent("lock", text("create"))).isInstanceOf(AlreadyExistsException.class);
        assertThat(fake.currentBytes("lock")).hasValue("theirs again".getBytes(UTF_8));
    }

    @Test
    void accessDeniedOutOfSpaceAndALostAnswerSurfaceAsTheStoreWouldReportThem() {
        store.inject(StoreFault.accessDenied()).forKey("secret");
        store.inject(StoreFault.outOfSpace()).forKey("big");
        store.inject(StoreFault.answerLost()).forKey("landed").times(1);

        assertThatThrownBy(() -> store.get("secret"))
                .isInstanceOfSatisfying(
                        AccessDeniedException.class,
                        e -> assertThat(e.retryable()).isFalse());
        assertThatThrownBy(() -> store.put("big", text("x")))
                .isInstanceOfSatisfying(StorageUnavailableException.class, e -> {
                    assertThat(e.outcomeUnknown()).isFalse();
                    assertThat(e.getMessage()).contains("out of space");
                });
        assertThatThrownBy(() -> store.put("landed", text("x")))
                .isInstanceOfSatisfying(
                        StorageUnavailableException.class,
                        e -> assertThat(e.outcomeUnknown()).isTrue());
        assertThat(fake.currentBytes("landed")).hasValue("x".getBytes(UTF_8));
        assertThat(fake.currentBytes("big")).isEmpty();
    }

    @Test
    void aFaultIsRefusedForAnOperationItCannotHappenIn() {
        assertThatThrownBy(() -> store.inject(StoreFault.outOfSpace()).on(StoreOperation.GET))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cannot be injected into GET");
        assertThatThrownBy(() -> store.inject(StoreFault.slowDown()).withProbability(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("(0, 1]");
    }

    @Test
    void theFacadeDegradesVisiblyOnAnInjectedSlowDownAsOnARealOne() {
        try (StorageFacade facade = StorageFacade.newBuilder()
                .objectStore(store)
                .clock(time)
                .lastKnownGood(LastKnownGoodConfig.ofDefaults())
                .build()) {
            facade.objects().put("report", text("v1"));
            facade.objects().get("report").readAllBytes();
            time.advance(Duration.ofSeconds(30));
            store.inject(StoreFault.slowDown()).on(StoreOperation.GET);

            try (ObjectRead read = facade.objects().get("report")) {
                assertThat(read.degraded()).isTrue();
                assertThat(read.age()).isEqualTo(Duration.ofSeconds(30));
                assertThat(read.degradedReason())
                        .hasValueSatisfying(r -> assertThat(r).contains("SlowDown"));
                assertThat(read.readAllBytes()).isEqualTo("v1".getBytes(UTF_8));
            }
            assertThat(facade.stats().degradedReads()).isEqualTo(1);
        }
    }
}
