package dev.ballast.it.http;

import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;
import dev.ballast.http.Await;
import dev.ballast.http.DependencyConfig;
import dev.ballast.http.DependencyStatus;
import dev.ballast.http.ResilientHttpClient;
import dev.ballast.http.budget.RetryBudgetConfig;
import dev.ballast.http.bulkhead.BulkheadConfig;
import dev.ballast.http.retry.Backoff;
import dev.ballast.http.retry.Jitter;
import dev.ballast.http.retry.RetryConfig;
import dev.ballast.testkit.LeakCheck;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * One WireMock server on a dynamic port per test, and the invariants every test must leave behind:
 * every bulkhead permit back, and exactly as many requests on the server as attempts we counted.
 */
@ExtendWith(LeakCheck.class)
abstract class WireMockSupport {

    protected WireMockServer server;
    protected RecordingListener listener;
    private final List<ResilientHttpClient> clients = new ArrayList<>();
    private final List<WireMockServer> servers = new ArrayList<>();

    @BeforeEach
    void startServer() {
        server = newServer();
        listener = new RecordingListener();
    }

    protected WireMockServer newServer() {
        WireMockServer s = new WireMockServer(wireMockConfig().dynamicPort());
        s.start();
        servers.add(s);
        return s;
    }

    @AfterEach
    void checkInvariantsAndStop() throws InterruptedException {
        try {
            for (ResilientHttpClient client : clients) {
                for (WireMockServer s : servers) {
                    Optional<DependencyStatus> status = client.dependencyStatus(dependency(s));
                    status.ifPresent(st -> awaitTrue(
                            "bulkhead permits of " + st.dependency() + " returned",
                            () -> client.dependencyStatus(st.dependency())
                                            .orElseThrow()
                                            .availableBulkheadPermits()
                                    == st.maxConcurrentCalls()));
                }
            }
        } finally {
            for (ResilientHttpClient client : clients) {
                client.shutdownNow();
            }
            servers.forEach(WireMockServer::stop);
        }
    }

    /** A client with a fresh JDK delegate (fresh connection pool) and quick, unjittered backoff. */
    protected ResilientHttpClient.Builder clientBuilder() {
        return ResilientHttpClient.newBuilder()
                .listener(listener)
                .retry(RetryConfig.builder()
                        .maxAttempts(3)
                        .backoff(Backoff.exponential(Duration.ofMillis(10), Duration.ofMillis(50), Jitter.FULL))
                        .build())
                .defaultDependency(DependencyConfig.builder()
                        .retryBudget(RetryBudgetConfig.disabled())
                        .build());
    }

    protected ResilientHttpClient track(ResilientHttpClient client) {
        clients.add(client);
        return client;
    }

    protected ResilientHttpClient client() {
        return track(clientBuilder().build());
    }

    protected static DependencyConfig bulkhead(int maxConcurrentCalls) {
        return DependencyConfig.builder()
                .bulkhead(BulkheadConfig.builder(maxConcurrentCalls).build())
                .retryBudget(RetryBudgetConfig.disabled())
                .build();
    }

    protected URI uri(String path) {
        return URI.create(server.baseUrl() + path);
    }

    protected HttpRequest httpGet(String path) {
        return HttpRequest.newBuilder(uri(path)).GET().build();
    }

    protected String dependency() {
        return dependency(server);
    }

    protected static String dependency(WireMockServer s) {
        return "http://localhost:" + s.port();
    }

    /** Requests the server received, oldest first. */
    protected List<ServeEvent> served() {
        List<ServeEvent> events = new ArrayList<>(server.getAllServeEvents());
        events.sort(Comparator.comparing(e -> e.getRequest().getLoggedDate()));
        return events;
    }

    protected void assertAttemptsEqualServedRequests() {
        awaitTrue(
                "server journal settled",
                () -> server.getAllServeEvents().size() >= listener.attemptsStarted.get() - listener.rejections.size());
        assertThat(server.getAllServeEvents())
                .as("requests the server saw vs attempts the client reported (rejections send nothing)")
                .hasSize(listener.attemptsStarted.get() - listener.rejections.size());
    }

    /** Bounded wait for a condition another thread establishes (the server's journal, a permit release). */
    protected static void awaitTrue(String what, BooleanSupplier condition) {
        Await.awaitTrue(what, condition);
    }
}
