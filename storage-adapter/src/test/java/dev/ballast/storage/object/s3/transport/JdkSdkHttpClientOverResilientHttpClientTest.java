package dev.ballast.storage.object.s3.transport;

import dev.ballast.http.ResilientHttpClient;
import dev.ballast.http.retry.Backoff;
import dev.ballast.http.retry.Jitter;
import dev.ballast.http.retry.RetryConfig;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpMethod;

/**
 * The SDK HTTP client contract for {@link JdkSdkHttpClient} over a {@link ResilientHttpClient}, the
 * stack the object store uses by default: the resilient layer must not change what goes on the wire.
 */
class JdkSdkHttpClientOverResilientHttpClientTest extends SdkHttpClientContract {
    private static final int MAX_ATTEMPTS = 3;

    /** One resilient client per transport, shut down after the test (it forwards to the transport on JDK 21+). */
    private final Map<HttpClient, ResilientHttpClient> resilientClients = new IdentityHashMap<>();

    @Override
    protected SdkHttpClient createSdkHttpClient(HttpClient transport) {
        return JdkSdkHttpClient.create(resilientClients.computeIfAbsent(
                transport,
                t -> ResilientHttpClient.newBuilder()
                        .delegate(t)
                        .retry(RetryConfig.builder()
                                .maxAttempts(MAX_ATTEMPTS)
                                .backoff(Backoff.exponential(Duration.ofMillis(1), Duration.ofMillis(1), Jitter.NONE))
                                .build())
                        .build()));
    }

    /** The resilient layer retries a 5xx answer (POST carries its idempotency key), up to its attempts. */
    @Override
    protected int transmissionsOf(SdkHttpMethod method, int status) {
        return status >= 500 ? MAX_ATTEMPTS : 1;
    }

    @AfterEach
    void shutDownResilientClients() {
        resilientClients.values().forEach(ResilientHttpClient::shutdownNow);
        resilientClients.clear();
    }
}
