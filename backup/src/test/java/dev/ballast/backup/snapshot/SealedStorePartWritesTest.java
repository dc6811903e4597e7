package dev.ballast.backup.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.backup.keys.MasterKey;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.test.FakeObjectStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * How a manifest of many parts is written: its new parts several at once (a store that syncs each
 * object does not sync them one after the other), every one stored before the head that names them,
 * and a part that cannot be stored leaves no head behind.
 */
class SealedStorePartWritesTest {
    /** How a put to the store in the middle behaves; called from the threads that put. */
    private interface OnPut {
        void before(String key) throws Exception;
    }

    private final FakeObjectStore raw = new FakeObjectStore();
    private final MasterKey key = MasterKey.generate();

    /** {@code raw}, with {@code onPut} run before each put reaches it. */
    private ObjectStore through(OnPut onPut) {
        return (ObjectStore) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {ObjectStore.class}, (proxy, method, args) -> {
                    if (method.getName().equals("put")) {
                        onPut.before((String) args[0]);
                    }
                    try {
                        return method.invoke(raw, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private static boolean isPart(String key) {
        return key.startsWith(SealedStore.PARTS);
    }

    @Test
    void newPartsAreWrittenSeveralAtOnceAndAllBeforeTheHead() {
        Manifest big = manyFiles();
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger mostAtOnce = new AtomicInteger();
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        // The first part's put waits for a second one to start: one put after the other never has two.
        CountDownLatch twoStarted = new CountDownLatch(2);
        SealedStore view = new SealedStore(
                through(k -> {
                    if (!isPart(k)) {
                        events.add("head, parts in flight: " + inFlight.get());
                        return;
                    }
                    mostAtOnce.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                    twoStarted.countDown();
                    twoStarted.await(10, TimeUnit.SECONDS);
                    inFlight.decrementAndGet();
                    events.add("part");
                }),
                key);

        String version = view.put(Manifest.key(SealedStoreTest.NAME), ObjectContent.ofBytes(big.toJson()))
                .versionId();

        int parts = raw.list(SealedStore.PARTS).size();
        assertThat(parts).isGreaterThan(SealedParts.PART_READS);
        assertThat(mostAtOnce.get()).isBetween(2, SealedParts.PART_READS);
        List<String> expected = new ArrayList<>(Collections.nCopies(parts, "part"));
        expected.add("head, parts in flight: 0");
        assertThat(events).isEqualTo(expected);
        assertThat(Manifests.read(new SealedStore(raw, key), SealedStoreTest.NAME, version))
                .isEqualTo(big);
    }

    @Test
    void aPartThatCannotBeStoredFailsTheWriteAndNoHeadIsStored() {
        Manifest big = manyFiles();
        AtomicInteger partPuts = new AtomicInteger();
        StorageUnavailableException down = new StorageUnavailableException(null, "the disk went away", null);
        SealedStore view = new SealedStore(
                through(k -> {
                    if (isPart(k) && partPuts.incrementAndGet() == 3) {
                        throw down;
                    }
                }),
                key);

        assertThatThrownBy(() -> view.put(Manifest.key(SealedStoreTest.NAME), ObjectContent.ofBytes(big.toJson())))
                .isSameAs(down);

        assertThat(raw.list(SealedStore.SNAPSHOTS)).isEmpty();
        assertThat(Manifests.versions(new SealedStore(raw, key), SealedStoreTest.NAME))
                .isEmpty();
    }

    /** A manifest of 20,000 files: more parts than are written at once. */
    private static Manifest manyFiles() {
        List<ManifestEntry> files = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            files.add(new ManifestEntry(
                    String.format("d%03d/file-%06d.txt", i / 100, i),
                    i,
                    SealedStoreTest.SHA,
                    "",
                    java.time.Instant.parse("2026-12-01T00:00:00Z"),
                    null,
                    null,
                    null,
                    List.of(String.format("%064x", i))));
        }
        return new Manifest(
                Manifest.PACKED_FORMAT_VERSION,
                SealedStoreTest.NAME,
                java.time.Instant.parse("2026-12-02T00:00:00Z"),
                true,
                files,
                List.of());
    }
}
