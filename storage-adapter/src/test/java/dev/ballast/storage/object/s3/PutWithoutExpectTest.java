package dev.ballast.storage.object.s3;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.put;
import static com.github.tomakehurst.wiremock.client.WireMock.putRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import dev.ballast.testkit.LeakCheck;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;

/**
 * The AWS SDK adds {@code Expect: 100-continue} to every PutObject and UploadPart; through an
 * {@link S3Endpoint}'s client no request carries it, whatever its size (what a server that sends
 * {@code 100 Continue} twice then answers: {@code SdkHttpClientContract}).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ExtendWith(LeakCheck.class)
class PutWithoutExpectTest {
    private static final int MIB = 1024 * 1024;

    private static WireMockServer wireMock;

    @BeforeAll
    static void start() {
        wireMock = new WireMockServer(options().dynamicPort().bindAddress("127.0.0.1"));
        wireMock.start();
        wireMock.stubFor(put(urlPathEqualTo("/bucket/small"))
                .willReturn(aResponse().withStatus(200).withHeader("ETag", "\"e\"")));
        wireMock.stubFor(put(urlPathEqualTo("/bucket/large"))
                .willReturn(aResponse().withStatus(200).withHeader("ETag", "\"e\"")));
    }

    @AfterAll
    static void stop() {
        wireMock.stop();
    }

    private static PutObjectResponse putOf(URI endpoint, String key, int bytes) {
        try (S3Client s3 = S3Endpoint.newBuilder()
                .endpoint(endpoint)
                .credentials("AKIDEXAMPLE", "secret")
                .httpClient(HttpClient.newBuilder()
                        .connectTimeout(Duration.ofSeconds(5))
                        .build())
                .build()
                .newClient()) {
            return s3.putObject(b -> b.bucket("bucket").key(key), RequestBody.fromBytes(new byte[bytes]));
        }
    }

    private static LoggedRequest received(String key) {
        return wireMock.findAll(putRequestedFor(urlPathEqualTo("/bucket/" + key)))
                .get(0);
    }

    @Test
    void noPutAsksForContinueWhateverItsSize() {
        URI endpoint = URI.create("http://localhost:" + wireMock.port());
        putOf(endpoint, "small", MIB);
        putOf(endpoint, "large", 5 * MIB);

        assertThat(received("small").containsHeader("Expect")).isFalse();
        assertThat(received("small").getBody()).hasSize(MIB);
        assertThat(received("large").containsHeader("Expect")).isFalse();
        assertThat(received("large").getBody()).hasSize(5 * MIB);
    }
}
