package dev.ballast.test;

import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * Prints one line per skipped contract case with its reason, so a build log shows which capability a
 * store lacks without opening the test reports: {@code [Ceph RGW] skipped putIfAbsentCreatesOnceThenRefuses:
 * Ceph RGW does not honour If-None-Match: * ...}. A store that is not there at all (MinIO without
 * Docker) skips every case for one reason, printed once.
 */
public final class SkipReasons implements TestWatcher {
    private static final Set<String> ABSENT = ConcurrentHashMap.newKeySet();

    @Override
    public void testAborted(ExtensionContext context, Throwable cause) {
        String reason = reason(cause);
        String store;
        try {
            store = context.getTestInstance()
                    .filter(ObjectStoreContract.class::isInstance)
                    .map(t -> ((ObjectStoreContract) t).storeName())
                    .orElse(context.getRequiredTestClass().getSimpleName());
        } catch (RuntimeException storeNotThere) {
            // The store is not there at all (its backend's own assumption failed): every case is skipped
            // for that one reason, which is printed once.
            if (!ABSENT.add(context.getRequiredTestClass().getName())) {
                return;
            }
            store = context.getRequiredTestClass().getSimpleName();
        }
        System.out.println(
                "[" + store + "] skipped " + context.getRequiredTestMethod().getName() + ": " + reason);
    }

    @Override
    public void testDisabled(ExtensionContext context, Optional<String> reason) {
        System.out.println("[" + context.getRequiredTestClass().getSimpleName() + "] disabled "
                + context.getRequiredTestMethod().getName() + ": " + reason.orElse("no reason given"));
    }

    /** The assumption's own words: AssertJ wraps them as "assumption was not met due to: [...]". */
    static String reason(Throwable cause) {
        String message = String.valueOf(cause.getMessage()).strip();
        int open = message.indexOf('[');
        int close = message.indexOf("] \n");
        if (message.startsWith("assumption was not met due to: [") && close > open) {
            return message.substring(open + 1, close);
        }
        return message.lines().findFirst().orElse(message);
    }
}
