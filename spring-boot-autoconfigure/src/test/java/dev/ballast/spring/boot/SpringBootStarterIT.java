package dev.ballast.spring.boot;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.http.Fault;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import dev.ballast.http.ResilientHttpClient;
import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.restclient.RestTemplateBuilder;
import org.springframework.web.client.RestTemplate;

/**
 * The starter in a real Spring Boot application (the sample's main class, its application.yml, an
 * embedded Tomcat, Actuator, Prometheus), called over HTTP as its users call it, with WireMock as the
 * payments service its controller calls through RestClient.
 */
@Timeout(120)
class SpringBootStarterIT {

    private static final String KEY = "Idempotency-Key";

    @TempDir
    static Path data;

    static WireMockServer payments;
    static BootedApp app;

    @BeforeAll
    static void start() {
        payments = new WireMockServer(options().dynamicPort().bindAddress("127.0.0.1"));
        payments.start();
        app = BootedApp.start(data, payments.baseUrl(), List.of());
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
        if (payments != null) {
            payments.stop();
        }
    }

    @BeforeEach
    void reset() {
        payments.resetAll();
    }

    @Test
    void aPostAnswered503Then200GetsThe200WithTheSameIdempotencyKeyOnBothAttempts() throws Exception {
        // given
        payments.stubFor(post("/charge")
                .inScenario("charge")
                .whenScenarioStateIs("Started")
                .willReturn(aResponse().withStatus(503))
                .willSetStateTo("up"));
        payments.stubFor(post("/charge")
                .inScenario("charge")
                .whenScenarioStateIs("up")
                .willReturn(aResponse().withStatus(200).withBody("charged")));

        // when
        HttpResponse<String> response = app.post("/checkout", "{\"amount\":42}");

        // then
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("charged");
        List<LoggedRequest> attempts = payments.findAll(postRequestedFor(urlEqualTo("/charge")));
        assertThat(attempts).hasSize(2);
        assertThat(attempts).allSatisfy(r -> assertThat(r.getBodyAsString()).isEqualTo("{\"amount\":42}"));
        assertThat(attempts.get(0).getHeader(KEY)).isNotBlank();
        assertThat(attempts)
                .extracting(r -> r.getHeader(KEY))
                .containsOnly(attempts.get(0).getHeader(KEY));
    }

    @Test
    void aRestTemplateFromBootsBuilderRetriesAPostWithItsBody() {
        // given
        payments.stubFor(post("/refund")
                .inScenario("refund")
                .whenScenarioStateIs("Started")
                .willReturn(aResponse().withStatus(503))
                .willSetStateTo("up"));
        payments.stubFor(post("/refund")
                .inScenario("refund")
                .whenScenarioStateIs("up")
                .willReturn(aResponse().withStatus(200).withBody("refunded")));
        RestTemplate template = app.context.getBean(RestTemplateBuilder.class).build();

        // when
        String body = template.postForObject(payments.baseUrl() + "/refund", "{\"order\":9}", String.class);

        // then
        assertThat(body).isEqualTo("refunded");
        assertThat(payments.findAll(postRequestedFor(urlEqualTo("/refund"))))
                .hasSize(2)
                .allSatisfy(r -> assertThat(r.getBodyAsString()).isEqualTo("{\"order\":9}"));
    }

    @Test
    void aConnectionResetAfterAKeyedPostWasSentIsRetried() throws Exception {
        // given
        payments.stubFor(post("/charge")
                .inScenario("reset")
                .whenScenarioStateIs("Started")
                .willReturn(aResponse().withFault(Fault.CONNECTION_RESET_BY_PEER))
                .willSetStateTo("up"));
        payments.stubFor(post("/charge")
                .inScenario("reset")
                .whenScenarioStateIs("up")
                .willReturn(aResponse().withStatus(200).withBody("charged")));

        // when
        HttpResponse<String> response = app.post("/checkout", "{\"amount\":7}");

        // then
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("charged");
        List<LoggedRequest> attempts = payments.findAll(postRequestedFor(urlEqualTo("/charge")));
        assertThat(attempts).hasSize(2);
        assertThat(attempts)
                .extracting(r -> r.getHeader(KEY))
                .doesNotContainNull()
                .containsOnly(attempts.get(0).getHeader(KEY));
    }

    @Test
    void aGetWhoseBodyStallsIsRetriedWithinTheAttemptTimeout() throws Exception {
        // given headers at once, then a body dribbled over 5 s: longer than the 1 s attempt timeout
        payments.stubFor(get("/balance")
                .inScenario("stall")
                .whenScenarioStateIs("Started")
                .willReturn(aResponse().withStatus(200).withBody("x".repeat(64)).withChunkedDribbleDelay(8, 5_000))
                .willSetStateTo("up"));
        payments.stubFor(get("/balance")
                .inScenario("stall")
                .whenScenarioStateIs("up")
                .willReturn(aResponse().withStatus(200).withBody("100")));

        // when
        HttpResponse<String> response = app.get("/balance");

        // then
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("100");
        assertThat(payments.findAll(getRequestedFor(urlEqualTo("/balance")))).hasSize(2);
    }

    @Test
    void prometheusListsTheBallastSeriesOfTheCallsMade() throws Exception {
        // given a call through the client
        payments.stubFor(get("/balance").willReturn(aResponse().withStatus(200).withBody("5")));
        assertThat(app.get("/balance").statusCode()).isEqualTo(200);

        // when
        HttpResponse<String> scrape = app.get("/actuator/prometheus");

        // then
        assertThat(scrape.statusCode()).isEqualTo(200);
        assertThat(scrape.body())
                .contains("ballast_http_calls")
                .contains("ballast_http_attempts")
                .contains("ballast_http_circuitbreaker_state")
                .contains("dependency=\"" + payments.baseUrl());
    }

    @Test
    void theBallastEndpointListsEachDependencyWithItsBreakerStateAndConcurrencyLimit() throws Exception {
        // given
        payments.stubFor(get("/balance").willReturn(aResponse().withStatus(200).withBody("5")));
        assertThat(app.get("/balance").statusCode()).isEqualTo(200);

        // when
        HttpResponse<String> report = app.get("/actuator/ballast");

        // then
        assertThat(report.statusCode()).isEqualTo(200);
        assertThat(report.body())
                .contains("\"dependency\":\"" + payments.baseUrl() + "\"")
                .contains("\"breakerState\":\"CLOSED\"")
                // the adaptive limit at its ceiling, nothing in flight, and no fixed bulkhead (none configured)
                .contains("\"concurrencyLimit\":10000")
                .contains("\"attemptsInFlight\":0")
                .doesNotContain("maxConcurrentCalls")
                .doesNotContain("2147483647");
    }

    @Test
    void theStorageFacadeBeanRoundTripsABlobOnTheLocalObjectStore() {
        // given
        StorageFacade storage = app.context.getBean(StorageFacade.class);
        byte[] blob = "receipt #1".getBytes(StandardCharsets.UTF_8);

        // when
        storage.objects().put("receipts/1", ObjectContent.ofBytes(blob));
        byte[] read;
        try (ObjectRead object = storage.objects().get("receipts/1")) {
            read = object.readAllBytes();
        }

        // then
        assertThat(read).isEqualTo(blob);
        assertThat(data.resolve("objects")).isDirectory();
    }

    @Test
    void theClientBeanIsTheOneConfiguredByApplicationYml() {
        ResilientHttpClient client = app.context.getBean(ResilientHttpClient.class);
        assertThat(client.isTerminated()).isFalse();
    }
}
