package dev.ballast.storage.object.s3;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.github.tomakehurst.wiremock.WireMockServer;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.testkit.LeakCheck;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A store that answers a GET of a deleted key 404 without {@code x-amz-delete-marker} (Ceph RGW 16):
 * whether the key was deleted is found from its version list, asked only when the caller asks the
 * exception, so a read that only needs "absent" (is this a repository? is there a damage record?)
 * costs one request, not two.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
@ExtendWith(LeakCheck.class)
class NotFoundWithoutDeleteMarkerHeaderTest {
    private static WireMockServer wireMock;

    @BeforeAll
    static void start() {
        wireMock = new WireMockServer(options().dynamicPort().bindAddress("127.0.0.1"));
        wireMock.start();
    }

    @AfterAll
    static void stop() {
        wireMock.stop();
    }

    /** The key's GET answers 404 NoSuchKey, no header; its version list shows a delete marker as latest. */
    @BeforeEach
    void aDeletedKeyAnsweredAsRgwDoes() {
        wireMock.resetAll();
        wireMock.stubFor(get(urlPathEqualTo("/bucket/gone.json"))
                .willReturn(aResponse()
                        .withStatus(404)
                        .withBody("<Error><Code>NoSuchKey</Code><Message>NoSuchKey</Message></Error>")));
        wireMock.stubFor(get(urlPathEqualTo("/bucket"))
                .withQueryParam("versions", equalTo(""))
                .willReturn(aResponse()
                        .withStatus(200)
                        .withBody("<ListVersionsResult><Name>bucket</Name><Prefix>gone.json</Prefix>"
                                + "<IsTruncated>false</IsTruncated>"
                                + "<DeleteMarker><Key>gone.json</Key><VersionId>d2</VersionId><IsLatest>true</IsLatest>"
                                + "<LastModified>2026-12-02T09:00:01.000Z</LastModified></DeleteMarker>"
                                + "<Version><Key>gone.json</Key><VersionId>v1</VersionId><IsLatest>false</IsLatest>"
                                + "<LastModified>2026-12-02T09:00:00.000Z</LastModified><ETag>\"e\"</ETag>"
                                + "<Size>3</Size><StorageClass>STANDARD</StorageClass></Version>"
                                + "</ListVersionsResult>")));
    }

    private static S3ObjectStore open() {
        return WireMockEndpoints.declaredStore(wireMock.port(), "bucket");
    }

    @Test
    void aReadThatOnlyNeedsAbsentSendsOneRequest() {
        try (S3ObjectStore store = open()) {
            // Caught plainly: AssertJ's catchThrowableOfType describes the exception, asking its message.
            String key = null;
            try {
                store.get("gone.json", ReadOptions.latest().withAllowCache(false))
                        .close();
            } catch (ObjectNotFoundException e) {
                key = e.key();
            }
            assertThat(key).isEqualTo("gone.json");
        }
        wireMock.verify(1, getRequestedFor(urlPathEqualTo("/bucket/gone.json")));
        wireMock.verify(0, getRequestedFor(urlPathEqualTo("/bucket")).withQueryParam("versions", equalTo("")));
    }

    @Test
    void askingWhetherItWasDeletedListsItsVersionsOnceAndSaysDeleted() {
        try (S3ObjectStore store = open()) {
            ObjectNotFoundException e = catchThrowableOfType(
                    () -> store.get("gone.json", ReadOptions.latest().withAllowCache(false)),
                    ObjectNotFoundException.class);
            assertThat(e.deleted()).isTrue();
            assertThat(e.getMessage())
                    .isEqualTo("Object 'gone.json' was deleted (its latest version is a delete marker)");
            assertThat(e.deleted()).isTrue();
        }
        wireMock.verify(1, getRequestedFor(urlPathEqualTo("/bucket")).withQueryParam("versions", equalTo("")));
    }
}
