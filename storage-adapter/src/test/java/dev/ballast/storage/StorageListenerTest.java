package dev.ballast.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.storage.block.BlockVolume;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.test.FakeObjectStore;
import dev.ballast.testkit.FakeTime;
import dev.ballast.testkit.LeakCheck;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The events a {@link StorageFacade} tells its {@link StorageListener}, over a {@link FakeObjectStore}
 * whose faults the test switches on, on a ticker and a clock the test moves.
 */
@Timeout(30)
@ExtendWith(LeakCheck.class)
class StorageListenerTest {

    private final FakeObjectStore store = new FakeObjectStore();
    private final FakeTime time = new FakeTime(Instant.parse("2026-06-01T00:00:00Z"));
    private final Recording events = new Recording();

    /** Every event as a line; each start returns a fresh context, which its end must be handed. */
    static final class Recording implements StorageListener {
        final List<String> lines = new CopyOnWriteArrayList<>();
        private final AtomicInteger contexts = new AtomicInteger();

        @Override
        public Object onOperationStarted(OperationStarted e) {
            String context = "ctx" + contexts.incrementAndGet();
            lines.add("start " + e.store() + " " + e.operation().tag() + " " + e.key() + " " + context);
            return context;
        }

        @Override
        public void onOperationEnded(OperationEnded e, @Nullable Object context) {
            lines.add("end " + e.store() + " " + e.operation().tag() + " " + e.key() + " " + context + " "
                    + e.outcome().tag() + " " + Duration.ofNanos(e.durationNanos()) + " " + e.bytes() + "B");
        }

        @Override
        public void onDegradedRead(DegradedRead e) {
            lines.add("degraded " + e.store() + " " + e.key() + " " + e.reason().tag() + " age=" + e.age());
        }

        @Override
        public void onUnavailableRead(UnavailableRead e) {
            lines.add("unavailable " + e.store() + " " + e.key() + " "
                    + e.reason().tag() + " expired=" + e.expiredCopy());
        }

        @Override
        public void onStaleRead(StaleRead e) {
            lines.add("stale " + e.store() + " " + e.key() + " refused=" + e.refused());
        }

        @Override
        public void onIntegrityFailure(IntegrityFailure e) {
            lines.add("integrity " + e.store() + " " + e.key());
        }

        @Override
        public void onConditionalWriteRefused(ConditionalWriteRefused e) {
            lines.add("refused " + e.store() + " " + e.operation().tag() + " " + e.key() + " "
                    + e.refusal().tag());
        }

        @Override
        public void onCapabilities(CapabilitiesKnown e) {
            lines.add("capabilities " + e.store() + " conditional="
                    + e.capabilities().conditionalWrites());
        }

        List<String> take() {
            List<String> all = List.copyOf(lines);
            lines.clear();
            return all;
        }
    }

    private StorageFacade facade(StorageListener listener) {
        return StorageFacade.newBuilder()
                .objectStore(store)
                .listener(listener)
                .clock(time)
                .ticker(time)
                .build();
    }

    @Test
    void putOptionsAndRangesReachTheStoreThroughTheObservingDecorator() {
        try (StorageFacade facade = facade(events)) {
            ObjectStore objects = facade.objects();
            dev.ballast.storage.object.ObjectMetadata metadata = dev.ballast.storage.object.ObjectMetadata.builder()
                    .contentType("text/plain")
                    .build();
            objects.put(
                    "m.txt",
                    ObjectContent.ofBytes("hello world".getBytes(UTF_8)),
                    dev.ballast.storage.object.PutOptions.defaults().withMetadata(metadata));
            objects.putIfMatch(
                    "m.txt",
                    objects.head("m.txt", objects.versions("m.txt").get(0).versionId())
                            .eTag(),
                    ObjectContent.ofBytes("hello again".getBytes(UTF_8)),
                    dev.ballast.storage.object.PutOptions.defaults().withMetadata(metadata));

            try (ObjectRead read = objects.get(
                    "m.txt", ReadOptions.latest().withRange(dev.ballast.storage.object.ByteRange.of(6, 5)))) {
                assertThat(new String(read.readAllBytes(), UTF_8)).isEqualTo("again");
                assertThat(read.version().metadata().contentType()).isEqualTo("text/plain");
            }
            assertThat(events.take()).contains("start fake put m.txt ctx1", "start fake put_if_match m.txt ctx4");
        }
    }

