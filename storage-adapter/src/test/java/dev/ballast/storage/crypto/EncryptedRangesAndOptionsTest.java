package dev.ballast.storage.crypto;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.UnsupportedCapabilityException;
import dev.ballast.storage.cache.LastKnownGoodConfig;
import dev.ballast.storage.cache.LastKnownGoodStore;
import dev.ballast.storage.internal.ReservedMetadata;
import dev.ballast.storage.object.ByteRange;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectMetadata;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.PutOptions;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.ServerSideEncryption;
import dev.ballast.storage.object.Source;
import dev.ballast.storage.object.StoreCapabilities;
import dev.ballast.storage.object.StoreCapabilities.Feature;
import dev.ballast.storage.object.VersionEntry;
import dev.ballast.storage.object.local.LocalObjectStore;
import dev.ballast.test.FakeObjectStore;
import dev.ballast.testkit.FakeTime;
import dev.ballast.testkit.LeakCheck;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Client-side encryption composed with the rest of the storage API (issue 24): plaintext ranges read
 * only the ciphertext of their segments, put options reach the store below, and the decorator declares
 * what it offers.
 */
@Timeout(60)
@ExtendWith(LeakCheck.class)
class EncryptedRangesAndOptionsTest {
    private static final int SEGMENT = 4096;
    private static final int FIRST_PLAIN = SEGMENT - 16 - 40;
    private static final int PLAIN = SEGMENT - 16;

    @TempDir
    Path dir;

    private static ClientSideEncryption encryption() {
        byte[] k = new byte[32];
        new SplittableRandom(3).nextBytes(k);
        return ClientSideEncryption.builder(KeyWrapper.aesKeyWrap("k1", new SecretKeySpec(k, "AES")))
                .segmentSize(SEGMENT)
                .build();
    }

    private static byte[] bytes(int n) {
        byte[] b = new byte[n];
        new SplittableRandom(n).nextBytes(b);
        return b;
    }

    /** The store below, recording the range of every read it is asked for. */
    private static final class Recording implements ObjectStore {
        final ObjectStore store;
        final List<ByteRange> reads = new ArrayList<>();

        Recording(ObjectStore store) {
            this.store = store;
        }

        @Override
        public StoreCapabilities capabilities() {
            return store.capabilities();
        }

        @Override
        public ObjectVersion put(String key, ObjectContent content) {
            return store.put(key, content);
        }

        @Override
        public ObjectVersion putIfAbsent(String key, ObjectContent content) {
            return store.putIfAbsent(key, content);
        }

        @Override
        public ObjectVersion putIfMatch(String key, String eTag, ObjectContent content) {
            return store.putIfMatch(key, eTag, content);
        }

        @Override
        public ObjectRead get(String key) {
            return get(key, ReadOptions.latest());
        }

        @Override
        public ObjectRead get(String key, ReadOptions options) {
            reads.add(options.range());
            return store.get(key, options);
        }

        @Override
        public List<VersionEntry> versions(String key) {
            return store.versions(key);
        }

        @Override
        public VersionEntry delete(String key) {
            return store.delete(key);
        }

        @Override
        public List<String> list(String prefix) {
            return store.list(prefix);
        }
    }

