package dev.ballast.it.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class S3BackendsTest {

    @Test
    void anEndpointFromTheEnvironmentCarriesItsNameAndCredentialsAndNeedsBothKeys() {
        Map<String, String> env = Map.of(
                "BALLAST_S3_ENDPOINT",
                "http://127.0.0.1:18080",
                "BALLAST_S3_ACCESS_KEY",
                "ak",
                "BALLAST_S3_SECRET_KEY",
                "sk",
                "BALLAST_S3_NAME",
                "Ceph RGW");

        var backend = S3Backends.fromEnvironment(env).orElseThrow();

        assertThat(backend.name()).isEqualTo("Ceph RGW");
        assertThat(backend.endpoint()).hasToString("http://127.0.0.1:18080");
        assertThat(backend.region()).isEqualTo("us-east-1");
        assertThat(S3Backends.fromEnvironment(Map.of(
                                "BALLAST_S3_ENDPOINT",
                                "http://127.0.0.1:18080",
                                "BALLAST_S3_ACCESS_KEY",
                                "ak",
                                "BALLAST_S3_SECRET_KEY",
                                "sk"))
                        .orElseThrow()
                        .name())
                .isEqualTo("env endpoint");
        assertThat(S3Backends.fromEnvironment(Map.of())).isEmpty();
        assertThatThrownBy(() -> S3Backends.fromEnvironment(
                        Map.of("BALLAST_S3_ENDPOINT", "http://127.0.0.1:18080", "BALLAST_S3_ACCESS_KEY", "ak")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("BALLAST_S3_SECRET_KEY");
    }

    @Test
    void minioUnavailableReasonWhenAnotherBackendIsNamedSkipsWithoutAskingDocker() {
        // given / when
        var reason = S3Backends.minioUnavailableReason(Map.of(S3Backends.BACKEND_VARIABLE, "s3mock"));

        // then
        assertThat(reason).hasValueSatisfying(r -> assertThat(r).contains("BALLAST_S3_BACKEND=s3mock"));
    }

    @Test
    void minioUnavailableReasonWithoutVariableDependsOnlyOnDocker() {
        // given
        boolean docker = dockerAnswers();

        // when
        var reason = S3Backends.minioUnavailableReason(Map.of());

        // then: MinIO runs wherever Docker answers, and the skip reason names the missing engine
        if (docker) {
            assertThat(reason).isEmpty();
        } else {
            assertThat(reason)
                    .hasValueSatisfying(
                            r -> assertThat(r).contains("Docker engine").doesNotContain("was set"));
        }
    }

    @Test
    void minioUnavailableReasonWhenMinioIsAskedForWithoutDockerSaysItWasAskedFor() {
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
