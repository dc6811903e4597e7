package dev.ballast.storage.object.s3;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.delete;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.head;
import static com.github.tomakehurst.wiremock.client.WireMock.put;
import static com.github.tomakehurst.wiremock.client.WireMock.putRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.tomakehurst.wiremock.WireMockServer;
import dev.ballast.storage.StorageException;
import dev.ballast.testkit.LeakCheck;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Two clients with the same credentials open a bucket that does not exist yet, at once (two first
 * backups into one new bucket): the one whose CreateBucket comes second is answered {@code 409
 * BucketAlreadyOwnedByYou} (S3 outside us-east-1, MinIO, S3Mock). The bucket is there and its own, so
 * the store opens; a 409 naming another owner's bucket stays a failure.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
@ExtendWith(LeakCheck.class)
class BucketCreatedMeanwhileTest {
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

    /** HEAD finds no bucket; versioning is on once it exists; every object PUT and DELETE is accepted. */
    @BeforeEach
    void aBucketThatHeadDoesNotFind() {
        wireMock.resetAll();
        wireMock.stubFor(head(urlPathEqualTo("/bucket")).willReturn(aResponse().withStatus(404)));
        wireMock.stubFor(get(urlPathEqualTo("/bucket"))
                .withQueryParam("versioning", equalTo(""))
                .willReturn(aResponse()
                        .withStatus(200)
                        .withBody("<VersioningConfiguration><Status>Enabled</Status></VersioningConfiguration>")));
        wireMock.stubFor(get(urlPathEqualTo("/bucket"))
                .withQueryParam("versions", equalTo(""))
                .willReturn(aResponse()
                        .withStatus(200)
                        .withBody("<ListVersionsResult><Name>bucket</Name>"
                                + "<IsTruncated>false</IsTruncated></ListVersionsResult>")));
        wireMock.stubFor(put(urlPathMatching("/bucket/.*"))
                .willReturn(
                        aResponse().withStatus(200).withHeader("ETag", "\"e\"").withHeader("x-amz-version-id", "v1")));
        wireMock.stubFor(
                delete(urlPathMatching("/bucket/.*")).willReturn(aResponse().withStatus(204)));
    }

    private static S3ObjectStore open() {
        return S3ObjectStore.open(
                WireMockEndpoints.at(wireMock.port()),
                "bucket",
                S3StoreConfig.builder()
                        .createBucket(true)
                        .enableVersioning(true)
                        .build());
    }

    private static void createBucketAnswers409(String code) {
        wireMock.stubFor(put(urlPathEqualTo("/bucket"))
                .willReturn(aResponse()
                        .withStatus(409)
                        .withBody("<Error><Code>" + code + "</Code><Message>" + code + "</Message>"
                                + "<BucketName>bucket</BucketName></Error>")));
    }

    @Test
    void aBucketCreatedMeanwhileByAnotherClientOfOursOpens() {
        createBucketAnswers409("BucketAlreadyOwnedByYou");
        try (S3ObjectStore store = open()) {
            assertThat(store.capabilities().versioningEnabled()).isTrue();
        }
        wireMock.verify(1, putRequestedFor(urlPathEqualTo("/bucket")));
    }

    @Test
    void aBucketOfAnotherOwnerIsStillRefused() {
        createBucketAnswers409("BucketAlreadyExists");
        assertThatThrownBy(BucketCreatedMeanwhileTest::open)
                .isInstanceOf(StorageException.class)
                .hasMessageContaining("CreateBucket");
    }
}
