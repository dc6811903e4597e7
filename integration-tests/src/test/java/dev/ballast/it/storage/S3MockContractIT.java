package dev.ballast.it.storage;

import dev.ballast.it.support.S3Backends;
import dev.ballast.storage.object.S3ObjectStoreContract;
import dev.ballast.storage.object.S3TestBackend;

/** The object store contract against S3Mock, in-process, through the JDK-based SdkHttpClient. */
class S3MockContractIT extends S3ObjectStoreContract {
    @Override
    protected S3TestBackend backend() {
        return S3Backends.s3Mock();
    }
}
