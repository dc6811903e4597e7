package dev.ballast.storage.object;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What a presigned URL ({@link ObjectStore#presign(PresignRequest)}) lets its holder do: one method on
 * one key, until it expires, with what the signature binds. A browser or another service sends the
 * request without credentials; the store checks the signature, so a header bound here that is left
 * out or changed makes the request fail ({@code 403 SignatureDoesNotMatch}). Immutable.
 *
 * <pre>{@code
 * PresignedRequest upload = store.presign(PresignRequest.put("uploads/report.pdf", Duration.ofMinutes(10))
 *     .withContentType("application/pdf")
 *     .withSha256(sha256OfTheFile));
 * // hand upload.url(), upload.method() and upload.headers() to the uploader
 * }</pre>
 *
 * @param method {@code GET} or {@code PUT}
 * @param key the object key, checked as every key is
 * @param expiry how long the URL is valid, from when it is signed: 1 second to 7 days (SigV4's limit;
 *     a URL signed with temporary credentials stops working when they expire, whichever comes first)
 * @param contentType PUT: the {@code Content-Type} the upload must send (and the object gets); GET: the
 *     {@code Content-Type} the answer is given ({@code response-content-type}); null to bind none
 * @param sha256 PUT only: the SHA-256 of the bytes to be uploaded, 32 bytes. Bound as
 *     {@code x-amz-checksum-sha256} (the store refuses other bytes where it validates that header) and
 *     recorded as the object's SHA-256, so every read through the store verifies it
 * @param contentMd5 PUT only: the MD5 of the bytes, 16 bytes, bound as {@code Content-MD5}, which every
 *     S3 server tested validates ({@code 400 BadDigest} otherwise)
 * @param versionId GET only: the version to read; null for the latest
 */
public record PresignRequest(
        Method method,
        String key,
        Duration expiry,
        @Nullable String contentType,
        byte @Nullable [] sha256,
        byte @Nullable [] contentMd5,
        @Nullable String versionId) {

    /** The longest a presigned URL can be valid: 7 days (SigV4's {@code X-Amz-Expires} limit). */
    public static final Duration MAX_EXPIRY = Duration.ofDays(7);

    /** The HTTP method a presigned URL is for. */
    public enum Method {
        /** Download the object. */
        GET,
        /** Upload a new version of the object. */
        PUT
    }

    /**
     * @throws NullPointerException if {@code method}, {@code key} or {@code expiry} is null
     * @throws IllegalArgumentException if the expiry is not within 1 second and 7 days, a digest has the
     *     wrong length, a digest is given for a GET or a version for a PUT
     */
    public PresignRequest {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(expiry, "expiry");
        if (expiry.compareTo(Duration.ofSeconds(1)) < 0 || expiry.compareTo(MAX_EXPIRY) > 0) {
            throw new IllegalArgumentException(
                    "expiry must be within PT1S and " + MAX_EXPIRY + " (SigV4's limit) but was " + expiry);
        }
        if (sha256 != null && sha256.length != 32) {
            throw new IllegalArgumentException("sha256 must be 32 bytes but was " + sha256.length);
        }
        if (contentMd5 != null && contentMd5.length != 16) {
            throw new IllegalArgumentException("contentMd5 must be 16 bytes but was " + contentMd5.length);
        }
        if (method == Method.GET && (sha256 != null || contentMd5 != null)) {
            throw new IllegalArgumentException(
                    "a checksum binds an upload's bytes: give sha256 or contentMd5 only for a PUT, not a GET");
        }
        if (method == Method.PUT && versionId != null) {
            throw new IllegalArgumentException("versionId selects what a GET reads; a PUT always writes a new version");
        }
        sha256 = sha256 == null ? null : sha256.clone();
        contentMd5 = contentMd5 == null ? null : contentMd5.clone();
    }

    /** A URL to download the latest version of {@code key} within {@code expiry}. */
    public static PresignRequest get(String key, Duration expiry) {
        return new PresignRequest(Method.GET, key, expiry, null, null, null, null);
    }

    /** A URL to upload a new version of {@code key} within {@code expiry}. */
    public static PresignRequest put(String key, Duration expiry) {
        return new PresignRequest(Method.PUT, key, expiry, null, null, null, null);
    }

    /** A copy that binds {@code contentType} (see the record's description). */
    public PresignRequest withContentType(String contentType) {
        return new PresignRequest(
                method, key, expiry, Objects.requireNonNull(contentType, "contentType"), sha256, contentMd5, versionId);
    }

    /** A copy that binds the upload's SHA-256 (32 bytes; PUT only). */
    public PresignRequest withSha256(byte[] sha256) {
        return new PresignRequest(
                method, key, expiry, contentType, Objects.requireNonNull(sha256, "sha256"), contentMd5, versionId);
    }

    /** A copy that binds the upload's MD5 as {@code Content-MD5} (16 bytes; PUT only). */
    public PresignRequest withContentMd5(byte[] md5) {
        return new PresignRequest(
                method, key, expiry, contentType, sha256, Objects.requireNonNull(md5, "md5"), versionId);
    }

    /** A copy that reads version {@code versionId} (GET only). */
    public PresignRequest withVersionId(String versionId) {
        return new PresignRequest(
                method, key, expiry, contentType, sha256, contentMd5, Objects.requireNonNull(versionId, "versionId"));
    }

    /** The bound SHA-256, a copy. */
    @Override
    public byte @Nullable [] sha256() {
        return sha256 == null ? null : sha256.clone();
    }

    /** The bound MD5, a copy. */
    @Override
    public byte @Nullable [] contentMd5() {
        return contentMd5 == null ? null : contentMd5.clone();
    }

    /** The version to read, if any. */
    public Optional<String> requestedVersion() {
        return Optional.ofNullable(versionId);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PresignRequest p
                && method == p.method
                && key.equals(p.key)
                && expiry.equals(p.expiry)
                && Objects.equals(contentType, p.contentType)
                && java.util.Arrays.equals(sha256, p.sha256)
                && java.util.Arrays.equals(contentMd5, p.contentMd5)
                && Objects.equals(versionId, p.versionId);
    }

    @Override
    public int hashCode() {
        return Objects.hash(method, key, expiry, contentType, java.util.Arrays.hashCode(sha256), versionId);
    }

    @Override
    public String toString() {
        return "PresignRequest[" + method + " " + key + ", expiry=" + expiry
                + (contentType == null ? "" : ", contentType=" + contentType)
                + (sha256 == null ? "" : ", sha256=" + java.util.HexFormat.of().formatHex(sha256))
                + (contentMd5 == null ? "" : ", contentMd5 bound")
                + (versionId == null ? "" : ", versionId=" + versionId) + "]";
    }
}
