package dev.ballast.storage.crypto;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.crypto.tink.subtle.AesGcmHkdfStreaming;
import dev.ballast.storage.EncryptionKeyException;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.RequestRefusedException;
import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.cache.LastKnownGoodConfig;
import dev.ballast.storage.cache.LastKnownGoodStore;
import dev.ballast.storage.object.ByteRange;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.Source;
import dev.ballast.storage.object.StoreCapabilities;
import dev.ballast.test.FakeObjectStore;
import dev.ballast.testkit.FakeTime;
import dev.ballast.testkit.LeakCheck;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Client-side envelope encryption (issue 24, item 6): the store holds ciphertext only, the key reads
 * it back, and a missing key, a wrong key or a flipped byte is refused, never garbage.
 */
@Timeout(60)
@ExtendWith(LeakCheck.class)
class EncryptedObjectStoreTest {

    private static final byte[] SECRET = "PLAINTEXT-MARKER-7f3a9c".getBytes(UTF_8);

    @TempDir
    Path dir;

    private static SecretKey aesKey(int seed) {
        byte[] k = new byte[32];
        new SplittableRandom(seed).nextBytes(k);
        return new SecretKeySpec(k, "AES");
    }

    private static ClientSideEncryption encryption(String keyId, int seed) {
        return ClientSideEncryption.builder(KeyWrapper.aesKeyWrap(keyId, aesKey(seed)))
                .build();
    }

    /** {@code n} bytes with the marker every 4 KiB, so any stored plaintext would show. */
    private static byte[] document(int n) {
        byte[] b = new byte[n];
        new SplittableRandom(n).nextBytes(b);
        for (int at = 0; at + SECRET.length <= n; at += 4096) {
            System.arraycopy(SECRET, 0, b, at, SECRET.length);
        }
        return b;
    }

    private static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    private static byte[] read(ObjectRead read) {
        try (read) {
            return read.readAllBytes();
        }
    }

    @Test
    void aBlobEncryptedClientSideIsCiphertextInTheLocalStoreAndReadsBackWithTheKey() throws IOException {
        byte[] small = document(5_000);
        byte[] large = document(300_000); // above the local store's inline threshold: a file of its own
        Path objects = dir.resolve("objects");
        ObjectVersion written;
        try (StorageFacade storage = StorageFacade.newBuilder()
                .localObjects(objects)
                .clientSideEncryption(encryption("app-2026", 1))
                .build()) {
            storage.objects().put("small.bin", ObjectContent.ofBytes(small));
            written = storage.objects().put("large.bin", ObjectContent.ofFile(Files.write(dir.resolve("in"), large)));
            assertThat(written.size()).isEqualTo(large.length);
            assertThat(read(storage.objects().get("small.bin"))).isEqualTo(small);
            try (ObjectRead read = storage.objects().get("large.bin")) {
                assertThat(read.version().size()).isEqualTo(large.length);
                assertThat(read.version().versionId()).isEqualTo(written.versionId());
                assertThat(read.readAllBytes()).isEqualTo(large);
            }
        }

        try (Stream<Path> files = Files.walk(objects)) {
            List<Path> all = files.filter(Files::isRegularFile).toList();
            assertThat(all).isNotEmpty();
            for (Path file : all) {
                assertThat(contains(Files.readAllBytes(file), SECRET))
                        .as("plaintext in %s", file)
                        .isFalse();
            }
        }
    }

