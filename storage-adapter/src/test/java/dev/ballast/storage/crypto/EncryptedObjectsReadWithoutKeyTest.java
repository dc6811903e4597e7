package dev.ballast.storage.crypto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.storage.EncryptionKeyException;
import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.cache.LastKnownGoodConfig;
import dev.ballast.storage.cache.LastKnownGoodStore;
import dev.ballast.storage.object.ByteRange;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectMetadata;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.PutOptions;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.test.FakeObjectStore;
import dev.ballast.testkit.FakeTime;
import dev.ballast.testkit.LeakCheck;
import java.nio.file.Path;
import java.util.Map;
import java.util.SplittableRandom;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A user's report: a facade built without {@code clientSideEncryption(...)} read an object written
 * through {@link EncryptedObjectStore} and handed back its ciphertext (217 bytes for 100) as the content.
 * Every encrypted object is now marked in its metadata and the plain read path refuses it, naming the key.
 */
@Timeout(60)
@ExtendWith(LeakCheck.class)
class EncryptedObjectsReadWithoutKeyTest {

    @TempDir
    Path dir;

    private static ClientSideEncryption encryption(String keyId) {
        byte[] k = new byte[32];
        new SplittableRandom(7).nextBytes(k);
        return ClientSideEncryption.builder(KeyWrapper.aesKeyWrap(keyId, new SecretKeySpec(k, "AES")))
                .build();
    }

    private static byte[] hundredBytes() {
        byte[] b = new byte[100];
        new SplittableRandom(100).nextBytes(b);
        return b;
    }

    private static String refusal(ObjectVersion v, String keyId) {
        return "Object '" + v.key() + "' version " + v.versionId()
                + " was written with client-side encryption under key '" + keyId
                + "' and reads here as ciphertext only: build the facade with clientSideEncryption(...)"
                + " holding key '" + keyId + "' (or read with ReadOptions.withRawCiphertext(true) for"
                + " the stored ciphertext)";
    }

