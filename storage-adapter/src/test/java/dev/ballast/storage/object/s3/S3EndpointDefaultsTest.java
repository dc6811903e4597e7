package dev.ballast.storage.object.s3;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.put;
import static com.github.tomakehurst.wiremock.client.WireMock.putRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.WireMockServer;
import dev.ballast.http.ResilientHttpClient;
import java.net.URI;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * An endpoint built without an HTTP client of the caller's still has exactly one layer that
 * retries: the SDK's retries are off, so the default must be a {@link ResilientHttpClient}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class S3EndpointDefaultsTest {

  private WireMockServer server;

  @BeforeEach
  void start() {
    server = new WireMockServer(wireMockConfig().dynamicPort());
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop();
  }

  @Test
  void defaultHttpClient_isResilient_andRetriesAPutAnswered503() {
    // given an endpoint that answers the first PUT with 503 (nothing stored) and the next with 200
    server.stubFor(put(urlPathEqualTo("/bucket/key")).inScenario("s").whenScenarioStateIs("Started")
        .willReturn(aResponse().withStatus(503)).willSetStateTo("ok"));
    server.stubFor(put(urlPathEqualTo("/bucket/key")).inScenario("s").whenScenarioStateIs("ok")
        .willReturn(aResponse().withStatus(200).withHeader("ETag", "\"e\"")));
    S3Endpoint endpoint = S3Endpoint.newBuilder().endpoint(URI.create(server.baseUrl()))
        .credentials("key", "secret").build();

    // when
    S3Client s3 = endpoint.client();
    s3.putObject(b -> b.bucket("bucket").key("key"), RequestBody.fromString("content"));

    // then
    assertThat(endpoint.httpClient()).get().isInstanceOf(ResilientHttpClient.class);
    server.verify(2, putRequestedFor(urlPathEqualTo("/bucket/key")));
  }
}
