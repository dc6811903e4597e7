package dev.ballast.http.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.http.ReplayableBodyPublisher;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.net.http.HttpRequest.BodyPublishers;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Flow;
import java.util.concurrent.SubmissionPublisher;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Timeout(10)
class RequestsTest {

    private static HttpRequest put(BodyPublisher body) {
        return HttpRequest.newBuilder(URI.create("https://example.com/x"))
                .PUT(body)
                .build();
    }

    @Test
    void hasHeaderAnswersAsFirstValueDoesWhateverTheCase() {
        HttpRequest keyed = HttpRequest.newBuilder(URI.create("https://example.com/x"))
                .header("Idempotency-Key", "k-1")
                .build();
        HttpRequest plain =
                HttpRequest.newBuilder(URI.create("https://example.com/x")).build();

        for (String name : List.of("Idempotency-Key", "idempotency-key", "IDEMPOTENCY-KEY", "X-Other")) {
            assertThat(Requests.hasHeader(keyed, name))
                    .as(name)
                    .isEqualTo(keyed.headers().firstValue(name).isPresent());
            assertThat(Requests.hasHeader(plain, name)).as(name).isFalse();
        }
        assertThat(Requests.hasHeader(keyed, "idempotency-key")).isTrue();
    }

    @Test
    void bodyReplayableForBodiesTheJdkCanReEmit(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("body.txt"), "file body");

        assertThat(Requests.bodyReplayable(HttpRequest.newBuilder(URI.create("https://example.com/"))
                        .build()))
                .isTrue();
        assertThat(Requests.bodyReplayable(put(BodyPublishers.noBody()))).isTrue();
        assertThat(Requests.bodyReplayable(put(BodyPublishers.ofString("s")))).isTrue();
        assertThat(Requests.bodyReplayable(put(BodyPublishers.ofByteArray(new byte[] {1, 2, 3}))))
                .isTrue();
        assertThat(Requests.bodyReplayable(put(BodyPublishers.ofByteArray(new byte[] {1, 2, 3}, 1, 2))))
                .isTrue();
        assertThat(Requests.bodyReplayable(put(BodyPublishers.ofFile(file)))).isTrue();
    }

    @Test
    void bodyReplayableIsFalseForOneShotBodiesUnlessWrapped() {
        BodyPublisher stream = BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(new byte[] {1}));
        BodyPublisher adapted = BodyPublishers.fromPublisher(new SubmissionPublisher<ByteBuffer>(), 1);
        BodyPublisher chunks = BodyPublishers.ofByteArrays(List.of(new byte[] {1}));

        assertThat(Requests.bodyReplayable(put(stream))).isFalse();
        assertThat(Requests.bodyReplayable(put(adapted))).isFalse();
        assertThat(Requests.bodyReplayable(put(chunks))).isFalse();
        assertThat(Requests.bodyReplayable(put(ReplayableBodyPublisher.of(chunks))))
                .isTrue();
        assertThat(Requests.bodyReplayable(put(ReplayableBodyPublisher.ofSupplier(() -> stream, -1))))
                .isTrue();
    }

    @ParameterizedTest
    @CsvSource({
        "https://Example.COM/a?b=c, https://example.com:443",
        "http://example.com/, http://example.com:80",
        "http://example.com:8080/p, http://example.com:8080",
        "https://[::1]:8443/p, https://[::1]:8443"
    })
    void defaultDependencyIsSchemeHostPortWithDefaultPorts(String uri, String expected) {
        assertThat(Requests.defaultDependency(
                        HttpRequest.newBuilder(URI.create(uri)).build()))
                .isEqualTo(expected);
    }

    @Test
    void loggablePathDropsQueryAndFragment() {
        HttpRequest request = HttpRequest.newBuilder(
                        URI.create("https://s3.example.com/bucket/key%20x?X-Amz-Signature=secret#frag"))
                .build();

        assertThat(Requests.loggablePath(request)).isEqualTo("/bucket/key%20x");
        assertThat(Requests.loggablePath(
                        HttpRequest.newBuilder(URI.create("https://a.example")).build()))
                .isEqualTo("/");
    }

    @Test
    void withHeaderCopiesEverythingAndSetsTheKey() {
        BodyPublisher body = BodyPublishers.ofString("b");
        HttpRequest original = HttpRequest.newBuilder(URI.create("https://example.com/orders"))
                .POST(body)
                .header("Authorization", "Bearer t")
                .timeout(Duration.ofSeconds(7))
                .expectContinue(true)
                .version(java.net.http.HttpClient.Version.HTTP_1_1)
                .build();

        HttpRequest copy = Requests.withHeader(original, "Idempotency-Key", "k-1");

        assertThat(copy.method()).isEqualTo("POST");
        assertThat(copy.uri()).isEqualTo(original.uri());
        assertThat(copy.bodyPublisher()).containsSame(body);
        assertThat(copy.timeout()).contains(Duration.ofSeconds(7));
        assertThat(copy.expectContinue()).isTrue();
        assertThat(copy.version()).isEqualTo(original.version());
        assertThat(copy.headers().firstValue("Authorization")).contains("Bearer t");
        assertThat(copy.headers().allValues("Idempotency-Key")).containsExactly("k-1");
    }

    @Test
    void replayableSupplierCreatesAFreshPublisherPerSubscription() {
        AtomicInteger created = new AtomicInteger();
        ReplayableBodyPublisher body = ReplayableBodyPublisher.ofSupplier(
                () -> {
                    created.incrementAndGet();
                    return BodyPublishers.ofString("abc");
                },
                3);
        Flow.Subscriber<ByteBuffer> cancelling = new Flow.Subscriber<>() {
            @Override
            public void onSubscribe(Flow.Subscription subscription) {
                subscription.cancel();
            }

            @Override
            public void onNext(ByteBuffer item) {}

            @Override
            public void onError(Throwable throwable) {}

            @Override
            public void onComplete() {}
        };

        body.subscribe(cancelling);
        body.subscribe(cancelling);

        assertThat(created).hasValue(2);
        assertThat(body.contentLength()).isEqualTo(3);
    }
}
