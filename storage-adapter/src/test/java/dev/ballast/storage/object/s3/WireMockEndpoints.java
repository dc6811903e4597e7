package dev.ballast.storage.object.s3;

import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.EnumSet;

/** The S3 endpoint of a WireMock server on a loopback port, as the tests that stage S3 answers there use it. */
final class WireMockEndpoints {
    private WireMockEndpoints() {}

    /** The endpoint at {@code port}: fixed credentials and region, a plain JDK client, no checksums. */
    static S3Endpoint at(int port) {
        return S3Endpoint.newBuilder()
                .endpoint(URI.create("http://localhost:" + port))
                .credentials("key", "secret")
                .region("eu-west-1")
                .httpClient(HttpClient.newBuilder()
                        .connectTimeout(Duration.ofSeconds(5))
                        .build())
                .checksumMode(S3Endpoint.ChecksumMode.NEVER)
                .build();
    }

    /** The store of bucket {@code bucket} at {@code port}, its capabilities declared (none), so nothing is probed. */
    static S3ObjectStore declaredStore(int port, String bucket) {
        return S3ObjectStore.open(
                at(port),
                bucket,
                S3StoreConfig.builder()
                        .declaredCapabilities(EnumSet.noneOf(S3StoreConfig.Capability.class))
                        .build());
    }
}
