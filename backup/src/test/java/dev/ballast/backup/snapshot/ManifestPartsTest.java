package dev.ballast.backup.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.backup.keys.MasterKey;
import dev.ballast.backup.tree.PosixAttrs;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.test.FakeObjectStore;
import dev.ballast.test.FakeTime;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Manifests of format 3 stored in parts (docs/backup-format.md, "Manifest parts"): an unchanged backup
 * stores no part again, a changed file makes few parts new, what was stored whole before still reads,
 * and a damaged or missing part is damage, never an empty or forgotten snapshot.
 */
class ManifestPartsTest {
    static final String NAME = "photos";

    private final FakeTime time = new FakeTime();
    private final FakeObjectStore raw = new FakeObjectStore(FakeObjectStore.CAPABILITIES, time);
    private final MasterKey key = MasterKey.generate();
    private final SealedStore view = new SealedStore(raw, key);

    /** A manifest of {@code files} files in folders of 100, as a backup of many small files writes it. */
    static Manifest manifest(int files, Instant createdAt, int changed) {
        List<ManifestEntry> entries = new ArrayList<>();
        List<ManifestTree.Directory> dirs = new ArrayList<>();
        for (int i = 0; i < files; i++) {
            String path = String.format("d%03d/f%05d.txt", i / 100, i);
            String chunk = hex(i == changed ? -i - 1 : i);
            entries.add(new ManifestEntry(
                    path,
                    1024 + i % 3000,
                    hex(i + 1_000_000),
                    "",
                    Instant.parse("2026-12-01T10:00:00Z").plusSeconds(i),
                    Instant.parse("2026-12-01T10:00:00Z").plusSeconds(i),
                    (long) i + 5000,
                    new PosixAttrs(0644, 1000, 1000),
                    List.of(chunk)));
            if (i % 100 == 0) {
                dirs.add(new ManifestTree.Directory(
                        String.format("d%03d", i / 100), Instant.parse("2026-12-01T09:00:00Z"), null));
            }
        }
        return new Manifest(
                Manifest.PACKED_FORMAT_VERSION,
                NAME,
                createdAt,
                true,
                entries,
                List.of("locked.db"),
                List.of(),
                null,
                new ManifestTree(dirs, List.of(), List.of()),
                "/home/me/photos",
                "build1");
    }

    static String hex(long n) {
        return String.format("%064x", n & Long.MAX_VALUE);
    }

    private List<String> ids(Manifest m) {
        ManifestParts.Split split = ManifestParts.split(m.toJson(), key::idHex);
        assertThat(split).isNotNull();
        List<String> ids = new ArrayList<>();
        split.parts().forEach(p -> ids.add(p.id()));
        return ids;
    }

    @Test
    void joiningTheSplitGivesBackTheSameBytesAndPartsStayWithinTheirBounds() throws java.io.IOException {
        byte[] json =
                manifest(20_000, Instant.parse("2026-12-02T00:00:00Z"), -1).toJson();
        ManifestParts.Split split = ManifestParts.split(json, key::idHex);

        assertThat(split).isNotNull();
        assertThat(split.parts().size()).isBetween(json.length / ManifestParts.MAX_PART_BYTES, json.length / 20_000);
        assertThat(split.head().length).isLessThan(8 * 1024);
        assertThat(new String(split.head(), StandardCharsets.UTF_8))
                .contains("\"filesParts\":[\"")
                .doesNotContain("\"files\"")
                .contains("\"notStored\":[\"locked.db\"]");
        for (int i = 0; i < split.parts().size(); i++) {
            ManifestParts.Part p = split.parts().get(i);
            assertThat(p.plain().length).isLessThan(ManifestParts.MAX_PART_BYTES + 1024);
            assertThat(p.id()).isEqualTo(key.idHex(p.plain()));
        }
        java.util.Map<String, byte[]> byId = new java.util.HashMap<>();
        split.parts().forEach(p -> byId.put(p.id(), p.plain()));
        assertThat(ManifestParts.join(split.head(), byId::get)).isEqualTo(json);
        assertThat(ManifestJson.source(split.head()))
                .as("read from the head alone")
                .isEqualTo("/home/me/photos");
        assertThat(ManifestJson.source(json)).isEqualTo("/home/me/photos");
        assertThat(ManifestParts.partIds(split.head()))
                .isEqualTo(new ArrayList<>(ids(manifest(20_000, Instant.parse("2026-12-02T00:00:00Z"), -1))));
    }

