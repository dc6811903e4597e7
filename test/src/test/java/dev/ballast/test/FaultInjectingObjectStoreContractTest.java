package dev.ballast.test;

import dev.ballast.storage.object.ObjectStore;
import java.time.Clock;

/**
 * The public contract suite run as a user runs it, against the fault-injecting store with no rule
 * over the in-memory store: the wrapper changes nothing until told to.
 */
class FaultInjectingObjectStoreContractTest extends ObjectStoreContract {
    private FakeObjectStore fake;

    @Override
    protected ObjectStore newStore() {
        fake = new FakeObjectStore();
        return FaultInjectingObjectStore.wrap(fake);
    }

    @Override
    protected boolean has(Behaviour behaviour) {
        return behaviour != Behaviour.OBJECTS_OUTSIDE_TEST_HEAP;
    }

    @Override
    protected void plantObject(String key, byte[] bytes, String recordedSha256Hex) {
        fake.plant(key, bytes, recordedSha256Hex, 1);
    }

    @Override
    protected void plantForeignObject(String key, byte[] bytes) {
        fake.plant(key, bytes, null, 0);
    }

    @Override
    protected ObjectStore openAnotherWriter(Clock clock) {
        return FaultInjectingObjectStore.wrap(fake.anotherWriter(clock));
    }
}
