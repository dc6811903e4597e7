package dev.ballast.storage.object.s3;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.put;
import static com.github.tomakehurst.wiremock.client.WireMock.putRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import dev.ballast.testkit.LeakCheck;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A body whose SHA-256 the store already knows is signed with it, not read and hashed again; the
 * server finds the signature valid, and a request without the hash is signed by the SDK as before.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
@ExtendWith(LeakCheck.class)
class PrecomputedPayloadSignerTest {
    private static final String SECRET_KEY = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
    private static WireMockServer wireMock;

    @BeforeAll
    static void start() {
        wireMock = new WireMockServer(options().dynamicPort().bindAddress("127.0.0.1"));
        wireMock.start();
        wireMock.stubFor(put(urlPathEqualTo("/bucket/key"))
                .willReturn(aResponse().withStatus(200).withHeader("ETag", "\"e\"")));
    }

    @AfterAll
    static void stop() {
        wireMock.stop();
    }

    private static S3Client client() {
        return S3Endpoint.newBuilder()
                .endpoint(URI.create("http://localhost:" + wireMock.port()))
                .credentials("AKIDEXAMPLE", SECRET_KEY)
                .httpClient(HttpClient.newBuilder()
                        .connectTimeout(Duration.ofSeconds(5))
                        .build())
                .build()
                .newClient();
    }

    private static String sha256Hex(byte[] data) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    }

    /** Sends "payload" and returns how many times its stream was opened. */
    private static int putPayload(boolean withKnownHash) throws Exception {
        byte[] body = "payload".getBytes(UTF_8);
        String hash = sha256Hex(body);
        AtomicInteger opened = new AtomicInteger();
        try (S3Client s3 = client()) {
            s3.putObject(
                    b -> {
                        b.bucket("bucket").key("key");
                        if (withKnownHash) {
                            b.overrideConfiguration(o -> o.putHeader(Uploads.CONTENT_SHA256, hash));
                        }
                    },
                    RequestBody.fromContentProvider(
                            () -> {
                                opened.incrementAndGet();
                                return new ByteArrayInputStream(body);
                            },
                            body.length,
                            "application/octet-stream"));
        }
        return opened.get();
    }

    @Test
    void aKnownPayloadHashIsSignedWithoutReadingTheBodyForIt() throws Exception {
        wireMock.resetRequests();

        int opened = putPayload(true);

        assertThat(opened).as("the body is opened once, to be sent").isEqualTo(1);
        LoggedRequest r =
                wireMock.findAll(putRequestedFor(urlPathEqualTo("/bucket/key"))).get(0);
        assertThat(r.getHeader("x-amz-content-sha256")).isEqualTo(sha256Hex(r.getBody()));
        S3EndpointTest.SigV4.Authorization auth = S3EndpointTest.SigV4.parse(r.getHeader("Authorization"));
        assertThat(S3EndpointTest.SigV4.expectedSignature(r, auth, SECRET_KEY)).isEqualTo(auth.signature());
    }

    @Test
    void withoutAKnownHashTheSdkHashesTheBodyAsBefore() throws Exception {
        wireMock.resetRequests();

        int opened = putPayload(false);

        assertThat(opened).as("opened to hash it, then to send it").isEqualTo(2);
        LoggedRequest r =
                wireMock.findAll(putRequestedFor(urlPathEqualTo("/bucket/key"))).get(0);
        assertThat(r.getHeader("x-amz-content-sha256")).isEqualTo(sha256Hex(r.getBody()));
        S3EndpointTest.SigV4.Authorization auth = S3EndpointTest.SigV4.parse(r.getHeader("Authorization"));
        assertThat(S3EndpointTest.SigV4.expectedSignature(r, auth, SECRET_KEY)).isEqualTo(auth.signature());
    }
}
