package dev.ballast.storage.object;

/** Where the bytes of a read came from. */
public enum Source {
    /** Read from the object store during this call. */
    LIVE,
    /** Served from the last-known-good cache because the store was unavailable. */
    CACHE
}
