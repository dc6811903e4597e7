package dev.ballast.it.storage;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ballast.it.support.S3Backends;
import dev.ballast.storage.object.S3ObjectStoreContract;
import dev.ballast.storage.object.S3TestBackend;
import java.util.Optional;

/**
 * The object store contract against MinIO in a container (image pinned in
 * {@link S3Backends#MINIO_IMAGE}); every case is skipped, with the reason, where no Docker engine
 * answers or {@code BALLAST_S3_BACKEND} names another backend.
 */
class MinioContractIT extends S3ObjectStoreContract {

    @Override
    protected S3TestBackend backend() {
        Optional<String> reason = S3Backends.minioUnavailableReason(System.getenv());
        assumeTrue(reason.isEmpty(), () -> reason.orElse(""));
        return S3Backends.minio();
    }
}
