package dev.ballast.storage.object.s3;

import dev.ballast.http.CallRejectedException;
import dev.ballast.http.RetriesExhaustedException;
import dev.ballast.storage.AccessDeniedException;
import dev.ballast.storage.BucketNotFoundException;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.RequestRefusedException;
import dev.ballast.storage.StorageException;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.UnsupportedCapabilityException;
import java.io.EOFException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.ClosedChannelException;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * Translates AWS SDK failures into the storage exception hierarchy, recognising them by type and
 * keeping the SDK exception as the cause of every translation. Follows RFC 9110 section 15 and
 * <a href="https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html">S3 error responses</a>:
 * <ul>
 *   <li>no answer (connection refused or reset, timeout, circuit open, retries exhausted), 408, 429,
 *       5xx other than 501 and throttling codes: {@link StorageUnavailableException};</li>
 *   <li>401 and 403: {@link AccessDeniedException};</li>
 *   <li>any answer saying the bytes received are not the bytes sent or signed ({@link #DIGEST_CODES}):
 *       {@link IntegrityException};</li>
 *   <li>404 {@code NoSuchBucket}: {@link BucketNotFoundException};</li>
 *   <li>501 Not Implemented: {@link UnsupportedCapabilityException};</li>
 *   <li>any other 4xx: {@link RequestRefusedException}, with status and error code.</li>
 * </ul>
 * 404, 409 and 412 are handled by the callers first, who know what they mean for their operation.
 * Stateless.
 */
public final class S3Errors {

    /**
     * Error codes by which a server says that the bytes it received are not the bytes that were sent
     * or signed: {@code BadDigest} (Content-MD5 or additional checksum mismatch, S3),
     * {@code XAmzContentSHA256Mismatch} (signed payload hash mismatch, S3 and Ceph RGW),
     * {@code XAmzContentChecksumMismatch} (additional checksum mismatch, MinIO) and
     * {@code InvalidDigest} (a digest that does not verify, as some servers answer a mismatch).
     */
    public static final Set<String> DIGEST_CODES =
            Set.of("BadDigest", "XAmzContentSHA256Mismatch", "XAmzContentChecksumMismatch", "InvalidDigest");

    private S3Errors() {}

    /**
     * The storage exception for an SDK failure, with {@code e} as its cause.
     *
     * @param key the key the operation was about, or null
     * @param what the operation and its target, e.g. "PUT of 'k' in bucket 'b' at http://..."
     * @return an {@link AccessDeniedException}, {@link BucketNotFoundException}, {@link IntegrityException},
     *     {@link StorageUnavailableException}, {@link UnsupportedCapabilityException} or
     *     {@link RequestRefusedException}
     */
    public static StorageException translate(@Nullable String key, String what, SdkException e) {
        if (e instanceof AwsServiceException service) {
            int status = service.statusCode();
            String code = errorCode(service);
            String detail = what + " failed: HTTP " + status + (code == null ? "" : " " + code)
                    + (service.awsErrorDetails() == null
                                    || service.awsErrorDetails().errorMessage() == null
                            ? ""
                            : " (" + service.awsErrorDetails().errorMessage() + ")");
            if (status == 401 || status == 403) {
                return new AccessDeniedException(
                        key,
                        detail
                                + "; the store refused these credentials or this operation: check the access key, secret key,"
                                + " region and bucket policy (not retried)",
                        e);
            }
            if (code != null && DIGEST_CODES.contains(code)) {
                return new IntegrityException(
                        key == null ? "" : key,
                        detail + "; the bytes the store received do not match the digest or signature sent with them",
                        e);
            }
            if (status == 501) {
                // RFC 9110 §15.6.2: the server does not support what the request asks for.
                return new UnsupportedCapabilityException(
                        detail + "; the endpoint answered 501 Not Implemented: its S3 implementation does not offer"
                                + " this operation",
                        e);
            }
            if (status == 404 && "NoSuchBucket".equals(code)) {
                return new BucketNotFoundException(
                        detail + "; no such bucket: create it, or let Ballast create it when the"
                                + " store is opened: S3StoreConfig.builder().createBucket(true)",
                        e);
            }
            if (status == 408 || status == 429 || status >= 500 || service.isThrottlingException()) {
                return new StorageUnavailableException(key, detail, e, ambiguous(e));
            }
            return new RequestRefusedException(
                    key, status, code, detail + "; the store refused the request (not retried)", e);
        }
        return new StorageUnavailableException(
                key, what + " failed: the store could not be reached (" + describeNoAnswer(e) + ")", e, ambiguous(e));
    }

    /**
     * Translation for an I/O failure of our own (reading content, reopening a region, a broken answer),
     * whose outcome is unknown.
     */
    static StorageException translate(@Nullable String key, String what, UncheckedIOException e) {
        return translate(key, what, e, true);
    }

    /**
     * Translation for an I/O failure of our own; {@code outcomeUnknown} false when it happened before
     * any request was sent (reading the caller's content).
     */
    static StorageException translate(
            @Nullable String key, String what, UncheckedIOException e, boolean outcomeUnknown) {
        return new StorageUnavailableException(key, what + " failed: " + describeNoAnswer(e), e, outcomeUnknown);
    }

    /**
     * Whether the failure leaves open that the request took effect: no answer after the request may
     * have been sent (timeout, reset, retries exhausted with an attempt that may have been sent) or a
     * 500, 502 or 504. A refused connection, an open circuit or a full bulkhead prove nothing was sent;
     * 503 {@code SlowDown} and 4xx prove nothing was stored.
     */
    static boolean ambiguous(SdkException e) {
        if (e instanceof AwsServiceException service) {
            int status = service.statusCode();
            return status == 500 || status == 502 || status == 504;
        }
        if (!(e instanceof SdkClientException)) {
            return false;
        }
        Throwable cause = e.getCause();
        if (cause == null) {
            return true;
        }
        if (cause instanceof RetriesExhaustedException exhausted) {
            // Each attempt's failure is a suppressed exception: one that may have been sent makes it ambiguous.
            for (Throwable attempt : exhausted.getSuppressed()) {
                if (!provablyNotSent(attempt)) {
                    return true;
                }
            }
            return exhausted.getSuppressed().length == 0;
        }
        return !provablyNotSent(cause);
    }

    /** The S3 error code, or null. */
    static @Nullable String errorCode(AwsServiceException e) {
        return e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
    }

    private static boolean provablyNotSent(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof ConnectException
                    || t instanceof HttpConnectTimeoutException
                    || t instanceof CallRejectedException) {
                return true;
            }
        }
        return false;
    }

    /**
     * Why no answer came, in the words a user would use: could not connect (connection refused), connect
     * timed out, no answer in time, the connection closed or reset under the request, the resilient
     * client's own rejection, or else the innermost failure that says something. The JDK's
     * {@code HttpClient} reports a refused connection as a {@link ConnectException} without a message
     * around a {@link ClosedChannelException} (JDK 17 to 25), so the types are read, never the innermost
     * class name alone.
     */
    static String describeNoAnswer(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof CallRejectedException rejected) {
                return rejected.getMessage();
            }
            if (t instanceof HttpConnectTimeoutException) {
                return "connect timed out";
            }
            if (t instanceof ConnectException) {
                return "could not connect: connection refused or host unreachable";
            }
            if (t instanceof HttpTimeoutException) {
                return "no answer within the timeout";
            }
        }
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        if (root instanceof ClosedChannelException || root instanceof EOFException) {
            return "the connection was closed before the answer was complete";
        }
        String m = root.getMessage();
        return root.getClass().getSimpleName() + (m == null ? "" : ": " + m);
    }
}
