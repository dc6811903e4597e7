package dev.ballast.backup.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.backup.keys.MasterKey;
import dev.ballast.backup.run.RunMarker;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.VersionEntry;
import dev.ballast.test.FakeObjectStore;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the sealed view of a repository of format 3 stores, under which keys, and how damage reads. */
class SealedStoreTest {
    static final String NAME = "payroll-backups";
    static final String SHA = "a".repeat(64);

    private final FakeObjectStore raw = new FakeObjectStore();
    private final MasterKey key = MasterKey.generate();
    private final SealedStore view = new SealedStore(raw, key);

    private Manifest manifest() {
        return new Manifest(
                Manifest.PACKED_FORMAT_VERSION,
                NAME,
                Instant.parse("2026-12-02T00:00:00Z"),
                true,
                List.of(new ManifestEntry(
                        "salaries.csv",
                        3,
                        SHA,
                        "",
                        Instant.parse("2026-12-01T00:00:00Z"),
                        null,
                        null,
                        null,
                        List.of("b".repeat(64), "c".repeat(64)))),
                List.of());
    }

    @Test
    void aManifestIsSealedUnderTheNamesIdAndReadBackThroughItsLogicalKey() {
        String version = view.put(
                        Manifest.key(NAME), ObjectContent.ofBytes(manifest().toJson()))
                .versionId();

        String stored = "snapshots/" + key.idHex(NAME.getBytes(StandardCharsets.UTF_8));
        // The file entries are a manifest part of their own, named by its ID (ManifestParts).
        assertThat(raw.list("")).hasSize(2).contains(stored);
        String part = raw.list(SealedStore.PARTS).get(0);
        assertThat(part).matches("manifest-parts/[0-9a-f]{64}");
        for (String k : List.of(stored, part)) {
            assertThat(new String(read(k), StandardCharsets.ISO_8859_1))
                    .doesNotContain(NAME)
                    .doesNotContain("salaries");
        }

        assertThat(Manifests.versions(view, NAME))
                .extracting(VersionEntry::versionId)
                .containsExactly(version);
        Manifest back = Manifests.read(view, NAME, version);
        assertThat(back).isEqualTo(manifest());
        assertThat(back.files().get(0).chunks()).containsExactly("b".repeat(64), "c".repeat(64));

        // Another view of the same store learns the name from the manifest itself.
        SealedStore fresh = new SealedStore(raw, key);
        assertThat(fresh.names().names()).containsExactly(NAME);
    }

    @Test
    void aChangedByteOrAnotherKeyReadsAsDamageNamingTheStoredKey() {
        String version = view.put(
                        Manifest.key(NAME), ObjectContent.ofBytes(manifest().toJson()))
                .versionId();
        String stored = view.snapshotKey(NAME);
        byte[] bytes = read(stored);
        bytes[40] ^= 0x01;
        String tampered = raw.put(stored, ObjectContent.ofBytes(bytes)).versionId();

        assertThatThrownBy(() -> Manifests.read(view, NAME, tampered))
                .hasMessageContaining(stored)
                .hasMessageContaining("does not open");
        assertThat(Manifests.read(view, NAME, version)).isEqualTo(manifest());
        // Sealed by this key, opened with another: the other key names another object, none here.
        assertThat(Manifests.versions(new SealedStore(raw, MasterKey.generate()), NAME))
                .isEmpty();
        SealedStore otherKey = new SealedStore(raw, MasterKey.generate());
        assertThatThrownBy(() -> otherKey.readSnapshot(stored, version))
                .hasMessageContaining("damaged")
                .hasCauseInstanceOf(IntegrityException.class);
    }

