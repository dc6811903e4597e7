package dev.ballast.cli;

import dev.ballast.backup.content.PackedBlobs;
import dev.ballast.backup.content.PackedContent;
import dev.ballast.backup.keys.MasterKey;
import dev.ballast.backup.snapshot.SealedStore;
import dev.ballast.storage.object.ObjectStore;
import org.jspecify.annotations.Nullable;

/**
 * What the engine works on in the store a command opened: a store of the earlier formats (one object
 * per file, plain manifests), or a repository of format 3 (docs/backup-format.md) when the session
 * opened its master key. For format 3, {@link #metadata()} is the {@link SealedStore} through which
 * manifests, run markers and records of damage are sealed, and {@link #content} the packs. Not
 * thread-safe; one per command, closed with it.
 */
final class Repository implements AutoCloseable {
    private final ObjectStore raw;
    private final @Nullable MasterKey key;
    private final ObjectStore metadata;
    private @Nullable PackedBlobs content;

    private Repository(ObjectStore raw, @Nullable MasterKey key) {
        this.raw = raw;
        this.key = key;
        // One per command: the manifest parts it reads are kept for the command (list reads every version).
        this.metadata = key == null ? raw : new SealedStore(raw, key, true);
    }

    /** The repository of {@code session}'s store. */
    static Repository of(StoreSession session) {
        return new Repository(session.objects(), masterKey(session));
    }

    /**
     * The one place the CLI takes the master key from: the key the session unlocked with the password
     * (null for a store of the earlier formats).
     */
    static @Nullable MasterKey masterKey(StoreSession session) {
        return session.masterKey();
    }

    /** Whether the store is a repository of format 3. */
    boolean packed() {
        return key != null;
    }

    /** Where manifests, run markers and the record of damaged versions are read and written. */
    ObjectStore metadata() {
        return metadata;
    }

    /** The sealed view of a repository of format 3. */
    SealedStore sealed() {
        if (!(metadata instanceof SealedStore s)) {
            throw new IllegalStateException("not a repository of format 3");
        }
        return s;
    }

    /**
     * The packs of a repository of format 3, opened (index read) at the first call; null for a store
     * of the earlier formats.
     *
     * @param threads packs read at once
     */
    @Nullable
    PackedContent content(int threads) {
        if (key == null) {
            return null;
        }
        if (content == null) {
            content = PackedBlobs.open(raw, key, threads);
        }
        return content;
    }

    @Override
    public void close() {
        if (content != null) {
            content.close();
        }
    }
}