    @Test
    void withoutTheKeyOrWithAWrongOneTheReadIsRefusedWithOneClearException() {
        FakeObjectStore store = new FakeObjectStore();
        EncryptedObjectStore.wrap(store, encryption("app-2026", 1)).put("doc", ObjectContent.ofBytes(document(9000)));

        assertThatThrownBy(() ->
                        EncryptedObjectStore.wrap(store, encryption("other", 1)).get("doc"))
                .isInstanceOfSatisfying(EncryptionKeyException.class, e -> {
                    assertThat(e.key()).isEqualTo("doc");
                    assertThat(e.keyId()).isEqualTo("app-2026");
                    assertThat(e.retryable()).isFalse();
                })
                .hasMessageContaining("encrypted client-side under AES-KW key 'app-2026', which this store was not"
                        + " given (it has AES-KW 'other')");
        assertThatThrownBy(() -> EncryptedObjectStore.wrap(store, encryption("app-2026", 2))
                        .get("doc"))
                .isInstanceOf(EncryptionKeyException.class)
                .hasMessageContaining("the AES-KW key given as 'app-2026' is not the key it was encrypted under");
        assertThat(store.openReads()).isZero();
    }

    @Test
    void presignedUrlsAreRefusedThroughTheDecoratorEvenOverAStoreThatSignsThem() {
        FakeObjectStore signing =
                new FakeObjectStore(new FakeObjectStore().capabilities().withPresignedUrls(true));
        EncryptedObjectStore encrypted = EncryptedObjectStore.wrap(signing, encryption("app-2026", 1));

        assertThat(encrypted.capabilities().presignedUrls()).isFalse();
        assertThatThrownBy(() -> encrypted.presign(
                        dev.ballast.storage.object.PresignRequest.put("doc", java.time.Duration.ofMinutes(5))))
                .isInstanceOf(dev.ballast.storage.UnsupportedCapabilityException.class)
                .hasMessageContaining("a PUT would store 'doc' in plaintext");
    }

    @Test
    void aFlippedStoredByteFailsTheReadOfItsSegmentAndNoByteOfThatSegmentIsHandedOver() {
        FakeObjectStore store = new FakeObjectStore();
        ClientSideEncryption enc = ClientSideEncryption.builder(KeyWrapper.aesKeyWrap("k1", aesKey(1)))
                .segmentSize(4096)
                .build();
        EncryptedObjectStore objects = EncryptedObjectStore.wrap(store, enc);
        byte[] plain = document(20_000);
        objects.put("doc", ObjectContent.ofBytes(plain));
        byte[] stored = store.currentBytes("doc").orElseThrow();
        stored[10_000] ^= 0x01; // in segment 2 (stored bytes 8192 to 12287 after the envelope's)
        store.plant("doc", stored, null, 0); // a store that would not notice: no SHA-256 recorded

        try (ObjectRead read = objects.get("doc")) {
            InputStream in = read.stream();
            byte[] handedOver = new byte[plain.length];
            int n = 0;
            try {
                for (int r; (r = in.read(handedOver, n, handedOver.length - n)) > 0; ) {
                    n += r;
                }
                throw new AssertionError("the damaged object was read to its end");
            } catch (IOException | RuntimeException e) {
                assertThat(e)
                        .isInstanceOf(IntegrityException.class)
                        .hasMessageContaining("Encrypted segment 2")
                        .hasMessageContaining("fails its AES-GCM tag");
            }
            assertThat(n)
                    .as("bytes handed over: the two segments before the damaged one")
                    .isEqualTo(4040 + 4080);
            assertThat(Arrays.copyOf(handedOver, n)).isEqualTo(Arrays.copyOf(plain, n));
        }
        try (ObjectRead range = objects.getRange("doc", ReadOptions.latest(), 100, 3000)) {
            assertThat(range.readAllBytes()).isEqualTo(Arrays.copyOfRange(plain, 100, 3100));
        }
    }

    @Test
    void anObjectThatWasNotEncryptedIsRefusedNotPassedOffAsPlaintext() {
        FakeObjectStore store = new FakeObjectStore();
        store.put("plain", ObjectContent.ofBytes(SECRET));

        assertThatThrownBy(() ->
                        EncryptedObjectStore.wrap(store, encryption("k1", 1)).get("plain"))
                .isInstanceOf(IntegrityException.class)
                .hasMessageContaining("is not encrypted client-side");
    }

