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
    /**
     * Freshness cannot be judged: the object carries no generation (not written by Ballast), or the read
     * of the latest version was served from the last-known-good cache ({@code degraded()}) because the
     * store could not be asked what its latest version is now.
     */
    UNKNOWN
}
