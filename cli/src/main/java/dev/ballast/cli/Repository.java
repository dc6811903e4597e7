package dev.ballast.cli;

import dev.ballast.backup.content.PackedBlobs;
import dev.ballast.backup.content.PackedContent;
import dev.ballast.backup.keys.MasterKey;
import dev.ballast.backup.snapshot.PartFiles;
import dev.ballast.backup.snapshot.SealedStore;
import dev.ballast.storage.object.ObjectStore;
import org.jspecify.annotations.Nullable;

/**
 * What the engine works on in the store a command opened: a store of the earlier formats (one object
 * per file, plain manifests), or a repository of format 3 (docs/backup-format.md) when the session
 * opened its master key. For format 3, {@link #metadata()} is the {@link SealedStore} through which
 * manifests, run markers and records of damage are sealed, and {@link #content} the packs. One per
 * command, closed with it; {@link #content} may be called on another thread ({@code restore} reads
 * the index while it reads the snapshot) and {@link #close} closes what it opened, or what it opens
 * afterwards.
 */
final class Repository implements AutoCloseable {
    private final ObjectStore raw;
    private final @Nullable MasterKey key;
    private final ObjectStore metadata;
    private @Nullable PackedBlobs content;
    /** Guarded by this. */
    private boolean closed;

    private Repository(ObjectStore raw, @Nullable MasterKey key, @Nullable PartFiles partFiles) {
        this.raw = raw;
        this.key = key;
        // One per command: the manifest parts it reads are kept for the command (list reads every version),
        // and, for an S3 bucket, in the local cache for the next command (StoreSession#partFiles).
        this.metadata = key == null ? raw : new SealedStore(raw, key, true, partFiles);
    }

    /**
     * The repository of {@code session}'s store; for an S3 bucket, manifest parts are read from and kept
     * in the local cache (each copy checked against its ID before use).
     */
    static Repository of(StoreSession session) {
        return new Repository(session.objects(), masterKey(session), session.partFiles());
    }

    /**
     * The repository of {@code session}'s store, every manifest part read from the store itself, never
     * from the local cache: for {@code verify}, which checks what the store holds. The copy of a part it
     * finds missing or damaged is removed from the cache ({@link PartFiles#storeOnly}).
     */
    static Repository storeOnly(StoreSession session) {
        PartFiles files = session.partFiles();
        return new Repository(session.objects(), masterKey(session), files == null ? null : files.storeOnly());
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
        synchronized (this) {
            if (content != null) {
                return content;
            }
        }
        // Read without the lock: a close meanwhile (the command ended) does not wait for the index.
        PackedBlobs opened = PackedBlobs.open(raw, key, threads);
        synchronized (this) {
            if (closed || content != null) {
                opened.close();
                if (closed) {
                    throw new IllegalStateException("the repository was closed while its index was read");
                }
                return content;
            }
            content = opened;
            return opened;
        }
    }

    @Override
    public void close() {
        PackedBlobs open;
        synchronized (this) {
            closed = true;
            open = content;
        }
        if (open != null) {
            open.close();
        }
    }
}
