package dev.ballast.storage.object.s3;

import dev.ballast.storage.AccessDeniedException;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.StorageException;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.UnsupportedCapabilityException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.util.Set;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * Translates AWS SDK failures into the storage exception hierarchy, keeping the SDK exception as
 * the cause. Follows the classification of RFC 9110 §15 and
 * <a href="https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html">S3 error responses</a>:
 * no answer (connection refused or reset, timeout, circuit open, retries exhausted), 408, 429, 5xx
 * and S3 throttling codes mean the store is unavailable; 401/403 mean access denied; {@code BadDigest}
 * and friends mean the bytes were corrupted on the way; other 4xx are refusals by the endpoint.
 * 404/409/412 are handled by the callers, who know what they mean for their operation.
 */
public final class S3Errors {

  /** Failures of the HTTP layer that prove the request never left this process. */
  private static final Set<String> NOT_SENT = Set.of("CircuitOpenException", "BulkheadFullException");

  private static final Set<String> DIGEST_CODES = Set.of("BadDigest", "InvalidDigest", "XAmzContentSHA256Mismatch");

  private S3Errors() {}

  /**
   * The storage exception for an SDK failure, with {@code e} as its cause.
   *
   * @param key the key the operation was about, or null
   * @param what the operation and its target, e.g. "PUT of 'k' in bucket 'b' at http://..."
   * @return an {@link AccessDeniedException}, {@link IntegrityException},
   *     {@link StorageUnavailableException} or {@link UnsupportedCapabilityException}
   */
  public static StorageException translate(String key, String what, SdkException e) {
    if (e instanceof AwsServiceException service) {
      int status = service.statusCode();
      String code = service.awsErrorDetails() == null ? null : service.awsErrorDetails().errorCode();
      String detail = what + " failed: HTTP " + status + (code == null ? "" : " " + code)
          + (service.awsErrorDetails() == null || service.awsErrorDetails().errorMessage() == null
              ? "" : " (" + service.awsErrorDetails().errorMessage() + ")");
      if (status == 401 || status == 403) {
        return new AccessDeniedException(key, detail
            + "; the store refused these credentials or this operation: check the access key, secret key,"
            + " region and bucket policy (not retried)", e);
      }
      if (code != null && DIGEST_CODES.contains(code)) {
        return new IntegrityException(key == null ? "" : key, detail
            + "; the bytes the store received do not match the checksum sent with them");
      }
      if (status == 408 || status == 429 || status >= 500 || service.isThrottlingException()) {
        if (status == 501) {
          return new UnsupportedCapabilityException(detail + "; the operation is not supported by this endpoint");
        }
        return new StorageUnavailableException(key, detail, e);
      }
      return new UnsupportedCapabilityException(detail + "; the endpoint refused the request");
    }
    return new StorageUnavailableException(key, what + " failed: the store could not be reached ("
        + rootMessage(e) + ")", e);
  }

  /**
   * Whether the failure leaves open that the request took effect: no answer after the request may
   * have been sent (timeout, reset, retries exhausted: any earlier attempt may have landed) or a
   * 500/502/504. A refused connection, an open circuit or a full bulkhead prove nothing was sent;
   * 503 SlowDown and 4xx prove nothing was stored. The resilient client's exceptions are recognised
   * by simple name so this module does not depend on their package.
   */
  static boolean ambiguous(SdkException e) {
    if (e instanceof AwsServiceException service) {
      int status = service.statusCode();
      return status == 500 || status == 502 || status == 504;
    }
    if (e instanceof SdkClientException) {
      for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
        // An earlier attempt may have been sent even when the last one could not connect.
        if (t.getClass().getSimpleName().equals("RetriesExhaustedException")) {
          return true;
        }
      }
      for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
        if (t instanceof ConnectException || NOT_SENT.contains(t.getClass().getSimpleName())) {
          return false;
        }
      }
      return true;
    }
    return false;
  }

  /** The S3 error code, or null. */
  static String errorCode(AwsServiceException e) {
    return e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
  }

  /** Translation for an I/O failure of our own (reading content, reopening a region). */
  static StorageException translate(String key, String what, UncheckedIOException e) {
    return new StorageUnavailableException(key, what + " failed: " + rootMessage(e), e);
  }

  private static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String m = root.getMessage();
    return root.getClass().getSimpleName() + (m == null ? "" : ": " + m);
  }
}
