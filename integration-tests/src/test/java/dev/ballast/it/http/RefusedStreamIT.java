package dev.ballast.it.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.http.ReplayableBodyPublisher;
import dev.ballast.http.ResilientHttpClient;
import dev.ballast.http.idempotency.IdempotencyKeyConfig;
import dev.ballast.http.retry.Backoff;
import dev.ballast.http.retry.Jitter;
import dev.ballast.http.retry.RetryConfig;
import dev.ballast.testkit.LeakCheck;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * An HTTP/2 server that refuses streams ({@code RST_STREAM(REFUSED_STREAM)}, RFC 9113 §8.7) proves
 * it did not process them, so a non-idempotent request without an idempotency key is retried on
 * whichever JDK runs the test: JDK 17 surfaces the first refusal ("Received RST_STREAM: Stream not
 * processed"), later JDKs re-send once themselves and surface the second ("request not processed by
 * peer"). Either way the server processes the request exactly once.
 */
@Timeout(60)
@ExtendWith(LeakCheck.class)
class RefusedStreamIT {

    private RefusingH2cServer server;
    private ResilientHttpClient client;

    @AfterEach
    void stop() throws Exception {
        if (client != null) {
            client.shutdownNow();
        }
        if (server != null) {
            server.close();
        }
    }

    private ResilientHttpClient http2Client(IdempotencyKeyConfig keys) throws Exception {
        client = ResilientHttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_2)
                .idempotencyKeys(keys)
                .retry(RetryConfig.builder()
                        .maxAttempts(3)
                        .backoff(Backoff.exponential(Duration.ofMillis(5), Duration.ofMillis(20), Jitter.FULL))
                        .build())
                .build();
        // the first request upgrades the connection to h2c; every later one is an HTTP/2 stream on it
        HttpResponse<String> upgrade = client.send(
                HttpRequest.newBuilder(URI.create(server.baseUrl() + "/")).build(), BodyHandlers.ofString());
        assertThat(upgrade.version()).isEqualTo(HttpClient.Version.HTTP_2);
        return client;
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void postWithoutIdempotencyKeyRefusedTwiceIsRetriedAndProcessedOnce(Mode mode) throws Exception {
        server = new RefusingH2cServer(2);
        ResilientHttpClient http2 = http2Client(IdempotencyKeyConfig.builder()
                .policy(IdempotencyKeyConfig.Policy.NEVER)
                .build());
        HttpRequest post = HttpRequest.newBuilder(URI.create(server.baseUrl() + "/orders"))
                .POST(BodyPublishers.ofString("{\"item\":1}"))
                .build();

        HttpResponse<String> response = mode.call(http2, post, BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("ok");
        assertThat(server.refused.get()).isEqualTo(2);
        assertThat(server.answered.get()).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void putMarkedNonIdempotentRefusedIsRetriedAndProcessedOnce(Mode mode) throws Exception {
        server = new RefusingH2cServer(1);
        ResilientHttpClient http2 = http2Client(IdempotencyKeyConfig.ofDefaults());
        HttpRequest put = HttpRequest.newBuilder(URI.create(server.baseUrl() + "/bucket/key"))
                .PUT(ReplayableBodyPublisher.ofSupplier(() -> BodyPublishers.ofString("v2"), 2)
                        .nonIdempotent())
                .build();

        HttpResponse<String> response = mode.call(http2, put, BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(server.refused.get()).isEqualTo(1);
        assertThat(server.answered.get()).isEqualTo(1);
    }
}
