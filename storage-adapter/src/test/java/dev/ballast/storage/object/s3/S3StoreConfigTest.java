package dev.ballast.storage.object.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class S3StoreConfigTest {

  @Test
  void defaultsAreTheDocumentedOnes() {
    S3StoreConfig c = S3StoreConfig.ofDefaults();
    assertThat(c.multipartThreshold()).isEqualTo(16L * 1024 * 1024);
    assertThat(c.partSize()).isEqualTo(8L * 1024 * 1024);
    assertThat(c.createBucket()).isFalse();
    assertThat(c.enableVersioning()).isFalse();
    assertThat(c.allowDotSegmentsAndLeadingSlash()).isFalse();
    assertThat(c.staleReadAttempts()).isEqualTo(3);
    assertThat(c.staleReadBackoff()).isEqualTo(Duration.ofMillis(50));
    assertThat(c.conditionalConflictAttempts()).isEqualTo(3);
  }

  @Test
  void toBuilderStartsFromTheSettingsAndBuildSharesNothingWithTheBuilder() {
    S3StoreConfig.Builder builder = S3StoreConfig.ofDefaults().toBuilder().createBucket(true);
    S3StoreConfig first = builder.build();

    builder.enableVersioning(true).partSize(6L * 1024 * 1024);

    assertThat(first.createBucket()).isTrue();
    assertThat(first.enableVersioning()).isFalse();
    assertThat(first.partSize()).isEqualTo(S3StoreConfig.DEFAULT_PART_SIZE);
    assertThat(builder.build().enableVersioning()).isTrue();
    assertThat(S3StoreConfig.ofDefaults().createBucket()).isFalse();
  }

  @Test
  void invalidSettingsNameTheSettingAndWhatIsAccepted() {
    assertThatThrownBy(() -> S3StoreConfig.builder().partSize(1024).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("partSize must be >= 5242880 ");
    assertThatThrownBy(() -> S3StoreConfig.builder().multipartThreshold(6L * 1024 * 1024).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("multipartThreshold must be >= partSize");
    assertThatThrownBy(() -> S3StoreConfig.builder().staleReadAttempts(0).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("staleReadAttempts must be >= 1 but was 0");
    assertThatThrownBy(() -> S3StoreConfig.builder().conditionalConflictAttempts(0).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("conditionalConflictAttempts must be >= 1 but was 0");
    assertThatThrownBy(() -> S3StoreConfig.builder().staleReadBackoff(Duration.ofMillis(-1)).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("staleReadBackoff");
    assertThatThrownBy(() -> S3StoreConfig.builder().clock(null))
        .isInstanceOf(NullPointerException.class).hasMessage("clock");
  }
}
