package dev.ballast.storage.object.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.UnsupportedCapabilityException;
import dev.ballast.storage.object.ByteRange;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectMetadata;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.PutOptions;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.ServerSideEncryption;
import dev.ballast.storage.object.VersionEntry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Metadata and block digests in the local store's index: kept across reopen, removal and rebuild. */
class LocalAttributesTest {
    @TempDir
    Path dir;

    private static final ObjectMetadata META = ObjectMetadata.builder()
            .contentType("application/json")
            .user("tenant", "a")
            .build();

    private static byte[] bytes(int size) {
        byte[] b = new byte[size];
        new SplittableRandom(size).nextBytes(b);
        return b;
    }

    private Path root() {
        return dir.resolve("store");
    }

    @Test
    void metadataAndBlockDigestsSurviveReopeningAndAReadOnlyReader() {
        byte[] big = bytes(3 * 1024 * 1024 + 5);
        ObjectVersion v;
        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            v = store.put(
                    "a.json", ObjectContent.ofBytes(big), PutOptions.defaults().withMetadata(META));
        }
        try (LocalObjectStore reader = LocalObjectStore.open(
                root(), LocalStoreConfig.builder().readOnly(true).build())) {
            assertThat(reader.head("a.json", v.versionId()).metadata()).isEqualTo(META);
            assertThat(reader.versions("a.json"))
                    .singleElement()
                    .extracting(VersionEntry::metadata)
                    .isEqualTo(META);
            try (ObjectRead r = reader.get("a.json", ReadOptions.latest().withRange(ByteRange.of(2_500_000, 100)))) {
                assertThat(r.verified()).isTrue();
                assertThat(r.readAllBytes()).isEqualTo(Arrays.copyOfRange(big, 2_500_000, 2_500_100));
            }
        }
    }

    @Test
    void aRebuildKeepingTheIntactIndexKeepsMetadataAndDigests() {
        byte[] big = bytes(2 * 1024 * 1024 + 1);
        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            store.put(
                    "a.json", ObjectContent.ofBytes(big), PutOptions.defaults().withMetadata(META));
        }

        IndexRebuild report = LocalObjectStore.rebuildIndex(root());

        assertThat(report.previousIndexKept()).isTrue();
        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            try (ObjectRead r = store.get("a.json", ReadOptions.latest().withRange(ByteRange.from(2 * 1024 * 1024)))) {
                assertThat(r.version().metadata()).isEqualTo(META);
                assertThat(r.verified()).isTrue();
                assertThat(r.readAllBytes()).containsExactly(big[big.length - 1]);
            }
        }
    }

    @Test
    void aRebuildFromTheJournalAloneServesRangesMarkedUnverified() throws Exception {
        byte[] big = bytes(2 * 1024 * 1024 + 1);
        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            store.put(
                    "a.json", ObjectContent.ofBytes(big), PutOptions.defaults().withMetadata(META));
        }
        Files.delete(root().resolve(LocalObjectStore.INDEX_FILE));

        LocalObjectStore.rebuildIndex(root());

        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            try (ObjectRead r = store.get("a.json", ReadOptions.latest().withRange(ByteRange.of(10, 10)))) {
                assertThat(r.verified()).isFalse(); // the journal holds no block digests: documented
                assertThat(r.readAllBytes()).isEqualTo(Arrays.copyOfRange(big, 10, 20));
            }
            assertThat(store.get("a.json").readAllBytes()).isEqualTo(big); // whole reads stay verified
        }
    }

    @Test
    void removingAVersionDropsItsMetadataAndServerSideEncryptionIsRefusedInOneSentence() {
        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            ObjectVersion v = store.put(
                    "a.json",
                    ObjectContent.ofBytes(bytes(10)),
                    PutOptions.defaults().withMetadata(META));
            store.deleteVersion("a.json", v.versionId());
            assertThat(store.versions("a.json")).isEmpty();

            assertThatThrownBy(() -> store.put(
                            "b",
                            ObjectContent.ofBytes(bytes(1)),
                            PutOptions.defaults().withEncryption(ServerSideEncryption.s3())))
                    .isInstanceOf(UnsupportedCapabilityException.class)
                    .hasMessage("Server-side encryption SSE-S3 (AES256) is not offered by the local object store '"
                            + root().toAbsolutePath().normalize()
                            + "' (capability SSE_S3 absent); nothing was written");
            assertThat(store.versions("b")).isEmpty();
        }
    }

    @Test
    void aDamagedBlockOfAPackedContentIsNamedToo() throws Exception {
        byte[] small = bytes(40_000); // packed: its one block's digest is its SHA-256
        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            store.put("s", ObjectContent.ofBytes(small));
        }
        Path pack;
        try (var packs = Files.list(root().resolve("packs"))) {
            pack = packs.filter(p -> p.toString().endsWith(".pack")).findFirst().orElseThrow();
        }
        byte[] all = Files.readAllBytes(pack);
        all[all.length - 1000] ^= 1;
        Files.write(pack, all);
        try (LocalObjectStore store = LocalObjectStore.open(root())) {
            assertThatThrownBy(() -> store.get("s", ReadOptions.latest().withRange(ByteRange.of(0, 10)))
                            .readAllBytes())
                    .isInstanceOf(IntegrityException.class)
                    .hasMessageContaining("Block 0 (bytes 0-39999)");
        }
    }
}
