package dev.ballast.storage.object;

import dev.ballast.test.FakeObjectStore;
import dev.ballast.testkit.LeakCheck;

/**
 * Enrols every {@link FakeObjectStore} in the running test's {@link LeakCheck}, which then fails a
 * test that leaves one of its read streams open. Found by the kit through
 * {@code META-INF/services/dev.ballast.test.FakeObjectStore$Listener}, so every module whose tests
 * have this module's test classes on their class path gets it.
 */
public final class LeakCheckEnrolment implements FakeObjectStore.Listener {
    @Override
    public void created(FakeObjectStore store) {
        LeakCheck.enrol(store::leaks);
    }
}
