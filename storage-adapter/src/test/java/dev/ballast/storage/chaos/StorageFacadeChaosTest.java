package dev.ballast.storage.chaos;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.http.chaos.ChaosPolicy;
import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.cache.LastKnownGoodConfig;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.test.FakeObjectStore;
import dev.ballast.testkit.FakeTime;
import dev.ballast.testkit.LeakCheck;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(LeakCheck.class)
class StorageFacadeChaosTest {
    private final FakeTime time = new FakeTime();
    private final FakeObjectStore store = new FakeObjectStore(FakeObjectStore.CAPABILITIES, time);
    private final AtomicBoolean gameDay = new AtomicBoolean();

    @Test
    void aListingThroughTheFacadeStreamsTheStoreAndFailsWhenChaosHitsItsFirstPage() {
        ChaosPolicy chaos = ChaosPolicy.builder()
                .injectionRate(1)
                .faults(ChaosPolicy.Fault.UNAVAILABLE)
                .enabledWhen(gameDay::get)
                .build();
        try (StorageFacade facade = StorageFacade.newBuilder()
                .objectStore(store)
                .clock(time)
                .lastKnownGood(LastKnownGoodConfig.ofDefaults())
                .chaos(chaos)
                .build()) {
            facade.objects().put("dir/a", ObjectContent.ofBytes("a".getBytes(UTF_8)));
            facade.objects().put("dir/sub/b", ObjectContent.ofBytes("b".getBytes(UTF_8)));

            assertThat(facade.objects()
                            .listing(dev.ballast.storage.object.ListRequest.prefix("dir/")
                                    .withDelimiter("/")
                                    .withPageSize(1))
                            .map(e -> e.key() + (e.commonPrefix() ? " (prefix)" : "")))
                    .containsExactly("dir/a", "dir/sub/ (prefix)");

            gameDay.set(true);
            java.util.stream.Stream<dev.ballast.storage.object.ListEntry> listing =
                    facade.objects().listing(dev.ballast.storage.object.ListRequest.prefix("dir/"));
            assertThatThrownBy(listing::toList)
                    .as("the cache never answers a listing")
                    .isInstanceOf(StorageUnavailableException.class);
        }
    }

    @Test
    void whileTheFlagIsOnReadsDegradeVisiblyAndWritesFailAsOnAnOutage() {
        ChaosPolicy chaos = ChaosPolicy.builder()
                .injectionRate(1)
                .faults(ChaosPolicy.Fault.UNAVAILABLE)
                .enabledWhen(gameDay::get)
                .build();
        try (StorageFacade facade = StorageFacade.newBuilder()
                .objectStore(store)
                .clock(time)
                .lastKnownGood(LastKnownGoodConfig.ofDefaults())
                .chaos(chaos)
                .build()) {
            facade.objects().put("report", ObjectContent.ofBytes("v1".getBytes(UTF_8)));
            facade.objects().get("report").readAllBytes();
            time.advance(Duration.ofMinutes(2));

            gameDay.set(true);
            try (ObjectRead read = facade.objects().get("report")) {
                assertThat(read.degraded()).isTrue();
                assertThat(read.age()).isEqualTo(Duration.ofMinutes(2));
                assertThat(read.degradedReason())
                        .hasValueSatisfying(r -> assertThat(r).contains("injected by chaos"));
                assertThat(read.readAllBytes()).isEqualTo("v1".getBytes(UTF_8));
            }
            assertThatThrownBy(() -> facade.objects().put("report", ObjectContent.ofBytes("v2".getBytes(UTF_8))))
                    .isInstanceOfSatisfying(
                            StorageUnavailableException.class,
                            e -> assertThat(e.outcomeUnknown()).isFalse());

            gameDay.set(false);
            try (ObjectRead read = facade.objects().get("report")) {
                assertThat(read.degraded()).isFalse();
            }
            assertThat(store.keysPut()).containsExactly("report");
        }
    }

    @Test
    void aResetIsReportedAsAnOutcomeUnknownAndTheStoreIsNotCalled() {
        ChaosObjectStore chaos = ChaosObjectStore.wrap(
                store,
                ChaosPolicy.builder()
                        .injectionRate(1)
                        .faults(ChaosPolicy.Fault.RESET)
                        .enabledWhen(() -> true)
                        .build());

        assertThatThrownBy(() -> chaos.put("k", ObjectContent.ofBytes(new byte[] {1})))
                .isInstanceOfSatisfying(
                        StorageUnavailableException.class,
                        e -> assertThat(e.outcomeUnknown()).isTrue());
        assertThat(store.keysPut()).isEmpty();
        assertThat(chaos.injected()).isEqualTo(1);
    }
}
