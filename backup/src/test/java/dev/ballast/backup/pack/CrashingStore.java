package dev.ballast.backup.pack;

import dev.ballast.storage.object.ObjectStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An {@link ObjectStore} over another that "crashes" (throws, and lets nothing more through) at its
 * {@code n}-th write or delete: the process dying between two steps, as far as the store can tell.
 */
final class CrashingStore {
    static final Set<String> MUTATIONS =
            Set.of("put", "putIfAbsent", "putIfMatch", "putAsync", "delete", "deleteVersion");

    /** Thrown in place of the write the crash stops. */
    static final class Crash extends RuntimeException {
        Crash() {
            super("simulated crash");
        }
    }

    private CrashingStore() {}

    /** A store whose writes from the {@code allowed + 1}-th on throw {@link Crash}; {@code count} counts writes let through. */
    static ObjectStore over(ObjectStore delegate, int allowed, AtomicInteger count) {
        AtomicInteger seen = new AtomicInteger();
        boolean[] dead = {false};
        return (ObjectStore) Proxy.newProxyInstance(
                ObjectStore.class.getClassLoader(), new Class<?>[] {ObjectStore.class}, (proxy, method, args) -> {
                    if (MUTATIONS.contains(method.getName())) {
                        synchronized (dead) {
                            if (dead[0] || seen.incrementAndGet() > allowed) {
                                dead[0] = true;
                                throw new Crash();
                            }
                        }
                        count.incrementAndGet();
                    }
                    try {
                        return method.invoke(delegate, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
