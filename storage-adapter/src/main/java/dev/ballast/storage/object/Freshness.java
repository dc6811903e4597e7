package dev.ballast.storage.object;

/** Whether a read is known to be the newest version this facade has seen for the key. */
public enum Freshness {
    /**
     * A latest read at least as new as every version this facade has written or read for the key, or
     * a read of the very version asked for by ID (history asked for is not stale).
     */
    FRESH,
    /**
     * A latest read older than a version this facade has written or read; returned only when asked
     * for.
     */
    STALE,
    /** The object carries no generation (not written by Ballast), so freshness cannot be judged. */
    UNKNOWN
}
