package dev.ballast.storage.chaos;

import dev.ballast.http.chaos.ChaosPolicy;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.PutOptions;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.StoreCapabilities;
import dev.ballast.storage.object.VersionEntry;
import java.io.IOException;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * An {@link ObjectStore} that injects a {@link ChaosPolicy}'s faults into the calls it passes to
 * another, as the store's own failures: {@link ChaosPolicy.Fault#LATENCY} delays the call (blocking
 * the caller), {@link ChaosPolicy.Fault#UNAVAILABLE} fails it as an HTTP 503 SlowDown
 * ({@link StorageUnavailableException}, nothing stored, {@code outcomeUnknown()} false) and
 * {@link ChaosPolicy.Fault#RESET} as a broken connection ({@code outcomeUnknown()} true, the store
 * not called). The facade puts it under its last-known-good cache when given a policy
 * ({@code StorageFacade.Builder.chaos}), so injected failures degrade reads visibly as real ones do.
 * {@code capabilities}, {@code confirmsWrites} and {@code prepareWrites} are never faulted.
 * Thread-safe if the delegate is.
 */
public final class ChaosObjectStore implements ObjectStore, AutoCloseable {

    private final ObjectStore delegate;
    private final ChaosPolicy policy;
    private final LongAdder injected = new LongAdder();

    private ChaosObjectStore(ObjectStore delegate, ChaosPolicy policy) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.policy = Objects.requireNonNull(policy, "policy");
    }

    /** {@code delegate} with {@code policy}'s chaos injected. */
    public static ChaosObjectStore wrap(ObjectStore delegate, ChaosPolicy policy) {
        return new ChaosObjectStore(delegate, policy);
    }

    /** How many faults this store injected. */
    public long injected() {
        return injected.sum();
    }

    private <T> T call(String what, @Nullable String key, Supplier<T> action) {
        ChaosPolicy.Fault fault = policy.draw();
        if (fault == null) {
            return action.get();
        }
        injected.increment();
        switch (fault) {
            case LATENCY:
                try {
                    TimeUnit.NANOSECONDS.sleep(policy.latency().toNanos());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new StorageUnavailableException(key, what + " was interrupted", e, false);
                }
                return action.get();
            case UNAVAILABLE:
                throw new StorageUnavailableException(
                        key, what + " failed: HTTP 503 SlowDown (injected by chaos)", null, false);
            default:
                throw new StorageUnavailableException(
                        key,
                        what + " failed: the connection was reset (injected by chaos); the outcome is unknown",
                        new IOException("Connection reset"),
                        true);
        }
    }

    @Override
    public StoreCapabilities capabilities() {
        return delegate.capabilities();
    }

    @Override
    public boolean confirmsWrites() {
        return delegate.confirmsWrites();
    }

    @Override
    public void prepareWrites(String prefix) {
        delegate.prepareWrites(prefix);
    }

    @Override
    public ObjectVersion put(String key, ObjectContent content) {
        return call("PUT of '" + key + "'", key, () -> delegate.put(key, content));
    }

    @Override
    public ObjectVersion putIfAbsent(String key, ObjectContent content) {
        return call("PUT (if absent) of '" + key + "'", key, () -> delegate.putIfAbsent(key, content));
    }

    @Override
    public ObjectVersion putIfMatch(String key, String eTag, ObjectContent content) {
        return call("PUT (if match) of '" + key + "'", key, () -> delegate.putIfMatch(key, eTag, content));
    }

    @Override
    public ObjectVersion put(String key, ObjectContent content, PutOptions options) {
        return call("PUT of '" + key + "'", key, () -> delegate.put(key, content, options));
    }

    @Override
    public ObjectVersion putIfAbsent(String key, ObjectContent content, PutOptions options) {
        return call("PUT (if absent) of '" + key + "'", key, () -> delegate.putIfAbsent(key, content, options));
    }

    @Override
    public ObjectVersion putIfMatch(String key, String eTag, ObjectContent content, PutOptions options) {
        return call("PUT (if match) of '" + key + "'", key, () -> delegate.putIfMatch(key, eTag, content, options));
    }

    @Override
    public ObjectRead get(String key) {
        return get(key, ReadOptions.latest());
    }

    @Override
    public ObjectRead get(String key, ReadOptions options) {
        return call("GET of '" + key + "'", key, () -> delegate.get(key, options));
    }

    @Override
    public List<VersionEntry> versions(String key) {
        return call("version listing of '" + key + "'", key, () -> delegate.versions(key));
    }

    @Override
    public VersionEntry delete(String key) {
        return call("DELETE of '" + key + "'", key, () -> delegate.delete(key));
    }

    @Override
    public boolean deleteVersion(String key, String versionId) {
        return call("DELETE of a version of '" + key + "'", key, () -> delegate.deleteVersion(key, versionId));
    }

    @Override
    public List<String> list(String prefix) {
        return call("listing of '" + prefix + "'", null, () -> delegate.list(prefix));
    }

    /**
     * The delegate's listing, a failure drawn as for {@link #list} when the stream needs its first entry
     * (one draw per listing, however many pages it fetches).
     */
    @Override
    public java.util.stream.Stream<dev.ballast.storage.object.ListEntry> listing(
            dev.ballast.storage.object.ListRequest request) {
        java.util.Objects.requireNonNull(request, "request");
        return dev.ballast.storage.internal.Listings.lazily(
                () -> call("listing of '" + request.prefix() + "'", null, () -> delegate.listing(request)));
    }

    /** The delegate's URL: signing one sends nothing, so no failure is injected. */
    @Override
    public dev.ballast.storage.object.PresignedRequest presign(dev.ballast.storage.object.PresignRequest request) {
        return delegate.presign(request);
    }

    @Override
    public List<VersionEntry> listVersions(String prefix) {
        return call("version listing of '" + prefix + "'", null, () -> delegate.listVersions(prefix));
    }

    /** Closes the delegate when it is {@link AutoCloseable}. */
    @Override
    public void close() throws Exception {
        if (delegate instanceof AutoCloseable closeable) {
            closeable.close();
        }
    }

    @Override
    public String toString() {
        return "ChaosObjectStore[" + policy + ", " + delegate + "]";
    }
}
