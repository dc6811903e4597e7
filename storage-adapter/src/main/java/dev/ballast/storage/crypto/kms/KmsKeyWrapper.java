package dev.ballast.storage.crypto.kms;

import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.crypto.KeyWrapper;
import java.security.GeneralSecurityException;
import java.util.Map;
import java.util.Objects;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.kms.KmsClient;

/**
 * Data keys wrapped by a symmetric AWS KMS key: {@code Encrypt} on put and {@code Decrypt} on read
 * (one KMS request per object each way), with the encryption context
 * {@code {"ballast": "client-side-encryption"}}, which KMS binds into the wrapped key. The key never
 * leaves KMS; the caller needs {@code kms:Encrypt} and {@code kms:Decrypt} on it. Thread-safe as
 * {@link KmsClient} is.
 *
 * <pre>{@code
 * KmsClient kms = KmsClient.create();   // the SDK's default credentials and region
 * KeyWrapper key = KmsKeyWrapper.of(kms, "arn:aws:kms:eu-west-1:111122223333:key/1234abcd-...");
 * }</pre>
 */
public final class KmsKeyWrapper implements KeyWrapper {

    private static final Map<String, String> CONTEXT = Map.of("ballast", "client-side-encryption");

    private final KmsClient kms;
    private final String keyId;

    private KmsKeyWrapper(KmsClient kms, String keyId) {
        this.kms = kms;
        this.keyId = keyId;
    }

    /**
     * Wraps with the KMS key {@code keyId} through {@code kms}; the caller closes {@code kms}.
     *
     * @param keyId the key's ID or ARN (recorded in each object's envelope; an alias would be resolved
     *     by KMS on each request, so prefer the ARN, which stays the key's name after an alias moves)
     */
    public static KmsKeyWrapper of(KmsClient kms, String keyId) {
        return new KmsKeyWrapper(Objects.requireNonNull(kms, "kms"), Objects.requireNonNull(keyId, "keyId"));
    }

    @Override
    public String scheme() {
        return "AWS-KMS";
    }

    @Override
    public String keyId() {
        return keyId;
    }

    /**
     * @throws StorageUnavailableException if KMS could not be reached or answered 5xx
     * @throws GeneralSecurityException if KMS refused (the key is disabled, missing or not the caller's)
     */
    @Override
    public byte[] wrap(byte[] dataKey) throws GeneralSecurityException {
        try {
            return kms.encrypt(r -> r.keyId(keyId)
                            .plaintext(SdkBytes.fromByteArray(dataKey))
                            .encryptionContext(CONTEXT))
                    .ciphertextBlob()
                    .asByteArray();
        } catch (SdkException e) {
            throw translate("Encrypt", e);
        }
    }

    /**
     * @throws StorageUnavailableException if KMS could not be reached or answered 5xx
     * @throws GeneralSecurityException if KMS refused: the data key was not wrapped by this key, or the
     *     caller may not use it
     */
    @Override
    public byte[] unwrap(byte[] wrapped) throws GeneralSecurityException {
        try {
            return kms.decrypt(r -> r.keyId(keyId)
                            .ciphertextBlob(SdkBytes.fromByteArray(wrapped))
                            .encryptionContext(CONTEXT))
                    .plaintext()
                    .asByteArray();
        } catch (SdkException e) {
            throw translate("Decrypt", e);
        }
    }

    private GeneralSecurityException translate(String operation, SdkException e) {
        if (e instanceof AwsServiceException service && service.statusCode() >= 400 && service.statusCode() < 500) {
            return new GeneralSecurityException(
                    "KMS refused " + operation + " with key '" + keyId + "': " + service.getMessage(), e);
        }
        throw new StorageUnavailableException(
                null, "KMS " + operation + " with key '" + keyId + "' failed: " + e.getMessage(), e);
    }

    @Override
    public String toString() {
        return "AWS-KMS key '" + keyId + "'";
    }
}