    @Test
    void aRangeOfAThreeSegmentObjectOverTheLocalStoreAsksOnlyForTheHeadAndItsSegmentsCiphertext() {
        byte[] plain = bytes(FIRST_PLAIN + PLAIN + 1000); // three segments, the last one short
        try (LocalObjectStore local = LocalObjectStore.open(dir.resolve("store"))) {
            Recording below = new Recording(local);
            EncryptedObjectStore objects = EncryptedObjectStore.wrap(below, encryption());
            objects.put("doc", ObjectContent.ofBytes(plain));
            long stored =
                    local.head("doc", local.versions("doc").get(0).versionId()).size();
            long stream = 40 + plain.length + 3 * 16;
            long envelope = stored - stream;

            below.reads.clear();
            int offset = FIRST_PLAIN + 100; // inside segment 1
            try (ObjectRead range = objects.get("doc", ReadOptions.latest().withRange(ByteRange.of(offset, 200)))) {
                assertThat(range.readAllBytes()).isEqualTo(Arrays.copyOfRange(plain, offset, offset + 200));
                assertThat(range.range()).contains(ByteRange.of(offset, 200));
                assertThat(range.verified()).isTrue();
                assertThat(range.version().size()).isEqualTo(plain.length);
            }
            assertThat(below.reads)
                    .as("the head (envelope and stream header), then segment 1's ciphertext only")
                    .containsExactly(
                            ByteRange.of(0, SegmentRanges.HEAD_BYTES), ByteRange.of(envelope + SEGMENT, SEGMENT));

            below.reads.clear();
            try (ObjectRead tail = objects.get("doc", ReadOptions.latest().withRange(ByteRange.last(1500)))) {
                assertThat(tail.readAllBytes()).isEqualTo(Arrays.copyOfRange(plain, plain.length - 1500, plain.length));
                assertThat(tail.range()).contains(ByteRange.of(plain.length - 1500, 1500));
            }
            assertThat(below.reads)
                    .as("a suffix range across segments 1 and 2")
                    .containsExactly(
                            ByteRange.of(0, SegmentRanges.HEAD_BYTES),
                            ByteRange.of(envelope + SEGMENT, stream - SEGMENT));
        }
    }

    @Test
    void aFlippedByteInTheRangesSegmentFailsNamingItWhileOtherSegmentsStillRead() {
        FakeObjectStore store = new FakeObjectStore();
        EncryptedObjectStore objects = EncryptedObjectStore.wrap(store, encryption());
        byte[] plain = bytes(FIRST_PLAIN + PLAIN + 1000);
        objects.put("doc", ObjectContent.ofBytes(plain));
        byte[] stored = store.currentBytes("doc").orElseThrow();
        int envelope = stored.length - (40 + plain.length + 3 * 16);
        stored[envelope + 2 * SEGMENT + 10] ^= 0x01; // in segment 2's ciphertext
        store.plant("doc", stored, null, 0); // no SHA-256 or block digests below: only the GCM tags check it

        assertThatThrownBy(() -> {
                    try (ObjectRead read =
                            objects.get("doc", ReadOptions.latest().withRange(ByteRange.from(FIRST_PLAIN + PLAIN)))) {
                        read.readAllBytes();
                    }
                })
                .isInstanceOf(IntegrityException.class)
                .hasMessageContaining("Encrypted segment 2")
                .hasMessageContaining("fails its AES-GCM tag")
                .hasMessageContaining("'doc'");
        try (ObjectRead intact = objects.get("doc", ReadOptions.latest().withRange(ByteRange.of(FIRST_PLAIN, 50)))) {
            assertThat(intact.readAllBytes()).isEqualTo(Arrays.copyOfRange(plain, FIRST_PLAIN, FIRST_PLAIN + 50));
        }
        assertThat(store.openReads()).isZero();
    }

    @Test
    void metadataIsPassedBelowInClearAndReturnedByGetHeadAndTheFacade() {
        ObjectMetadata metadata = ObjectMetadata.builder()
                .contentType("application/pdf")
                .user("owner", "finance")
                .build();
        try (StorageFacade storage = StorageFacade.newBuilder()
                .localObjects(dir.resolve("facade"))
                .clientSideEncryption(encryption())
                .build()) {
            ObjectStore objects = storage.objects();
            byte[] plain = bytes(10_000);

            ObjectVersion v = objects.put(
                    "q3.pdf",
                    ObjectContent.ofBytes(plain),
                    PutOptions.defaults().withMetadata(metadata));

            assertThat(v.metadata()).isEqualTo(metadata);
            assertThat(v.size()).isEqualTo(plain.length);
            try (ObjectRead read = objects.get("q3.pdf")) {
                assertThat(read.readAllBytes()).isEqualTo(plain);
                assertThat(read.version().metadata()).isEqualTo(metadata);
            }
            try (ObjectRead range = objects.get("q3.pdf", ReadOptions.latest().withRange(ByteRange.of(5000, 10)))) {
                assertThat(range.version().metadata()).isEqualTo(metadata);
            }
            assertThat(objects.head("q3.pdf", v.versionId()).metadata()).isEqualTo(metadata);
            assertThat(objects.head("q3.pdf", v.versionId()).size()).isEqualTo(plain.length);
        }
        FakeObjectStore store = new FakeObjectStore();
        EncryptedObjectStore.wrap(store, encryption())
                .putIfAbsent(
                        "clear",
                        ObjectContent.ofBytes(bytes(10)),
                        PutOptions.defaults().withMetadata(metadata));
        try (ObjectRead raw = store.get("clear")) {
            assertThat(ReservedMetadata.without(raw.version().metadata()))
                    .as("metadata is stored in clear, as documented")
                    .isEqualTo(metadata);
            assertThat(raw.version().metadata().user())
                    .as("with the client-side encryption mark beside it")
                    .containsEntry(ReservedMetadata.CLIENT_SIDE_ENCRYPTION, "BCE1/AES-KW/k1");
            assertThat(new String(raw.readAllBytes(), 0, 4, UTF_8)).isEqualTo("BCE1");
        }
    }