    @Test
    void namesWithJsonPunctuationEscapesAndBytesThatAreNotUtf8SplitAndJoinByteForByte() {
        // The split scans the manifest's JSON itself: every character a file name may hold, the JSON
        // syntax characters, escapes and lone surrogates (bytes that are not UTF-8) among them, must
        // come back exactly.
        String[] odd = {
            "quote\"in\"name", "back\\slash", "brace{}[]", "comma,colon:", "tab\tand\nnewline",
            "caf\u00e9", "\uD83D\uDE00 emoji", "latin1-\uDCE9-byte", "\u0001control", "}],{\"files\":["
        };
        List<ManifestEntry> entries = new ArrayList<>();
        for (int i = 0; i < 6_000; i++) {
            String path = String.format("d%02d/%s-%05d", i % 7, odd[i % odd.length], i);
            entries.add(new ManifestEntry(
                    path,
                    i,
                    hex(i + 1),
                    "",
                    Instant.parse("2026-12-01T10:00:00Z"),
                    Instant.parse("2026-12-01T10:00:00Z"),
                    (long) i,
                    new PosixAttrs(0644, 1000, 1000),
                    List.of(hex(i))));
        }
        List<ManifestTree.Symlink> links = List.of(new ManifestTree.Symlink(
                "link\"],\"x", odd[0] + "/" + odd[9], Instant.parse("2026-12-01T10:00:00Z"), null));
        Manifest m = new Manifest(
                Manifest.PACKED_FORMAT_VERSION,
                NAME,
                Instant.parse("2026-12-02T00:00:00Z"),
                true,
                entries,
                List.of(odd[9]),
                List.of(),
                null,
                new ManifestTree(List.of(), links, List.of()),
                "/home/" + odd[0],
                "host\"],\"x");
        byte[] json = m.toJson();

        ManifestParts.Split split = ManifestParts.split(json, key::idHex);
        assertThat(split).isNotNull();
        assertThat(split.parts()).hasSizeGreaterThan(1);
        java.util.Map<String, byte[]> byId = new java.util.HashMap<>();
        split.parts().forEach(p -> byId.put(p.id(), p.plain()));
        assertThat(ManifestParts.join(split.head(), byId::get)).isEqualTo(json);

        String version =
                view.put(Manifest.key(NAME), ObjectContent.ofBytes(json)).versionId();
        assertThat(Manifests.read(new SealedStore(raw, key), NAME, version)).isEqualTo(m);
    }

    @Test
    void anUnchangedManifestHasTheSamePartsAndOneChangedFileChangesAtMostTwo() {
        List<String> first = ids(manifest(20_000, Instant.parse("2026-12-02T00:00:00Z"), -1));
        List<String> unchanged = ids(manifest(20_000, Instant.parse("2026-12-03T00:00:00Z"), -1));
        List<String> oneChanged = ids(manifest(20_000, Instant.parse("2026-12-03T00:00:00Z"), 12_345));

        assertThat(unchanged).isEqualTo(first);
        Set<String> fresh = new HashSet<>(oneChanged);
        fresh.removeAll(first);
        assertThat(fresh).hasSizeBetween(1, 2);
    }

    @Test
    void aSecondBackupOfAnUnchangedTreeStoresOnlyTheSmallHead() {
        view.put(
                Manifest.key(NAME),
                ObjectContent.ofBytes(manifest(20_000, time.instant(), -1).toJson()));
        List<String> parts = raw.list(SealedStore.PARTS);
        assertThat(parts).hasSizeGreaterThan(10);
        raw.forgetRecordedKeys();

        time.advance(Duration.ofHours(1));
        Manifest second = manifest(20_000, time.instant(), -1);
        String version = view.put(Manifest.key(NAME), ObjectContent.ofBytes(second.toJson()))
                .versionId();

        assertThat(raw.keysPut()).containsExactly(view.snapshotKey(NAME));
        assertThat(raw.list(SealedStore.PARTS)).isEqualTo(parts);
        assertThat(raw.storedVersions(view.snapshotKey(NAME)).get(0).bytes().length)
                .isLessThan(8 * 1024);
        assertThat(Manifests.read(new SealedStore(raw, key), NAME, version)).isEqualTo(second);
    }