    @Test
    void operationsStartAndEndInPairsWithOutcomeDurationAndBytes() {
        try (StorageFacade facade = facade(events)) {
            assertThat(events.take()).containsExactly("capabilities fake conditional=true");
            ObjectStore objects = facade.objects();

            ObjectVersion v1 = objects.put("a.txt", ObjectContent.ofBytes("hello".getBytes(UTF_8)));
            ObjectRead read = objects.get("a.txt");
            time.advance(Duration.ofMillis(7)); // the caller takes 7 ms to read the body
            assertThat(read.readAllBytes()).hasSize(5);
            read.close();
            assertThatThrownBy(() -> objects.get("missing")).isInstanceOf(ObjectNotFoundException.class);
            assertThatThrownBy(() -> objects.putIfAbsent("a.txt", ObjectContent.ofBytes(new byte[1])))
                    .isInstanceOf(AlreadyExistsException.class);
            assertThatThrownBy(() -> objects.putIfMatch("a.txt", "\"not-it\"", ObjectContent.ofBytes(new byte[1])))
                    .isInstanceOf(PreconditionFailedException.class);
            objects.putIfMatch("a.txt", v1.eTag(), ObjectContent.ofBytes("hello!".getBytes(UTF_8)));
            assertThat(objects.list("a")).containsExactly("a.txt");

            assertThat(events.take())
                    .containsExactly(
                            "start fake put a.txt ctx1",
                            "end fake put a.txt ctx1 success PT0S 5B",
                            "start fake get a.txt ctx2",
                            "end fake get a.txt ctx2 success PT0.007S 5B",
                            "start fake get missing ctx3",
                            "end fake get missing ctx3 not_found PT0S 0B",
                            "start fake put_if_absent a.txt ctx4",
                            "refused fake put_if_absent a.txt exists", // inside the write's scope, before its end
                            "end fake put_if_absent a.txt ctx4 precondition_failed PT0S 0B",
                            "start fake put_if_match a.txt ctx5",
                            "refused fake put_if_match a.txt etag_mismatch",
                            "end fake put_if_match a.txt ctx5 precondition_failed PT0S 0B",
                            "start fake put_if_match a.txt ctx6",
                            "end fake put_if_match a.txt ctx6 success PT0S 6B",
                            "start fake list a ctx7",
                            "end fake list a ctx7 success PT0S 0B");
        }
    }

    @Test
    void degradedReadsCarryTheirReasonAndAgeAndReadsWithNothingCachedAreUnavailable() {
        try (StorageFacade facade = facade(events)) {
            ObjectStore objects = facade.objects();
            objects.put("settings.json", ObjectContent.ofBytes("{}".getBytes(UTF_8)));
            try (ObjectRead read = objects.get("settings.json")) {
                read.readAllBytes(); // kept as the last-known-good copy
            }
            events.take();

            store.down(true);
            time.advance(Duration.ofSeconds(90));
            try (ObjectRead degraded = objects.get("settings.json")) {
                assertThat(degraded.degraded()).isTrue();
                assertThat(degraded.readAllBytes()).isEqualTo("{}".getBytes(UTF_8));
            }
            assertThatThrownBy(() -> objects.get("never-read.json")).isInstanceOf(StorageUnavailableException.class);

            assertThat(events.take())
                    .containsExactly(
                            "start fake get settings.json ctx3",
                            "end fake get settings.json ctx3 unavailable PT0S 0B",
                            "degraded fake settings.json unreachable age=PT1M30S",
                            "start fake get never-read.json ctx4",
                            "end fake get never-read.json ctx4 unavailable PT0S 0B",
                            "unavailable fake never-read.json unreachable expired=false");
            assertThat(facade.stats().degradedReads()).isEqualTo(1);
        }
    }

