package dev.ballast.it.storage;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ballast.it.support.S3Backends;
import dev.ballast.storage.object.S3ObjectStoreContract;
import dev.ballast.storage.object.S3TestBackend;
import java.util.Optional;

/**
 * The object store contract against the endpoint named by {@code BALLAST_S3_ENDPOINT} (with
 * {@code BALLAST_S3_ACCESS_KEY}, {@code BALLAST_S3_SECRET_KEY}, {@code BALLAST_S3_REGION}, and
 * {@code BALLAST_S3_NAME} for test output); starts
 * nothing. Each test creates and removes its own bucket there. Every case is skipped, with the
 * reason, when the variable is unset.
 */
class EnvEndpointContractIT extends S3ObjectStoreContract {

    @Override
    protected S3TestBackend backend() {
        Optional<S3TestBackend> backend = S3Backends.fromEnvironment(System.getenv());
        assumeTrue(
                backend.isPresent(),
                S3Backends.ENDPOINT_VARIABLE + " is not set, so there is no external endpoint to run against");
        return backend.orElseThrow();
    }
}
