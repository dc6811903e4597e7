package dev.ballast.storage.crypto;

import dev.ballast.storage.object.FakeObjectStoreContractTest;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.test.FakeObjectStore;
import dev.ballast.testkit.LeakCheck;
import java.time.Clock;
import java.util.SplittableRandom;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The object store contract through client-side encryption over the in-memory store: the decorator
 * must be invisible but for what it declares, the SHA-256 and listed sizes of the stored ciphertext
 * ({@link Behaviour#CONTENT_DIGESTS_AND_SIZES} absent).
 */
@ExtendWith(LeakCheck.class)
class EncryptedObjectStoreContractTest extends FakeObjectStoreContractTest {

    private static final ClientSideEncryption ENCRYPTION = ClientSideEncryption.builder(
                    KeyWrapper.aesKeyWrap("contract", key()))
            .build();

    private static SecretKeySpec key() {
        byte[] k = new byte[32];
        new SplittableRandom(24).nextBytes(k);
        return new SecretKeySpec(k, "AES");
    }

    @Override
    protected ObjectStore wrap(FakeObjectStore fake, Clock clock) {
        return EncryptedObjectStore.wrap(fake, ENCRYPTION);
    }

    @Override
    protected String storeName() {
        return "EncryptedObjectStore over FakeObjectStore";
    }

    @Override
    protected boolean has(Behaviour behaviour) {
        return super.has(behaviour) && behaviour != Behaviour.CONTENT_DIGESTS_AND_SIZES;
    }

    /**
     * Plants the ciphertext of {@code bytes}, as this decorator writes it, with {@code recordedSha256Hex}
     * recorded by the store: damage at rest below the encryption.
     */
    @Override
    protected void plantObject(String key, byte[] bytes, String recordedSha256Hex) {
        FakeObjectStore scratch = new FakeObjectStore();
        EncryptedObjectStore.wrap(scratch, ENCRYPTION).put(key, ObjectContent.ofBytes(bytes));
        byte[] ciphertext;
        try (var read = scratch.get(key)) {
            ciphertext = read.readAllBytes();
        }
        super.plantObject(key, ciphertext, recordedSha256Hex);
    }

    /** Not staged: an object written without this decorator is refused by it, never read (see its test). */
    @Override
    protected void plantForeignObject(String key, byte[] bytes) {
        Assumptions.abort(storeName() + " refuses objects not encrypted through it, so a foreign object cannot be"
                + " read (EncryptedObjectStoreTest covers the refusal)");
    }

    /**
     * Not staged: a damaged stored byte fails its AES-GCM segment (64 KiB), which the damaged-block case,
     * written for 1 MiB SHA-256 blocks, would not name; EncryptedObjectStoreTest covers it.
     */
    @Override
    protected void damageStoredByte(String key, long offset) {
        Assumptions.abort(storeName() + " names the damaged 64 KiB AES-GCM segment, not a 1 MiB block"
                + " (EncryptedObjectStoreTest covers damaged segments)");
    }
}
