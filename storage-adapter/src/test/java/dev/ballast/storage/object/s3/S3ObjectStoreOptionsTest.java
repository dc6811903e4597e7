package dev.ballast.storage.object.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class S3ObjectStoreOptionsTest {

  @Test
  void defaultsAreTheDocumentedOnes() {
    S3ObjectStore.Options o = S3ObjectStore.Options.defaults();
    assertThat(o.multipartThreshold()).isEqualTo(16L * 1024 * 1024);
    assertThat(o.partSize()).isEqualTo(8L * 1024 * 1024);
    assertThat(o.createBucket()).isFalse();
    assertThat(o.enableVersioning()).isFalse();
    assertThat(o.allowDotSegmentsAndLeadingSlash()).isFalse();
    assertThat(o.staleReadAttempts()).isEqualTo(3);
    assertThat(o.staleReadBackoff()).isEqualTo(Duration.ofMillis(50));
    assertThat(o.toBuilder().createBucket(true).build().createBucket()).isTrue();
  }

  @Test
  void invalidOptionsNameTheSettingAndWhatIsAccepted() {
    assertThatThrownBy(() -> S3ObjectStore.Options.newBuilder().partSize(1024).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("partSize must be >= 5242880 ");
    assertThatThrownBy(() -> S3ObjectStore.Options.newBuilder().multipartThreshold(6L * 1024 * 1024).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("multipartThreshold must be >= partSize");
    assertThatThrownBy(() -> S3ObjectStore.Options.newBuilder().staleReadAttempts(0).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("staleReadAttempts must be >= 1 but was 0");
    assertThatThrownBy(() -> S3ObjectStore.Options.newBuilder().staleReadBackoff(Duration.ofMillis(-1)).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("staleReadBackoff");
    assertThatThrownBy(() -> S3ObjectStore.Options.newBuilder().clock(null))
        .isInstanceOf(NullPointerException.class).hasMessage("clock");
  }

  @Test
  void endpointDefaultsToPathStyleWithAnEndpointAndRejectsNonHttpUris() {
    S3Endpoint e = S3Endpoint.newBuilder().endpoint(URI.create("http://127.0.0.1:9000")).build();
    assertThat(e.pathStyle()).isTrue();
    assertThat(e.region()).isEqualTo("us-east-1");
    assertThat(e.checksumMode()).isEqualTo(S3Endpoint.ChecksumMode.AUTO);
    assertThat(e.httpClient()).isPresent();
    assertThat(S3Endpoint.newBuilder().build().pathStyle()).isFalse();
    assertThatThrownBy(() -> S3Endpoint.newBuilder().endpoint(URI.create("ftp://host")).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("http or https");
    assertThatThrownBy(() -> S3ObjectStore.open(e, " ", S3ObjectStore.Options.defaults()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bucket");
  }
}
