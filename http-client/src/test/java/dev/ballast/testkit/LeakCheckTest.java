package dev.ballast.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.http.ForwardingHttpClient;
import dev.ballast.http.ResilientHttpClient;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The leak check fails a test for each kind of leak it knows, and passes once the leak is gone. */
@Timeout(30)
class LeakCheckTest {

    private final LeakCheck check = new LeakCheck(Duration.ofMillis(50));

    @Test
    void aNonDaemonThreadTheTestStartedAndLeftRunningFailsTheTest() throws InterruptedException {
        check.begin();
        CountDownLatch release = new CountDownLatch(1);
        Thread worker = startWaiting("left-running", release);

        assertThatThrownBy(check::verify)
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("non-daemon thread 'left-running' still running");

        release.countDown();
        worker.join();
        check.verify();
    }

    @Test
    void aThreadRunningBeforeTheTestOrStartedByASharedFixtureIsNotCharged() throws InterruptedException {
        CountDownLatch release = new CountDownLatch(2);
        Thread earlier = startWaiting("earlier", release);
        check.begin();
        Thread shared = LeakCheck.sharedFixture(() -> startWaiting("shared", release));
        try {
            check.verify();
        } finally {
            release.countDown();
            release.countDown();
            earlier.join();
            shared.join();
        }
    }

    @Test
    void aResponseBodyLeftOpenFailsTheTest() throws IOException {
        check.begin();
        InputStream body = check.watch(new ByteArrayInputStream(new byte[] {1, 2, 3}));
        assertThat(body.read()).isEqualTo(1);

        assertThatThrownBy(check::verify).hasMessageContaining("response body").hasMessageContaining("not closed");

        body.close();
        check.verify();
    }

    @Test
    void aCallStillInFlightFailsTheTest() {
        check.begin();
        CompletableFuture<HttpResponse<Void>> answer = new CompletableFuture<>();
        HttpClient neverAnswering = new ForwardingHttpClient() {
            private final HttpClient configuration = HttpClient.newBuilder().build();

            @Override
            protected HttpClient delegate() {
                return configuration;
            }

            @Override
            @SuppressWarnings("unchecked")
            public <T> CompletableFuture<HttpResponse<T>> sendAsync(
                    HttpRequest request, HttpResponse.BodyHandler<T> handler) {
                return (CompletableFuture<HttpResponse<T>>) (CompletableFuture<?>) answer;
            }
        };
        ResilientHttpClient client = check.watch(
                ResilientHttpClient.newBuilder().delegate(neverAnswering).build(), "http://api.test:80");
        try {
            CompletableFuture<HttpResponse<Void>> call = client.sendAsync(
                    HttpRequest.newBuilder(URI.create("http://api.test/x")).build(),
                    HttpResponse.BodyHandlers.discarding());

            assertThatThrownBy(check::verify)
                    .hasMessageContaining("http://api.test:80 has 1 attempt(s) in flight")
                    .hasMessageContaining("a call still in flight");

            call.cancel(true);
            check.verify();
        } finally {
            client.shutdownNow();
        }
    }

    @Test
    void anythingWatchedThatReportsALeakFailsTheTestWithItsSentence() {
        check.begin();
        StringBuilder state = new StringBuilder("2 read streams not closed");
        check.watch(() -> state.length() == 0 ? null : state.toString());

        assertThatThrownBy(check::verify).hasMessageContaining("2 read streams not closed");

        state.setLength(0);
        check.verify();
    }

    private static Thread startWaiting(String name, CountDownLatch release) {
        Thread t = new Thread(
                () -> {
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                name);
        t.start();
        return t;
    }
}