    @Test
    void integrityFailuresAndStaleReadsAreToldOnce() {
        try (StorageFacade facade = facade(events)) {
            ObjectStore objects = facade.objects();
            objects.put("k", ObjectContent.ofBytes("v1".getBytes(UTF_8)));
            events.take();

            store.corruptNextRead();
            ObjectRead corrupt = objects.get("k");
            assertThatThrownBy(corrupt::readAllBytes).isInstanceOf(IntegrityException.class);
            corrupt.close();
            store.staleNextRead();
            try (ObjectRead stale = objects.get("k", ReadOptions.latest().withAcceptStale(true))) {
                stale.readAllBytes();
            }
            store.staleExceptionNextRead();
            assertThatThrownBy(() -> objects.get("k")).isInstanceOf(StaleReadException.class);

            assertThat(events.take())
                    .containsExactly(
                            "start fake get k ctx2",
                            "end fake get k ctx2 integrity_failure PT0S 0B",
                            "integrity fake k",
                            "start fake get k ctx3",
                            "stale fake k refused=false",
                            "end fake get k ctx3 success PT0S 2B",
                            "start fake get k ctx4",
                            "end fake get k ctx4 stale PT0S 0B",
                            "stale fake k refused=true");
            assertThat(facade.stats().integrityFailures()).isEqualTo(1);
            assertThat(facade.stats().staleReadsDetected()).isEqualTo(2);
        }
    }

    @Test
    void blockVolumeOperationsAreToldWithTheBytesWrittenAndRead(@TempDir Path root) {
        try (StorageFacade facade = StorageFacade.newBuilder()
                        .localRoot(root)
                        .listener(events)
                        .ticker(time)
                        .build();
                BlockVolume volume = facade.block("disk.img")) {
            volume.write(0, ByteBuffer.wrap(new byte[512]));
            assertThat(volume.read(256, 1024).remaining()).isEqualTo(256);
            volume.force();
            assertThatThrownBy(() -> volume.read(-1, 1)).isInstanceOf(IllegalArgumentException.class);

            assertThat(events.take())
                    .containsExactly(
                            "start block write disk.img ctx1",
                            "end block write disk.img ctx1 success PT0S 512B",
                            "start block read disk.img ctx2",
                            "end block read disk.img ctx2 success PT0S 256B",
                            "start block force disk.img ctx3",
                            "end block force disk.img ctx3 success PT0S 0B",
                            "start block read disk.img ctx4",
                            "end block read disk.img ctx4 invalid PT0S 0B");
        }
    }

    @Test
    void theScopeSpansTheSynchronousPartAndAGetEndsAfterItsStreamIsRead() {
        List<String> order = new CopyOnWriteArrayList<>();
        StorageListener tracing = new StorageListener() {
            @Override
            public Object onOperationStarted(OperationStarted event) {
                order.add("start " + event.operation().tag());
                return "span-" + event.operation().tag();
            }

            @Override
            public AutoCloseable openScope(OperationStarted event, @Nullable Object context) {
                order.add("open " + context);
                String thread = Thread.currentThread().getName();
                return () -> order.add("close " + context
                        + (thread.equals(Thread.currentThread().getName()) ? "" : " on another thread"));
            }

            @Override
            public void onOperationEnded(OperationEnded event, @Nullable Object context) {
                order.add("end " + context + " " + event.outcome().tag());
            }
        };
        try (StorageFacade facade = facade(tracing)) {
            ObjectStore objects = facade.objects();
            objects.put("k", ObjectContent.ofBytes("v1".getBytes(UTF_8)));
            objects.putAsync("k", ObjectContent.ofBytes("v2".getBytes(UTF_8))).join();
            ObjectRead read = objects.get("k");
            order.add("caller reads");
            read.readAllBytes();
            read.close();
            assertThatThrownBy(() -> objects.get("missing")).isInstanceOf(ObjectNotFoundException.class);
        }
        assertThat(order)
                .containsExactly(
                        "start put",
                        "open span-put",
                        "close span-put",
                        "end span-put success",
                        "start put_async",
                        "open span-put_async",
                        "close span-put_async",
                        "end span-put_async success",
                        "start get",
                        "open span-get",
                        "close span-get",
                        "caller reads",
                        "end span-get success",
                        "start get",
                        "open span-get",
                        "close span-get",
                        "end span-get not_found");
    }

