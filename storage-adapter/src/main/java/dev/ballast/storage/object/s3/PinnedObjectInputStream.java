package dev.ballast.storage.object.s3;

import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.RequestRefusedException;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * The raw bytes of one object version, read over one or more GET requests: when the connection
 * fails mid-body the rest is fetched with a {@code Range: bytes=N-} request (RFC 9110 §14.1.2)
 * pinned to the version ID of the first response (or, for a store without version IDs, to its ETag
 * with {@code If-Match}), so two versions are never stitched together. Resumes are bounded.
 *
 * <p>A stored copy shorter than the length its store announced is found as soon as its bytes stop:
 * a store may send what it holds and then keep the connection open (S3Mock does, until its 60 s
 * keep-alive ends), so a read that has waited {@link #STALL_PROBE_AFTER} for its next byte asks the
 * store, with a pinned range request from that byte, whether the version has it. {@code 416 Range
 * Not Satisfiable} (RFC 9110 §15.5.17) proves the version ends before its announced length: the
 * read fails at once with {@link IntegrityException}, as does a resume answered so. Any other answer
 * means the bytes exist and the read goes on waiting (the probe is not repeated for the same byte).
 *
 * <p>Not thread-safe, except that a watchdog thread probes a stalled read.
 */
final class PinnedObjectInputStream extends InputStream {

    /** Opens the rest of the pinned version from a byte offset. */
    @FunctionalInterface
    interface RangeOpener {
        ResponseInputStream<GetObjectResponse> open(long offset);
    }

    /** How long a read waits for its next byte before the store is asked whether the version has it. */
    static final Duration STALL_PROBE_AFTER = Duration.ofSeconds(2);

    /** One daemon thread checks every open stream that is waiting for bytes. */
    private static final ScheduledExecutorService WATCHDOG = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "ballast-read-watchdog");
        t.setDaemon(true);
        return t;
    });

    private final String key;
    private final Duration stallProbeAfter;
    private final String pinnedVersionId;
    private final String pinnedETag;
    private final long length;
    private final RangeOpener opener;
    private int resumesLeft;
    private volatile ResponseInputStream<GetObjectResponse> current;
    private volatile long position;
    private volatile boolean closed;
    /** System.nanoTime() when the read now blocked started, or 0 when no read is blocked. */
    private volatile long readingSince;
    /** The byte a probe found missing (the version's real length), or -1. */
    private volatile long endsAt = -1;

    private long probedAt = -1;
    private @Nullable ScheduledFuture<?> watch;

    PinnedObjectInputStream(
            String key, ResponseInputStream<GetObjectResponse> first, long length, RangeOpener opener, int maxResumes) {
        this(key, first, length, opener, maxResumes, STALL_PROBE_AFTER);
    }

    PinnedObjectInputStream(
            String key,
            ResponseInputStream<GetObjectResponse> first,
            long length,
            RangeOpener opener,
            int maxResumes,
            Duration stallProbeAfter) {
        this.key = key;
        this.stallProbeAfter = Objects.requireNonNull(stallProbeAfter, "stallProbeAfter");
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
                int n = timedRead(b, off, len);
                if (n > 0) {
                    position += n;
                } else if (n == -1) {
                    stopWatching();
                }
                return n;
            } catch (IOException e) {
                if (endsAt >= 0) {
                    throw truncated(endsAt, e);
                }
                if (resumesLeft <= 0 || position >= length) {
                    throw e;
                }
                resumesLeft--;
                current.abort();
                ResponseInputStream<GetObjectResponse> next;
                try {
                    next = opener.open(position);
                } catch (RequestRefusedException refused) {
                    if (refused.statusCode() == 416) {
                        throw truncated(position, e);
                    }
                    e.addSuppressed(refused);
                    throw e;
                } catch (RuntimeException resumeFailure) {
                    e.addSuppressed(resumeFailure);
                    throw e;
                }
                GetObjectResponse r = next.response();
                if (!Objects.equals(pinnedVersionId, r.versionId()) || !Objects.equals(pinnedETag, r.eTag())) {
                    next.abort();
                    throw new IntegrityException(
                            key,
                            "Resuming the read of object '" + key + "' at byte " + position
                                    + " returned version " + r.versionId() + " (ETag " + r.eTag()
                                    + ") instead of the pinned version "
                                    + pinnedVersionId + " (ETag " + pinnedETag
                                    + "); two versions are never stitched together");
                }
                current = next;
            }
        }
    }

    /** A read of the current response, watched for a stall while it blocks. */
    private int timedRead(byte[] b, int off, int len) throws IOException {
        if (watch == null && position < length) {
            long period = Math.max(1, stallProbeAfter.toMillis() / 2);
            watch = WATCHDOG.scheduleWithFixedDelay(this::checkStall, period, period, TimeUnit.MILLISECONDS);
        }
        readingSince = System.nanoTime() | 1;
        try {
            return current.read(b, off, len);
        } finally {
            readingSince = 0;
        }
    }

    /** On the watchdog thread: asks the store whether a read stalled at {@code position} can get its byte. */
    private void checkStall() {
        long since = readingSince;
        long at = position;
        if (closed
                || since == 0
                || at >= length
                || at == probedAt
                || System.nanoTime() - since < stallProbeAfter.toNanos()) {
            return;
        }
        probedAt = at;
        try {
            opener.open(at).abort(); // the byte exists: a slow store, keep waiting
        } catch (RequestRefusedException refused) {
            if (refused.statusCode() == 416 && position == at && readingSince != 0) {
                endsAt = at;
                current.abort(); // the blocked read fails now, and reports the truncation
            }
        } catch (RuntimeException ignored) {
            // the store could not be asked: the read waits for its own timeout, as without a probe
        }
    }

    private IntegrityException truncated(long end, IOException cause) {
        stopWatching();
        return new IntegrityException(
                key,
                "Object '" + key + "' was truncated: the store announced " + length
                        + " bytes but holds only " + end + " (a range request from byte " + end
                        + " was answered 416 Range Not "
                        + "Satisfiable)",
                cause);
    }

    private void stopWatching() {
        if (watch != null) {
            watch.cancel(false);
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
        stopWatching();
        if (position < length) {
            // Not drained: abort instead of reading the rest of the body to reuse the connection.
            current.abort();
        }
        current.close();
    }
}
