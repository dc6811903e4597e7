package dev.ballast.storage.object.s3;

import dev.ballast.storage.IntegrityException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Objects;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * The raw bytes of one object version, read over one or more GET requests: when the connection
 * fails mid-body the rest is fetched with a {@code Range: bytes=N-} request (RFC 9110 §14.1.2)
 * pinned to the version ID of the first response (or, for a store without version IDs, to its ETag
 * with {@code If-Match}), so two versions are never stitched together. Resumes are bounded.
 *
 * <p>Not thread-safe.
 */
final class PinnedObjectInputStream extends InputStream {

  /** Opens the rest of the pinned version from a byte offset. */
  @FunctionalInterface
  interface RangeOpener {
    ResponseInputStream<GetObjectResponse> open(long offset);
  }

  private final String key;
  private final String pinnedVersionId;
  private final String pinnedETag;
  private final long length;
  private final RangeOpener opener;
  private int resumesLeft;
  private ResponseInputStream<GetObjectResponse> current;
  private long position;
  private boolean closed;

  PinnedObjectInputStream(String key, ResponseInputStream<GetObjectResponse> first, long length, RangeOpener opener,
      int maxResumes) {
    this.key = key;
    this.current = Objects.requireNonNull(first, "first");
    this.pinnedVersionId = first.response().versionId();
    this.pinnedETag = first.response().eTag();
    this.length = length;
    this.opener = opener;
    this.resumesLeft = maxResumes;
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    int n = read(one, 0, 1);
    return n == -1 ? -1 : one[0] & 0xff;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    if (closed) {
      throw new IOException("stream of object '" + key + "' is closed");
    }
    while (true) {
      try {
        int n = current.read(b, off, len);
        if (n > 0) {
          position += n;
        }
        return n;
      } catch (IOException e) {
        if (resumesLeft <= 0 || position >= length) {
          throw e;
        }
        resumesLeft--;
        current.abort();
        ResponseInputStream<GetObjectResponse> next;
        try {
          next = opener.open(position);
        } catch (RuntimeException resumeFailure) {
          e.addSuppressed(resumeFailure);
          throw e;
        }
        GetObjectResponse r = next.response();
        if (!Objects.equals(pinnedVersionId, r.versionId()) || !Objects.equals(pinnedETag, r.eTag())) {
          next.abort();
          throw new IntegrityException(key, "Resuming the read of object '" + key + "' at byte " + position
              + " returned version " + r.versionId() + " (ETag " + r.eTag() + ") instead of the pinned version "
              + pinnedVersionId + " (ETag " + pinnedETag + "); two versions are never stitched together");
        }
        current = next;
      }
    }
  }

  /** The version ID every request of this read is pinned to; "null" or null when unversioned. */
  String pinnedVersionId() {
    return pinnedVersionId;
  }

  /** The ETag of the first response, pinned with If-Match when there is no version ID. */
  String pinnedETag() {
    return pinnedETag;
  }

  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    if (position < length) {
      // Not drained: abort instead of reading the rest of the body to reuse the connection.
      current.abort();
    }
    current.close();
  }
}
