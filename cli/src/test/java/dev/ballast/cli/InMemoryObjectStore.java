package dev.ballast.cli;

import dev.ballast.storage.AlreadyExistsException;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.PreconditionFailedException;
import dev.ballast.storage.internal.VerifyingInputStream;
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
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** A versioned object store in memory that records the puts and gets it saw. Test support. */
class InMemoryObjectStore implements ObjectStore {
  record Stored(ObjectVersion version, byte[] bytes, boolean deleteMarker) {}

  final Map<String, List<Stored>> objects = new TreeMap<>();
  final List<String> puts = new ArrayList<>();
  final List<String> gets = new ArrayList<>();
  private final boolean additionalChecksums;
  private int nextVersion = 1;
  /** The last-modified time given to the versions written next. */
  volatile Instant now = Instant.parse("2026-01-01T00:00:00Z");

  InMemoryObjectStore(boolean additionalChecksums) {
    this.additionalChecksums = additionalChecksums;
  }

  @Override
  public synchronized StoreCapabilities capabilities() {
    return new StoreCapabilities(null, "test", true, true, additionalChecksums);
  }

  @Override
  public synchronized ObjectVersion put(String key, ObjectContent content) {
    byte[] bytes = bytesOf(content);
    puts.add(key);
    ObjectVersion v = new ObjectVersion(key, "v" + nextVersion++, "\"e\"", bytes.length, sha256(bytes), 0, now);
    objects.computeIfAbsent(key, k -> new ArrayList<>()).add(0, new Stored(v, bytes, false));
    return v;
  }

  /** Replaces the bytes of a stored version without changing its recorded SHA-256 (bit rot). */
  synchronized void corrupt(String key) {
    Stored s = objects.get(key).get(0);
    byte[] b = s.bytes().clone();
    b[0] ^= 1;
    objects.get(key).set(0, new Stored(s.version(), b, false));
  }

  @Override
  public synchronized ObjectVersion putIfAbsent(String key, ObjectContent content) {
    if (latest(key) != null) {
      throw new AlreadyExistsException(key, null);
    }
    return put(key, content);
  }

  @Override
  public synchronized ObjectVersion putIfMatch(String key, String eTag, ObjectContent content) {
    Stored s = latest(key);
    if (s == null) {
      throw new ObjectNotFoundException(key, null, false, null);
    }
    if (!s.version().eTag().equals(eTag)) {
      throw new PreconditionFailedException(key, "ETag differs from " + eTag, null);
    }
    return put(key, content);
  }

  @Override
  public ObjectRead get(String key) {
    return get(key, ReadOptions.latest());
  }

  @Override
  public synchronized ObjectRead get(String key, ReadOptions options) {
    gets.add(key);
    Stored s = options.requestedVersion()
        .map(id -> objects.getOrDefault(key, List.of()).stream().filter(x -> x.version().versionId().equals(id))
            .findFirst().orElse(null))
        .orElse(latest(key));
    if (s == null || s.deleteMarker()) {
      throw new ObjectNotFoundException(key, options.versionId(), s != null, null);
    }
    // As every store does: the bytes are checked against the recorded SHA-256 as they are read.
    return new ObjectRead(s.version(), new VerifyingInputStream(key, new ByteArrayInputStream(s.bytes()),
        s.bytes().length, s.version().sha256()), Source.LIVE, Freshness.FRESH, Duration.ZERO, null);
  }

  @Override
  public synchronized List<VersionEntry> versions(String key) {
    List<VersionEntry> out = new ArrayList<>();
    List<Stored> all = objects.getOrDefault(key, List.of());
    for (int i = 0; i < all.size(); i++) {
      Stored s = all.get(i);
      out.add(new VersionEntry(key, s.version().versionId(), s.version().eTag(), s.bytes().length,
          s.version().lastModified(), i == 0, s.deleteMarker()));
    }
    return out;
  }

  @Override
  public synchronized VersionEntry delete(String key) {
    ObjectVersion v = new ObjectVersion(key, "v" + nextVersion++, "", 0, sha256(new byte[0]), 0,
        Instant.parse("2026-01-01T00:00:00Z"));
    objects.computeIfAbsent(key, k -> new ArrayList<>()).add(0, new Stored(v, new byte[0], true));
    return versions(key).get(0);
  }

  @Override
  public synchronized List<VersionEntry> listVersions(String prefix) {
    List<VersionEntry> out = new ArrayList<>();
    objects.keySet().stream().filter(k -> k.startsWith(prefix)).forEach(k -> out.addAll(versions(k)));
    return out;
  }

  @Override
  public synchronized boolean deleteVersion(String key, String versionId) {
    List<Stored> all = objects.getOrDefault(key, new ArrayList<>());
    boolean removed = all.removeIf(s -> s.version().versionId().equals(versionId));
    if (all.isEmpty()) {
      objects.remove(key);
    }
    return removed;
  }

  @Override
  public synchronized List<String> list(String prefix) {
    return objects.keySet().stream().filter(k -> k.startsWith(prefix) && !latest(k).deleteMarker()).toList();
  }

  private Stored latest(String key) {
    List<Stored> all = objects.get(key);
    return all == null || all.isEmpty() ? null : all.get(0);
  }

  private static byte[] bytesOf(ObjectContent content) {
    try {
      if (content instanceof ObjectContent.Bytes b) {
        return b.bytes().clone();
      }
      if (content instanceof ObjectContent.FileRegion f) {
        return Files.readAllBytes(f.file());
      }
      try (InputStream in = ((ObjectContent.Stream) content).stream()) {
        return in.readAllBytes();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