    @Test
    void aFacadeWithoutClientSideEncryptionRefusesAnEncryptedObjectNamingTheKey() {
        Path objects = dir.resolve("objects");
        byte[] content = hundredBytes();
        ObjectMetadata mine =
                ObjectMetadata.builder().user("owner", "team-media").build();
        ObjectVersion plainPut;
        ObjectVersion withOptions;
        ObjectVersion asyncPut;
        ObjectVersion asyncWithOptions;
        try (StorageFacade encrypting = StorageFacade.newBuilder()
                .localObjects(objects)
                .clientSideEncryption(encryption("app-2026"))
                .build()) {
            plainPut = encrypting.objects().put("doc.bin", ObjectContent.ofBytes(content));
            withOptions = encrypting
                    .objects()
                    .put(
                            "tagged.bin",
                            ObjectContent.ofBytes(content),
                            PutOptions.defaults().withMetadata(mine));
            // putAsync is marked as put is (it once took no options, and its objects read as plain bytes)
            asyncPut = encrypting
                    .objects()
                    .putAsync("async.bin", ObjectContent.ofBytes(content))
                    .join();
            asyncWithOptions = encrypting
                    .objects()
                    .putAsync(
                            "async-tagged.bin",
                            ObjectContent.ofBytes(content),
                            PutOptions.defaults().withMetadata(mine))
                    .join();
            assertThat(plainPut.metadata()).isEqualTo(ObjectMetadata.NONE);
            assertThat(withOptions.metadata()).isEqualTo(mine);
            assertThat(asyncPut.metadata()).isEqualTo(ObjectMetadata.NONE);
            assertThat(asyncWithOptions.metadata()).isEqualTo(mine);
            try (ObjectRead read = encrypting.objects().get("async-tagged.bin")) {
                assertThat(read.readAllBytes()).isEqualTo(content);
                assertThat(read.version().metadata()).isEqualTo(mine);
            }
        }

        try (StorageFacade plain =
                StorageFacade.newBuilder().localObjects(objects).build()) {
            for (ObjectVersion v : new ObjectVersion[] {plainPut, withOptions, asyncPut, asyncWithOptions}) {
                assertThatThrownBy(() -> plain.objects().get(v.key()))
                        .isInstanceOf(EncryptionKeyException.class)
                        .hasMessage(refusal(v, "app-2026"))
                        .satisfies(e -> {
                            assertThat(((EncryptionKeyException) e).keyId()).isEqualTo("app-2026");
                            assertThat(((EncryptionKeyException) e).key()).isEqualTo(v.key());
                        });
                assertThatThrownBy(() -> plain.objects()
                                .get(v.key(), ReadOptions.version(v.versionId()).withRange(ByteRange.of(0, 10))))
                        .isInstanceOf(EncryptionKeyException.class)
                        .hasMessage(refusal(v, "app-2026"));
            }

            // Raw access for tools that want the stored bytes: asked for explicitly, and the mark is shown.
            try (ObjectRead raw =
                    plain.objects().get("doc.bin", ReadOptions.latest().withRawCiphertext(true))) {
                assertThat(raw.readAllBytes().length).isGreaterThan(content.length);
                assertThat(raw.version().metadata().user())
                        .containsEntry(
                                "ballast-cse",
                                "BCE1/"
                                        + KeyWrapper.aesKeyWrap("x", new SecretKeySpec(new byte[32], "AES"))
                                                .scheme() + "/app-2026");
            }
        }

        try (StorageFacade encrypting = StorageFacade.newBuilder()
                .localObjects(objects)
                .clientSideEncryption(encryption("app-2026"))
                .build()) {
            try (ObjectRead read = encrypting.objects().get("doc.bin")) {
                assertThat(read.readAllBytes()).isEqualTo(content);
                assertThat(read.version().metadata()).isEqualTo(ObjectMetadata.NONE);
            }
            try (ObjectRead read = encrypting.objects().get("tagged.bin")) {
                assertThat(read.readAllBytes()).isEqualTo(content);
                assertThat(read.version().metadata().user()).isEqualTo(Map.of("owner", "team-media"));
            }
            try (ObjectRead read =
                    encrypting.objects().get("tagged.bin", ReadOptions.latest().withRange(ByteRange.of(10, 5)))) {
                assertThat(read.readAllBytes()).isEqualTo(java.util.Arrays.copyOfRange(content, 10, 15));
                assertThat(read.version().metadata()).isEqualTo(mine);
            }
            assertThat(encrypting
                            .objects()
                            .head("tagged.bin", withOptions.versionId())
                            .metadata())
                    .isEqualTo(mine);
        }
    }

    @Test
    void theFakeStoreCarriesTheMarkSoTheCacheRefusesItToo() {
        FakeObjectStore store = new FakeObjectStore();
        ObjectVersion v =
                EncryptedObjectStore.wrap(store, encryption("k-fake")).put("a", ObjectContent.ofBytes(hundredBytes()));
        ObjectStore plain = LastKnownGoodStore.wrap(store, LastKnownGoodConfig.ofDefaults(), new FakeTime());
        assertThatThrownBy(() -> plain.get("a"))
                .isInstanceOf(EncryptionKeyException.class)
                .hasMessage(refusal(v, "k-fake"));
        ObjectStore decrypting = EncryptedObjectStore.wrap(plain, encryption("k-fake"));
        try (ObjectRead read = decrypting.get("a")) {
            assertThat(read.readAllBytes()).isEqualTo(hundredBytes());
        }
    }

    @Test
    void aUserCannotSetTheReservedMark() {
        assertThatThrownBy(() ->
                        ObjectMetadata.builder().user("ballast-cse", "BCE1/x/y").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("User metadata key 'ballast-cse' starts with 'ballast-', which Ballast keeps for its own"
                        + " metadata; choose another key");
        assertThatThrownBy(() -> new ObjectMetadata(null, null, null, null, Map.of("ballast-cse", "BCE1/x/y")))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
