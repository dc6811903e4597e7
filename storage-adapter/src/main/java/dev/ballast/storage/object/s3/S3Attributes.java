package dev.ballast.storage.object.s3;

import dev.ballast.storage.UnsupportedCapabilityException;
import dev.ballast.storage.internal.ReservedMetadata;
import dev.ballast.storage.object.ObjectMetadata;
import dev.ballast.storage.object.PutOptions;
import dev.ballast.storage.object.ServerSideEncryption;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;

/**
 * The metadata and server-side encryption room of {@link S3ObjectStore}: what a put sends besides
 * its bytes and Ballast's own metadata, and what a read or HEAD answer says was kept.
 *
 * <ul>
 *   <li>Headers go as themselves ({@code Content-Type}, {@code Cache-Control},
 *       {@code Content-Encoding}, {@code Content-Disposition}); which of them the caller gave is
 *       recorded in {@value #META_HEADERS}, so that the {@code application/octet-stream} Ballast sends
 *       when none is given reads back as none. User metadata goes as {@code x-amz-meta-*}.</li>
 *   <li>Encryption goes as {@code x-amz-server-side-encryption} ({@code AES256}, {@code aws:kms} with
 *       {@code x-amz-server-side-encryption-aws-kms-key-id}) or the three SSE-C headers (algorithm
 *       {@code AES256}, the key and its MD5), which S3 needs again on every UploadPart, GET and HEAD of
 *       the version
 *       (<a href="https://docs.aws.amazon.com/AmazonS3/latest/userguide/ServerSideEncryptionCustomerKeys.html">SSE-C</a>).</li>
 * </ul>
 *
 * Static and thread-safe.
 */
final class S3Attributes {
    /** User metadata key: which headers the caller gave, comma-separated ({@code ct,cc,ce,cd}). */
    static final String META_HEADERS = "ballast-headers";

    static final String OCTET_STREAM = "application/octet-stream";

    private S3Attributes() {}

    /** Ballast's own metadata plus the caller's user metadata and the record of the headers given. */
    static Map<String, String> userMetadata(Map<String, String> ballast, ObjectMetadata m) {
        if (m.isEmpty()) {
            return ballast;
        }
        Map<String, String> all = new HashMap<>(m.user());
        all.putAll(ballast);
        Set<String> given = new LinkedHashSet<>();
        if (m.contentType() != null) {
            given.add("ct");
        }
        if (m.cacheControl() != null) {
            given.add("cc");
        }
        if (m.contentEncoding() != null) {
            given.add("ce");
        }
        if (m.contentDisposition() != null) {
            given.add("cd");
        }
        all.put(META_HEADERS, String.join(",", given));
        return all;
    }

    static void apply(PutObjectRequest.Builder req, PutOptions options) {
        ObjectMetadata m = options.metadata();
        req.contentType(m.contentType() != null ? m.contentType() : OCTET_STREAM)
                .cacheControl(m.cacheControl())
                .contentEncoding(m.contentEncoding())
                .contentDisposition(m.contentDisposition());
        ServerSideEncryption sse = options.encryption();
        switch (sse.kind()) {
            case NONE -> {}
            case S3 -> req.serverSideEncryption(software.amazon.awssdk.services.s3.model.ServerSideEncryption.AES256);
            case KMS ->
                req.serverSideEncryption(software.amazon.awssdk.services.s3.model.ServerSideEncryption.AWS_KMS)
                        .ssekmsKeyId(sse.kmsKeyId().orElse(null));
            case CUSTOMER_KEY ->
                req.sseCustomerAlgorithm("AES256")
                        .sseCustomerKey(sse.customerKeyBase64())
                        .sseCustomerKeyMD5(sse.customerKeyMd5().orElseThrow());
        }
    }

    static void apply(CreateMultipartUploadRequest.Builder req, PutOptions options) {
        ObjectMetadata m = options.metadata();
        req.contentType(m.contentType() != null ? m.contentType() : OCTET_STREAM)
                .cacheControl(m.cacheControl())
                .contentEncoding(m.contentEncoding())
                .contentDisposition(m.contentDisposition());
        ServerSideEncryption sse = options.encryption();
        switch (sse.kind()) {
            case NONE -> {}
            case S3 -> req.serverSideEncryption(software.amazon.awssdk.services.s3.model.ServerSideEncryption.AES256);
            case KMS ->
                req.serverSideEncryption(software.amazon.awssdk.services.s3.model.ServerSideEncryption.AWS_KMS)
                        .ssekmsKeyId(sse.kmsKeyId().orElse(null));
            case CUSTOMER_KEY ->
                req.sseCustomerAlgorithm("AES256")
                        .sseCustomerKey(sse.customerKeyBase64())
                        .sseCustomerKeyMD5(sse.customerKeyMd5().orElseThrow());
        }
    }

    /** SSE-C needs its key on every part. */
    static void apply(UploadPartRequest.Builder req, ServerSideEncryption sse) {
        if (sse.kind() == ServerSideEncryption.Kind.CUSTOMER_KEY) {
            req.sseCustomerAlgorithm("AES256")
                    .sseCustomerKey(sse.customerKeyBase64())
                    .sseCustomerKeyMD5(sse.customerKeyMd5().orElseThrow());
        }
    }

    /** The SSE-C key of a read, if any. */
    static void apply(GetObjectRequest.Builder req, @Nullable ServerSideEncryption customerKey) {
        if (customerKey != null && customerKey.kind() == ServerSideEncryption.Kind.CUSTOMER_KEY) {
            req.sseCustomerAlgorithm("AES256")
                    .sseCustomerKey(customerKey.customerKeyBase64())
                    .sseCustomerKeyMD5(customerKey.customerKeyMd5().orElseThrow());
        }
    }

