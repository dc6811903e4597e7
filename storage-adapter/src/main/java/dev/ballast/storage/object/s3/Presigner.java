package dev.ballast.storage.object.s3;

import dev.ballast.storage.object.PresignRequest;
import dev.ballast.storage.object.PresignedRequest;
import java.net.URISyntaxException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * The S3 store's presigned URLs, signed by the AWS SDK's {@link S3Presigner} (SigV4 query
 * authentication, <a href="https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html">
 * Authenticating Requests: Using Query Parameters</a>) with the endpoint's region, credentials and
 * addressing. What a {@link PresignRequest} binds becomes a signed header (PUT: {@code Content-Type},
 * {@code Content-MD5}, {@code x-amz-checksum-sha256} and the SHA-256 recorded as
 * {@code x-amz-meta-}{@value S3ObjectStore#META_SHA256}) or a signed query parameter (GET:
 * {@code response-content-type}, {@code versionId}); the expiry is {@code X-Amz-Expires}.
 *
 * <p>The SDK presigner is made at the first URL and closed with the store. Thread-safe.
 */
final class Presigner implements AutoCloseable {

    private final S3Endpoint endpoint;
    private final String bucket;
    private @Nullable S3Presigner presigner;
    private boolean closed;

    Presigner(S3Endpoint endpoint, String bucket) {
        this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
        this.bucket = Objects.requireNonNull(bucket, "bucket");
    }

    /** Signs {@code request}; the key has been validated. */
    PresignedRequest presign(PresignRequest request) {
        S3Presigner p = presigner();
        software.amazon.awssdk.awscore.presigner.PresignedRequest signed;
        if (request.method() == PresignRequest.Method.PUT) {
            PutObjectRequest.Builder put =
                    PutObjectRequest.builder().bucket(bucket).key(request.key());
            if (request.contentType() != null) {
                put.contentType(request.contentType());
            }
            byte[] sha256 = request.sha256();
            if (sha256 != null) {
                put.checksumSHA256(Base64.getEncoder().encodeToString(sha256));
                put.metadata(Map.of(S3ObjectStore.META_SHA256, HexFormat.of().formatHex(sha256)));
            }
            byte[] md5 = request.contentMd5();
            if (md5 != null) {
                put.contentMD5(Base64.getEncoder().encodeToString(md5));
            }
            signed = p.presignPutObject(
                    r -> r.signatureDuration(request.expiry()).putObjectRequest(put.build()));
        } else {
            GetObjectRequest.Builder get =
                    GetObjectRequest.builder().bucket(bucket).key(request.key());
            if (request.contentType() != null) {
                get.responseContentType(request.contentType());
            }
            if (request.versionId() != null) {
                get.versionId(request.versionId());
            }
            signed = p.presignGetObject(
                    r -> r.signatureDuration(request.expiry()).getObjectRequest(get.build()));
        }
        Map<String, List<String>> headers = new LinkedHashMap<>();
        signed.signedHeaders().forEach((name, values) -> {
            if (!name.equalsIgnoreCase("host")) {
                headers.put(name, values);
            }
        });
        try {
            return new PresignedRequest(signed.url().toURI(), request.method().name(), headers, signed.expiration());
        } catch (URISyntaxException e) {
            throw new IllegalStateException("the AWS SDK signed a URL that is not a URI: " + e.getMessage(), e);
        }
    }

    private synchronized S3Presigner presigner() {
        if (closed) {
            throw new IllegalStateException("the store is closed");
        }
        if (presigner == null) {
            presigner = endpoint.newPresigner();
        }
        return presigner;
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (presigner != null) {
            presigner.close();
            presigner = null;
        }
    }
}
