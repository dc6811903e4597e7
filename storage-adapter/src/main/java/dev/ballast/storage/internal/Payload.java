package dev.ballast.storage.internal;

import dev.ballast.storage.object.ObjectContent;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.Objects;

/**
 * Content ready to upload: re-readable (bytes or a file, so any region can be sent again by a
 * retry), with its length and SHA-256 known before the first request, since both travel in the
 * request headers. A one-shot stream is copied into memory when small, else spooled to a temporary
 * file that {@link #close()} deletes; a consumed stream is never read again.
 *
 * <p>Not thread-safe for {@link #close()}; {@link #open(long, long)} may be called concurrently.
 */
public final class Payload implements AutoCloseable {

  /** Streams up to this many bytes are held in memory instead of spooled to disk. */
  public static final int IN_MEMORY_LIMIT = 1024 * 1024;

  private final byte[] bytes;
  private final Path file;
  private final boolean temporary;
  private final long length;
  private final byte[] sha256;

  private Payload(byte[] bytes, Path file, boolean temporary, long length, byte[] sha256) {
    this.bytes = bytes;
    this.file = file;
    this.temporary = temporary;
    this.length = length;
    this.sha256 = sha256;
  }

  /**
   * Prepares {@code content}: hashes it and, for a stream, copies exactly its declared length.
   *
   * @param spoolDirectory where large streams are spooled
   * @throws IllegalArgumentException if a stream ends before its declared length, or a file's size
   *     changed since the content was created
   * @throws UncheckedIOException if reading the content or spooling fails
   */
  public static Payload prepare(ObjectContent content, Path spoolDirectory) {
    Objects.requireNonNull(content, "content");
    try {
      if (content instanceof ObjectContent.Bytes b) {
        return new Payload(b.bytes(), null, false, b.bytes().length, Sha256.of(b.bytes()));
      }
      if (content instanceof ObjectContent.FileRegion f) {
        long size = Files.size(f.file());
        if (size != f.length()) {
          throw new IllegalArgumentException("file " + f.file() + " must still be " + f.length()
              + " bytes long but is now " + size + " bytes");
        }
        // Hash exactly the bytes that will be sent: a file growing meanwhile must not put bytes past
        // its length into the recorded SHA-256, and one shrinking must not be hashed short.
        MessageDigest digest = Sha256.newDigest();
        long hashed = 0;
        byte[] buf = new byte[64 * 1024];
        try (InputStream in = Files.newInputStream(f.file())) {
          while (hashed < f.length()) {
            int n = in.read(buf, 0, (int) Math.min(buf.length, f.length() - hashed));
            if (n == -1) {
              throw new IllegalArgumentException("file " + f.file() + " must still be " + f.length()
                  + " bytes long but ended after " + hashed + " bytes");
            }
            digest.update(buf, 0, n);
            hashed += n;
          }
        }
        return new Payload(null, f.file(), false, f.length(), digest.digest());
      }
      ObjectContent.Stream s = (ObjectContent.Stream) content;
      return s.length() <= IN_MEMORY_LIMIT ? bufferStream(s) : spoolStream(s, spoolDirectory);
    } catch (IOException e) {
      throw new UncheckedIOException("Could not read the content to upload", e);
    }
  }

  private static Payload bufferStream(ObjectContent.Stream s) throws IOException {
    byte[] data = s.stream().readNBytes((int) s.length());
    if (data.length < s.length()) {
      throw shortStream(s.length(), data.length);
    }
    requireEnd(s);
    return new Payload(data, null, false, data.length, Sha256.of(data));
  }

  private static Payload spoolStream(ObjectContent.Stream s, Path spoolDirectory) throws IOException {
    Objects.requireNonNull(spoolDirectory, "spoolDirectory");
    Path tmp = Files.createTempFile(spoolDirectory, "ballast-put-", ".spool");
    try {
      MessageDigest digest = Sha256.newDigest();
      long copied = 0;
      byte[] buf = new byte[64 * 1024];
      try (OutputStream out = Files.newOutputStream(tmp, StandardOpenOption.WRITE)) {
        while (copied < s.length()) {
          int n = s.stream().read(buf, 0, (int) Math.min(buf.length, s.length() - copied));
          if (n == -1) {
            throw shortStream(s.length(), copied);
          }
          digest.update(buf, 0, n);
          out.write(buf, 0, n);
          copied += n;
        }
      }
      requireEnd(s);
      return new Payload(null, tmp, true, copied, digest.digest());
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(tmp);
      throw e;
    }
  }

  /**
   * A stream that still has bytes after its declared length does not hold the object the caller
   * described: storing only its prefix would acknowledge a truncated object.
   */
  private static void requireEnd(ObjectContent.Stream s) throws IOException {
    if (s.stream().read() != -1) {
      throw new IllegalArgumentException("stream must yield exactly its declared length of " + s.length()
          + " bytes but had more");
    }
  }

  private static IllegalArgumentException shortStream(long declared, long actual) {
    return new IllegalArgumentException("stream must yield its declared length of " + declared
        + " bytes but ended after " + actual + " bytes");
  }

  /** Length in bytes. */
  public long length() {
    return length;
  }

  /** Raw SHA-256 of the whole content. */
  public byte[] sha256() {
    return sha256.clone();
  }

  /** Lowercase hex SHA-256 of the whole content. */
  public String sha256Hex() {
    return Sha256.hex(sha256);
  }

  /** Whether the content came from a stream spooled to a temporary file. */
  public boolean spooled() {
    return temporary;
  }

  /**
   * A fresh stream over {@code [offset, offset + count)}: each call re-reads the region from the
   * bytes or the file, so a retried request never depends on a consumed stream.
   */
  public InputStream open(long offset, long count) {
    if (offset < 0 || count < 0 || offset + count > length) {
      throw new IllegalArgumentException("region [" + offset + ", " + (offset + count) + ") must lie within [0, "
          + length + "]");
    }
    if (bytes != null) {
      return new ByteArrayInputStream(bytes, (int) offset, (int) count);
    }
    try {
      FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
      channel.position(offset);
      return new BoundedInputStream(Channels.newInputStream(channel), count);
    } catch (IOException e) {
      throw new UncheckedIOException("Could not reopen " + file + " to send bytes " + offset + ".."
          + (offset + count), e);
    }
  }

  /** SHA-256 of one region, read from the source again. */
  public byte[] sha256(long offset, long count) {
    try (InputStream in = open(offset, count)) {
      return Sha256.of(in);
    } catch (IOException e) {
      throw new UncheckedIOException("Could not hash bytes " + offset + ".." + (offset + count), e);
    }
  }

  /** Deletes the spool file, if any. */
  @Override
  public void close() {
    if (temporary) {
      try {
        Files.deleteIfExists(file);
      } catch (IOException e) {
        throw new UncheckedIOException("Could not delete spool file " + file, e);
      }
    }
  }

  /** Reads at most {@code limit} bytes of a stream. */
  private static final class BoundedInputStream extends InputStream {
    private final InputStream in;
    private long left;

    BoundedInputStream(InputStream in, long limit) {
      this.in = in;
      this.left = limit;
    }

    @Override
    public int read() throws IOException {
      if (left <= 0) {
        return -1;
      }
      int b = in.read();
      if (b != -1) {
        left--;
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (len == 0) {
        return 0;
      }
      if (left <= 0) {
        return -1;
      }
      int n = in.read(b, off, (int) Math.min(len, left));
      if (n > 0) {
        left -= n;
      }
      return n;
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }
}
