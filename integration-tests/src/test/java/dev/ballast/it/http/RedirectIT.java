package dev.ballast.it.http;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import dev.ballast.http.ResilientHttpClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Redirects followed by Ballast rather than the JDK client: a hop to another origin carries neither
 * the caller's credentials nor the idempotency key, on every JDK (the JDK 17 client forwards
 * {@code Authorization} itself, and every JDK forwards the key); everything else as the JDK does it.
 * Two WireMock servers on loopback are two origins (their ports differ).
 */
@Timeout(60)
class RedirectIT extends WireMockSupport {

    private static final String KEY = "Idempotency-Key";

    private ResilientHttpClient client(HttpClient.Redirect policy) {
        return track(clientBuilder().followRedirects(policy).build());
    }

    private static List<LoggedRequest> received(WireMockServer s, String path) {
        return s.findAll(com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor(urlPathEqualTo(path)));
    }

    private HttpRequest credentialedPost(URI uri) {
        return HttpRequest.newBuilder(uri)
                .header("Authorization", "Bearer secret-of-a")
                .header("Proxy-Authorization", "Basic cHJveHk6c2VjcmV0")
                .header("Cookie", "session=a-only")
                .header("X-Trace", "kept")
                .POST(BodyPublishers.ofString("payload"))
                .build();
    }

