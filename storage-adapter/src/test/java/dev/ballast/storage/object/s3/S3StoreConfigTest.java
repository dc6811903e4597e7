package dev.ballast.storage.object.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.storage.object.s3.S3StoreConfig.Capability;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
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
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("partSize must be >= 5242880 ");
        assertThatThrownBy(() -> S3StoreConfig.builder()
                        .multipartThreshold(6L * 1024 * 1024)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("multipartThreshold must be >= partSize");
        assertThatThrownBy(() -> S3StoreConfig.builder().staleReadAttempts(0).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("staleReadAttempts must be >= 1 but was 0");
        assertThatThrownBy(() ->
                        S3StoreConfig.builder().conditionalConflictAttempts(0).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("conditionalConflictAttempts must be >= 1 but was 0");
        assertThatThrownBy(() -> S3StoreConfig.builder()
                        .staleReadBackoff(Duration.ofMillis(-1))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("staleReadBackoff");
        assertThatThrownBy(() -> S3StoreConfig.builder().clock(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("clock");
    }

    @Test
    void declaredCapabilitiesAreKeptAndNeverCombinedWithWhatOnlyTheProbeDoes() {
        assertThat(S3StoreConfig.ofDefaults().declaredCapabilities())
                .as("probe by default")
                .isEmpty();
        S3StoreConfig declared = S3StoreConfig.builder()
                .declaredCapabilities(EnumSet.of(Capability.PUT_IF_MATCH, Capability.PUT_IF_ABSENT))
                .build();
        assertThat(declared.declaredCapabilities()).contains(Set.of(Capability.PUT_IF_ABSENT, Capability.PUT_IF_MATCH));
        assertThat(declared.toBuilder().build().declaredCapabilities()).isEqualTo(declared.declaredCapabilities());
        assertThat(declared.toBuilder().declaredCapabilities(null).build().declaredCapabilities())
                .isEmpty();
        assertThat(S3StoreConfig.builder()
                        .declaredCapabilities(Set.of())
                        .build()
                        .declaredCapabilities())
                .contains(Set.of());

        assertThatThrownBy(() -> declared.toBuilder().createBucket(true).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("declaredCapabilities skips the capability probe")
                .hasMessageContaining("createBucket(true)");
        assertThatThrownBy(() -> declared.toBuilder().enableVersioning(true).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("enableVersioning(true)");
    }
}
