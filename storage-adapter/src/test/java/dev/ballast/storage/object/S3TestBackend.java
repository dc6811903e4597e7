package dev.ballast.storage.object;

import dev.ballast.storage.object.s3.S3Endpoint;
import dev.ballast.test.ObjectStoreContract;
import java.net.URI;
import java.net.http.HttpClient;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * An S3 server the {@link ObjectStoreContract} runs against: where it is, how to sign for it, and
 * which behaviours it is known to have. A contract case needing a behaviour the backend lacks is
 * skipped with the reason, never passed.
 *
 * @param name a short name for test output, e.g. "S3Mock 5.2"
 * @param endpoint the endpoint URI (path-style addressing is used)
 * @param region the signing region
 * @param accessKey the access key ID
 * @param secretKey the secret access key
 * @param features the behaviours the server is known to have
 */
public record S3TestBackend(
        String name, URI endpoint, String region, String accessKey, String secretKey, Set<Feature> features) {

    /** Server behaviours some backends lack. */
    public enum Feature {
        /** Deleting a delete marker by version ID makes the previous version current again. */
        DELETE_MARKER_REMOVAL_RESTORES,
        /** SigV4 signatures are checked: a wrong secret key gets 403. */
        VERIFIES_SIGNATURES,
        /** A body that does not match its signed or announced digest is refused (BadDigest and kin). */
        VERIFIES_PAYLOAD_DIGEST,
        /**
         * A body whose signed payload hash ({@code x-amz-content-sha256}) is not its SHA-256 is refused
         * with 400 ({@code XAmzContentSHA256Mismatch}); over plain HTTP the store then sends no
         * {@code Content-MD5}.
         */
        VERIFIES_SIGNED_PAYLOAD,
        /**
         * Keys are taken from the path verbatim: {@code a//b} and {@code a/b} are different keys and
         * {@code dir/} is an ordinary object, not a directory marker.
         */
        PATH_FAITHFUL_KEYS,
        /** Stored objects live outside this JVM's heap, so heap growth during an upload is the client's. */
        OBJECTS_OUTSIDE_TEST_HEAP,
        /**
         * Delete markers behave as in S3: DeleteObject returns the marker's version ID, a GET of that
         * version ID is answered 405, ListObjectsV2 omits deleted keys, and AbortMultipartUpload leaves
         * the key's existing object alone.
         */
        FAITHFUL_DELETE_MARKERS,
        /**
         * ListObjectsV2 with a delimiter and {@code max-keys} pages the common prefixes with the keys, each
         * page its own stretch of the key space; S3Mock 5.2 returns every common prefix on every page.
         */
        PAGED_DELIMITER_LISTINGS
    }

    public S3TestBackend {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(region, "region");
        Objects.requireNonNull(accessKey, "accessKey");
        Objects.requireNonNull(secretKey, "secretKey");
        features = features.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(features));
    }

    /** Whether the backend has {@code feature}. */
    public boolean has(Feature feature) {
        return features.contains(feature);
    }

    /**
     * A JDK client for this backend, recording exchanges and able to inject faults; it changes nothing
     * else, so the store talks to the server exactly as it does in production.
     */
    public FaultInjectingHttpClient newHttpClient() {
        return new FaultInjectingHttpClient(HttpClient.newHttpClient());
    }

    /** An endpoint for this backend sending through {@code httpClient}, with its own credentials. */
    public S3Endpoint endpoint(HttpClient httpClient) {
        return endpoint(httpClient, secretKey);
    }

    /** An endpoint for this backend sending through {@code httpClient}, signing with {@code secret}. */
    public S3Endpoint endpoint(HttpClient httpClient, String secret) {
        return S3Endpoint.newBuilder()
                .endpoint(endpoint)
                .region(region)
                .credentials(accessKey, secret)
                .pathStyle(true)
                .httpClient(httpClient)
                .build();
    }

    @Override
    public String toString() {
        return name + " at " + endpoint;
    }
}
