package dev.ballast.it.http;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.github.tomakehurst.wiremock.WireMockServer;
import dev.ballast.http.BulkheadFullException;
import dev.ballast.http.ResilientHttpClient;
import dev.ballast.http.RetryDecision;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Bulkheads are per dependency: a slow dependency fills only its own. */
@Timeout(60)
class BulkheadIT extends WireMockSupport {

    @ParameterizedTest
    @EnumSource(Mode.class)
    void slowDependencyFillingItsBulkheadDoesNotDelayCallsToAnotherDependency(Mode mode) throws Exception {
        // given a slow dependency with room for 2 concurrent calls, and a fast one on another port
        server.stubFor(get("/slow").willReturn(aResponse().withStatus(200).withFixedDelay(3000)));
        WireMockServer fast = newServer();
        fast.stubFor(get("/fast").willReturn(aResponse().withStatus(200).withBody("fast")));
        ResilientHttpClient client =
                track(clientBuilder().dependency(dependency(), bulkhead(2)).build());
        CompletableFuture<HttpResponse<String>> slow1 = client.sendAsync(httpGet("/slow"), BodyHandlers.ofString());
        CompletableFuture<HttpResponse<String>> slow2 = client.sendAsync(httpGet("/slow"), BodyHandlers.ofString());
        awaitTrue(
                "slow bulkhead full",
                () -> client.dependencyStatus(dependency())
                        .map(s -> s.availableBulkheadPermits() == 0)
                        .orElse(false));

        // when a third call to the slow dependency is made
        Throwable rejected = catchThrowable(() -> mode.call(client, httpGet("/slow"), BodyHandlers.ofString()));

        // then it is rejected at once, without a request
        assertThat(rejected).isInstanceOf(BulkheadFullException.class);
        assertThat(((BulkheadFullException) rejected).dependency()).isEqualTo(dependency());
        assertThat(listener.lastDecision().decision()).isEqualTo(RetryDecision.REJECTED);

        // when the other dependency is called while the slow calls are still in flight
        HttpResponse<String> response = mode.call(
                client,
                HttpRequest.newBuilder(URI.create(fast.baseUrl() + "/fast")).build(),
                BodyHandlers.ofString());

        // then it is answered before either slow call finished
        assertThat(response.body()).isEqualTo("fast");
        assertThat(slow1).isNotDone();
        assertThat(slow2).isNotDone();
        assertThat(slow1.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        assertThat(slow2.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        awaitTrue(
                "server logged both slow calls",
                () -> server.getAllServeEvents().size() >= 2);
        assertThat(server.getAllServeEvents()).hasSize(2);
    }
}
