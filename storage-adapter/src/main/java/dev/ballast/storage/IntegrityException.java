package dev.ballast.storage;

import java.util.Objects;

/**
 * The bytes read do not match the SHA-256 recorded when the object was written (or the object was
 * truncated). Corrupt bytes are never handed to the caller past this point and never cached.
 */
public final class IntegrityException extends StorageException {
  private static final long serialVersionUID = 1L;

  private final String key;

  /**
   * @param key the object key
   * @param message what did not match (expected and actual digest or length)
   */
  public IntegrityException(String key, String message) {
    super(message, null);
    this.key = Objects.requireNonNull(key, "key");
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
