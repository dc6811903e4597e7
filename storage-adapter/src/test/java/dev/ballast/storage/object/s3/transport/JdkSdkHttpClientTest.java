package dev.ballast.storage.object.s3.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.http.ReplayableBodyPublisher;
import dev.ballast.testkit.LeakCheck;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpFullRequest;
import software.amazon.awssdk.http.SdkHttpMethod;

/** The SDK HTTP client contract for {@link JdkSdkHttpClient} straight over a JDK {@link HttpClient}, and its options. */
@ExtendWith(LeakCheck.class)
class JdkSdkHttpClientTest extends SdkHttpClientContract {

    @Override
    protected SdkHttpClient createSdkHttpClient(HttpClient transport) {
        return JdkSdkHttpClient.create(transport);
    }

    @Test
    void aResponseTimeoutSurfacesAsHttpTimeoutExceptionWithTheJdkCause() throws Exception {
        try (ScriptedServer server = ScriptedServer.silent()) {
            JdkSdkHttpClient client = JdkSdkHttpClient.builder(jdk)
                    .responseTimeout(Duration.ofMillis(300))
                    .build();
            ExecutableHttpRequest prepared = client.prepareRequest(HttpExecuteRequest.builder()
                    .request(requestTo(server.uri().toString(), SdkHttpMethod.GET))
                    .build());

            assertThatThrownBy(prepared::call)
                    .isInstanceOf(HttpTimeoutException.class)
                    .hasMessageContaining("GET " + server.uri())
                    .cause()
                    .isInstanceOf(HttpTimeoutException.class);
        }
    }

    @Test
    void theNonIdempotentEffectRuleMarksTheBodiesOfTheRequestsItHoldsFor() {
        JdkSdkHttpClient client = JdkSdkHttpClient.builder(jdk)
                .nonIdempotentEffect(r -> r.getUri().getPath().endsWith("/versioned"))
                .build();
        byte[] content = {1, 2, 3};

        HttpRequest marked = client.toJdkRequest(execute(SdkHttpMethod.PUT, "/b/versioned", content));
        HttpRequest markedEmpty = client.toJdkRequest(execute(SdkHttpMethod.PUT, "/b/versioned", new byte[0]));
        HttpRequest unmarked = client.toJdkRequest(execute(SdkHttpMethod.PUT, "/b/other", content));
        HttpRequest byDefault =
                JdkSdkHttpClient.create(jdk).toJdkRequest(execute(SdkHttpMethod.PUT, "/b/versioned", content));

        assertThat(marked.bodyPublisher())
                .get()
                .isInstanceOfSatisfying(
                        ReplayableBodyPublisher.class,
                        p -> assertThat(p.isNonIdempotent()).isTrue());
        assertThat(markedEmpty.bodyPublisher())
                .get()
                .isInstanceOfSatisfying(
                        ReplayableBodyPublisher.class,
                        p -> assertThat(p.isNonIdempotent()).isTrue());
        assertThat(markedEmpty.bodyPublisher().orElseThrow().contentLength()).isZero();
        assertThat(unmarked.bodyPublisher())
                .get()
                .isInstanceOfSatisfying(
                        ReplayableBodyPublisher.class,
                        p -> assertThat(p.isNonIdempotent()).isFalse());
        assertThat(byDefault.bodyPublisher())
                .get()
                .isInstanceOfSatisfying(
                        ReplayableBodyPublisher.class,
                        p -> assertThat(p.isNonIdempotent()).isFalse());
    }

    @Test
    void invalidOptionsAreRefusedNamingTheOption() {
        assertThatThrownBy(() -> JdkSdkHttpClient.create(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("httpClient");
        assertThatThrownBy(() -> JdkSdkHttpClient.builder(jdk).responseTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("responseTimeout");
        assertThatThrownBy(() -> JdkSdkHttpClient.builder(jdk).nonIdempotentEffect(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("rule");
    }

    private static HttpExecuteRequest execute(SdkHttpMethod method, String path, byte[] content) {
        SdkHttpFullRequest request = SdkHttpFullRequest.builder()
                .method(method)
                .uri(URI.create("http://localhost:9000" + path))
                .putHeader("Content-Length", String.valueOf(content.length))
                .build();
        return HttpExecuteRequest.builder()
                .request(request)
                .contentStreamProvider(content.length == 0 ? null : () -> new ByteArrayInputStream(content))
                .build();
    }
}
