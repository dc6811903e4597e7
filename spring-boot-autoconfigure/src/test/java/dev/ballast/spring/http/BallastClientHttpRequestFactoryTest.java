package dev.ballast.spring.http;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.put;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import dev.ballast.http.HttpClientListener;
import dev.ballast.http.ResilientHttpClient;
import dev.ballast.http.RetryDecision;
import dev.ballast.http.retry.Backoff;
import dev.ballast.http.retry.Jitter;
import dev.ballast.http.retry.RetryConfig;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.io.OutputStream;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.core.io.InputStreamResource;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestTemplate;

/**
 * The request factory without Spring Boot: RestClient and RestTemplate over a ResilientHttpClient,
 * against WireMock. Spring's own JdkClientHttpRequestFactory is the baseline the issue reported.
 */
@Timeout(60)
class BallastClientHttpRequestFactoryTest {

    @RegisterExtension
    static final LeakCheck LEAKS = new LeakCheck();

    static WireMockServer server;
    ResilientHttpClient client;
    /** The client's retry decisions (what "not retried" means; the server may also see the JDK's own re-sends). */
    final List<HttpClientListener.RetryDecisionEvent> decisions = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void startServer() {
        server = LeakCheck.sharedFixture(
                () -> {
                    WireMockServer s =
                            new WireMockServer(options().dynamicPort().bindAddress("127.0.0.1"));
                    s.start();
                    return s;
                },
                "qtp",
                "Connector-Scheduler");
    }

    @AfterAll
    static void stopServer() {
        server.resetAll();
    }

    @BeforeEach
    void newClient() {
        server.resetAll();
        client = LEAKS.watch(ResilientHttpClient.newBuilder()
                // HTTP/1.1: over cleartext the JDK's default HTTP/2 starts with an h2c upgrade, and
                // WireMock's Jetty closes an upgrade request whose body is megabytes long.
                .version(HttpClient.Version.HTTP_1_1)
                .retry(RetryConfig.builder()
                        .maxAttempts(3)
                        .backoff(Backoff.exponential(Duration.ofMillis(5), Duration.ofMillis(20), Jitter.FULL))
                        .build())
                .attemptTimeout(Duration.ofSeconds(2))
                .listener(new HttpClientListener() {
                    @Override
                    public void onRetryDecision(RetryDecisionEvent event) {
                        decisions.add(event);
                    }
                })
                .build());
    }

    @AfterEach
    void closeClient() {
        client.close();
    }

    private void failOnceThen(String path, int status) {
        server.stubFor(post(path)
                .inScenario(path)
                .whenScenarioStateIs("Started")
                .willReturn(aResponse().withStatus(503))
                .willSetStateTo("up"));
        server.stubFor(post(path)
                .inScenario(path)
                .whenScenarioStateIs("up")
                .willReturn(aResponse().withStatus(status).withBody("done")));
    }

    private RestClient rest(BallastClientHttpRequestFactory factory) {
        return RestClient.builder()
                .baseUrl(server.baseUrl())
                .requestFactory(factory)
                .build();
    }

    @Test
    void springsOwnJdkFactoryLosesTheRetryOfAPostWithABody() {
        // the field report, as the baseline: the body is a publisher the client cannot replay
        failOnceThen("/charge", 200);
        RestClient spring = RestClient.builder()
                .baseUrl(server.baseUrl())
                .requestFactory(new JdkClientHttpRequestFactory(client))
                .build();

        Throwable thrown = catchThrowable(
                () -> spring.post().uri("/charge").body("{}").retrieve().body(String.class));

        assertThat(thrown).isInstanceOf(HttpServerErrorException.ServiceUnavailable.class);
        assertThat(server.findAll(postRequestedFor(urlEqualTo("/charge")))).hasSize(1);
    }

    @Test
    void aPostWithABodyIsRetriedWithTheSameBytesAndIdempotencyKey() {
        // given
        failOnceThen("/charge", 200);

        // when
        String body = rest(BallastClientHttpRequestFactory.of(client))
                .post()
                .uri("/charge")
                .contentType(MediaType.APPLICATION_JSON)
                .body("{\"amount\":42}")
                .retrieve()
                .body(String.class);

        // then
        assertThat(body).isEqualTo("done");
        List<LoggedRequest> attempts = server.findAll(postRequestedFor(urlEqualTo("/charge")));
        assertThat(attempts).hasSize(2);
        assertThat(attempts).allSatisfy(r -> {
            assertThat(r.getBodyAsString()).isEqualTo("{\"amount\":42}");
            assertThat(r.getHeader("Content-Type")).isEqualTo("application/json");
        });
        assertThat(attempts)
                .extracting(r -> r.getHeader("Idempotency-Key"))
                .doesNotContainNull()
                .containsOnly(attempts.get(0).getHeader("Idempotency-Key"));
    }

