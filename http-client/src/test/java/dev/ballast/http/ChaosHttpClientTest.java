package dev.ballast.http;

import static dev.ballast.http.ScriptedHttpClient.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.http.chaos.ChaosHttpClient;
import dev.ballast.http.chaos.ChaosPolicy;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Chaos in production: off unless its flag says so at the moment of the call. */
@ExtendWith(LeakCheck.class)
class ChaosHttpClientTest {
    private final ScriptedHttpClient server = new ScriptedHttpClient();
    private final HttpRequest request =
            HttpRequest.newBuilder(URI.create("http://api.test:8080/x")).build();

    private HttpResponse<String> get(HttpClient client) throws IOException, InterruptedException {
        return client.send(request, BodyHandlers.ofString());
    }

    @Test
    void nothingIsInjectedUnlessTheFlagSaysSoWhenTheCallIsMade() throws Exception {
        server.then(status(200, Map.of(), "ok")).then(status(200, Map.of(), "ok"));
        AtomicBoolean flag = new AtomicBoolean();
        ChaosHttpClient chaos = ChaosHttpClient.wrap(
                server,
                ChaosPolicy.builder()
                        .injectionRate(1)
                        .faults(ChaosPolicy.Fault.UNAVAILABLE)
                        .retryAfter(Duration.ofSeconds(3))
                        .enabledWhen(flag::get)
                        .build());

        assertThat(get(chaos).statusCode()).isEqualTo(200);
        flag.set(true);
        HttpResponse<String> injected = get(chaos);
        flag.set(false);
        assertThat(get(chaos).statusCode()).isEqualTo(200);

        assertThat(injected.statusCode()).isEqualTo(503);
        assertThat(injected.headers().firstValue("Retry-After")).hasValue("3");
        assertThat(injected.body()).contains("chaos");
        assertThat(chaos.injected()).isEqualTo(1);
        assertThat(server.requests).hasSize(2);
    }

    @Test
    void theDefaultsInjectNothing() throws Exception {
        server.then(status(200)).then(status(200)).then(status(200));
        ChaosHttpClient off = ChaosHttpClient.wrap(server, ChaosPolicy.disabled());
        ChaosHttpClient noFlag = ChaosHttpClient.wrap(
                server,
                ChaosPolicy.builder()
                        .injectionRate(1)
                        .faults(ChaosPolicy.Fault.RESET)
                        .build());
        System.clearProperty(ChaosPolicy.PROPERTY);
        ChaosHttpClient propertyUnset = ChaosHttpClient.wrap(
                server,
                ChaosPolicy.builder()
                        .injectionRate(1)
                        .faults(ChaosPolicy.Fault.RESET)
                        .enabledWhen(ChaosPolicy.systemProperty())
                        .build());

        for (HttpClient c : List.of(off, noFlag, propertyUnset)) {
            assertThat(get(c).statusCode()).isEqualTo(200);
        }
        assertThat(off.injected() + noFlag.injected() + propertyUnset.injected())
                .isZero();
    }

    @Test
    void aboutTheInjectionRateOfCallsIsFaulted() {
        SplittableRandom random = new SplittableRandom(5);
        ChaosPolicy policy = ChaosPolicy.builder()
                .injectionRate(0.25)
                .faults(ChaosPolicy.Fault.UNAVAILABLE, ChaosPolicy.Fault.RESET, ChaosPolicy.Fault.LATENCY)
                .enabledWhen(() -> true)
                .random(() -> random)
                .build();
        int faulted = 0;
        for (int i = 0; i < 2000; i++) {
            if (policy.draw() != null) {
                faulted++;
            }
        }
        assertThat(faulted).isBetween(400, 600);
    }

    @Test
    void injectedResetsMeetTheResilientClientsRetriesAsRealOnesDo() {
        ChaosHttpClient chaos = ChaosHttpClient.wrap(
                server,
                ChaosPolicy.builder()
                        .injectionRate(1)
                        .faults(ChaosPolicy.Fault.RESET)
                        .enabledWhen(() -> true)
                        .build());
        ResilientHttpClient client =
                ResilientHttpClient.newBuilder().delegate(chaos).build();

        assertThatThrownBy(() -> get(client))
                .isInstanceOf(RetriesExhaustedException.class)
                .satisfies(e -> assertThat(e.getSuppressed())
                        .hasSize(3)
                        .allSatisfy(s -> assertThat(s).isInstanceOf(SocketException.class)));
        assertThat(chaos.injected()).isEqualTo(3);
        assertThat(server.requests).isEmpty();
        client.shutdownNow();
    }

    @Test
    void aRateOutsideZeroToOneIsRefusedNamingIt() {
        assertThatThrownBy(() -> ChaosPolicy.builder().injectionRate(1.5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("injectionRate must be between 0 and 1 but was 1.5");
    }
}
