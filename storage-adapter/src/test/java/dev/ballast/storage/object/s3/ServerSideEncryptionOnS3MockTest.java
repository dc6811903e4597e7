package dev.ballast.storage.object.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.storage.RequestRefusedException;
import dev.ballast.storage.UnsupportedCapabilityException;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.PutOptions;
import dev.ballast.storage.object.S3MockServer;
import dev.ballast.storage.object.ServerSideEncryption;
import dev.ballast.storage.object.StoreCapabilities.Feature;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/** SSE put options against S3Mock 5.2, declared: what it answers decides the outcome, and it is checked. */
class ServerSideEncryptionOnS3MockTest {

    private static S3ObjectStore open(EnumSet<S3StoreConfig.Capability> sse) {
        S3Endpoint endpoint = S3Endpoint.newBuilder()
                .endpoint(S3MockServer.endpoint())
                .region("us-east-1")
                .credentials("any-access-key", "any-secret-key")
                .build();
        return S3ObjectStore.open(
                endpoint,
                "sse-" + Long.toHexString(System.nanoTime()),
                S3StoreConfig.builder()
                        .createBucket(true)
                        .enableVersioning(true)
                        .serverSideEncryption(sse)
                        .build());
    }

    @Test
    void sseS3DeclaredIsAppliedReportedAndReadBack() {
        try (S3ObjectStore store = open(EnumSet.of(S3StoreConfig.Capability.SSE_S3))) {
            assertThat(store.capabilities().has(Feature.SSE_S3)).isTrue();
            byte[] bytes = {1, 2, 3};

            var v = store.put(
                    "k", ObjectContent.ofBytes(bytes), PutOptions.defaults().withEncryption(ServerSideEncryption.s3()));

            assertThat(v.encryption().kind()).isEqualTo(ServerSideEncryption.Kind.S3);
            try (var read = store.get("k")) {
                assertThat(read.readAllBytes()).isEqualTo(bytes);
                assertThat(read.version().encryption().kind()).isEqualTo(ServerSideEncryption.Kind.S3);
            }
            assertThat(store.head("k", v.versionId()).encryption()).isEqualTo(v.encryption());
        }
    }

    @Test
    void anSseKmsPutWhoseKeyTheEndpointDoesNotKnowIsRefusedAndStoresNothing() {
        // S3Mock knows no KMS key unless configured with one: it answers 400 KMS.NotFoundException.
        try (S3ObjectStore store = open(EnumSet.of(S3StoreConfig.Capability.SSE_KMS))) {
            assertThatThrownBy(() -> store.put(
                            "k",
                            ObjectContent.ofBytes(new byte[] {4}),
                            PutOptions.defaults().withEncryption(ServerSideEncryption.kms("alias/unknown"))))
                    .isInstanceOfSatisfying(
                            RequestRefusedException.class,
                            e -> assertThat(e.statusCode()).isEqualTo(400));
            assertThat(store.versions("k")).isEmpty();
        }
    }

    @Test
    void undeclaredEncryptionIsRefusedBeforeAnythingIsSent() {
        try (S3ObjectStore store = open(EnumSet.noneOf(S3StoreConfig.Capability.class))) {
            assertThatThrownBy(() -> store.put(
                            "k",
                            ObjectContent.ofBytes(new byte[1]),
                            PutOptions.defaults().withEncryption(ServerSideEncryption.kms("k1"))))
                    .isInstanceOf(UnsupportedCapabilityException.class)
                    .hasMessageContaining("capability SSE_KMS absent");
            assertThat(store.versions("k")).isEmpty();
        }
    }
}
