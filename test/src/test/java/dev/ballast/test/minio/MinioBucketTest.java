package dev.ballast.test.minio;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectVersion;
import org.junit.jupiter.api.Test;

/**
 * What can be checked without Docker runs everywhere; the container itself only where a Docker
 * engine answers (skipped elsewhere, with the reason naming Docker).
 */
class MinioBucketTest {

    @Test
    void withoutADockerEngineTheReasonNamesDockerAndStartRefusesSaying() {
        assumeTrue(MinioBucket.unavailableReason().isPresent(), "a Docker engine answers here");

        assertThat(MinioBucket.unavailableReason())
                .hasValueSatisfying(r -> assertThat(r).contains("Docker engine"));
        assertThatThrownBy(MinioBucket::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Docker engine")
                .hasMessageContaining("MinioBucket.assumeDocker()");
    }

    @Test
    void aStartedBucketIsVersionedBehindAFacade() {
        MinioBucket.assumeDocker();
        try (MinioBucket minio = MinioBucket.start();
                StorageFacade storage = minio.facade("kit-test")) {
            ObjectVersion v1 = storage.objects().put("k", ObjectContent.ofBytes("one".getBytes(UTF_8)));
            ObjectVersion v2 = storage.objects().put("k", ObjectContent.ofBytes("two".getBytes(UTF_8)));

            assertThat(storage.objects().versions("k"))
                    .extracting(v -> v.versionId())
                    .containsExactly(v2.versionId(), v1.versionId());
            assertThat(storage.capabilities().endpoint()).isEqualTo(minio.uri());
            assertThat(storage.capabilities().versioningEnabled()).isTrue();
        }
    }
}
