package dev.ballast.http.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpClient.Redirect;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The redirect rules, as pure functions: the JDK's, but for what a hop to another origin carries. */
@Timeout(10)
class RedirectFollowingClientTest {

    private final RedirectFollowingClient normal =
            new RedirectFollowingClient(HttpClient.newBuilder().build(), Redirect.NORMAL, "Idempotency-Key");

    @ParameterizedTest(name = "{0}: {1} -> {2} {3}")
    @CsvSource({
        "NORMAL, https://a.test/x, http://b.test/y, false",
        "NORMAL, https://a.test/x, https://b.test/y, true",
        "NORMAL, http://a.test/x, https://a.test/x, true",
        "NORMAL, http://a.test/x, http://b.test/x, true",
        "ALWAYS, https://a.test/x, http://b.test/y, true",
        "NEVER, http://a.test/x, http://a.test/y, false"
    })
    void normalNeverGoesFromHttpsToHttp(Redirect policy, URI from, URI to, boolean follows) {
        assertThat(RedirectFollowingClient.canRedirect(policy, from, to)).isEqualTo(follows);
    }

    @ParameterizedTest(name = "{0} vs {1}: {2}")
    @CsvSource({
        "http://a.test/x, http://a.test:80/y, true",
        "https://A.test/x, https://a.test:443/y, true",
        "http://a.test/x, https://a.test/x, false",
        "http://a.test:8080/x, http://a.test:8081/x, false",
        "http://a.test/x, http://b.a.test/x, false"
    })
    void anOriginIsSchemeHostAndPort(URI a, URI b, boolean same) {
        assertThat(RedirectFollowingClient.sameOrigin(a, b)).isEqualTo(same);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "/new, http://a.test/new",
        "new, http://a.test/dir/new",
        "//b.test/p, http://b.test/p",
        "' https://b.test/p ', https://b.test/p",
        "/new place, http://a.test/new%20place",
        "/caf\u00e9, http://a.test/caf%C3%A9",
        "/p#frag, http://a.test/p",
        "ftp://b.test/p, ",
        "mailto:x@b.test, ",
        "'', "
    })
    void aLocationIsResolvedLeniently(String location, URI expected) {
        assertThat(RedirectFollowingClient.resolveLocation(URI.create("http://a.test/dir/page"), location))
                .isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @CsvSource({
        "301, POST, GET",
        "302, POST, GET",
        "301, PUT, PUT",
        "303, PUT, GET",
        "303, DELETE, GET",
        "307, POST, POST",
        "308, PATCH, PATCH"
    })
    void theMethodChangesAsTheJdkChangesIt(int status, String method, String redirected) {
        assertThat(RedirectFollowingClient.redirectedMethod(status, method)).isEqualTo(redirected);
    }

    @ParameterizedTest
    @CsvSource({
        "300, false",
        "301, true",
        "302, true",
        "303, true",
        "304, false",
        "305, false",
        "306, false",
        "307, true",
        "308, true",
        "309, false",
        "200, false"
    })
    void theJdksRedirectStatusesAreFollowed(int status, boolean followed) {
        assertThat(RedirectFollowingClient.isRedirecting(status)).isEqualTo(followed);
    }

    @Test
    void aCrossOriginHopDropsCredentialsAndTheKeyAndKeepsTheRest() {
        HttpRequest post = HttpRequest.newBuilder(URI.create("http://a.test/upload"))
                .header("Authorization", "Bearer a")
                .header("cookie", "s=1")
                .header("idempotency-key", "k1")
                .header("X-Trace", "t")
                .POST(BodyPublishers.ofString("payload"))
                .build();

        HttpRequest hop = normal.redirectTarget(post, 307, location("http://b.test/upload"), 0);

        assertThat(hop.method()).isEqualTo("POST");
        assertThat(hop.bodyPublisher().orElseThrow().contentLength()).isEqualTo(7);
        assertThat(hop.headers().map()).containsOnlyKeys("X-Trace");
        HttpRequest sameOrigin = normal.redirectTarget(post, 307, location("/elsewhere"), 0);
        assertThat(sameOrigin.headers().map()).containsKeys("Authorization", "cookie", "idempotency-key", "X-Trace");
    }

    @Test
    void theFifthRedirectOfAChainIsNotFollowed() {
        HttpRequest get =
                HttpRequest.newBuilder(URI.create("http://a.test/loop")).build();

        assertThat(normal.redirectTarget(get, 302, location("/loop"), 3)).isNotNull();
        assertThat(normal.redirectTarget(get, 302, location("/loop"), 4)).isNull();
    }

    private static HttpHeaders location(String value) {
        return HttpHeaders.of(Map.of("Location", List.of(value)), (n, v) -> true);
    }
}
