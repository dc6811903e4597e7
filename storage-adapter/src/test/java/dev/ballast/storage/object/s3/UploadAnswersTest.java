package dev.ballast.storage.object.s3;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.containing;
import static com.github.tomakehurst.wiremock.client.WireMock.delete;
import static com.github.tomakehurst.wiremock.client.WireMock.head;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.put;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.WireMockServer;
import dev.ballast.storage.internal.Payload;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.testkit.LeakCheck;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * What a put returns when the store's answer leaves something out: Ceph RGW answers a multipart
 * completion with an empty ETag, and no S3 server answers a PUT with {@code Last-Modified}; the version
 * returned must still carry an ETag a {@code putIfMatch} can use, and when it was stored.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ExtendWith(LeakCheck.class)
class UploadAnswersTest {
    private static final int MIB = 1024 * 1024;
    private static final Map<String, String> METADATA = Map.of(S3ObjectStore.META_PUT_TOKEN, "token-1");
    private static WireMockServer wireMock;

    @TempDir
    Path dir;

    private final ExecutorService parts = Executors.newCachedThreadPool();
    private S3Client s3;
    private S3Endpoint endpoint;

    @BeforeAll
    static void startServer() {
        wireMock = new WireMockServer(options().dynamicPort().bindAddress("127.0.0.1"));
        wireMock.start();
    }

    @AfterAll
    static void stopServer() {
        wireMock.stop();
    }

    @BeforeEach
    void client() {
        wireMock.resetAll();
        endpoint = S3Endpoint.newBuilder()
                .endpoint(URI.create("http://localhost:" + wireMock.port()))
                .credentials("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
                .httpClient(HttpClient.newBuilder()
                        .connectTimeout(Duration.ofSeconds(5))
                        .build())
                .build();
        s3 = endpoint.newClient();
    }

    @AfterEach
    void close() {
        s3.close();
        parts.shutdownNow();
    }

    private Uploads uploads(S3StoreConfig config) {
        return new Uploads(
                s3,
                "bucket",
                config,
                false,
                endpoint.plainHttp(),
                true,
                endpoint.describe(),
                parts,
                endpoint.attemptTimeouts());
    }

    private Uploads.Written upload(Uploads uploads, String key, byte[] data) throws Exception {
        Path file = Files.write(dir.resolve("content"), data);
        try (Payload p = Payload.prepare(ObjectContent.ofFile(file), dir, uploads.digestsFor(data.length))) {
            return uploads.upload(key, p, METADATA, WriteCondition.NONE);
        }
    }

    @Test
    void aMultipartPutAnsweredWithAnEmptyETagAsCephRgwDoesReturnsTheETagAndDateOfTheStoredVersion() throws Exception {
        byte[] data = new byte[11 * MIB];
        new SplittableRandom(11).nextBytes(data);
        wireMock.stubFor(post(urlPathEqualTo("/bucket/big"))
                .withQueryParam("uploads", containing(""))
                .willReturn(aResponse()
                        .withStatus(200)
                        .withBody("<InitiateMultipartUploadResult><Bucket>bucket</Bucket>"
                                + "<Key>big</Key><UploadId>u1</UploadId></InitiateMultipartUploadResult>")));
        wireMock.stubFor(put(urlPathEqualTo("/bucket/big"))
                .withQueryParam("uploadId", containing("u1"))
                .willReturn(aResponse().withStatus(200).withHeader("ETag", "\"" + "ab".repeat(16) + "\"")));
        // The field input: RGW's completion carries <ETag></ETag>.
        wireMock.stubFor(post(urlPathEqualTo("/bucket/big"))
                .withQueryParam("uploadId", containing("u1"))
                .willReturn(aResponse()
                        .withStatus(200)
                        .withHeader("x-amz-version-id", "v9")
                        .withBody("<CompleteMultipartUploadResult><Bucket>bucket</Bucket><Key>big</Key>"
                                + "<ETag></ETag></CompleteMultipartUploadResult>")));
        wireMock.stubFor(head(urlPathEqualTo("/bucket/big"))
                .willReturn(aResponse()
                        .withStatus(200)
                        .withHeader("ETag", "\"0123456789abcdef0123456789abcdef-3\"")
                        .withHeader("Last-Modified", "Tue, 01 Dec 2026 23:30:05 GMT")
                        .withHeader("Content-Length", "" + data.length)
                        .withHeader("x-amz-version-id", "v9")
                        .withHeader("x-amz-meta-" + S3ObjectStore.META_PUT_TOKEN, "token-1")));
        wireMock.stubFor(
                delete(urlPathEqualTo("/bucket/big")).willReturn(aResponse().withStatus(204)));

        Uploads.Written written = upload(
                uploads(S3StoreConfig.builder()
                        .partSize(5 * MIB)
                        .multipartThreshold(5 * MIB)
                        .build()),
                "big",
                data);

        assertThat(written.versionId()).isEqualTo("v9");
        assertThat(written.eTag()).isEqualTo("\"0123456789abcdef0123456789abcdef-3\"");
        assertThat(written.lastModified()).isEqualTo(Instant.parse("2026-12-01T23:30:05Z"));
    }

    @Test
    void aSinglePutReturnsWhenTheServerAnsweredAsItsLastModified() throws Exception {
        wireMock.stubFor(put(urlPathEqualTo("/bucket/key"))
                .willReturn(aResponse()
                        .withStatus(200)
                        .withHeader("ETag", "\"e\"")
                        .withHeader("x-amz-version-id", "v1")
                        .withHeader("Date", "Tue, 01 Dec 2026 23:31:00 GMT")));

        Uploads.Written written = upload(uploads(S3StoreConfig.ofDefaults()), "key", new byte[1000]);

        assertThat(written.eTag()).isEqualTo("\"e\"");
        assertThat(written.lastModified()).isEqualTo(Instant.parse("2026-12-01T23:31:00Z"));
    }
}
