package dev.ballast.storage.object.s3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.http.ReplayableBodyPublisher;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.SdkHttpFullRequest;
import software.amazon.awssdk.http.SdkHttpMethod;

/**
 * Which S3 requests {@link JdkSdkHttpClient} marks as having a non-idempotent effect: in a versioned
 * bucket a repeated PutObject lands as a second version, so it must never be repeated after an
 * ambiguous failure, while a repeated UploadPart only replaces the same part.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class NonIdempotentEffectTest {

  private static SdkHttpFullRequest.Builder request(SdkHttpMethod method, String path) {
    return SdkHttpFullRequest.builder().method(method).uri(URI.create("http://localhost:9000" + path));
  }

  @Test
  void putObject_andCompleteMultipartUpload_areNonIdempotent_uploadPartAndReadsAreNot() {
    assertThat(JdkSdkHttpClient.nonIdempotentEffect(request(SdkHttpMethod.PUT, "/b/k").build())).isTrue();
    assertThat(JdkSdkHttpClient.nonIdempotentEffect(request(SdkHttpMethod.POST, "/b/k")
        .putRawQueryParameter("uploadId", "u1").build())).as("CompleteMultipartUpload").isTrue();
    assertThat(JdkSdkHttpClient.nonIdempotentEffect(request(SdkHttpMethod.PUT, "/b/k")
        .putRawQueryParameter("partNumber", "3").putRawQueryParameter("uploadId", "u1").build()))
        .as("UploadPart").isFalse();
    assertThat(JdkSdkHttpClient.nonIdempotentEffect(request(SdkHttpMethod.GET, "/b/k").build())).isFalse();
    assertThat(JdkSdkHttpClient.nonIdempotentEffect(request(SdkHttpMethod.HEAD, "/b/k").build())).isFalse();
  }

  @Test
  void preparedPutObject_carriesAReplayableBodyMarkedNonIdempotent_evenWhenEmpty() throws Exception {
    // given
    JdkSdkHttpClient client = JdkSdkHttpClient.create(HttpClient.newHttpClient());
    byte[] content = {1, 2, 3};
    var withContent = HttpExecuteRequest.builder()
        .request(request(SdkHttpMethod.PUT, "/b/k").putHeader("Content-Length", "3").build())
        .contentStreamProvider(() -> new ByteArrayInputStream(content)).build();
    var empty = HttpExecuteRequest.builder()
        .request(request(SdkHttpMethod.PUT, "/b/empty").putHeader("Content-Length", "0").build()).build();
    var part = HttpExecuteRequest.builder()
        .request(request(SdkHttpMethod.PUT, "/b/k").putHeader("Content-Length", "3")
            .putRawQueryParameter("partNumber", "1").putRawQueryParameter("uploadId", "u").build())
        .contentStreamProvider(() -> new ByteArrayInputStream(content)).build();

    // when
    HttpRequest put = client.toJdkRequest(withContent);
    HttpRequest putEmpty = client.toJdkRequest(empty);
    HttpRequest uploadPart = client.toJdkRequest(part);

    // then
    assertThat(put.bodyPublisher()).get().isInstanceOfSatisfying(ReplayableBodyPublisher.class,
        p -> assertThat(p.isNonIdempotent()).isTrue());
    assertThat(putEmpty.bodyPublisher()).get().isInstanceOfSatisfying(ReplayableBodyPublisher.class,
        p -> assertThat(p.isNonIdempotent()).isTrue());
    assertThat(putEmpty.bodyPublisher().get().contentLength()).isZero();
    assertThat(uploadPart.bodyPublisher()).get().isInstanceOfSatisfying(ReplayableBodyPublisher.class,
        p -> assertThat(p.isNonIdempotent()).isFalse());
  }
}