    /** A manifest of {@code n} files of {@link #NAME}, the same for the same {@code n}. */
    static Manifest manyFiles(int n) {
        List<ManifestEntry> files = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            files.add(new ManifestEntry(
                    String.format("d%03d/file-with-a-longer-name-%06d.txt", i / 100, i),
                    i,
                    SHA,
                    "",
                    Instant.parse("2026-12-01T00:00:00Z"),
                    null,
                    null,
                    null,
                    List.of(String.format("%064x", i))));
        }
        return new Manifest(
                Manifest.PACKED_FORMAT_VERSION, NAME, Instant.parse("2026-12-02T00:00:00Z"), true, files, List.of());
    }

    @Test
    void aManifestOfManyPartsReadsBackWholeAndADamagedPartAmongThemIsNamed() {
        Manifest big = manyFiles(20_000);
        String version = view.put(Manifest.key(NAME), ObjectContent.ofBytes(big.toJson()))
                .versionId();
        List<String> parts = raw.list(SealedStore.PARTS);
        // More parts than are read at once, so reads overlap and the last ones wait for a free reader.
        assertThat(parts.size()).isGreaterThan(SealedParts.PART_READS);

        SealedStore fresh = new SealedStore(raw, key);
        assertThat(Manifests.read(fresh, NAME, version)).isEqualTo(big);

        String damagedPart = parts.get(parts.size() / 2);
        byte[] bytes = read(damagedPart);
        bytes[bytes.length - 1] ^= 0x01;
        raw.put(damagedPart, ObjectContent.ofBytes(bytes));
        assertThatThrownBy(() -> Manifests.read(new SealedStore(raw, key), NAME, version))
                .hasMessageContaining(damagedPart)
                .hasMessageContaining("does not open");
    }

    @Test
    void versionsSharingPartsReadEachPartOnceThroughOneView() {
        Manifest big = manyFiles(5_000);
        String first = view.put(Manifest.key(NAME), ObjectContent.ofBytes(big.toJson()))
                .versionId();
        String second = view.put(Manifest.key(NAME), ObjectContent.ofBytes(big.toJson()))
                .versionId();
        int parts = raw.list(SealedStore.PARTS).size();
        assertThat(parts).isGreaterThan(1);
        java.util.concurrent.atomic.AtomicInteger partReads = new java.util.concurrent.atomic.AtomicInteger();
        dev.ballast.storage.object.ObjectStore counting =
                (dev.ballast.storage.object.ObjectStore) java.lang.reflect.Proxy.newProxyInstance(
                        getClass().getClassLoader(),
                        new Class<?>[] {dev.ballast.storage.object.ObjectStore.class},
                        (proxy, method, args) -> {
                            if (method.getName().equals("get") && ((String) args[0]).startsWith(SealedStore.PARTS)) {
                                partReads.incrementAndGet();
                            }
                            try {
                                return method.invoke(raw, args);
                            } catch (java.lang.reflect.InvocationTargetException e) {
                                throw e.getCause();
                            }
                        });
        SealedStore fresh = new SealedStore(counting, key, true);

        assertThat(Manifests.read(fresh, NAME, first)).isEqualTo(big);
        assertThat(Manifests.read(fresh, NAME, second)).isEqualTo(big);

        assertThat(partReads.get()).isEqualTo(parts);
    }

    @Test
    void runMarkersAndTheDamageRecordAreSealedUnderTheNamesId() {
        try (RunMarker marker = RunMarker.start(view, NAME, Clock.systemUTC())) {
            String id = key.idHex(NAME.getBytes(StandardCharsets.UTF_8));
            List<VersionEntry> stored = raw.listVersions(RunMarker.PREFIX);
            assertThat(stored).hasSize(1);
            assertThat(stored.get(0).key())
                    .startsWith(RunMarker.PREFIX + id + "/")
                    .doesNotContain(NAME);
            assertThat(new String(read(stored.get(0).key()), StandardCharsets.ISO_8859_1))
                    .doesNotContain(NAME);
            // Seen through the view: under the name, and live.
            List<RunMarker.Found> found = RunMarker.classify(view, view.listVersions(RunMarker.PREFIX), Instant.now());
            assertThat(found).extracting(RunMarker.Found::name).containsExactly(NAME);
            assertThat(found.get(0).live()).isTrue();
            assertThat(found.get(0).holder()).isNotNull();
        }
        assertThat(raw.listVersions(RunMarker.PREFIX).stream().filter(v -> !v.deleteMarker()))
                .isEmpty();

        DamagedVersions record = DamagedVersions.empty(NAME);
        record.add(new DamagedVersions.Entry("salaries.csv", "v1", SHA, Instant.now(), "it is damaged", null));
        record.save(view);
        String stored = ".ballast-damaged/" + key.idHex(NAME.getBytes(StandardCharsets.UTF_8)) + ".json";
        assertThat(raw.list(".ballast-damaged/")).containsExactly(stored);
        assertThat(new String(read(stored), StandardCharsets.ISO_8859_1)).doesNotContain("salaries");
        assertThat(DamagedVersions.load(view, NAME, m -> {}).damaged("v1")).isTrue();
    }

    @Test
    void noOtherObjectCanBeWrittenThroughTheView() {
        assertThatThrownBy(() -> view.put(NAME + "/salaries.csv", ObjectContent.ofBytes(new byte[] {1})))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("file contents go into packs");
        assertThat(raw.list("")).isEmpty();
    }

    private byte[] read(String storedKey) {
        try (ObjectRead r = raw.get(storedKey, ReadOptions.latest())) {
            return r.readAllBytes();
        }
    }
}
