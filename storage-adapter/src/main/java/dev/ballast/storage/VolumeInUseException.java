package dev.ballast.storage;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A block volume is already open for writing by another writer, in this JVM or another process.
 * A block volume has exactly one writer at a time.
 */
public final class VolumeInUseException extends StorageException {
    private static final long serialVersionUID = 1L;

    private final String volume;

    /**
     * @param volume the volume name
     * @param cause the underlying lock failure
     */
    public VolumeInUseException(String volume, @Nullable Throwable cause) {
        super("Block volume '" + volume + "' is already open by another writer; close it there first", cause);
        this.volume = Objects.requireNonNull(volume, "volume");
    }

    /** The volume name. */
    public String volume() {
        return volume;
    }

    @Override
    public boolean retryable() {
        return true;
    }
}
