package dev.ballast.test;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One fault a {@link FaultInjectingObjectStore} injected: the how-manieth call of the store it hit
 * (1-based, counting every call the wrapper saw), which operation, the key (null for a listing) and
 * the fault.
 *
 * @param call the 1-based number of the call among all calls the wrapper saw
 * @param operation the operation the fault was injected into
 * @param key the key of the call, or null for {@code list} and {@code listVersions}
 * @param fault the fault injected
 */
public record InjectedFault(
        long call, StoreOperation operation, @Nullable String key, StoreFault fault) {
    public InjectedFault {
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(fault, "fault");
    }
}
