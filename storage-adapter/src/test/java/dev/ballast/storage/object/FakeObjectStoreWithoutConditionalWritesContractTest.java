package dev.ballast.storage.object;

import dev.ballast.test.FakeObjectStore;
import java.net.URI;

/**
 * The object store contract against the in-memory fake playing a store that honours neither
 * conditional write (as Ceph RGW 16 in a versioned bucket): conditional writes are refused before
 * anything is written, and concurrent plain writers still lose no acknowledged update.
 */
class FakeObjectStoreWithoutConditionalWritesContractTest extends FakeObjectStoreContractTest {
    @Override
    protected FakeObjectStore newFake() {
        return new FakeObjectStore(
                new StoreCapabilities(URI.create("http://fake-s3.test:9000"), "bucket", true, false, false, false));
    }
}
