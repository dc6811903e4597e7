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
    private final boolean deleted;

    /**
     * @param key the object key
     * @param versionId the requested version ID, or null for the latest version
     * @param deleted true when the latest version is a delete marker
     * @param cause the underlying failure
     */
    public ObjectNotFoundException(String key, @Nullable String versionId, boolean deleted, @Nullable Throwable cause) {
        super(message(key, versionId, deleted), cause);
        this.key = Objects.requireNonNull(key, "key");
        this.versionId = versionId;
        this.deleted = deleted;
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
    public boolean deleted() {
        return deleted;
    }

    @Override
    public boolean retryable() {
        return false;
    }
}
