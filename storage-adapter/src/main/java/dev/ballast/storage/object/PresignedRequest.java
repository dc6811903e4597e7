package dev.ballast.storage.object;

import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A presigned request: what its holder sends, without credentials, to read or write one object
 * ({@link ObjectStore#presign(PresignRequest)}). Immutable.
 *
 * <pre>{@code
 * HttpRequest.Builder upload = HttpRequest.newBuilder(presigned.url())
 *     .method(presigned.method(), BodyPublishers.ofFile(file));
 * presigned.headers().forEach((name, values) -> values.forEach(v -> upload.header(name, v)));
 * }</pre>
 *
 * @param url the URL, the signature in its query ({@code X-Amz-Signature}); a secret for as long as it is
 *     valid: whoever holds it may do what it allows
 * @param method {@code GET} or {@code PUT}
 * @param headers the headers the request must carry exactly as given, being signed ({@code Content-Type},
 *     {@code Content-MD5}, {@code x-amz-checksum-sha256}, {@code x-amz-meta-*}); {@code Host} is left out,
 *     every HTTP client sends it. Empty when nothing but the URL is signed
 * @param expiration when the URL stops working
 */
public record PresignedRequest(URI url, String method, Map<String, List<String>> headers, Instant expiration) {

    /** @throws NullPointerException if an argument is null */
    public PresignedRequest {
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(expiration, "expiration");
        Map<String, List<String>> copy = new java.util.TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        headers.forEach((name, values) -> copy.put(name, List.copyOf(values)));
        headers = java.util.Collections.unmodifiableMap(copy);
    }

    /** Never shows the signature, which grants access until {@link #expiration()}. */
    @Override
    public String toString() {
        return "PresignedRequest[" + method + " " + url.getScheme() + "://" + url.getRawAuthority() + url.getRawPath()
                + ", headers=" + headers.keySet() + ", expiration=" + expiration + "]";
    }
}
