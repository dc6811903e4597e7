package dev.ballast.storage.object.s3;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.http.Fault;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.testkit.LeakCheck;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A listing whose answer breaks off in its body. Field case (a fault tester): a connection cut while a
 * repository's key files were listed came out of the SDK's XML parser as an {@link
 * java.io.UncheckedIOException}, which the command reported as "A local file operation failed (EOF reached
 * while reading)", exit 1, where an endpoint that fails is exit 3. It is the store being unavailable.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ExtendWith(LeakCheck.class)
class ListingBrokenOffTest {
    private static WireMockServer wireMock;

    @BeforeAll
    static void start() {
        wireMock = new WireMockServer(options().dynamicPort().bindAddress("127.0.0.1"));
        wireMock.start();
        wireMock.stubFor(get(urlPathEqualTo("/bucket"))
                .willReturn(aResponse().withStatus(200).withFault(Fault.MALFORMED_RESPONSE_CHUNK)));
    }

    @AfterAll
    static void stop() {
        wireMock.stop();
    }

    private static S3ObjectStore open() {
        return WireMockEndpoints.declaredStore(wireMock.port(), "bucket");
    }

    @Test
    void aListingOfKeysThatBreaksOffIsTheStoreUnavailable() {
        try (S3ObjectStore store = open()) {
            assertThatThrownBy(() -> store.list("keys/"))
                    .isInstanceOf(StorageUnavailableException.class)
                    .hasMessageContaining("ListObjectsV2");
        }
    }

    @Test
    void aListingOfVersionsThatBreaksOffIsTheStoreUnavailable() {
        try (S3ObjectStore store = open()) {
            assertThatThrownBy(() -> store.listVersions("snapshots/"))
                    .isInstanceOf(StorageUnavailableException.class)
                    .hasMessageContaining("ListObjectVersions");
        }
    }

    /**
     * Not only the listings': a backup's read of the bucket's versioning while it opened the store (as
     * {@code init}, {@code key add}, {@code forget} and {@code prune} open it), cut in its body, ended in "A
     * local file operation failed", exit 1 (a fault tester's). Opening the store fails as the store being
     * unavailable.
     */
    @Test
    void aProbeOfTheBucketWhoseAnswerBreaksOffIsTheStoreUnavailable() {
        wireMock.stubFor(com.github.tomakehurst.wiremock.client.WireMock.head(urlPathEqualTo("/bucket"))
                .willReturn(aResponse().withStatus(200)));
        assertThatThrownBy(() -> S3ObjectStore.open(
                                WireMockEndpoints.at(wireMock.port()),
                                "bucket",
                                S3StoreConfig.builder().build())
                        .close())
                .isInstanceOf(StorageUnavailableException.class)
                .hasMessageContaining("GetBucketVersioning");
    }
}
