package dev.ballast.storage.object.s3;

import dev.ballast.storage.StorageException;
import dev.ballast.storage.internal.Payload;
import dev.ballast.storage.internal.Sha256;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ChecksumAlgorithm;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.ListMultipartUploadsResponse;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

/**
 * How one prepared payload goes up: a single PUT up to {@link S3StoreConfig#multipartThreshold()},
 * else a multipart upload of {@link S3StoreConfig#partSize()} parts, each part's body re-read from
 * its region of the payload so the retrying HTTP layer can re-send a single part; a failed multipart
 * upload is aborted so no orphaned parts remain
 * (<a href="https://docs.aws.amazon.com/AmazonS3/latest/API/API_AbortMultipartUpload.html">AbortMultipartUpload</a>),
 * and {@link #abortIncomplete} sweeps the ones an endpoint that died mid-upload left behind. The SHA-256
 * goes along as an additional checksum when the probe found the endpoint validates it. SDK exceptions
 * propagate to the caller, which knows what they mean for its write. Thread-safe.
 */
final class Uploads {
  private static final Logger LOG = LoggerFactory.getLogger(Uploads.class);
  private static final String OCTET_STREAM = "application/octet-stream";

  /** What a completed upload returned. */
  record Written(String versionId, String eTag) {}

  private final S3Client s3;
  private final String bucket;
  private final S3StoreConfig config;
  private final boolean additionalChecksums;
  private final String endpoint;

  Uploads(S3Client s3, String bucket, S3StoreConfig config, boolean additionalChecksums, String endpoint) {
    this.s3 = s3;
    this.bucket = bucket;
    this.config = config;
    this.additionalChecksums = additionalChecksums;
    this.endpoint = endpoint;
  }

  /** Uploads {@code payload} to {@code key} with {@code metadata} under {@code condition}. */
  Written upload(String key, Payload payload, Map<String, String> metadata, WriteCondition condition) {
    return payload.length() > config.multipartThreshold()
        ? multipart(key, payload, metadata, condition)
        : single(key, payload, metadata, condition);
  }

  private Written single(String key, Payload payload, Map<String, String> metadata, WriteCondition condition) {
    PutObjectRequest.Builder req = PutObjectRequest.builder()
        .bucket(bucket)
        .key(key)
        .contentLength(payload.length())
        .contentType(OCTET_STREAM)
        .metadata(metadata);
    if (additionalChecksums) {
      req.checksumAlgorithm(ChecksumAlgorithm.SHA256).checksumSHA256(Sha256.base64(payload.sha256()));
    }
    if (condition.ifAbsent()) {
      req.ifNoneMatch("*");
    } else if (condition.ifMatch() != null) {
      req.ifMatch(condition.ifMatch());
    }
    long length = payload.length();
    PutObjectResponse r = s3.putObject(req.build(),
        RequestBody.fromContentProvider(() -> payload.open(0, length), length, OCTET_STREAM));
    return new Written(r.versionId(), r.eTag());
  }

  private Written multipart(String key, Payload payload, Map<String, String> metadata, WriteCondition condition) {
    CreateMultipartUploadRequest.Builder create = CreateMultipartUploadRequest.builder()
        .bucket(bucket).key(key).contentType(OCTET_STREAM).metadata(metadata);
    if (additionalChecksums) {
      create.checksumAlgorithm(ChecksumAlgorithm.SHA256);
    }
    String uploadId = s3.createMultipartUpload(create.build()).uploadId();
    try {
      List<CompletedPart> parts = new ArrayList<>();
      long partSize = config.partSize();
      int partNumber = 1;
      for (long offset = 0; offset < payload.length(); offset += partSize, partNumber++) {
        long count = Math.min(partSize, payload.length() - offset);
        parts.add(uploadPart(key, uploadId, partNumber, payload, offset, count));
      }
      CompleteMultipartUploadRequest.Builder complete = CompleteMultipartUploadRequest.builder()
          .bucket(bucket).key(key).uploadId(uploadId)
          .multipartUpload(m -> m.parts(parts));
      if (condition.ifAbsent()) {
        complete.ifNoneMatch("*");
      } else if (condition.ifMatch() != null) {
        complete.ifMatch(condition.ifMatch());
      }
      CompleteMultipartUploadResponse r = s3.completeMultipartUpload(complete.build());
      return new Written(r.versionId(), r.eTag());
    } catch (RuntimeException e) {
      abort(key, uploadId, e);
      throw e;
    }
  }

