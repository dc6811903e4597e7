package dev.ballast.storage;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The bytes read do not match the SHA-256 recorded when the object was written (or the object was
 * truncated), or the store refused uploaded bytes that do not match the digest or signature sent
 * with them ({@code BadDigest}, {@code XAmzContentSHA256Mismatch}). Corrupt bytes are never handed
 * to the caller past this point and never cached. Retryable: the next transfer may arrive intact.
 */
public final class IntegrityException extends StorageException {
    private static final long serialVersionUID = 1L;

    private final String key;
    private final boolean inStoreIndex;

    /**
     * @param key the object key
     * @param message what did not match (expected and actual digest or length)
     */
    public IntegrityException(String key, String message) {
        this(key, message, null);
    }

    /**
     * @param key the object key
     * @param message what did not match (expected and actual digest or length)
     * @param cause the underlying failure (for example the store's answer refusing uploaded bytes)
     */
    public IntegrityException(String key, String message, @Nullable Throwable cause) {
        this(key, message, cause, false);
    }

    private IntegrityException(String key, String message, @Nullable Throwable cause, boolean inStoreIndex) {
        super(message, cause);
        this.key = Objects.requireNonNull(key, "key");
        this.inStoreIndex = inStoreIndex;
    }

    /**
     * The store's own index is damaged (the local store's {@code index.db}, which SQLite reports
     * {@code SQLITE_CORRUPT} or {@code SQLITE_NOTADB}), not the object's bytes: see {@link #inStoreIndex()}.
     *
     * @param key the object key being read or written, or the index file's name
     * @param message what failed and how
     * @param cause SQLite's report
     */
    public static IntegrityException inStoreIndex(String key, String message, Throwable cause) {
        return new IntegrityException(key, message, cause, true);
    }

    /**
     * Whether the damage is in the store's own index rather than in the object: the object's bytes may be
     * intact, and rebuilding the index from the store's journal
     * ({@code LocalObjectStore.rebuildIndex}, {@code ballast repair index}) brings them back. A caller
     * that would pass over a damaged object for an older one should stop instead.
     */
    public boolean inStoreIndex() {
        return inStoreIndex;
    }

    /**
     * Throws the {@link #inStoreIndex()} failure {@code t} is or was caused by, if any: for a caller
     * that takes an {@code IntegrityException} for damage of what it read (and would pass over it,
     * or repair or remove it), where the store's own index is what is damaged.
     */
    public static void rethrowIfInStoreIndex(Throwable t) {
        IntegrityException ie = inStoreIndexCause(t);
        if (ie != null) {
            throw ie;
        }
    }

    /** The {@link #inStoreIndex()} failure {@code t} is or was caused by, or null. */
    public static @Nullable IntegrityException inStoreIndexCause(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof IntegrityException ie && ie.inStoreIndex) {
                return ie;
            }
        }
        return null;
    }

    /** The object key. */
    public String key() {
        return key;
    }

    @Override
    public boolean retryable() {
        return true;
    }
}
