package dev.ballast.storage.crypto.kms;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.storage.EncryptionKeyException;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.crypto.ClientSideEncryption;
import dev.ballast.storage.crypto.EncryptedObjectStore;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.test.FakeObjectStore;
import dev.ballast.testkit.LeakCheck;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.kms.KmsClient;
import software.amazon.awssdk.services.kms.model.DecryptRequest;
import software.amazon.awssdk.services.kms.model.DecryptResponse;
import software.amazon.awssdk.services.kms.model.EncryptRequest;
import software.amazon.awssdk.services.kms.model.EncryptResponse;
import software.amazon.awssdk.services.kms.model.IncorrectKeyException;

/** Data keys wrapped by a KMS key, against an in-memory KMS that answers as KMS does. */
@ExtendWith(LeakCheck.class)
class KmsKeyWrapperTest {

    /** Encrypt returns an opaque blob; Decrypt with another key ID or context is refused (400). */
    private static final class FakeKms implements KmsClient {
        private record Wrapped(String keyId, Map<String, String> context, byte[] plaintext) {}

        private final Map<String, Wrapped> blobs = new ConcurrentHashMap<>();
        volatile boolean unreachable;

        @Override
        public EncryptResponse encrypt(EncryptRequest request) {
            reach();
            String blob = UUID.randomUUID().toString();
            blobs.put(
                    blob,
                    new Wrapped(
                            request.keyId(),
                            request.encryptionContext(),
                            request.plaintext().asByteArray()));
            return EncryptResponse.builder()
                    .keyId(request.keyId())
                    .ciphertextBlob(SdkBytes.fromUtf8String(blob))
                    .build();
        }

        @Override
        public DecryptResponse decrypt(DecryptRequest request) {
            reach();
            Wrapped w = blobs.get(request.ciphertextBlob().asUtf8String());
            if (w == null || !w.keyId().equals(request.keyId()) || !w.context().equals(request.encryptionContext())) {
                throw (IncorrectKeyException) IncorrectKeyException.builder()
                        .message("The key ID in the request does not identify a CMK that can perform this operation.")
                        .statusCode(400)
                        .build();
            }
            return DecryptResponse.builder()
                    .keyId(w.keyId())
                    .plaintext(SdkBytes.fromByteArray(w.plaintext()))
                    .build();
        }

        private void reach() {
            if (unreachable) {
                throw SdkClientException.create("Unable to execute HTTP request: Connect timed out");
            }
        }

        @Override
        public String serviceName() {
            return "kms";
        }

        @Override
        public void close() {}
    }

    private final FakeKms kms = new FakeKms();
    private final FakeObjectStore store = new FakeObjectStore();
    private static final String ARN = "arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab";

    @Test
    void anObjectEncryptedUnderAKmsKeyReadsBackWithItAndIsRefusedWithAnother() {
        EncryptedObjectStore objects = EncryptedObjectStore.wrap(
                store, ClientSideEncryption.builder(KmsKeyWrapper.of(kms, ARN)).build());
        objects.put("doc", ObjectContent.ofBytes("quarterly numbers".getBytes(UTF_8)));

        try (ObjectRead read = objects.get("doc")) {
            assertThat(new String(read.readAllBytes(), UTF_8)).isEqualTo("quarterly numbers");
        }
        assertThat(new String(store.currentBytes("doc").orElseThrow(), java.nio.charset.StandardCharsets.ISO_8859_1))
                .doesNotContain("quarterly")
                .contains("AWS-KMS", ARN);

        // The same ID, but a KMS that holds another key under it (another account, a re-created key).
        FakeKms otherKms = new FakeKms();
        EncryptedObjectStore other = EncryptedObjectStore.wrap(
                store,
                ClientSideEncryption.builder(KmsKeyWrapper.of(otherKms, ARN)).build());
        assertThatThrownBy(() -> other.get("doc"))
                .isInstanceOf(EncryptionKeyException.class)
                .hasMessageContaining("AWS-KMS key given as '" + ARN + "' is not the key it was encrypted under")
                .hasRootCauseInstanceOf(IncorrectKeyException.class);
    }

    @Test
    void anUnreachableKmsIsAnUnavailableStoreNotAWrongKey() {
        EncryptedObjectStore objects = EncryptedObjectStore.wrap(
                store, ClientSideEncryption.builder(KmsKeyWrapper.of(kms, ARN)).build());
        objects.put("doc", ObjectContent.ofBytes("x".getBytes(UTF_8)));
        kms.unreachable = true;

        assertThatThrownBy(() -> objects.get("doc"))
                .isInstanceOf(StorageUnavailableException.class)
                .hasMessageContaining("KMS Decrypt with key '" + ARN + "' failed");
        assertThat(store.openReads()).isZero();
    }
}
