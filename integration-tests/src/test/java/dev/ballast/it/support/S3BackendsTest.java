package dev.ballast.it.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class S3BackendsTest {

  @Test
  void minioUnavailableReason_whenAnotherBackendIsNamed_skipsWithoutAskingDocker() {
    // given / when
    var reason = S3Backends.minioUnavailableReason(Map.of(S3Backends.BACKEND_VARIABLE, "s3mock"));

    // then
    assertThat(reason).hasValueSatisfying(r -> assertThat(r).contains("BALLAST_S3_BACKEND=s3mock"));
  }

  @Test
  void minioUnavailableReason_withoutVariable_dependsOnlyOnDocker() {
    // given
    boolean docker = dockerAnswers();

    // when
    var reason = S3Backends.minioUnavailableReason(Map.of());

    // then: MinIO runs wherever Docker answers, and the skip reason names the missing engine
    if (docker) {
      assertThat(reason).isEmpty();
    } else {
      assertThat(reason).hasValueSatisfying(r -> assertThat(r).contains("Docker engine").doesNotContain("was set"));
    }
  }

  @Test
  void minioUnavailableReason_whenMinioIsAskedForWithoutDocker_saysItWasAskedFor() {
    // given
    boolean docker = dockerAnswers();

    // when
    var reason = S3Backends.minioUnavailableReason(Map.of(S3Backends.BACKEND_VARIABLE, "minio"));

    // then
    if (docker) {
      assertThat(reason).isEmpty();
    } else {
      assertThat(reason).hasValueSatisfying(r -> assertThat(r).contains("BALLAST_S3_BACKEND=minio was set"));
    }
  }

  private static boolean dockerAnswers() {
    try {
      return org.testcontainers.DockerClientFactory.instance().isDockerAvailable();
    } catch (RuntimeException | LinkageError e) {
      return false;
    }
  }
}
