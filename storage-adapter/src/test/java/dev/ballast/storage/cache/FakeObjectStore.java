package dev.ballast.storage.cache;

import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.StaleReadException;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.object.Freshness;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.Source;
import dev.ballast.storage.object.StoreCapabilities;
import dev.ballast.storage.object.VersionEntry;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An in-memory versioned store whose failures are switched on by the test: down (every call throws
 * {@link StorageUnavailableException}), a corrupt next read (the stream raises
 * {@link IntegrityException} at the end, as the real store does), or a stale next read.
 */
public final class FakeObjectStore implements ObjectStore {
  public static final StoreCapabilities CAPABILITIES =
      new StoreCapabilities(URI.create("http://fake-s3.test:9000"), "bucket", true, true, true);

  private final Map<String, List<ObjectVersion>> versions = new ConcurrentHashMap<>();
  private final Map<String, byte[]> contents = new ConcurrentHashMap<>();
  private final AtomicInteger ids = new AtomicInteger();
  public final AtomicInteger gets = new AtomicInteger();
  private volatile boolean down;
  private volatile boolean corruptNextRead;
  private volatile boolean staleNextRead;
  private volatile boolean staleExceptionNextRead;
  private volatile boolean silentlyCorruptNextRead;

  /** The next read hands out a flipped byte without noticing, as a broken store would. */
  public void silentlyCorruptNextRead() {
    silentlyCorruptNextRead = true;
  }

  public void down(boolean down) {
    this.down = down;
  }

  public void corruptNextRead() {
    corruptNextRead = true;
  }

  public void staleNextRead() {
    staleNextRead = true;
  }

  public void staleExceptionNextRead() {
    staleExceptionNextRead = true;
  }

  @Override
  public StoreCapabilities capabilities() {
    return CAPABILITIES;
  }

  @Override
  public ObjectVersion put(String key, ObjectContent content) {
    checkUp(key);
    byte[] bytes = bytesOf(content);
    List<ObjectVersion> history = versions.computeIfAbsent(key, k -> new ArrayList<>());
    synchronized (history) {
      ObjectVersion version = new ObjectVersion(key, "v" + ids.incrementAndGet(), "\"etag-" + ids.get() + "\"",
          bytes.length, sha256(bytes), history.size() + 1, Instant.EPOCH);
      contents.put(version.versionId(), bytes);
      history.add(0, version);
      return version;
    }
  }

  @Override
  public ObjectVersion putIfAbsent(String key, ObjectContent content) {
    return put(key, content);
  }

  @Override
  public ObjectVersion putIfMatch(String key, String eTag, ObjectContent content) {
    return put(key, content);
  }

  @Override
  public ObjectRead get(String key) {
    return get(key, ReadOptions.latest());
  }

  @Override
  public ObjectRead get(String key, ReadOptions options) {
    gets.incrementAndGet();
    checkUp(key);
    List<ObjectVersion> history = versions.get(key);
    if (history == null || history.isEmpty()) {
      throw new ObjectNotFoundException(key, options.versionId(), false, null);
    }
    ObjectVersion version;
    synchronized (history) {
      version = options.versionId() == null ? history.get(0)
          : history.stream().filter(v -> v.versionId().equals(options.versionId())).findFirst()
              .orElseThrow(() -> new ObjectNotFoundException(key, options.versionId(), false, null));
    }
    if (staleExceptionNextRead) {
      staleExceptionNextRead = false;
      throw new StaleReadException(key, version.generation() + 1, version.generation());
    }
    Freshness freshness = Freshness.FRESH;
    if (staleNextRead) {
      staleNextRead = false;
      freshness = Freshness.STALE;
    }
    byte[] bytes = contents.get(version.versionId());
    InputStream stream = new ByteArrayInputStream(bytes);
    if (silentlyCorruptNextRead) {
      silentlyCorruptNextRead = false;
      byte[] flipped = bytes.clone();
      flipped[0] ^= 0x01;
      stream = new ByteArrayInputStream(flipped);
    }
    if (corruptNextRead) {
      corruptNextRead = false;
      byte[] flipped = bytes.clone();
      flipped[0] ^= 0x01;
      stream = new FailingAtEnd(new ByteArrayInputStream(flipped), key);
    }
    return new ObjectRead(version, stream, Source.LIVE, freshness, Duration.ZERO, null);
  }

  @Override
  public List<VersionEntry> versions(String key) {
    checkUp(key);
    return List.of();
  }

  @Override
  public VersionEntry delete(String key) {
    checkUp(key);
    versions.remove(key);
    return new VersionEntry(key, "dm" + ids.incrementAndGet(), null, 0, Instant.EPOCH, true, true);
  }

  @Override
  public List<String> list(String prefix) {
    checkUp(null);
    return versions.keySet().stream().filter(k -> k.startsWith(prefix)).sorted().toList();
  }

  private void checkUp(String key) {
    if (down) {
      throw new StorageUnavailableException(key, "object store fake-s3.test:9000 is unreachable (connection refused)",
          new java.net.ConnectException("Connection refused"));
    }
  }

  private static byte[] bytesOf(ObjectContent content) {
    if (content instanceof ObjectContent.Bytes b) {
      return b.bytes().clone();
    }
    throw new IllegalArgumentException("the fake store takes bytes only");
  }

  static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Hands out all bytes but the last, then raises IntegrityException instead of the last read. */
  private static final class FailingAtEnd extends InputStream {
    private final ByteArrayInputStream in;
    private final String key;

    FailingAtEnd(ByteArrayInputStream in, String key) {
      this.in = in;
      this.key = key;
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      if (in.available() <= 1) {
        throw new IntegrityException(key, "SHA-256 mismatch for '" + key + "'");
      }
      return in.read(b, off, Math.min(len, in.available() - 1));
    }
  }
}