    @Test
    void rangedReadsDecryptOnlyTheSegmentsThatHoldThem() {
        rangesOfEverySizeReadBack(new FakeObjectStore());
    }

    @Test
    void overAStoreWithoutRangedReadsRangesAreReadFromTheStartAndStillServed() {
        FakeObjectStore store = new FakeObjectStore(new StoreCapabilities(null, "fake", true, true, true));
        assertThat(store.capabilities().has(StoreCapabilities.Feature.RANGED_READS))
                .isFalse();
        rangesOfEverySizeReadBack(store);
    }

    private static void rangesOfEverySizeReadBack(FakeObjectStore store) {
        EncryptedObjectStore objects = EncryptedObjectStore.wrap(
                store,
                ClientSideEncryption.builder(KeyWrapper.aesKeyWrap("k1", aesKey(1)))
                        .segmentSize(1024)
                        .build());
        int first = 1024 - 16 - 40; // plaintext bytes of the first segment
        int later = 1024 - 16;
        for (int size : new int[] {0, 1, first, first + 1, first + later, first + 3 * later + 5, 50_000}) {
            byte[] plain = document(size);
            objects.put("doc", ObjectContent.ofBytes(plain));
            assertThat(read(objects.get("doc")))
                    .as("whole object of %d bytes", size)
                    .isEqualTo(plain);
            for (ByteRange r : new ByteRange[] {
                ByteRange.of(0, Math.max(1, size)),
                ByteRange.of(0, 1),
                ByteRange.of(Math.max(0, first - 1), 2),
                ByteRange.of(first, later),
                ByteRange.of(size / 2, Math.max(1, size)),
                ByteRange.from(Math.max(0, size - 1)),
                ByteRange.last(later + 3),
                ByteRange.of(size, 10)
            }) {
                if (size == 0 || r.offset() >= size) {
                    assertThatThrownBy(() ->
                                    objects.get("doc", ReadOptions.latest().withRange(r)))
                            .as("range %s of %d bytes", r, size)
                            .isInstanceOfSatisfying(
                                    RequestRefusedException.class,
                                    e -> assertThat(e.statusCode()).isEqualTo(416));
                    continue;
                }
                ByteRange served = r.resolve("doc", size);
                try (ObjectRead range = objects.get("doc", ReadOptions.latest().withRange(r))) {
                    assertThat(range.version().size()).isEqualTo(size);
                    assertThat(range.range()).contains(served);
                    assertThat(range.verified()).isTrue();
                    assertThat(range.readAllBytes())
                            .as("range %s of %d bytes", r, size)
                            .isEqualTo(Arrays.copyOfRange(
                                    plain, (int) served.offset(), (int) (served.offset() + served.length())));
                }
            }
        }
        try (ObjectRead range = objects.getRange("doc", ReadOptions.latest(), 49_990, 100)) {
            assertThat(range.readAllBytes()).isEqualTo(Arrays.copyOfRange(document(50_000), 49_990, 50_000));
        }
        assertThatThrownBy(() -> objects.getRange("doc", ReadOptions.latest(), 50_000, 1))
                .isInstanceOfSatisfying(
                        RequestRefusedException.class,
                        e -> assertThat(e.statusCode()).isEqualTo(416))
                .hasMessageContaining("the object has 50000 bytes");
        assertThat(store.openReads()).isZero();
    }