    /** The SSE-C key of a HEAD, if any. */
    static void apply(HeadObjectRequest.Builder req, @Nullable ServerSideEncryption customerKey) {
        if (customerKey != null && customerKey.kind() == ServerSideEncryption.Kind.CUSTOMER_KEY) {
            req.sseCustomerAlgorithm("AES256")
                    .sseCustomerKey(customerKey.customerKeyBase64())
                    .sseCustomerKeyMD5(customerKey.customerKeyMd5().orElseThrow());
        }
    }

    /**
     * The metadata an answer carries: the headers the caller gave (all of them, for an object not
     * written by Ballast) and the user metadata but Ballast's own.
     */
    static ObjectMetadata metadata(
            Map<String, String> user,
            @Nullable String contentType,
            @Nullable String cacheControl,
            @Nullable String contentEncoding,
            @Nullable String contentDisposition) {
        String given = user.get(META_HEADERS);
        boolean foreign = !user.containsKey(S3ObjectStore.META_SHA256);
        Set<String> headers = given == null ? Set.of() : Set.of(given.split(","));
        ObjectMetadata.Builder b = ObjectMetadata.builder();
        if (foreign || headers.contains("ct")) {
            b.contentType(printable(contentType));
        }
        if (foreign || headers.contains("cc")) {
            b.cacheControl(printable(cacheControl));
        }
        if (foreign || headers.contains("ce")) {
            b.contentEncoding(printable(contentEncoding));
        }
        if (foreign || headers.contains("cd")) {
            b.contentDisposition(printable(contentDisposition));
        }
        Map<String, String> reserved = new HashMap<>();
        user.forEach((k, v) -> {
            String key = k.toLowerCase(java.util.Locale.ROOT);
            if (ReservedMetadata.CARRIED.contains(key) && printable(v) != null) {
                reserved.put(key, v); // Ballast's own, such as the client-side encryption mark
            } else if (!key.startsWith(ObjectMetadata.RESERVED_PREFIX)
                    && key.chars()
                            .allMatch(c -> (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_')
                    && printable(v) != null) {
                b.user(key, v);
            }
        });
        try {
            return ReservedMetadata.withAll(b.build(), reserved);
        } catch (IllegalArgumentException tooLarge) {
            return ReservedMetadata.withAll(
                    ObjectMetadata.NONE, reserved); // another program's metadata beyond Ballast's rules: not reported
        }
    }

    private static @Nullable String printable(@Nullable String value) {
        return value != null && value.length() <= 1024 && value.chars().allMatch(c -> c >= 0x20 && c <= 0x7e)
                ? value
                : null;
    }

    /** What an answer's encryption headers say was applied. */
    static ServerSideEncryption applied(
            software.amazon.awssdk.services.s3.model.@Nullable ServerSideEncryption sse,
            @Nullable String kmsKeyId,
            @Nullable String customerAlgorithm,
            @Nullable String customerKeyMd5) {
        if (customerAlgorithm != null) {
            return ServerSideEncryption.applied(ServerSideEncryption.Kind.CUSTOMER_KEY, null, customerKeyMd5);
        }
        if (sse == null) {
            return ServerSideEncryption.NONE;
        }
        return switch (sse) {
            case AES256 -> ServerSideEncryption.applied(ServerSideEncryption.Kind.S3, null, null);
            case AWS_KMS, AWS_KMS_DSSE -> ServerSideEncryption.applied(ServerSideEncryption.Kind.KMS, kmsKeyId, null);
            default -> ServerSideEncryption.NONE;
        };
    }

    /**
     * Null when {@code applied} is what {@code asked} for (the same kind; for SSE-KMS the key named,
     * where the answer names one, ends with the key asked for, as a key ARN ends with its ID; for SSE-C
     * the same key MD5); else what differs, as a clause.
     */
    static @Nullable String mismatch(ServerSideEncryption asked, ServerSideEncryption applied) {
        if (asked.kind() == ServerSideEncryption.Kind.NONE) {
            return null;
        }
        if (applied.kind() != asked.kind()) {
            return "the answer reports " + applied + " instead of " + asked;
        }
        if (asked.kind() == ServerSideEncryption.Kind.KMS) {
            String want = asked.kmsKeyId().orElseThrow();
            String got = applied.kmsKeyId().orElse(null);
            if (got != null && !got.endsWith(want) && !want.startsWith("alias/") && !want.startsWith("arn:")) {
                return "the answer names KMS key " + got + " instead of " + want;
            }
        }
        if (asked.kind() == ServerSideEncryption.Kind.CUSTOMER_KEY
                && applied.customerKeyMd5().isPresent()
                && !applied.customerKeyMd5().equals(asked.customerKeyMd5())) {
            return "the answer names another SSE-C key (MD5 "
                    + applied.customerKeyMd5().get() + ")";
        }
        return null;
    }

    /** The refusal of a put whose answer did not show the encryption asked for. */
    static UnsupportedCapabilityException notApplied(
            String key, ServerSideEncryption asked, String mismatch, String where, boolean removed) {
        return new UnsupportedCapabilityException("The put of '" + key + "' at " + where + " asked for " + asked
                + " but " + mismatch
                + (removed ? "; the version written was removed" : "; the version written could not be removed")
                + ": the endpoint does not apply it, so do not declare it (S3StoreConfig serverSideEncryption)");
    }
}
