package dev.ballast.storage;

import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The requested object or object version does not exist. {@link #deleted()} distinguishes a key
 * whose latest version is a delete marker (it existed and was deleted) from one that never existed.
 */
public final class ObjectNotFoundException extends StorageException {
    private static final long serialVersionUID = 1L;

    private final String key;
    private final @Nullable String versionId;
    /** Asks the store whether the latest version is a delete marker; null once {@link #deleted} is known. */
    private transient java.util.function.@Nullable BooleanSupplier deletedQuery;

    private boolean deleted;

    /**
     * @param key the object key
     * @param versionId the requested version ID, or null for the latest version
     * @param deleted true when the latest version is a delete marker
     * @param cause the underlying failure
     */
    public ObjectNotFoundException(String key, @Nullable String versionId, boolean deleted, @Nullable Throwable cause) {
        super("", cause);
        this.key = Objects.requireNonNull(key, "key");
        this.versionId = versionId;
        this.deleted = deleted;
    }

    /**
     * An object or version that is not there, where telling a deleted key from one that never existed
     * costs the store another request (a store that does not say so in its answer, Ceph RGW 16, is asked
     * for the key's version list): {@code deletedQuery} is asked once, on the first call of
     * {@link #deleted()} or {@link #getMessage()}, and never when the caller only needs to know that
     * the object is absent, as most do. It must not throw: a store that cannot tell answers false.
     *
     * @param key the object key
     * @param versionId the requested version ID, or null for the latest version
     * @param deletedQuery whether the latest version (or the version asked for) is a delete marker
     * @param cause the underlying failure
     */
    public ObjectNotFoundException(
            String key,
            @Nullable String versionId,
            java.util.function.BooleanSupplier deletedQuery,
            @Nullable Throwable cause) {
        super("", cause);
        this.key = Objects.requireNonNull(key, "key");
        this.versionId = versionId;
        this.deletedQuery = Objects.requireNonNull(deletedQuery, "deletedQuery");
    }

    @Override
    public String getMessage() {
        return message(key, versionId, deleted());
    }

    private static String message(String key, @Nullable String versionId, boolean deleted) {
        String what =
                versionId == null ? "Object '" + key + "'" : "Version '" + versionId + "' of object '" + key + "'";
        return deleted ? what + " was deleted (its latest version is a delete marker)" : what + " does not exist";
    }

    /** The object key. */
    public String key() {
        return key;
    }

    /** The requested version ID, empty when the latest version was requested. */
    public Optional<String> versionId() {
        return Optional.ofNullable(versionId);
    }

    /** True when the key existed and its latest version is a delete marker; false when it never existed. */
    public synchronized boolean deleted() {
        java.util.function.BooleanSupplier query = deletedQuery;
        if (query != null) {
            deleted = query.getAsBoolean();
            deletedQuery = null;
        }
        return deleted;
    }

    @Override
    public boolean retryable() {
        return false;
    }
}
