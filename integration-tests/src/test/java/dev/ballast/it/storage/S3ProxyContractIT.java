package dev.ballast.it.storage;

import dev.ballast.it.support.S3Backends;
import dev.ballast.storage.object.S3ObjectStoreContract;
import dev.ballast.storage.object.S3TestBackend;

/**
 * The object store contract against s3proxy (transient store), in-process, through the JDK-based
 * SdkHttpClient: covers what S3Mock does not (signature checks, payload digests, delete-marker
 * removal).
 */
class S3ProxyContractIT extends S3ObjectStoreContract {
    @Override
    protected S3TestBackend backend() {
        return S3Backends.s3Proxy();
    }
}