    @Test
    void aManifestStoredWholeBeforePartsExistedStillReads() {
        Manifest old = manifest(3000, time.instant(), -1);
        // What the code before parts stored: seal(zstd(the whole JSON), "manifest").
        byte[] sealed =
                key.seal(ManifestCompression.compress(old.toJson()), "manifest".getBytes(StandardCharsets.US_ASCII));
        String version =
                raw.put(view.snapshotKey(NAME), ObjectContent.ofBytes(sealed)).versionId();

        assertThat(Manifests.read(view, NAME, version)).isEqualTo(old);
        assertThat(view.partsOf(view.snapshotKey(NAME), version)).isEmpty();
        assertThat(new SealedStore(raw, key).names().names()).containsExactly(NAME);
    }

    @Test
    void aDamagedOrMissingPartIsDamageNamingThePartAndIsStoredAgainByTheNextBackup() {
        Manifest m = manifest(3000, time.instant(), -1);
        view.put(Manifest.key(NAME), ObjectContent.ofBytes(m.toJson()));
        String part = raw.list(SealedStore.PARTS).get(1);
        byte[] bytes = read(part);
        bytes[30] ^= 0x01;
        raw.put(part, ObjectContent.ofBytes(bytes));

        SealedStore fresh = new SealedStore(raw, key);
        String version = raw.versions(fresh.snapshotKey(NAME)).get(0).versionId();
        assertThatThrownBy(() -> fresh.readSnapshot(fresh.snapshotKey(NAME), version))
                .hasMessageContaining("damaged")
                .hasMessageContaining(part)
                .hasMessageContaining("does not open");

        // The next backup of the same entries does not reuse the damaged part: it stores it again.
        String next =
                fresh.put(Manifest.key(NAME), ObjectContent.ofBytes(m.toJson())).versionId();
        assertThat(Manifests.read(new SealedStore(raw, key), NAME, next)).isEqualTo(m);

        // A part gone from the store is damage too, not a snapshot that was forgotten.
        for (var v : raw.versions(part)) {
            raw.deleteVersion(part, v.versionId());
        }
        SealedStore again = new SealedStore(raw, key);
        assertThatThrownBy(() -> again.readSnapshot(again.snapshotKey(NAME), next))
                .hasMessageContaining("is missing from the store")
                .hasCauseInstanceOf(IntegrityException.class);
    }

    @Test
    void deadPartsAreDeletedOnlyOnceOlderThanTheCutoffAndLivePartsNever() {
        view.put(
                Manifest.key(NAME),
                ObjectContent.ofBytes(manifest(3000, time.instant(), -1).toJson()));
        String version = raw.versions(view.snapshotKey(NAME)).get(0).versionId();
        Set<String> live = new HashSet<>(view.partsOf(view.snapshotKey(NAME), version));
        time.advance(Duration.ofHours(2));
        view.put(
                Manifest.key(NAME),
                ObjectContent.ofBytes(manifest(3000, time.instant(), 17).toJson()));
        Set<String> all = new HashSet<>();
        raw.list(SealedStore.PARTS).forEach(k -> all.add(k.substring(SealedStore.PARTS.length())));
        assertThat(all).hasSizeGreaterThan(live.size());

        // Only the first snapshot is kept: its parts stay; the second's own part is younger than the cutoff.
        assertThat(view.deleteDeadParts(live, time.instant().minus(Duration.ofHours(1))))
                .isEqualTo(new SealedStore.DeadParts(0, 0, all.size() - live.size()));
        time.advance(Duration.ofHours(2));
        assertThat(view.deleteDeadParts(live, time.instant().minus(Duration.ofHours(1)))
                        .bytes())
                .isPositive();
        Set<String> left = new HashSet<>();
        raw.list(SealedStore.PARTS).forEach(k -> left.add(k.substring(SealedStore.PARTS.length())));
        assertThat(left).isEqualTo(live);
        assertThat(Manifests.read(view, NAME, version).files()).hasSize(3000);
    }

    @Test
    void aHeadWhosePartsListIsNotIdsIsRefused() {
        byte[] head = "{\"formatVersion\":3,\"filesParts\":[\"zz\"]}".getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> ManifestParts.join(head, id -> new byte[0]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not 64 lowercase hex digits");
        byte[] cut = "{\"formatVersion\":3,\"filesParts\":[".getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> ManifestParts.partIds(cut)).isInstanceOf(IllegalArgumentException.class);
        assertThat(ManifestParts.split("[1,2]".getBytes(StandardCharsets.UTF_8), key::idHex))
                .isNull();
    }

    private byte[] read(String storedKey) {
        try (ObjectRead r = raw.get(storedKey, ReadOptions.latest())) {
            return r.readAllBytes();
        }
    }
}