    @Test
    void serverSideEncryptionTheStoreLacksIsRefusedByItBeforeAnythingIsWritten() {
        FakeObjectStore store = new FakeObjectStore();
        EncryptedObjectStore objects = EncryptedObjectStore.wrap(store, encryption());

        assertThatThrownBy(() -> objects.put(
                        "doc",
                        ObjectContent.ofBytes(bytes(10)),
                        PutOptions.defaults().withEncryption(ServerSideEncryption.s3())))
                .isInstanceOf(UnsupportedCapabilityException.class)
                .hasMessageContaining("SSE_S3");
        assertThat(store.versions("doc")).isEmpty();
    }

    @Test
    void capabilitiesDeclareRangesAndAuthenticatedBlocksButNoPresignedUrls() {
        FakeObjectStore plain = new FakeObjectStore(new StoreCapabilities(null, "fake", true, true, true));
        StoreCapabilities caps = EncryptedObjectStore.wrap(plain, encryption()).capabilities();

        assertThat(caps.has(Feature.RANGED_READS)).isTrue();
        assertThat(caps.has(Feature.BLOCK_DIGESTS)).isTrue();
        assertThat(caps.has(Feature.METADATA)).as("the store's: it keeps none").isFalse();
        assertThat(caps.presignedUrls()).isFalse();
        assertThat(EncryptedObjectStore.wrap(new FakeObjectStore(), encryption())
                        .capabilities()
                        .has(Feature.METADATA))
                .isTrue();
    }

    @Test
    void overTheLastKnownGoodStoreARangeIsServedFromTheCachedCopyMarkedDegradedWhileTheStoreIsDown() {
        FakeObjectStore store = new FakeObjectStore();
        FakeTime time = new FakeTime();
        EncryptedObjectStore objects = EncryptedObjectStore.wrap(
                LastKnownGoodStore.wrap(store, LastKnownGoodConfig.ofDefaults(), time), encryption());
        byte[] plain = bytes(FIRST_PLAIN + 2 * PLAIN + 7);
        objects.put("doc", ObjectContent.ofBytes(plain));
        try (ObjectRead whole = objects.get("doc")) {
            assertThat(whole.readAllBytes()).isEqualTo(plain); // cached by the last-known-good store
        }
        store.down(true);

        try (ObjectRead range =
                objects.get("doc", ReadOptions.latest().withRange(ByteRange.of(FIRST_PLAIN + 5, PLAIN)))) {
            assertThat(range.readAllBytes())
                    .isEqualTo(Arrays.copyOfRange(plain, FIRST_PLAIN + 5, FIRST_PLAIN + 5 + PLAIN));
            assertThat(range.degraded()).isTrue();
            assertThat(range.source()).isEqualTo(Source.CACHE);
            assertThat(range.degradedReason()).isPresent();
            assertThat(range.range()).contains(ByteRange.of(FIRST_PLAIN + 5, PLAIN));
            assertThat(range.verified()).isTrue();
        }
        assertThat(store.openReads()).isZero();
    }
}