    @Test
    void aListenerThatThrowsChangesNoOutcome() {
        StorageListener broken = new StorageListener() {
            @Override
            public @Nullable Object onOperationStarted(OperationStarted event) {
                throw new IllegalStateException("listener bug");
            }

            @Override
            public void onOperationEnded(OperationEnded event, @Nullable Object context) {
                throw new IllegalStateException("listener bug");
            }

            @Override
            public void onCapabilities(CapabilitiesKnown event) {
                throw new IllegalStateException("listener bug");
            }
        };
        try (StorageFacade facade = facade(broken)) {
            facade.objects().put("k", ObjectContent.ofBytes("v1".getBytes(UTF_8)));
            try (ObjectRead read = facade.objects().get("k")) {
                assertThat(read.readAllBytes()).isEqualTo("v1".getBytes(UTF_8));
            }
        }
    }

    @Test
    void severalListenersAsOneAreEachToldWithTheirOwnContextScopesCloseInReverseAndOnesFailureStopsNone() {
        List<String> seen = new CopyOnWriteArrayList<>();
        StorageListener broken = new StorageListener() {
            @Override
            public Object onOperationStarted(OperationStarted event) {
                throw new IllegalStateException("listener bug");
            }

            @Override
            public void onOperationEnded(OperationEnded event, @Nullable Object context) {
                throw new IllegalStateException("listener bug");
            }
        };
        class Scoped implements StorageListener {
            private final String name;

            Scoped(String name) {
                this.name = name;
            }

            @Override
            public Object onOperationStarted(OperationStarted event) {
                return name + "-ctx";
            }

            @Override
            public @Nullable AutoCloseable openScope(OperationStarted event, @Nullable Object context) {
                seen.add("open " + name + " " + context);
                return () -> seen.add("close " + name);
            }

            @Override
            public void onOperationEnded(OperationEnded event, @Nullable Object context) {
                seen.add("end " + name + " " + context + " " + event.operation().tag());
            }

            @Override
            public Runnable propagateContext(Runnable task) {
                return () -> {
                    seen.add("enter " + name);
                    task.run();
                };
            }
        }
        StorageListener both = StorageListener.of(new Scoped("a"), broken, new Scoped("b"));
        try (StorageFacade facade = facade(both)) {
            facade.objects().put("k", ObjectContent.ofBytes("v1".getBytes(UTF_8)));
        }
        both.propagateContext(() -> seen.add("task")).run();

        assertThat(seen)
                .containsExactly(
                        "open a a-ctx",
                        "open b b-ctx",
                        "close b",
                        "close a",
                        "end a a-ctx put",
                        "end b b-ctx put",
                        "enter a",
                        "enter b",
                        "task");
        assertThat(StorageListener.of(events)).isSameAs(events);
        assertThatThrownBy(StorageListener::of)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one");
    }

    @Test
    void theDegradeReasonIsTheFirstCauseThatNamesOne() {
        assertThat(StorageListener.DegradeReason.of(new StorageUnavailableException(
                        "k", "down", new java.io.IOException("x", new java.net.http.HttpTimeoutException("t")))))
                .isEqualTo(StorageListener.DegradeReason.TIMEOUT);
        assertThat(StorageListener.DegradeReason.of(new StorageUnavailableException("k", "503", null)))
                .isEqualTo(StorageListener.DegradeReason.UNAVAILABLE);
    }
}