  private CompletedPart uploadPart(String key, String uploadId, int partNumber, Payload payload, long offset,
      long count) {
    UploadPartRequest.Builder req = UploadPartRequest.builder()
        .bucket(bucket).key(key).uploadId(uploadId).partNumber(partNumber).contentLength(count);
    String partChecksum = null;
    if (additionalChecksums) {
      partChecksum = Sha256.base64(payload.sha256(offset, count));
      req.checksumAlgorithm(ChecksumAlgorithm.SHA256).checksumSHA256(partChecksum);
    }
    // Each (re)send of the part opens its region afresh, so a retry never reads a consumed stream.
    UploadPartResponse r = s3.uploadPart(req.build(),
        RequestBody.fromContentProvider(() -> payload.open(offset, count), count, OCTET_STREAM));
    return CompletedPart.builder().partNumber(partNumber).eTag(r.eTag()).checksumSHA256(partChecksum).build();
  }

  private void abort(String key, String uploadId, RuntimeException cause) {
    try {
      s3.abortMultipartUpload(a -> a.bucket(bucket).key(key).uploadId(uploadId));
      LOG.debug("Aborted multipart upload {} of '{}' after a failure", uploadId, key);
    } catch (SdkException abortFailure) {
      cause.addSuppressed(abortFailure);
      LOG.warn("Could not abort multipart upload {} of '{}' in bucket '{}'; its parts stay until a lifecycle rule"
          + " or abortIncompleteUploads removes them: {}", uploadId, key, bucket, abortFailure.toString());
    }
  }

  /**
   * Aborts every multipart upload in the bucket initiated strictly before {@code initiatedBefore};
   * see {@link S3ObjectStore#abortIncompleteUploads(Instant)}.
   *
   * @return how many uploads were aborted
   * @throws StorageException translated as every call here, if listing or aborting fails
   */
  int abortIncomplete(Instant initiatedBefore) {
    int aborted = 0;
    String keyMarker = null;
    String uploadIdMarker = null;
    while (true) {
      String km = keyMarker;
      String um = uploadIdMarker;
      ListMultipartUploadsResponse page;
      try {
        page = s3.listMultipartUploads(l -> l.bucket(bucket).keyMarker(km).uploadIdMarker(um));
      } catch (SdkException e) {
        throw S3Errors.translate(null, "ListMultipartUploads of bucket '" + bucket + "' at " + endpoint, e);
      }
      for (MultipartUpload upload : page.uploads()) {
        if (upload.initiated() == null || upload.initiated().isBefore(initiatedBefore)) {
          aborted += abortOne(upload) ? 1 : 0;
        }
      }
      if (!Boolean.TRUE.equals(page.isTruncated())) {
        break;
      }
      keyMarker = page.nextKeyMarker();
      uploadIdMarker = page.nextUploadIdMarker();
    }
    if (aborted > 0) {
      LOG.info("Aborted {} multipart upload(s) initiated before {} in bucket '{}'", aborted, initiatedBefore, bucket);
    }
    return aborted;
  }

  private boolean abortOne(MultipartUpload upload) {
    String what = "AbortMultipartUpload of '" + upload.key() + "' in bucket '" + bucket + "' at " + endpoint;
    try {
      s3.abortMultipartUpload(a -> a.bucket(bucket).key(upload.key()).uploadId(upload.uploadId()));
      return true;
    } catch (AwsServiceException e) {
      if (e.statusCode() == 404) { // NoSuchUpload: completed or aborted meanwhile
        return false;
      }
      throw S3Errors.translate(upload.key(), what, e);
    } catch (SdkException e) {
      throw S3Errors.translate(upload.key(), what, e);
    }
  }
}
