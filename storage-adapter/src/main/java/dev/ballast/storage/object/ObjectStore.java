package dev.ballast.storage.object;

import dev.ballast.storage.AlreadyExistsException;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.PreconditionFailedException;
import dev.ballast.storage.StaleReadException;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.UnsupportedCapabilityException;
import java.util.List;

/**
 * Whole-object, versioned storage: every write replaces the whole object and creates a new
 * version; there is no write at a byte offset. To change part of an object, read it, change the
 * bytes, and write the whole object back conditionally on the version you read:
 *
 * <pre>{@code
 * try (ObjectRead read = store.get("config.json")) {
 *   byte[] updated = edit(read.readAllBytes());
 *   store.putIfMatch("config.json", read.version().eTag(), ObjectContent.ofBytes(updated));
 * } catch (PreconditionFailedException lostRace) {
 *   // someone else wrote a newer version in between: read again and retry the edit
 * }
 * }</pre>
 *
 * <p>Keys follow S3's rules (1 to 1024 UTF-8 bytes) and are never normalised: {@code a//b},
 * {@code x y+z} and the NFC and NFD forms of a name are different keys. Keys with control
 * characters are rejected, and so, by default, are {@code ..} segments and a leading {@code /}.
 *
 * <p>Implementations are thread-safe.
 */
public interface ObjectStore {

  /** What the endpoint was found to guarantee at start-up. */
  StoreCapabilities capabilities();

  /**
   * Writes a new version of {@code key}. A SHA-256 of the content is recorded with the object and
   * every read verifies it. A put retried after an ambiguous failure never creates a second
   * version when the first attempt already landed.
   *
   * @return the version written
   * @throws IllegalArgumentException if the key is invalid
   * @throws StorageUnavailableException if the store could not be reached
   */
  ObjectVersion put(String key, ObjectContent content);

  /**
   * Writes {@code key} only if no current version exists ({@code If-None-Match: *}).
   *
   * @throws AlreadyExistsException if the key already has a current version (HTTP 412)
   * @throws UnsupportedCapabilityException if the endpoint does not honour conditional writes
   */
  ObjectVersion putIfAbsent(String key, ObjectContent content);

  /**
   * Writes {@code key} only if its current ETag equals {@code eTag} ({@code If-Match}).
   *
   * @throws PreconditionFailedException if the current ETag differs (HTTP 412)
   * @throws ObjectNotFoundException if the key has no current version (HTTP 404)
   * @throws UnsupportedCapabilityException if the endpoint does not honour conditional writes
   */
  ObjectVersion putIfMatch(String key, String eTag, ObjectContent content);

  /** Reads the latest version; same as {@code get(key, ReadOptions.latest())}. */
  ObjectRead get(String key);

  /**
   * Reads {@code key} as a stream verified against its recorded SHA-256 while it is read.
   *
   * @throws ObjectNotFoundException if the key or version does not exist (or was deleted)
   * @throws StaleReadException if the store keeps returning a version older than one already seen
   *     and the options do not accept stale reads
   * @throws StorageUnavailableException if the store is unreachable and no acceptable
   *     last-known-good copy exists
   * @throws IntegrityException from the returned stream's reads if the bytes do not match
   */
  ObjectRead get(String key, ReadOptions options);

  /**
   * Every version of {@code key}, delete markers included, newest first, paginated to the end.
   * Empty when the key never existed.
   */
  List<VersionEntry> versions(String key);

  /**
   * Deletes {@code key} by creating a delete marker; earlier versions stay readable by version ID.
   *
   * @return the delete marker's version entry
   */
  VersionEntry delete(String key);

  /**
   * Lists the current (non-deleted) keys that start with {@code prefix}, in UTF-8 binary order,
   * paginated to the end.
   */
  List<String> list(String prefix);
}
