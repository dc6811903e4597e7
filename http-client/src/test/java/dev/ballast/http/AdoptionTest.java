package dev.ballast.http;

import static dev.ballast.http.Await.awaitTrue;
import static dev.ballast.http.ScriptedHttpClient.hang;
import static dev.ballast.http.ScriptedHttpClient.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.http.bulkhead.BulkheadConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** What a new user trips on in the first hour, each with the input it was reported with. */
@Timeout(30)
class AdoptionTest {

    private final ScriptedHttpClient delegate = new ScriptedHttpClient();
    private final ExecutorService callers = Executors.newFixedThreadPool(3);

    @AfterEach
    void stopCallers() {
        callers.shutdownNow();
    }

    private static DependencyPolicy bulkheadOfOne() {
        return DependencyPolicy.builder().bulkhead(BulkheadConfig.builder(1).build()).build();
    }

    // ---- 1. a policy key is normalised the way requests are resolved, or rejected at build() -------

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void policyKeyWithATrailingSlash_appliesToItsOrigin_threeConcurrentCallsGetOnePermit(CallMode mode)
            throws Exception {
        ResilientHttpClient client = ResilientHttpClient.newBuilder().delegate(delegate)
                .dependency("http://127.0.0.1:8089/", bulkheadOfOne()).build();
        delegate.then(hang());
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:8089/slow")).build();
        List<Future<Throwable>> calls = new ArrayList<>();
        calls.add(callers.submit(() -> outcome(mode, client, request)));
        awaitTrue("first call holds the permit", () -> delegate.requests.size() == 1);

        calls.add(callers.submit(() -> outcome(mode, client, request)));
        calls.add(callers.submit(() -> outcome(mode, client, request)));

        assertThat(calls.get(1).get(10, TimeUnit.SECONDS)).isInstanceOf(BulkheadFullException.class);
        assertThat(calls.get(2).get(10, TimeUnit.SECONDS)).isInstanceOf(BulkheadFullException.class);
        assertThat(delegate.requests).hasSize(1);
        DependencyStatus status = client.dependencyStatus("http://127.0.0.1:8089/").orElseThrow();
        assertThat(status.dependency()).isEqualTo("http://127.0.0.1:8089");
        assertThat(status.maxConcurrentCalls()).isEqualTo(1);
        assertThat(status.availableBulkheadPermits()).isZero();
        delegate.exchanges.get(0).cancel(true);
        client.shutdownNow();
    }

    private static Throwable outcome(CallMode mode, ResilientHttpClient client, HttpRequest request) {
        try {
            mode.call(client, request, BodyHandlers.discarding());
            return null;
        } catch (Throwable t) {
            return t;
        }
    }

    @ParameterizedTest(name = "policy for {0} applies to {1}")
    @CsvSource({
        "https://api.example.com, https://api.example.com/v1/items",
        "https://api.example.com, https://api.example.com:443/v1/items",
        "HTTPS://API.Example.COM:443/, https://api.example.com/",
        "http://api.example.com/v1/items, http://api.example.com:80/other",
        "' http://[::1]:8080 ', http://[::1]:8080/x",
    })
    void policyKeysAreNormalisedAsRequestsAreResolved(String key, String requestUri) throws Exception {
        ResilientHttpClient client = ResilientHttpClient.newBuilder().delegate(delegate)
                .dependency(key, bulkheadOfOne()).build();
        delegate.then(status(200));

        client.send(HttpRequest.newBuilder(URI.create(requestUri)).build(), BodyHandlers.discarding());

        String resolved = dev.ballast.http.internal.Requests.defaultDependency(
                HttpRequest.newBuilder(URI.create(requestUri)).build());
        assertThat(client.dependencyStatus(resolved).orElseThrow().maxConcurrentCalls()).isEqualTo(1);
        assertThat(client.dependencyStatus(key)).isPresent();
    }

    @ParameterizedTest
    @ValueSource(strings = {"payments", "api.example.com:443", "ftp://files.example.com", "https://user@api.example.com",
        "https://api.example.com/?tenant=1", "https://api.example.com/#top", "https:///path", "", "http://a b"})
    void aKeyThatCannotNameADependencyIsRejectedAtBuild_namingTheKey(String key) {
        ResilientHttpClient.Builder builder = ResilientHttpClient.newBuilder().delegate(delegate)
                .dependency(key, bulkheadOfOne());

        assertThatThrownBy(builder::build)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("dependency key '" + key + "' cannot name a dependency because ")
                .hasMessageContaining("'https://api.example.com:443'");
    }

    @Test
    void twoKeysNamingOneDependencyAreRejectedAtBuild() {
        ResilientHttpClient.Builder builder = ResilientHttpClient.newBuilder().delegate(delegate)
                .dependency("https://api.example.com", bulkheadOfOne())
                .dependency("https://api.example.com:443/", DependencyPolicy.ofDefaults());

        assertThatThrownBy(builder::build)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("both name the dependency 'https://api.example.com:443'");
    }

    @Test
    void withACustomResolver_keysAreTakenAsGiven() throws Exception {
        ResilientHttpClient client = ResilientHttpClient.newBuilder().delegate(delegate)
                .dependencyResolver(request -> "payments")
                .dependency("payments", bulkheadOfOne()).build();
        delegate.then(status(200));

        client.send(HttpRequest.newBuilder(URI.create("https://pay.example.com/")).build(), BodyHandlers.discarding());

        assertThat(client.dependencyStatus("payments").orElseThrow().maxConcurrentCalls()).isEqualTo(1);
    }

    @Test
    void aPolicyForAnotherHostNameOfTheSameOrigin_isCalledOutOnTheFirstCall() throws Exception {
        ResilientHttpClient client = ResilientHttpClient.newBuilder().delegate(delegate)
                .dependency("http://127.0.0.1:8089", bulkheadOfOne()).build();
        delegate.then(status(200));
        PrintStream originalErr = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try {
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            client.send(HttpRequest.newBuilder(URI.create("http://localhost:8089/")).build(), BodyHandlers.discarding());
        } finally {
            System.setErr(originalErr);
        }

        assertThat(captured.toString(StandardCharsets.UTF_8))
                .contains("WARN", "http://localhost:8089", "http://127.0.0.1:8089", "without DNS");
    }
}
