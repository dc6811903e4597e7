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

import com.github.tomakehurst.wiremock.WireMockServer;
import dev.ballast.storage.internal.Md5;
import dev.ballast.storage.internal.Sha256;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.testkit.LeakCheck;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The capability probe finds out whether the endpoint refuses a body whose {@code Content-MD5} does
 * not match it, or (over plain HTTP) one whose signed payload hash does not: only then does the store
 * confirm its writes without a read-back, and only in the second case does it leave MD5 out.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
@ExtendWith(LeakCheck.class)
class ContentMd5ProbeTest {
    private static final String WRONG_MD5 = Md5.base64(Md5.newDigest().digest(new byte[] {0}));
    /** The SHA-256 the probe signs as a wrong payload hash: that of one zero byte. */
    private static final String WRONG_SHA256 = Sha256.hex(Sha256.of(new byte[] {0}));

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

    /** An endpoint that accepts every PUT, as a store that validates nothing does. */
    @BeforeEach
    void acceptingEverything() {
        wireMock.resetAll();
        wireMock.stubFor(head(urlPathEqualTo("/bucket")).willReturn(aResponse().withStatus(200)));
        wireMock.stubFor(get(urlPathEqualTo("/bucket"))
                .withQueryParam("versioning", equalTo(""))
                .willReturn(aResponse()
                        .withStatus(200)
                        .withBody("<VersioningConfiguration><Status>Enabled</Status>" + "</VersioningConfiguration>")));
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
        S3Endpoint endpoint = S3Endpoint.newBuilder()
                .endpoint(URI.create("http://localhost:" + wireMock.port()))
                .credentials("key", "secret")
                .httpClient(HttpClient.newBuilder()
                        .connectTimeout(Duration.ofSeconds(5))
                        .build())
                .checksumMode(S3Endpoint.ChecksumMode.NEVER)
                .build();
        return S3ObjectStore.open(endpoint, "bucket", S3StoreConfig.ofDefaults());
    }

    @Test
    void aStoreThatKeepsABodyWithAWrongContentMd5DoesNotConfirmItsWrites() {
        try (S3ObjectStore store = open()) {
            assertThat(store.confirmsWrites()).isFalse();
        }
    }

    @Test
    void aStoreThatRefusesAWrongContentMd5With400ConfirmsItsWrites() {
        wireMock.stubFor(put(urlPathMatching("/bucket/.*"))
                .withHeader("Content-MD5", equalTo(WRONG_MD5))
                .willReturn(aResponse()
                        .withStatus(400)
                        .withBody("<Error><Code>BadDigest</Code><Message>The Content-MD5 you"
                                + " specified did not match what we received.</Message></Error>")));

        try (S3ObjectStore store = open()) {
            assertThat(store.confirmsWrites()).isTrue();
            assertThat(store.capabilities().additionalChecksums()).isFalse();
        }
    }

    private static void refusingAWrongSignedPayloadHash() {
        wireMock.stubFor(
                put(urlPathMatching("/bucket/.*"))
                        .withHeader("x-amz-content-sha256", equalTo(WRONG_SHA256))
                        .willReturn(
                                aResponse()
                                        .withStatus(400)
                                        .withBody(
                                                "<Error><Code>XAmzContentSHA256Mismatch</Code><Message>The provided"
                                                        + " 'x-amz-content-sha256' header does not match what was computed.</Message></Error>")));
    }

    @Test
    void aStoreThatRefusesAWrongSignedPayloadHashConfirmsItsWritesAndSendsNoMd5() {
        refusingAWrongSignedPayloadHash();

        try (S3ObjectStore store = open()) {
            assertThat(store.confirmsWrites()).isTrue();
            wireMock.resetRequests();
            store.put("data/a", ObjectContent.ofBytes("hello".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        }

        var puts = wireMock.findAll(putRequestedFor(urlPathEqualTo("/bucket/data/a")));
        assertThat(puts).hasSize(1);
        assertThat(puts.get(0).containsHeader("Content-MD5")).isFalse();
        assertThat(puts.get(0).getHeader("x-amz-content-sha256"))
                .isEqualTo(Sha256.hex(Sha256.of("hello".getBytes(java.nio.charset.StandardCharsets.UTF_8))));
    }

    @Test
    void aStoreThatKeepsABodyWithAWrongSignedPayloadHashGetsContentMd5OnEveryBody() {
        wireMock.stubFor(put(urlPathMatching("/bucket/.*"))
                .withHeader("Content-MD5", equalTo(WRONG_MD5))
                .willReturn(aResponse().withStatus(400).withBody("<Error><Code>BadDigest</Code></Error>")));

        try (S3ObjectStore store = open()) {
            assertThat(store.confirmsWrites()).isTrue();
            wireMock.resetRequests();
            store.put("data/b", ObjectContent.ofBytes(new byte[] {1, 2, 3}));
        }

        var puts = wireMock.findAll(putRequestedFor(urlPathEqualTo("/bucket/data/b")));
        assertThat(puts).hasSize(1);
        assertThat(puts.get(0).getHeader("Content-MD5"))
                .isEqualTo(Md5.base64(Md5.newDigest().digest(new byte[] {1, 2, 3})));
    }
}
