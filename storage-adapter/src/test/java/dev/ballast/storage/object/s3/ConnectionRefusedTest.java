package dev.ballast.storage.object.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.http.ResilientHttpClient;
import dev.ballast.http.retry.Backoff;
import dev.ballast.http.retry.Jitter;
import dev.ballast.http.retry.RetryConfig;
import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.testkit.LeakCheck;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A refused connection, as the JDK's {@code HttpClient} reports it on the running JDK (a
 * {@code ConnectException} without a message around a {@code ClosedChannelException} on 17 and 25),
 * reads "connection refused" and names the endpoint, through the plain JDK client and through the
 * resilient one that retries it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ExtendWith(LeakCheck.class)
class ConnectionRefusedTest {

    private static URI refusingEndpoint() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return URI.create("http://127.0.0.1:" + socket.getLocalPort());
        }
    }

    private static S3Endpoint endpoint(URI uri, HttpClient http) {
        return S3Endpoint.newBuilder()
                .endpoint(uri)
                .region("us-east-1")
                .credentials("ak", "sk")
                .httpClient(http)
                .build();
    }

    @Test
    void openingAStoreWhoseEndpointRefusesConnectionsSaysSo() throws IOException {
        URI uri = refusingEndpoint();
        HttpClient jdk = HttpClient.newHttpClient();

        assertThatThrownBy(() -> S3ObjectStore.open(endpoint(uri, jdk), "bucket", S3StoreConfig.ofDefaults()))
                .isInstanceOfSatisfying(
                        StorageUnavailableException.class,
                        e -> assertThat(e.outcomeUnknown()).isFalse())
                .hasMessageContaining("connection refused")
                .hasMessageContaining(uri.toString())
                .hasMessageNotContaining("ClosedChannelException");
    }

    @Test
    void aRetriedRefusalThroughTheResilientClientSaysSoToo() throws IOException {
        URI uri = refusingEndpoint();
        try (ResilientHttpClient http = ResilientHttpClient.newBuilder()
                .retry(RetryConfig.builder()
                        .maxAttempts(2)
                        .backoff(Backoff.exponential(Duration.ofMillis(1), Duration.ofMillis(2), Jitter.FULL))
                        .build())
                .build()) {
            assertThatThrownBy(() -> StorageFacade.newBuilder()
                            .s3(endpoint(uri, http))
                            .bucket("bucket")
                            .build())
                    .isInstanceOfSatisfying(
                            StorageUnavailableException.class,
                            e -> assertThat(e.outcomeUnknown()).isFalse())
                    .hasMessageContaining("connection refused")
                    .hasMessageContaining(uri.toString())
                    .hasMessageNotContaining("ClosedChannelException");
        }
    }
}