    /** The field case: POST to origin A with Authorization, answered 307 to origin B. */
    @ParameterizedTest
    @EnumSource(Mode.class)
    void a307ToAnotherOriginResendsThePostWithoutCredentialsOrIdempotencyKey(Mode mode) throws Exception {
        WireMockServer b = newServer();
        server.stubFor(post("/upload")
                .willReturn(aResponse().withStatus(307).withHeader("Location", b.baseUrl() + "/upload")));
        b.stubFor(post("/upload").willReturn(aResponse().withStatus(201).withBody("stored")));
        ResilientHttpClient client = client(HttpClient.Redirect.NORMAL);

        HttpResponse<String> response = mode.call(client, credentialedPost(uri("/upload")), BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(201);
        assertThat(response.body()).isEqualTo("stored");
        assertThat(response.uri()).isEqualTo(URI.create(b.baseUrl() + "/upload"));
        assertThat(response.previousResponse())
                .hasValueSatisfying(
                        previous -> assertThat(previous.statusCode()).isEqualTo(307));
        LoggedRequest atA = received(server, "/upload").get(0);
        assertThat(atA.getHeader("Authorization")).isEqualTo("Bearer secret-of-a");
        assertThat(atA.getHeader(KEY)).isNotBlank();
        List<LoggedRequest> atB = received(b, "/upload");
        assertThat(atB).singleElement().satisfies(request -> {
            assertThat(request.getMethod().value()).isEqualTo("POST");
            assertThat(request.getBodyAsString()).isEqualTo("payload");
            assertThat(request.containsHeader("Authorization")).isFalse();
            assertThat(request.containsHeader("Proxy-Authorization")).isFalse();
            assertThat(request.containsHeader("Cookie")).isFalse();
            assertThat(request.containsHeader(KEY)).as("A's idempotency key").isFalse();
            assertThat(request.getHeader("X-Trace")).isEqualTo("kept");
        });
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aRetryOfTheCrossOriginHopSendsItWithoutCredentialsAgain(Mode mode) throws Exception {
        WireMockServer b = newServer();
        server.stubFor(
                get("/report").willReturn(aResponse().withStatus(302).withHeader("Location", b.baseUrl() + "/report")));
        b.stubFor(get("/report")
                .inScenario("b")
                .whenScenarioStateIs(com.github.tomakehurst.wiremock.stubbing.Scenario.STARTED)
                .willReturn(aResponse().withStatus(503))
                .willSetStateTo("up"));
        b.stubFor(get("/report")
                .inScenario("b")
                .whenScenarioStateIs("up")
                .willReturn(aResponse().withStatus(200)));
        ResilientHttpClient client = client(HttpClient.Redirect.NORMAL);
        HttpRequest request = HttpRequest.newBuilder(uri("/report"))
                .header("Authorization", "Bearer secret-of-a")
                .build();

        HttpResponse<String> response = mode.call(client, request, BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(received(server, "/report")).hasSize(1);
        assertThat(received(b, "/report"))
                .hasSize(2)
                .allSatisfy(r -> assertThat(r.containsHeader("Authorization")).isFalse());
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aHopWithinTheOriginKeepsCredentialsAndKey(Mode mode) throws Exception {
        server.stubFor(post("/old").willReturn(aResponse().withStatus(308).withHeader("Location", "/new")));
        server.stubFor(post("/new").willReturn(aResponse().withStatus(201)));
        ResilientHttpClient client = client(HttpClient.Redirect.NORMAL);

        HttpResponse<String> response = mode.call(client, credentialedPost(uri("/old")), BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(201);
        LoggedRequest old = received(server, "/old").get(0);
        assertThat(received(server, "/new")).singleElement().satisfies(request -> {
            assertThat(request.getMethod().value()).isEqualTo("POST");
            assertThat(request.getBodyAsString()).isEqualTo("payload");
            assertThat(request.getHeader("Authorization")).isEqualTo("Bearer secret-of-a");
            assertThat(request.getHeader("Cookie")).isEqualTo("session=a-only");
            assertThat(request.getHeader(KEY)).isEqualTo(old.getHeader(KEY));
        });
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void a303OrA302TurnsAPostIntoAGetWithoutBodyAsTheJdkDoes(Mode mode) throws Exception {
        server.stubFor(post("/see-other").willReturn(aResponse().withStatus(303).withHeader("Location", "/result")));
        server.stubFor(post("/found").willReturn(aResponse().withStatus(302).withHeader("Location", "/result")));
        server.stubFor(get("/result").willReturn(aResponse().withStatus(200).withBody("result")));
        ResilientHttpClient client = client(HttpClient.Redirect.NORMAL);

        assertThat(mode.call(client, credentialedPost(uri("/see-other")), BodyHandlers.ofString())
                        .body())
                .isEqualTo("result");
        assertThat(mode.call(client, credentialedPost(uri("/found")), BodyHandlers.ofString())
                        .body())
                .isEqualTo("result");

        assertThat(received(server, "/result")).hasSize(2).allSatisfy(request -> {
            assertThat(request.getMethod().value()).isEqualTo("GET");
            assertThat(request.getBodyAsString()).isEmpty();
        });
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aChainIsFollowedForFourHopsAndTheFifthRedirectReturnedAsTheJdkDoes(Mode mode) throws Exception {
        server.stubFor(get("/loop").willReturn(aResponse().withStatus(302).withHeader("Location", "/loop")));
        ResilientHttpClient client = client(HttpClient.Redirect.NORMAL);

        HttpResponse<String> response = mode.call(client, httpGet("/loop"), BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(302);
        assertThat(received(server, "/loop")).hasSize(5);
        int previous = 0;
        for (HttpResponse<String> r = response;
                r.previousResponse().isPresent();
                r = r.previousResponse().get()) {
            previous++;
        }
        assertThat(previous).isEqualTo(4);
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aLocationWithASpaceIsFollowedPercentEncodedAndOneWithoutLocationIsReturned(Mode mode) throws Exception {
        server.stubFor(get("/spaced").willReturn(aResponse().withStatus(301).withHeader("Location", "/new place")));
        server.stubFor(
                get("/new%20place").willReturn(aResponse().withStatus(200).withBody("found")));
        server.stubFor(get("/nowhere").willReturn(aResponse().withStatus(302)));
        ResilientHttpClient client = client(HttpClient.Redirect.NORMAL);

        assertThat(mode.call(client, httpGet("/spaced"), BodyHandlers.ofString())
                        .body())
                .isEqualTo("found");
        assertThat(mode.call(client, httpGet("/nowhere"), BodyHandlers.ofString())
                        .statusCode())
                .isEqualTo(302);
    }

    @Test
    void withRedirectsNeverTheRedirectIsTheAnswer() throws Exception {
        server.stubFor(any(urlPathEqualTo("/old"))
                .willReturn(aResponse().withStatus(301).withHeader("Location", "/new")));
        ResilientHttpClient client = client(HttpClient.Redirect.NEVER);

        HttpResponse<String> response = client.send(httpGet("/old"), BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(301);
        assertThat(client.followRedirects()).isEqualTo(HttpClient.Redirect.NEVER);
        assertThat(client(HttpClient.Redirect.NORMAL).followRedirects()).isEqualTo(HttpClient.Redirect.NORMAL);
    }
}
