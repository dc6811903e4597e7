package dev.ballast.storage;


/**
 * The object store could not be reached (endpoint down, circuit breaker open, retries exhausted)
 * and no acceptable last-known-good copy exists: nothing was cached, or the cached copy is older
 * than the configured maximum staleness. Never replaced by an empty or default value.
 */
public final class StorageUnavailableException extends StorageException {
  private static final long serialVersionUID = 1L;

  private final String key;

  /**
   * @param key the object key the operation was about, or null for an operation on no single key
   * @param message what was attempted and why no fallback applied
   * @param cause the failure of the store
   */
  public StorageUnavailableException(String key, String message, Throwable cause) {
    super(message, cause);
    this.key = key;
  }

  /** The key the operation was about, or null. */
  public String key() {
    return key;
  }

  @Override
  public boolean retryable() {
    return true;
  }

}
