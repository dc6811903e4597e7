package dev.ballast.storage.object;

/** Whether a read is known to be the newest version this facade has seen for the key. */
public enum Freshness {
  /** At least as new as every version this facade has written or read for the key. */
  FRESH,
  /** Older than a version this facade has written or read; returned only when asked for. */
  STALE,
  /** The object carries no generation (not written by Ballast), so freshness cannot be judged. */
  UNKNOWN
}
