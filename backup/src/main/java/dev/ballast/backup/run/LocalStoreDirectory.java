package dev.ballast.backup.run;

import dev.ballast.storage.ObservedObjectStore;
import dev.ballast.storage.cache.LastKnownGoodStore;
import dev.ballast.storage.crypto.EncryptedObjectStore;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.local.LocalObjectStore;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * Where a local object store keeps its objects, for a backup to leave out of its walk
 * ({@link BackupRunner#skippingStore}): the {@code ballast} command knows the directory it opened, a
 * user of the library hands over the store alone, often as {@link dev.ballast.storage.StorageFacade#objects()}
 * gives it, under the facade's decorators.
 */
public final class LocalStoreDirectory {
    private LocalStoreDirectory() {}

    /**
     * The directory of the {@link LocalObjectStore} under {@code store} and the decorators the storage
     * adapter wraps it in (last-known-good cache, observation, client-side encryption), or null when
     * there is none to be found (an S3 bucket, another kind of store).
     */
    public static @Nullable Path of(ObjectStore store) {
        ObjectStore s = store;
        for (int depth = 0; depth < 16 && s != null; depth++) {
            if (s instanceof LocalObjectStore local) {
                return local.root();
            }
            s = s instanceof LastKnownGoodStore lkg
                    ? lkg.delegate()
                    : s instanceof ObservedObjectStore observed
                            ? observed.delegate()
                            : s instanceof EncryptedObjectStore encrypted ? encrypted.delegate() : null;
        }
        return null;
    }
}
