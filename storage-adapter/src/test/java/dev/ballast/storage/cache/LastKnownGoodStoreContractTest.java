package dev.ballast.storage.cache;

import dev.ballast.storage.object.FakeObjectStoreContractTest;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.test.FakeObjectStore;
import dev.ballast.testkit.LeakCheck;
import java.time.Clock;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The object store contract through the last-known-good cache over the in-memory store: while the
 * store is up, the cache must be invisible.
 */
@ExtendWith(LeakCheck.class)
class LastKnownGoodStoreContractTest extends FakeObjectStoreContractTest {
    @Override
    protected ObjectStore wrap(FakeObjectStore fake, Clock clock) {
        return LastKnownGoodStore.wrap(fake, LastKnownGoodConfig.ofDefaults(), clock);
    }
}
