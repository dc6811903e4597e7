package dev.ballast.storage.object.s3;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;

/**
 * The attempt timeouts of requests that need their own, injected into the transport
 * ({@code JdkSdkHttpClient.Builder#requestTimeout}): a {@code CompleteMultipartUpload}
 * ({@code POST ?uploadId=...}) held here by its upload ID gets the timeout held for it; every other
 * request, the HTTP client's attempt timeout. One per {@link S3Endpoint}, shared by the clients it
 * builds and the stores opened on it. Holds one entry per completion in progress. Thread-safe.
 */
final class AttemptTimeouts {
    private final Map<String, Duration> byUploadId = new ConcurrentHashMap<>();

    /** A held timeout; closing it forgets it. */
    interface Held extends AutoCloseable {
        @Override
        void close();
    }

    /** Holds {@code timeout} for the completion of {@code uploadId} until the returned handle is closed. */
    Held hold(String uploadId, Duration timeout) {
        byUploadId.put(uploadId, timeout);
        return () -> byUploadId.remove(uploadId);
    }

    /** The timeout held for {@code request}, or null for the HTTP client's own. */
    @Nullable
    Duration of(SdkHttpRequest request) {
        if (request.method() != SdkHttpMethod.POST || byUploadId.isEmpty()) {
            return null;
        }
        Map<String, List<String>> query = request.rawQueryParameters();
        List<String> uploadId = query.get("uploadId");
        if (uploadId == null || uploadId.isEmpty() || query.containsKey("partNumber")) {
            return null;
        }
        return byUploadId.get(uploadId.get(0));
    }
}
