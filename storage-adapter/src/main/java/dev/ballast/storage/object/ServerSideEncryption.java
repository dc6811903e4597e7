package dev.ballast.storage.object;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Server-side encryption asked for on a put, or found applied on a version: S3 encrypts the bytes
 * at rest and decrypts them for any reader it authorises
 * (<a href="https://docs.aws.amazon.com/AmazonS3/latest/userguide/serv-side-encryption.html">Protecting
 * data with server-side encryption</a>). It keeps the bytes from whoever holds the disks, not from
 * whoever runs the bucket; for that, use client-side encryption. Immutable and thread-safe.
 *
 * <ul>
 *   <li>{@link #s3()} SSE-S3: {@code x-amz-server-side-encryption: AES256}, keys managed by S3;</li>
 *   <li>{@link #kms(String)} SSE-KMS: {@code aws:kms} with the KMS key ID (or ARN, or alias) named;</li>
 *   <li>{@link #customerKey(byte[])} SSE-C: a 256-bit key the caller keeps; S3 keeps only its MD5, and
 *       every read needs the key again ({@link ReadOptions#withCustomerKey}).</li>
 * </ul>
 *
 * <p>Ballast checks the answer: a put whose answer does not say the encryption asked for was applied
 * is an {@link dev.ballast.storage.UnsupportedCapabilityException}, and the version it wrote is
 * removed. A store that cannot encrypt at rest on request (the local store) refuses the option with
 * the same exception before writing.
 */
public final class ServerSideEncryption {

    /** The kind of server-side encryption. */
    public enum Kind {
        /** None asked for, or none reported. */
        NONE,
        /** SSE-S3 ({@code AES256}). */
        S3,
        /** SSE-KMS ({@code aws:kms}). */
        KMS,
        /** SSE-C (customer-provided key). */
        CUSTOMER_KEY
    }

    /** No server-side encryption asked for (the bucket's default encryption may still apply). */
    public static final ServerSideEncryption NONE = new ServerSideEncryption(Kind.NONE, null, null, null);

    private final Kind kind;
    private final @Nullable String kmsKeyId;
    private final byte @Nullable [] customerKey;
    private final @Nullable String customerKeyMd5;

    private ServerSideEncryption(
            Kind kind, @Nullable String kmsKeyId, byte @Nullable [] customerKey, @Nullable String customerKeyMd5) {
        this.kind = kind;
        this.kmsKeyId = kmsKeyId;
        this.customerKey = customerKey;
        this.customerKeyMd5 = customerKeyMd5;
    }

    /** SSE-S3: S3 encrypts with keys it manages ({@code AES256}). */
    public static ServerSideEncryption s3() {
        return new ServerSideEncryption(Kind.S3, null, null, null);
    }

    /**
     * SSE-KMS with the KMS key {@code keyId} (a key ID, key ARN, alias name or alias ARN).
     *
     * @throws IllegalArgumentException if {@code keyId} is blank
     */
    public static ServerSideEncryption kms(String keyId) {
        Objects.requireNonNull(keyId, "keyId");
        if (keyId.isBlank()) {
            throw new IllegalArgumentException("A KMS key ID must not be blank; pass a key ID, key ARN or alias");
        }
        return new ServerSideEncryption(Kind.KMS, keyId, null, null);
    }

    /**
     * SSE-C with {@code key}, 32 bytes (AES-256). The array is copied.
     *
     * @throws IllegalArgumentException if {@code key} is not 32 bytes long
     */
    public static ServerSideEncryption customerKey(byte[] key) {
        Objects.requireNonNull(key, "key");
        if (key.length != 32) {
            throw new IllegalArgumentException(
                    "An SSE-C key must be 32 bytes (AES-256), but was " + key.length + " bytes long");
        }
        return new ServerSideEncryption(Kind.CUSTOMER_KEY, null, key.clone(), md5Base64(key));
    }

    /**
     * What a store reports applied to a version (the key itself never comes back).
     *
     * @param kind the kind reported
     * @param kmsKeyId the KMS key the store named, for {@link Kind#KMS}; else null
     * @param customerKeyMd5 the base64 MD5 of the SSE-C key the store named, for
     *     {@link Kind#CUSTOMER_KEY}; else null
     */
    public static ServerSideEncryption applied(Kind kind, @Nullable String kmsKeyId, @Nullable String customerKeyMd5) {
        Objects.requireNonNull(kind, "kind");
        return kind == Kind.NONE && kmsKeyId == null && customerKeyMd5 == null
                ? NONE
                : new ServerSideEncryption(kind, kmsKeyId, null, customerKeyMd5);
    }

    /** The kind. */
    public Kind kind() {
        return kind;
    }

    /** The KMS key, for {@link Kind#KMS} (asked for, or reported by the store). */
    public Optional<String> kmsKeyId() {
        return Optional.ofNullable(kmsKeyId);
    }

    /** The base64 MD5 of the SSE-C key, as S3 sends it in {@code x-amz-server-side-encryption-customer-key-MD5}. */
    public Optional<String> customerKeyMd5() {
        return Optional.ofNullable(customerKeyMd5);
    }

    /** A copy of the SSE-C key, when this asks for SSE-C (never on a version read back). */
    public Optional<byte[]> customerKey() {
        return customerKey == null ? Optional.empty() : Optional.of(customerKey.clone());
    }

    /** The SSE-C key in base64, as S3's header takes it; null unless this asks for SSE-C. */
    public @Nullable String customerKeyBase64() {
        return customerKey == null ? null : Base64.getEncoder().encodeToString(customerKey);
    }

    static String md5Base64(byte[] key) {
        try {
            return Base64.getEncoder()
                    .encodeToString(MessageDigest.getInstance("MD5").digest(key));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 is missing from this JDK", e);
        }
    }

    /** Equal kind, KMS key and SSE-C key MD5 (the key itself is compared through its MD5). */
    @Override
    public boolean equals(Object o) {
        return o instanceof ServerSideEncryption s
                && kind == s.kind
                && Objects.equals(kmsKeyId, s.kmsKeyId)
                && Objects.equals(customerKeyMd5, s.customerKeyMd5);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, kmsKeyId, customerKeyMd5);
    }

    /** Never shows an SSE-C key. */
    @Override
    public String toString() {
        return switch (kind) {
            case NONE -> "none";
            case S3 -> "SSE-S3 (AES256)";
            case KMS -> "SSE-KMS (" + (kmsKeyId == null ? "default key" : kmsKeyId) + ")";
            case CUSTOMER_KEY -> "SSE-C (key MD5 " + customerKeyMd5 + ")";
        };
    }
}
