package dev.ballast.cli;

import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.StoreCapabilities;
import dev.ballast.storage.object.VersionEntry;
import java.nio.file.Path;
import java.util.List;

/**
 * What the reading commands see where no backup was ever made: a local store that does not exist
 * yet, empty and read-only, so that {@code list} says there are no backups and {@code restore} that
 * there is no such backup, without creating anything on disk.
 */
final class EmptyObjectStore implements ObjectStore {
    private final StoreCapabilities capabilities;

    EmptyObjectStore(Path directory) {
        this.capabilities = new StoreCapabilities(directory.toUri(), "", true, true, true);
    }

    @Override
    public StoreCapabilities capabilities() {
        return capabilities;
    }

    @Override
    public ObjectVersion put(String key, ObjectContent content) {
        throw readOnly();
    }

    @Override
    public ObjectVersion putIfAbsent(String key, ObjectContent content) {
        throw readOnly();
    }

    @Override
    public ObjectVersion putIfMatch(String key, String eTag, ObjectContent content) {
        throw readOnly();
    }

    @Override
    public ObjectRead get(String key) {
        throw new ObjectNotFoundException(key, null, false, null);
    }

    @Override
    public ObjectRead get(String key, ReadOptions options) {
        throw new ObjectNotFoundException(key, options.versionId(), false, null);
    }

    @Override
    public List<VersionEntry> versions(String key) {
        return List.of();
    }

    @Override
    public VersionEntry delete(String key) {
        throw readOnly();
    }

    @Override
    public List<String> list(String prefix) {
        return List.of();
    }

    private static IllegalStateException readOnly() {
        return new IllegalStateException("a reading command does not write");
    }
}
