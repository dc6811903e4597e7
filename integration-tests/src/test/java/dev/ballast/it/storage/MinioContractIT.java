package dev.ballast.it.storage;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ballast.it.support.S3Backends;
import dev.ballast.storage.object.ObjectStoreContract;
import dev.ballast.storage.object.S3TestBackend;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;

/**
 * The object store contract against MinIO in a container (image pinned in
 * {@link S3Backends#MINIO_IMAGE}); skipped, with the reason, unless {@code BALLAST_S3_BACKEND=minio}
 * and a Docker engine answers.
 */
class MinioContractIT extends ObjectStoreContract {

  @BeforeAll
  static void requireMinio() {
    Optional<String> reason = S3Backends.minioUnavailableReason(System.getenv());
    assumeTrue(reason.isEmpty(), () -> reason.orElse(""));
  }

  @Override
  protected S3TestBackend backend() {
    return S3Backends.minio();
  }
}
