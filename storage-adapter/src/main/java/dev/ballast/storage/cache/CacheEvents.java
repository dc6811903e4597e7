package dev.ballast.storage.cache;

import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.StorageListener;
import dev.ballast.storage.StorageListener.DegradeReason;
import dev.ballast.storage.StorageUnavailableException;
import java.time.Duration;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@link LastKnownGoodStore} tells its {@link StorageListener}: one method per event, each
 * building the event's record. A listener's exception is logged at {@code WARN} and ignored, never
 * changing the read's outcome. Thread-safe.
 */
final class CacheEvents {

    private static final Logger LOG = LoggerFactory.getLogger(LastKnownGoodStore.class);

    private final StorageListener listener;
    /** The store kind the events carry. */
    private final String store;

    CacheEvents(StorageListener listener, String store) {
        this.listener = listener;
        this.store = store;
    }

    void degraded(String key, String versionId, StorageUnavailableException failure, Duration age, String detail) {
        emit(l -> l.onDegradedRead(
                new StorageListener.DegradedRead(store, key, versionId, DegradeReason.of(failure), age, detail)));
    }

    void unavailable(String key, StorageUnavailableException failure, boolean expiredCopy) {
        emit(l -> l.onUnavailableRead(
                new StorageListener.UnavailableRead(store, key, DegradeReason.of(failure), expiredCopy)));
    }

    void stale(String key, boolean refused) {
        emit(l -> l.onStaleRead(new StorageListener.StaleRead(store, key, refused)));
    }

    void integrityFailed(IntegrityException e, @Nullable String versionId) {
        String detail = e.getMessage() == null ? "IntegrityException" : e.getMessage();
        emit(l -> l.onIntegrityFailure(new StorageListener.IntegrityFailure(store, e.key(), versionId, detail)));
    }

    private void emit(Consumer<StorageListener> event) {
        if (listener == StorageListener.NONE) {
            return;
        }
        try {
            event.accept(listener);
        } catch (RuntimeException e) {
            LOG.warn("StorageListener {} failed; ignored", listener, e);
        }
    }
}