    @Test
    void aStreamingBodyThatIsNotRepeatableIsBufferedAndRetried() {
        // given Spring's streaming body (an InputStreamResource can be written once)
        failOnceThen("/upload", 201);
        byte[] payload = bytes(10_000);

        // when
        HttpStatus status = (HttpStatus) rest(BallastClientHttpRequestFactory.of(client))
                .post()
                .uri("/upload")
                .contentType(MediaType.APPLICATION_OCTET_STREAM)
                .body(new InputStreamResource(new java.io.ByteArrayInputStream(payload)))
                .retrieve()
                .toBodilessEntity()
                .getStatusCode();

        // then
        assertThat(status).isEqualTo(HttpStatus.CREATED);
        List<LoggedRequest> attempts = server.findAll(postRequestedFor(urlEqualTo("/upload")));
        assertThat(attempts).hasSize(2).allSatisfy(r -> assertThat(r.getBody()).isEqualTo(payload));
    }

    @Test
    void aBodyAboveTheBufferLimitIsStreamedWholeAndSentOnce() {
        // given a limit of 1 KiB and a 3 MiB body, more than the pipe between writer and sender holds
        failOnceThen("/big", 200);
        byte[] payload = bytes(3 * 1024 * 1024);
        BallastClientHttpRequestFactory factory = BallastClientHttpRequestFactory.newBuilder(client)
                .maxBufferedRequestBytes(1024)
                .build();

        // when
        Throwable thrown = catchThrowable(() -> rest(factory)
                .post()
                .uri("/big")
                .body(outputStream -> writeInPieces(outputStream, payload))
                .retrieve()
                .toBodilessEntity());

        // then the 503 is the answer: the body could not be sent again
        assertThat(thrown).isInstanceOf(HttpServerErrorException.ServiceUnavailable.class);
        List<LoggedRequest> attempts = server.findAll(postRequestedFor(urlEqualTo("/big")));
        assertThat(attempts).hasSize(1);
        assertThat(attempts.get(0).getBody()).isEqualTo(payload);
    }

    @Test
    void aBodyAtTheBufferLimitIsStillRetried() {
        failOnceThen("/edge", 200);
        byte[] payload = bytes(1024);
        BallastClientHttpRequestFactory factory = BallastClientHttpRequestFactory.newBuilder(client)
                .maxBufferedRequestBytes(1024)
                .build();

        String body = rest(factory)
                .post()
                .uri("/edge")
                .body(outputStream -> writeInPieces(outputStream, payload))
                .retrieve()
                .body(String.class);

        assertThat(body).isEqualTo("done");
        assertThat(server.findAll(postRequestedFor(urlEqualTo("/edge"))))
                .hasSize(2)
                .allSatisfy(r -> assertThat(r.getBody()).isEqualTo(payload));
    }

    @Test
    void aResponseBodyAboveTheLimitFailsTheCallOnceWithTheLimitNamed() {
        // given
        server.stubFor(get("/report").willReturn(aResponse().withStatus(200).withBody(new String(new char[100]))));
        BallastClientHttpRequestFactory factory = BallastClientHttpRequestFactory.newBuilder(client)
                .maxBufferedResponseBytes(10)
                .build();

        // when
        Throwable thrown = catchThrowable(
                () -> rest(factory).get().uri("/report").retrieve().body(String.class));

        // then
        assertThat(thrown)
                .isInstanceOf(ResourceAccessException.class)
                .hasMessageContaining("maxBufferedResponseBytes (10 bytes)");
        assertTooLargeAnswerWasNotRetried("/report");
    }