    @Test
    void theStoredStreamIsTinksAesGcmHkdfStreamingFormatExactly() throws Exception {
        FakeObjectStore store = new FakeObjectStore();
        SecretKey kek = aesKey(3);
        EncryptedObjectStore.wrap(
                        store,
                        ClientSideEncryption.builder(KeyWrapper.aesKeyWrap("k", kek))
                                .build())
                .put("a/b.bin", ObjectContent.ofBytes(document(200_000)));
        byte[] stored = store.currentBytes("a/b.bin").orElseThrow();

        Envelope.Read envelope = Envelope.read(new ByteArrayInputStream(stored));
        Cipher unwrap = Cipher.getInstance("AESWrap");
        unwrap.init(Cipher.UNWRAP_MODE, kek);
        byte[] dataKey = unwrap.unwrap(envelope.envelope().wrappedKey(), "AES", Cipher.SECRET_KEY)
                .getEncoded();
        byte[] aad = concat(envelope.bytes(), "a/b.bin".getBytes(UTF_8));
        AesGcmHkdfStreaming tink = new AesGcmHkdfStreaming(
                dataKey, "HmacSha256", 32, envelope.envelope().segmentSize(), 0);
        byte[] stream = Arrays.copyOfRange(stored, envelope.bytes().length, stored.length);
        try (InputStream in = tink.newDecryptingStream(new ByteArrayInputStream(stream), aad)) {
            assertThat(in.readAllBytes()).isEqualTo(document(200_000));
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] c = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }

    @Test
    void afterAKeyRotationOldObjectsReadWithTheOldKeyAndNewOnesAreWrittenWithTheNew() {
        FakeObjectStore store = new FakeObjectStore();
        EncryptedObjectStore.wrap(store, encryption("2025", 1)).put("old", ObjectContent.ofBytes(SECRET));
        KeyWrapper old = KeyWrapper.aesKeyWrap("2025", aesKey(1));
        EncryptedObjectStore rotated = EncryptedObjectStore.wrap(
                store,
                ClientSideEncryption.builder(KeyWrapper.aesKeyWrap("2026", aesKey(2)))
                        .alsoDecryptWith(old)
                        .build());
        rotated.put("new", ObjectContent.ofBytes(SECRET));

        assertThat(read(rotated.get("old"))).isEqualTo(SECRET);
        assertThat(read(rotated.get("new"))).isEqualTo(SECRET);
        assertThatThrownBy(() ->
                        EncryptedObjectStore.wrap(store, encryption("2025", 1)).get("new"))
                .isInstanceOf(EncryptionKeyException.class)
                .hasMessageContaining("'2026'");
    }

    @Test
    void overTheLastKnownGoodCacheACachedCiphertextIsServedDecryptedAndMarkedWhileTheStoreIsDown() {
        FakeObjectStore store = new FakeObjectStore();
        ObjectStore objects = EncryptedObjectStore.wrap(
                LastKnownGoodStore.wrap(store, LastKnownGoodConfig.ofDefaults(), new FakeTime()), encryption("k1", 1));
        byte[] plain = document(70_000);
        objects.put("doc", ObjectContent.ofBytes(plain));
        assertThat(read(objects.get("doc"))).isEqualTo(plain);
        store.down(true);

        try (ObjectRead degraded = objects.get("doc")) {
            assertThat(degraded.source()).isEqualTo(Source.CACHE);
            assertThat(degraded.degraded()).isTrue();
            assertThat(degraded.version().size()).isEqualTo(plain.length);
            assertThat(degraded.readAllBytes()).isEqualTo(plain);
        }
    }

    @Test
    void aStreamPutAndAPutIfAbsentAreEncryptedLikeABytesPut() {
        FakeObjectStore store = new FakeObjectStore();
        EncryptedObjectStore objects = EncryptedObjectStore.wrap(store, encryption("k1", 1));
        byte[] plain = document(100_000);

        ObjectVersion v =
                objects.putIfAbsent("s", ObjectContent.ofStream(new ByteArrayInputStream(plain), plain.length));

        assertThat(v.size()).isEqualTo(plain.length);
        assertThat(contains(store.currentBytes("s").orElseThrow(), SECRET)).isFalse();
        assertThat(read(objects.get("s"))).isEqualTo(plain);
        assertThat(objects.head("s", v.versionId()).size()).isEqualTo(plain.length);
    }
}
