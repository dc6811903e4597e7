package dev.ballast.storage.object.s3;

import java.util.List;
import java.util.Map;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;

/**
 * The S3 rule injected into the transport ({@code JdkSdkHttpClient.Builder#nonIdempotentEffect}):
 * in a versioned bucket every PutObject, CopyObject, CompleteMultipartUpload or DeleteObjects that
 * lands creates a new version or delete marker, so although PUT is an idempotent method (RFC 9110
 * section 9.2.2) its effect here is not, and such a request must never be repeated after an
 * ambiguous failure (the object store checks its put token instead). UploadPart and UploadPartCopy
 * ({@code partNumber} and {@code uploadId} in the query) replace the same part and stay retryable.
 * Stateless.
 */
final class VersionedBucketWrites {
    private VersionedBucketWrites() {}

    /** Whether repeating {@code request} could change the bucket twice. */
    static boolean nonIdempotent(SdkHttpRequest request) {
        SdkHttpMethod method = request.method();
        if (method != SdkHttpMethod.PUT && method != SdkHttpMethod.POST) {
            return false;
        }
        Map<String, List<String>> query = request.rawQueryParameters();
        return !(query.containsKey("partNumber") && query.containsKey("uploadId"));
    }
}
