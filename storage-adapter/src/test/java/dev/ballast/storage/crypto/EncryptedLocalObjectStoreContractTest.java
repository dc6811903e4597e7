package dev.ballast.storage.crypto;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.local.LocalObjectStore;
import dev.ballast.storage.object.local.LocalStoreConfig;
import dev.ballast.test.ObjectStoreContract;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The object store contract through client-side encryption over the local store, whose ranged reads
 * the decorator uses: as over the in-memory store ({@link EncryptedObjectStoreContractTest}), it lacks
 * {@link Behaviour#CONTENT_DIGESTS_AND_SIZES} only; damage at rest is not staged here (the in-memory
 * run stages it below the encryption).
 */
@ExtendWith(LeakCheck.class)
class EncryptedLocalObjectStoreContractTest extends ObjectStoreContract {
    private static final ClientSideEncryption ENCRYPTION = ClientSideEncryption.builder(
                    KeyWrapper.aesKeyWrap("contract", key()))
            .build();

    @TempDir
    Path dir;

    private Path root;

    private static SecretKeySpec key() {
        byte[] k = new byte[32];
        new SplittableRandom(25).nextBytes(k);
        return new SecretKeySpec(k, "AES");
    }

    @Override
    protected ObjectStore newStore() {
        root = dir.resolve("store");
        return EncryptedObjectStore.wrap(LocalObjectStore.open(root), ENCRYPTION);
    }

    @Override
    protected void closeStore(ObjectStore store) {
        ((LocalObjectStore) ((EncryptedObjectStore) store).delegate()).close();
    }

    @Override
    protected String storeName() {
        return "EncryptedObjectStore over LocalObjectStore";
    }

    @Override
    protected boolean has(Behaviour behaviour) {
        return behaviour != Behaviour.CONTENT_DIGESTS_AND_SIZES;
    }

    @Override
    protected void plantForeignObject(String key, byte[] bytes) {
        org.junit.jupiter.api.Assumptions.abort(storeName()
                + " refuses objects not encrypted through it, so a foreign object cannot be read"
                + " (EncryptedObjectStoreTest covers the refusal)");
    }

    @Override
    protected ObjectStore openAnotherWriter(Clock clock) {
        return EncryptedObjectStore.wrap(
                LocalObjectStore.open(
                        root, LocalStoreConfig.builder().clock(clock).build()),
                ENCRYPTION);
    }

    @Override
    protected void assertNoIncompleteWrites() {
        try (Stream<Path> temporary = Files.list(root.resolve("tmp"))) {
            assertThat(temporary)
                    .as("temporary files left in " + root.resolve("tmp"))
                    .isEmpty();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
