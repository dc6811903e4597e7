package dev.ballast.spring.boot;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.tomakehurst.wiremock.WireMockServer;
import dev.ballast.http.ResilientHttpClient;
import dev.ballast.storage.StorageFacade;
import dev.ballast.testkit.FakeTime;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code /actuator/health} over HTTP follows the payments dependency's circuit breaker: DOWN (503)
 * while it is open, UP again once a probe succeeded. The client's elapsed time is a {@link FakeTime}
 * bean, so the open state ends when the test says, not after a sleep.
 */
@Timeout(120)
class SpringBootHealthIT {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path data;

    private WireMockServer payments;
    private BootedApp app;

    /** The one thing the test adds to the application: the client's ticker. */
    @Configuration(proxyBeanMethods = false)
    static class FakeTicker {
        @Bean
        FakeTime ballastTestTime() {
            return new FakeTime();
        }
    }

    @AfterEach
    void stop() {
        if (app != null) {
            app.close();
        }
        if (payments != null) {
            payments.stop();
        }
    }

    @Test
    void healthTurnsDownWhileTheBreakerIsOpenAndUpAgainAfterASuccessfulProbeAndShutdownClosesTheBeans()
            throws Exception {
        // given a dependency that fails, and a breaker that opens after 3 failures in a row for 30 s
        payments = new WireMockServer(options().dynamicPort().bindAddress("127.0.0.1"));
        payments.start();
        app = BootedApp.start(
                data,
                payments.baseUrl(),
                List.of(FakeTicker.class),
                "--ballast.http.defaults.breaker.consecutive-failure-threshold=3",
                "--ballast.http.defaults.breaker.wait-duration-in-open-state=30s");
        FakeTime time = app.context.getBean(FakeTime.class);
        payments.stubFor(post("/charge").willReturn(aResponse().withStatus(503)));
        assertThat(app.get("/actuator/health").statusCode()).isEqualTo(200);

        // when three attempts fail
        assertThat(app.post("/checkout", "{}").statusCode()).isEqualTo(500);

        // then
        HttpResponse<String> down = app.get("/actuator/health");
        assertThat(down.statusCode()).isEqualTo(503);
        JsonNode ballastDown = JSON.readTree(down.body()).at("/components/ballastHttp");
        assertThat(ballastDown.at("/status").asString()).isEqualTo("DOWN");
        assertThat(ballastDown.at("/details/breakers").get(payments.baseUrl()).asString())
                .isEqualTo("OPEN");

        // when the open state is over and the probe succeeds
        payments.resetAll();
        payments.stubFor(post("/charge").willReturn(aResponse().withStatus(200).withBody("charged")));
        time.advance(Duration.ofSeconds(40));

        // then, before any call: the wait is over and the next call is a probe, so health is UP again (a load
        // balancer that took the instance out on DOWN sends it the traffic that lets the breaker close)
        HttpResponse<String> waitOver = app.get("/actuator/health");
        assertThat(waitOver.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(waitOver.body())
                        .at("/components/ballastHttp/details/breakers")
                        .get(payments.baseUrl())
                        .asString())
                .isEqualTo("OPEN (wait over: the next call is a probe)");

        assertThat(app.post("/checkout", "{}").body()).isEqualTo("charged");

        // then
        HttpResponse<String> up = app.get("/actuator/health");
        assertThat(up.statusCode()).isEqualTo(200);
        JsonNode ballastUp = JSON.readTree(up.body()).at("/components/ballastHttp");
        assertThat(ballastUp.at("/status").asString()).isEqualTo("UP");
        assertThat(ballastUp.at("/details/breakers").get(payments.baseUrl()).asString())
                .isEqualTo("CLOSED");

        // and shutting the application down closes the client and the storage facade (bean destroy methods)
        ResilientHttpClient client = app.context.getBean(ResilientHttpClient.class);
        StorageFacade storage = app.context.getBean(StorageFacade.class);
        app.close();
        assertThatThrownBy(() -> client.send(
                        java.net.http.HttpRequest.newBuilder(java.net.URI.create(payments.baseUrl()))
                                .build(),
                        java.net.http.HttpResponse.BodyHandlers.discarding()))
                .isInstanceOf(java.io.IOException.class);
        assertThatThrownBy(storage::objects)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }
}
