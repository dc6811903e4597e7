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

/**
 * What the AWS SDK sends with {@code Expect: 100-continue} through an {@link S3Endpoint}'s client: a
 * PUT of at most 1 MiB goes without it (no wait for {@code 100 Continue}), a larger one keeps it.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
@ExtendWith(LeakCheck.class)
class SmallBodiesWithoutExpectTest {
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

    private static LoggedRequest putOf(String key, int bytes) {
        try (S3Client s3 = S3Endpoint.newBuilder()
                .endpoint(URI.create("http://localhost:" + wireMock.port()))
                .credentials("AKIDEXAMPLE", "secret")
                .httpClient(HttpClient.newBuilder()
                        .connectTimeout(Duration.ofSeconds(5))
                        .build())
                .build()
                .newClient()) {
            s3.putObject(b -> b.bucket("bucket").key(key), RequestBody.fromBytes(new byte[bytes]));
        }
        return wireMock.findAll(putRequestedFor(urlPathEqualTo("/bucket/" + key)))
                .get(0);
    }

    @Test
    void aSmallPutGoesWithoutExpectAndALargeOneKeepsIt() {
        LoggedRequest small = putOf("small", (int) SmallBodiesWithoutExpect.MAX_BYTES);
        LoggedRequest large = putOf("large", (int) SmallBodiesWithoutExpect.MAX_BYTES + 1);

        assertThat(small.containsHeader("Expect")).isFalse();
        assertThat(small.getBody()).hasSize((int) SmallBodiesWithoutExpect.MAX_BYTES);
        assertThat(large.getHeader("Expect")).isEqualToIgnoringCase("100-continue");
        assertThat(large.getBody()).hasSize((int) SmallBodiesWithoutExpect.MAX_BYTES + 1);
    }
}