    @Test
    void aChunkedResponseBodyIsCountedAgainstTheLimitAsItArrives() {
        // given bodies without a Content-Length (chunked): one within the limit, one above
        server.stubFor(get("/small")
                .willReturn(aResponse().withStatus(200).withBody("y".repeat(10)).withChunkedDribbleDelay(2, 20)));
        server.stubFor(get("/large")
                .willReturn(
                        aResponse().withStatus(200).withBody("y".repeat(100)).withChunkedDribbleDelay(4, 20)));
        BallastClientHttpRequestFactory factory = BallastClientHttpRequestFactory.newBuilder(client)
                .maxBufferedResponseBytes(10)
                .build();

        // when
        String small = rest(factory).get().uri("/small").retrieve().body(String.class);
        Throwable large = catchThrowable(
                () -> rest(factory).get().uri("/large").retrieve().body(String.class));

        // then
        assertThat(small).isEqualTo("y".repeat(10));
        assertThat(large)
                .isInstanceOf(ResourceAccessException.class)
                .hasRootCauseInstanceOf(ResponseBodyTooLargeException.class)
                .hasMessageContaining("more than 10 bytes");
        assertTooLargeAnswerWasNotRetried("/large");
    }

    @Test
    void aStreamedResponseHasNoSizeLimit() {
        server.stubFor(get("/report").willReturn(aResponse().withStatus(200).withBody("y".repeat(5000))));
        BallastClientHttpRequestFactory factory = BallastClientHttpRequestFactory.newBuilder(client)
                .maxBufferedResponseBytes(10)
                .responseBody(BallastClientHttpRequestFactory.ResponseBody.STREAMED)
                .build();

        String body = rest(factory).get().uri("/report").retrieve().body(String.class);

        assertThat(body).hasSize(5000);
    }

    @Test
    void restTemplateGoesThroughTheClientAndKeepsRestrictedHeadersOut() {
        // given a caller that sets headers the JDK client refuses to be given
        failOnceThen("/form", 200);
        RestTemplate template = new RestTemplate(BallastClientHttpRequestFactory.of(client));
        org.springframework.http.HttpHeaders headers = new org.springframework.http.HttpHeaders();
        headers.set("Connection", "keep-alive");
        headers.set("X-Trace", "t-1");

        // when
        String body = template.postForObject(
                server.baseUrl() + "/form", new org.springframework.http.HttpEntity<>("a=1", headers), String.class);

        // then
        assertThat(body).isEqualTo("done");
        assertThat(server.findAll(postRequestedFor(urlEqualTo("/form"))))
                .hasSize(2)
                .allSatisfy(r -> {
                    assertThat(r.getBodyAsString()).isEqualTo("a=1");
                    assertThat(r.getHeader("X-Trace")).isEqualTo("t-1");
                });
    }

    @Test
    void aPutWithoutABodyAndAGetAreSentAsSuch() {
        server.stubFor(put("/flag").willReturn(aResponse().withStatus(204)));
        server.stubFor(get("/flag").willReturn(aResponse().withStatus(200).withBody("on")));
        RestClient rest = rest(BallastClientHttpRequestFactory.of(client));

        assertThat(rest.put()
                        .uri("/flag")
                        .retrieve()
                        .toBodilessEntity()
                        .getStatusCode()
                        .value())
                .isEqualTo(204);
        assertThat(rest.get().uri("/flag").retrieve().body(String.class)).isEqualTo("on");
    }

    @Test
    void invalidLimitsAreRefusedNamingTheOption() {
        HttpClient any = client;
        assertThatThrownBy(() -> BallastClientHttpRequestFactory.newBuilder(any).maxBufferedRequestBytes(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxBufferedRequestBytes must be >= 0 and <= 2147483639 but was -1");
        assertThatThrownBy(() -> BallastClientHttpRequestFactory.newBuilder(any).readTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("readTimeout must be positive but was PT0S");
    }

    /** The attempt that got the too-large answer ended the call: the caller's limit, not the dependency's failure. */
    private void assertTooLargeAnswerWasNotRetried(String path) {
        assertThat(decisions)
                .filteredOn(d -> d.path().equals(path) && d.statusCode() == 200)
                .singleElement()
                .satisfies(d -> {
                    assertThat(d.decision()).isEqualTo(RetryDecision.ABORTED);
                    assertThat(d.reason()).contains("body handler");
                });
    }

    private static byte[] bytes(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31 + 7);
        }
        return b;
    }

    /** Writes as Spring's converters do: in pieces, some single bytes. */
    private static void writeInPieces(OutputStream out, byte[] payload) throws IOException {
        int i = 0;
        while (i < payload.length) {
            if (i % 3 == 0) {
                out.write(payload[i]);
                i++;
            } else {
                int n = Math.min(8192, payload.length - i);
                out.write(Arrays.copyOfRange(payload, i, i + n));
                i += n;
            }
        }
    }
}
