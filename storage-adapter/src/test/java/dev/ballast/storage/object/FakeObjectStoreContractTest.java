package dev.ballast.storage.object;

import dev.ballast.test.FakeObjectStore;
import dev.ballast.test.ObjectStoreContract;
import dev.ballast.testkit.LeakCheck;
import java.time.Clock;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The object store contract against the in-memory fake the unit tests use, so it cannot drift from
 * the contract; a subclass runs it through a wrapper of the fake with {@link #wrap}.
 */
@ExtendWith(LeakCheck.class)
public class FakeObjectStoreContractTest extends ObjectStoreContract {
    private FakeObjectStore fake;

    /** A new, empty fake; one that honours both conditional writes here. */
    protected FakeObjectStore newFake() {
        return new FakeObjectStore();
    }

    /** The store under test over {@code fake}, whose wall clock is {@code clock}; the fake itself here. */
    protected ObjectStore wrap(FakeObjectStore fake, Clock clock) {
        return fake;
    }

    @Override
    protected ObjectStore newStore() {
        fake = newFake();
        return wrap(fake, Clock.systemUTC());
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
    protected void damageStoredByte(String key, long offset) {
        fake.rotByte(key, offset);
    }

    @Override
    protected void plantForeignObject(String key, byte[] bytes) {
        fake.plant(key, bytes, null, 0);
    }

    @Override
    protected ObjectStore openAnotherWriter(Clock clock) {
        return wrap(fake.anotherWriter(clock), clock);
    }
}
