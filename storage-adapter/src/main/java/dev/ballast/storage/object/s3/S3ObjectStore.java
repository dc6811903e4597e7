package dev.ballast.storage.object.s3;

import dev.ballast.storage.AccessDeniedException;
import dev.ballast.storage.AlreadyExistsException;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.PreconditionFailedException;
import dev.ballast.storage.StaleReadException;
import dev.ballast.storage.StorageException;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.UnsupportedCapabilityException;
import dev.ballast.storage.internal.ObjectKeys;
import dev.ballast.storage.internal.Payload;
import dev.ballast.storage.internal.Sha256;
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
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketVersioningStatus;
import software.amazon.awssdk.services.s3.model.ChecksumAlgorithm;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.DeleteMarkerEntry;
import software.amazon.awssdk.services.s3.model.DeleteObjectResponse;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectVersionsResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

/**
 * An {@link ObjectStore} over a versioned S3 bucket (AWS or S3-compatible), built with
 * {@link #open(S3Endpoint, String, Options)}. Thread-safe.
 *
 * <h2>Start-up capability probe</h2>
 * {@code open} checks the bucket exists (creating it with {@link Options.Builder#createBucket}),
 * that versioning is {@code Enabled} (enabling it with {@link Options.Builder#enableVersioning},
 * otherwise refusing with {@link UnsupportedCapabilityException}), whether conditional writes are
 * honoured ({@code If-None-Match: *} on an existing key and {@code If-Match} with a wrong ETag must
 * both get 412) and whether {@code x-amz-checksum-sha256} is accepted and validated (a correct one
 * accepted, a wrong one refused). It writes only under {@value ObjectKeys#RESERVED_PREFIX}probe/ and
 * deletes every version it made. The result is {@link #capabilities()}, logged once at INFO.
 *
 * <h2>Writes</h2>
 * Every put records in user metadata the SHA-256 of the content ({@value #META_SHA256}), a
 * generation ({@value #META_GENERATION}) and a unique put token ({@value #META_PUT_TOKEN}), and
 * sends the SHA-256 as an S3 additional checksum when the probe found it validated. Content up to
 * {@link Options#multipartThreshold()} goes in one PUT; larger content as a multipart upload of
 * {@link Options#partSize()} parts, each part's body re-read from its region of the file (a stream
 * is spooled to a temporary file first), so the retrying HTTP layer can re-send a single part; a
 * failed upload is aborted so no orphaned parts remain
 * (<a href="https://docs.aws.amazon.com/AmazonS3/latest/API/API_AbortMultipartUpload.html">AbortMultipartUpload</a>).
 *
 * <p><b>Conditional writes</b> ({@code putIfAbsent}: {@code If-None-Match: *}; {@code putIfMatch}:
 * {@code If-Match}) are refused up front with {@link UnsupportedCapabilityException} when the probe
 * found the endpoint does not honour them. 412 becomes {@link AlreadyExistsException} or
 * {@link PreconditionFailedException}, 404 on {@code If-Match} {@link ObjectNotFoundException}, and
 * 409 {@code ConditionalRequestConflict} (a concurrent write in flight) is retried up to
 * {@link Options#conditionalConflictAttempts()} times, then raised as
 * {@link PreconditionFailedException}.
 *
 * <p><b>No phantom versions.</b> When a put fails ambiguously (no answer after the body may have
 * been sent, retries exhausted, 500/502/504) the store HEADs the key: if the current version carries
 * this put's token the write landed and that version is returned; otherwise the failure is raised
 * and nothing is written again by this layer (the HTTP client is the one layer that retries).
 *
 * <p><b>Generations.</b> Each put stores {@code generation = max(known + 1, head + 1, clock millis)}
 * where {@code known} is the newest generation this store instance has written or read for the key
 * and {@code head} the generation of the key's current version, read with a HEAD just before the
 * write. It is a hybrid logical clock: S3 reads after writes are strongly consistent, so a writer
 * always sees the previous writer's generation and goes past it even with a slow wall clock, and
 * the wall-clock floor keeps a key written again after a delete (whose HEAD shows no generation)
 * ahead of the generations it had before. Puts to one key through one instance run one at a time
 * (puts to different keys run in parallel), so their generations strictly increase in the order the
 * versions land. Two processes racing between HEAD and PUT may record the same generation; neither
 * goes backwards, and the stale-read check only flags a generation strictly below one already seen.
 *
 * <h2>Reads</h2>
 * {@link #get(String, ReadOptions)} returns a stream checked against the recorded length and SHA-256
 * as it is read ({@link IntegrityException} before the final bytes are handed over); an object
 * without Ballast metadata is checked for length only and read with {@link Freshness#UNKNOWN}. A body
 * that breaks off is resumed with ranged GETs pinned to the first response's version ID. A latest
 * read that returns a generation older than one already seen is re-read up to
 * {@link Options#staleReadAttempts()} times with {@link Options#staleReadBackoff()} between, then
 * raised as {@link StaleReadException} or, with {@link ReadOptions#acceptStale()}, returned marked
 * {@link Freshness#STALE}. A read by version ID asked for that version: it is never re-read, and is
 * marked {@link Freshness#STALE} when older than a generation already seen. ETags are opaque: never
 * compared with an MD5.
 *
 * <h2>Errors</h2>
 * Unreachable, 5xx, throttled, circuit open, retries exhausted: {@link StorageUnavailableException}
 * with the cause kept. 401/403: {@link AccessDeniedException}. A key that breaks the rules of
 * {@link ObjectKeys}: {@link IllegalArgumentException}, before any request.
 */
public final class S3ObjectStore implements ObjectStore, AutoCloseable {

  /** User metadata key (sent as {@code x-amz-meta-ballast-sha256}): lowercase hex SHA-256 of the content. */
  public static final String META_SHA256 = "ballast-sha256";
  /** User metadata key: the per-key generation (decimal). */
  public static final String META_GENERATION = "ballast-generation";
  /** User metadata key: the unique token of the logical put that wrote the version. */
  public static final String META_PUT_TOKEN = "ballast-put-token";

  private static final Logger LOG = LoggerFactory.getLogger(S3ObjectStore.class);
  private static final String PROBE_PREFIX = ObjectKeys.RESERVED_PREFIX + "probe/";
  private static final String OCTET_STREAM = "application/octet-stream";
  private static final int MAX_READ_RESUMES = 3;

  private final S3Client s3;
  private final boolean ownsClient;
  private final S3Endpoint endpoint;
  private final String bucket;
  private final Options options;
  private final StoreCapabilities capabilities;
  private final Map<String, Long> knownGenerations = new ConcurrentHashMap<>();
  private final KeyLocks writeLocks = new KeyLocks();

  private S3ObjectStore(S3Client s3, boolean ownsClient, S3Endpoint endpoint, String bucket, Options options,
      StoreCapabilities capabilities) {
    this.s3 = s3;
    this.ownsClient = ownsClient;
    this.endpoint = endpoint;
    this.bucket = bucket;
    this.options = options;
    this.capabilities = capabilities;
  }

  /**
   * Connects to {@code bucket} at {@code endpoint}, runs the capability probe and logs its result.
   *
   * @throws UnsupportedCapabilityException if the bucket does not exist (and may not be created),
   *     versioning is not Enabled (and may not be enabled), or checksum mode ALWAYS is not honoured
   * @throws AccessDeniedException if the credentials are refused
   * @throws StorageUnavailableException if the endpoint cannot be reached
   */
  public static S3ObjectStore open(S3Endpoint endpoint, String bucket, Options options) {
    Objects.requireNonNull(endpoint, "endpoint");
    Objects.requireNonNull(bucket, "bucket");
    Objects.requireNonNull(options, "options");
    if (bucket.isBlank()) {
      throw new IllegalArgumentException("bucket must not be blank");
    }
    S3Client s3 = endpoint.client();
    boolean owns = !endpoint.callerOwnsClient();
    try {
      StoreCapabilities caps = new CapabilityProbe(s3, endpoint, bucket, options).run();
      LOG.info("S3 object store {} bucket '{}': versioning={}, conditional writes={}, additional SHA-256 checksums={}",
          endpoint.describe(), bucket, caps.versioningEnabled() ? "Enabled" : "off",
          caps.conditionalWrites() ? "honoured" : "not supported",
          caps.additionalChecksums() ? "validated" : "not used");
      return new S3ObjectStore(s3, owns, endpoint, bucket, options, caps);
    } catch (RuntimeException e) {
      if (owns) {
        s3.close();
      }
      throw e;
    }
  }

  @Override
  public StoreCapabilities capabilities() {
    return capabilities;
  }

  /** The options this store was opened with. */
  public Options options() {
    return options;
  }

  @Override
  public ObjectVersion put(String key, ObjectContent content) {
    return write(key, content, Condition.NONE, null);
  }

  @Override
  public ObjectVersion putIfAbsent(String key, ObjectContent content) {
    return write(key, content, Condition.IF_ABSENT, null);
  }

  @Override
  public ObjectVersion putIfMatch(String key, String eTag, ObjectContent content) {
    Objects.requireNonNull(eTag, "eTag");
    return write(key, content, Condition.IF_MATCH, eTag);
  }

  private enum Condition { NONE, IF_ABSENT, IF_MATCH }

  private ObjectVersion write(String key, ObjectContent content, Condition condition, String eTag) {
    validate(key);
    Objects.requireNonNull(content, "content");
    if (condition != Condition.NONE && !capabilities.conditionalWrites()) {
      throw new UnsupportedCapabilityException("Conditional writes (" + (condition == Condition.IF_ABSENT
          ? "If-None-Match: *" : "If-Match") + ") are not supported by this endpoint: " + endpoint.describe()
          + " bucket '" + bucket + "' did not refuse them with 412 in the capability probe");
    }
    Payload payload;
    try {
      payload = Payload.prepare(content, options.spoolDirectory());
    } catch (UncheckedIOException e) {
      throw S3Errors.translate(key, "Preparing the upload of '" + key + "'", e);
    }
    // Puts to one key from this instance go one at a time, from the HEAD that reads the current
    // generation to the answer: so each one's generation is strictly above the one before, the newest
    // landed version carries the highest generation, and a later read is never mistaken for stale.
    try (payload; KeyLocks.Held held = writeLocks.lock(key)) {
      HeadObjectResponse head = headOrNull(key, null);
      long generation = nextGeneration(key, head == null ? 0 : generationOf(head.metadata()));
      String token = newToken();
      Map<String, String> metadata = Map.of(
          META_SHA256, payload.sha256Hex(),
          META_GENERATION, Long.toString(generation),
          META_PUT_TOKEN, token);
      int conflicts = 0;
      while (true) {
        try {
          String[] versionAndETag = payload.length() > options.multipartThreshold()
              ? multipart(key, payload, metadata, condition, eTag)
              : single(key, payload, metadata, condition, eTag);
          remember(key, generation);
          return new ObjectVersion(key, versionIdOrNull(versionAndETag[0]), versionAndETag[1], payload.length(),
              payload.sha256Hex(), generation, null);
        } catch (AwsServiceException e) {
          int status = e.statusCode();
          if (status == 412 && condition == Condition.IF_ABSENT) {
            throw new AlreadyExistsException(key, e);
          }
          if (status == 412 && condition == Condition.IF_MATCH) {
            throw new PreconditionFailedException(key, "Object '" + key + "' no longer has ETag " + eTag
                + "; a conditional write (If-Match) was refused: read the current version and retry the edit", e);
          }
          if (status == 404 && condition == Condition.IF_MATCH && !"NoSuchBucket".equals(S3Errors.errorCode(e))) {
            throw notFound(key, null, e);
          }
          if (status == 409 && "ConditionalRequestConflict".equals(S3Errors.errorCode(e))) {
            if (++conflicts < options.conditionalConflictAttempts()) {
              LOG.debug("Conditional write of '{}' conflicted with a concurrent write (409); attempt {} of {}",
                  key, conflicts + 1, options.conditionalConflictAttempts());
              pause(options.staleReadBackoff());
              continue;
            }
            throw new PreconditionFailedException(key, "Conditional write of '" + key + "' conflicted with a"
                + " concurrent write (409 ConditionalRequestConflict) " + conflicts + " times; read the current"
                + " version and try again", e);
          }
          return landedOrThrow(key, token, generation, e);
        } catch (SdkException e) {
          return landedOrThrow(key, token, generation, e);
        } catch (UncheckedIOException e) {
          throw S3Errors.translate(key, describe("PUT", key), e);
        }
      }
    }
  }

  /**
   * After an ambiguous put failure: the version that landed when the current version carries this
   * put's token (its answer was lost), else null. A failing HEAD is kept as suppressed.
   */
  private ObjectVersion landedVersion(String key, String token, SdkException failure) {
    if (!S3Errors.ambiguous(failure)) {
      return null;
    }
    try {
      HeadObjectResponse head = headOrNull(key, null);
      if (head != null && token.equals(head.metadata().get(META_PUT_TOKEN))) {
        LOG.info("PUT of '{}' in bucket '{}' failed ambiguously ({}) but the current version {} carries its put"
            + " token: the write landed, not writing again", key, bucket, failure.toString(), head.versionId());
        return toVersion(key, head);
      }
    } catch (StorageException headFailure) {
      failure.addSuppressed(headFailure);
    }
    return null;
  }

  private ObjectVersion landedOrThrow(String key, String token, long generation, SdkException failure) {
    ObjectVersion landed = landedVersion(key, token, failure);
    if (landed == null) {
      throw S3Errors.translate(key, describe("PUT", key), failure);
    }
    remember(key, generation);
    return landed;
  }

  private String[] single(String key, Payload payload, Map<String, String> metadata, Condition condition,
      String eTag) {
    PutObjectRequest.Builder req = PutObjectRequest.builder()
        .bucket(bucket)
        .key(key)
        .contentLength(payload.length())
        .contentType(OCTET_STREAM)
        .metadata(metadata);
    if (capabilities.additionalChecksums()) {
      req.checksumAlgorithm(ChecksumAlgorithm.SHA256).checksumSHA256(Sha256.base64(payload.sha256()));
    }
    if (condition == Condition.IF_ABSENT) {
      req.ifNoneMatch("*");
    } else if (condition == Condition.IF_MATCH) {
      req.ifMatch(eTag);
    }
    long length = payload.length();
    PutObjectResponse r = s3.putObject(req.build(),
        RequestBody.fromContentProvider(() -> payload.open(0, length), length, OCTET_STREAM));
    return new String[] {r.versionId(), r.eTag()};
  }

  private String[] multipart(String key, Payload payload, Map<String, String> metadata, Condition condition,
      String eTag) {
    CreateMultipartUploadRequest.Builder create = CreateMultipartUploadRequest.builder()
        .bucket(bucket).key(key).contentType(OCTET_STREAM).metadata(metadata);
    if (capabilities.additionalChecksums()) {
      create.checksumAlgorithm(ChecksumAlgorithm.SHA256);
    }
    String uploadId = s3.createMultipartUpload(create.build()).uploadId();
    try {
      List<CompletedPart> parts = new ArrayList<>();
      long partSize = options.partSize();
      int partNumber = 1;
      for (long offset = 0; offset < payload.length(); offset += partSize, partNumber++) {
        long count = Math.min(partSize, payload.length() - offset);
        parts.add(uploadPart(key, uploadId, partNumber, payload, offset, count));
      }
      CompleteMultipartUploadRequest.Builder complete = CompleteMultipartUploadRequest.builder()
          .bucket(bucket).key(key).uploadId(uploadId)
          .multipartUpload(m -> m.parts(parts));
      if (condition == Condition.IF_ABSENT) {
        complete.ifNoneMatch("*");
      } else if (condition == Condition.IF_MATCH) {
        complete.ifMatch(eTag);
      }
      CompleteMultipartUploadResponse r = s3.completeMultipartUpload(complete.build());
      return new String[] {r.versionId(), r.eTag()};
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
    if (capabilities.additionalChecksums()) {
      partChecksum = Sha256.base64(payload.sha256(offset, count));
      req.checksumAlgorithm(ChecksumAlgorithm.SHA256).checksumSHA256(partChecksum);
    }
    // Each (re)send of the part opens its file region afresh, so a retry never reads a consumed stream.
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
          + " removes them: {}", uploadId, key, bucket, abortFailure.toString());
    }
  }

  @Override
  public ObjectRead get(String key) {
    return get(key, ReadOptions.latest());
  }

  @Override
  public ObjectRead get(String key, ReadOptions readOptions) {
    validate(key);
    Objects.requireNonNull(readOptions, "options");
    String versionId = readOptions.versionId();
    for (int attempt = 1; ; attempt++) {
      ResponseInputStream<GetObjectResponse> in = open(key, versionId, null, null, -1);
      GetObjectResponse r = in.response();
      long generation = generationOf(r.metadata());
      long known = knownGenerations.getOrDefault(key, 0L);
      boolean stale = generation > 0 && generation < known;
      if (stale && versionId == null) {
        if (attempt < options.staleReadAttempts()) {
          in.abort();
          LOG.debug("Stale read of '{}': generation {} < known {}; re-reading (attempt {} of {})",
              key, generation, known, attempt + 1, options.staleReadAttempts());
          pause(options.staleReadBackoff());
          continue;
        }
        if (!readOptions.acceptStale()) {
          in.abort();
          LOG.warn("Stale read of '{}' in bucket '{}': the store returned generation {} but {} was already seen,"
              + " {} times", key, bucket, generation, known, attempt);
          throw new StaleReadException(key, known, generation);
        }
        LOG.warn("Returning a stale read of '{}' marked STALE: generation {} < known {}", key, generation, known);
      }
      if (!stale) {
        remember(key, generation);
      }
      Freshness freshness = generation == 0 ? Freshness.UNKNOWN : stale ? Freshness.STALE : Freshness.FRESH;
      long length = r.contentLength() == null ? 0 : r.contentLength();
      String sha = r.metadata().get(META_SHA256);
      String pinVersion = versionIdOrNull(r.versionId());
      String pinETag = r.eTag();
      PinnedObjectInputStream raw = new PinnedObjectInputStream(key, in, length,
          offset -> open(key, "null".equals(pinVersion) ? null : pinVersion,
              "null".equals(pinVersion) ? pinETag : null, offset, length),
          MAX_READ_RESUMES);
      ObjectVersion version = new ObjectVersion(key, pinVersion, r.eTag() == null ? "" : r.eTag(), length,
          sha == null ? "" : sha, generation, r.lastModified());
      return new ObjectRead(version, new VerifyingInputStream(key, raw, length, sha), Source.LIVE, freshness,
          Duration.ZERO, null);
    }
  }

  private ResponseInputStream<GetObjectResponse> open(String key, String versionId, String ifMatch, Long from,
      long length) {
    GetObjectRequest.Builder req = GetObjectRequest.builder().bucket(bucket).key(key);
    if (versionId != null) {
      req.versionId(versionId);
    }
    if (ifMatch != null) {
      req.ifMatch(ifMatch);
    }
    if (from != null) {
      req.range("bytes=" + from + "-" + (length - 1));
    }
    try {
      return s3.getObject(req.build());
    } catch (AwsServiceException e) {
      int status = e.statusCode();
      if ((status == 404 && !"NoSuchBucket".equals(S3Errors.errorCode(e))) || status == 405) {
        throw notFound(key, versionId, e);
      }
      throw S3Errors.translate(key, describe("GET", key), e);
    } catch (SdkException e) {
      throw S3Errors.translate(key, describe("GET", key), e);
    }
  }

  /**
   * 404 on the latest version: deleted when its latest version is a delete marker (the
   * {@code x-amz-delete-marker} header, or the version list when the store does not send it).
   * 405 on a version ID: that version is a delete marker.
   */
  private ObjectNotFoundException notFound(String key, String versionId, AwsServiceException e) {
    if (e.statusCode() == 405) {
      return new ObjectNotFoundException(key, versionId, true, e);
    }
    boolean deleted = e.awsErrorDetails() != null && e.awsErrorDetails().sdkHttpResponse() != null
        && e.awsErrorDetails().sdkHttpResponse().firstMatchingHeader("x-amz-delete-marker")
            .map("true"::equalsIgnoreCase).orElse(false);
    if (!deleted && versionId == null) {
      List<VersionEntry> history = versions(key);
      deleted = !history.isEmpty() && history.get(0).deleteMarker();
    }
    return new ObjectNotFoundException(key, versionId, deleted, e);
  }

  @Override
  public List<VersionEntry> versions(String key) {
    validate(key);
    List<VersionEntry> entries = new ArrayList<>();
    String keyMarker = null;
    String versionMarker = null;
    while (true) {
      ListObjectVersionsResponse page;
      String km = keyMarker;
      String vm = versionMarker;
      try {
        page = s3.listObjectVersions(r -> r.bucket(bucket).prefix(key).keyMarker(km).versionIdMarker(vm));
      } catch (SdkException e) {
        throw S3Errors.translate(key, describe("ListObjectVersions", key), e);
      }
      boolean passedKey = false;
      for (software.amazon.awssdk.services.s3.model.ObjectVersion v : page.versions()) {
        if (key.equals(v.key())) {
          entries.add(new VersionEntry(key, v.versionId(), v.eTag(), v.size() == null ? 0 : v.size(),
              v.lastModified(), Boolean.TRUE.equals(v.isLatest()), false));
        } else {
          passedKey = true;
        }
      }
      for (DeleteMarkerEntry d : page.deleteMarkers()) {
        if (key.equals(d.key())) {
          entries.add(new VersionEntry(key, d.versionId(), null, 0, d.lastModified(),
              Boolean.TRUE.equals(d.isLatest()), true));
        } else {
          passedKey = true;
        }
      }
      // Keys sharing the prefix sort after the exact key, so a page that reached one ends our history.
      if (passedKey || !Boolean.TRUE.equals(page.isTruncated())) {
        break;
      }
      keyMarker = page.nextKeyMarker();
      versionMarker = page.nextVersionIdMarker();
    }
    // The SDK splits versions and delete markers into two lists; put them back in one history.
    entries.sort(Comparator.comparing(VersionEntry::latest).reversed()
        .thenComparing(VersionEntry::lastModified, Comparator.nullsLast(Comparator.reverseOrder())));
    return List.copyOf(entries);
  }

  @Override
  public VersionEntry delete(String key) {
    validate(key);
    DeleteObjectResponse r;
    try {
      r = s3.deleteObject(d -> d.bucket(bucket).key(key));
    } catch (SdkException e) {
      throw S3Errors.translate(key, describe("DELETE", key), e);
    }
    String versionId = r.versionId() == null ? "null" : r.versionId();
    return new VersionEntry(key, versionId, null, 0, options.clock().instant(), true,
        r.deleteMarker() == null || r.deleteMarker());
  }

  @Override
  public List<String> list(String prefix) {
    Objects.requireNonNull(prefix, "prefix");
    List<String> keys = new ArrayList<>();
    String token = null;
    do {
      ListObjectsV2Request.Builder req = ListObjectsV2Request.builder().bucket(bucket).prefix(prefix);
      if (token != null) {
        req.continuationToken(token);
      }
      ListObjectsV2Response page;
      try {
        page = s3.listObjectsV2(req.build());
      } catch (SdkException e) {
        throw S3Errors.translate(null, describe("ListObjectsV2", prefix), e);
      }
      for (S3Object o : page.contents()) {
        if (!o.key().startsWith(ObjectKeys.RESERVED_PREFIX)) {
          keys.add(o.key());
        }
      }
      token = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
    } while (token != null);
    keys.sort(S3ObjectStore::compareUtf8);
    return List.copyOf(keys);
  }

  /**
   * Aborts every multipart upload in the bucket that was initiated before {@code initiatedBefore},
   * so its parts stop taking space
   * (<a href="https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListMultipartUploads.html">ListMultipartUploads</a>,
   * <a href="https://docs.aws.amazon.com/AmazonS3/latest/API/API_AbortMultipartUpload.html">AbortMultipartUpload</a>).
   * A put aborts its own failed upload, but when the endpoint dies mid-upload the abort cannot reach
   * it either; this is the sweep for such orphans. Choose the cut-off so that no upload still in
   * progress is older (for example, the time a caller that holds the bucket exclusively started),
   * since an aborted upload in progress fails at completion.
   *
   * @param initiatedBefore uploads initiated strictly before this instant are aborted
   * @return how many uploads were aborted
   * @throws StorageException (translated as every call here) if listing or aborting fails
   */
  public int abortIncompleteUploads(java.time.Instant initiatedBefore) {
    Objects.requireNonNull(initiatedBefore, "initiatedBefore");
    int aborted = 0;
    String keyMarker = null;
    String uploadIdMarker = null;
    while (true) {
      String km = keyMarker;
      String um = uploadIdMarker;
      software.amazon.awssdk.services.s3.model.ListMultipartUploadsResponse page;
      try {
        page = s3.listMultipartUploads(l -> l.bucket(bucket).keyMarker(km).uploadIdMarker(um));
      } catch (SdkException e) {
        throw S3Errors.translate(null, "ListMultipartUploads of bucket '" + bucket + "' at " + endpoint.describe(), e);
      }
      for (var upload : page.uploads()) {
        if (upload.initiated() != null && !upload.initiated().isBefore(initiatedBefore)) {
          continue;
        }
        try {
          s3.abortMultipartUpload(a -> a.bucket(bucket).key(upload.key()).uploadId(upload.uploadId()));
          aborted++;
        } catch (AwsServiceException e) {
          if (e.statusCode() != 404) { // NoSuchUpload: completed or aborted meanwhile
            throw S3Errors.translate(upload.key(), describe("AbortMultipartUpload", upload.key()), e);
          }
        } catch (SdkException e) {
          throw S3Errors.translate(upload.key(), describe("AbortMultipartUpload", upload.key()), e);
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

  private static int compareUtf8(String a, String b) {
    return java.util.Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
  }

  /** Closes the S3 client if this store built it. */
  @Override
  public void close() {
    if (ownsClient) {
      s3.close();
    }
  }

  private HeadObjectResponse headOrNull(String key, String versionId) {
    try {
      return s3.headObject(h -> h.bucket(bucket).key(key).versionId(versionId));
    } catch (AwsServiceException e) {
      if (e.statusCode() == 404 && !"NoSuchBucket".equals(S3Errors.errorCode(e))) {
        return null;
      }
      throw S3Errors.translate(key, describe("HEAD", key), e);
    } catch (SdkException e) {
      throw S3Errors.translate(key, describe("HEAD", key), e);
    }
  }

  private ObjectVersion toVersion(String key, HeadObjectResponse head) {
    String sha = head.metadata().get(META_SHA256);
    return new ObjectVersion(key, versionIdOrNull(head.versionId()), head.eTag(),
        head.contentLength() == null ? 0 : head.contentLength(), sha == null ? "" : sha,
        generationOf(head.metadata()), head.lastModified());
  }

  private long nextGeneration(String key, long headGeneration) {
    long known = knownGenerations.getOrDefault(key, 0L);
    return Math.max(Math.max(known, headGeneration) + 1, options.clock().millis());
  }

  private void remember(String key, long generation) {
    if (generation > 0) {
      knownGenerations.merge(key, generation, Math::max);
    }
  }

  /** The generation recorded in user metadata, 0 when absent or unreadable (not written by Ballast). */
  static long generationOf(Map<String, String> metadata) {
    String g = metadata.get(META_GENERATION);
    if (g == null) {
      return 0;
    }
    try {
      return Math.max(0, Long.parseLong(g.trim()));
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private String newToken() {
    RandomGenerator random = options.random().get();
    return String.format(Locale.ROOT, "%016x%016x", random.nextLong(), random.nextLong());
  }

  private static String versionIdOrNull(String versionId) {
    return versionId == null ? "null" : versionId;
  }

  private void validate(String key) {
    ObjectKeys.validate(key, options.allowDotSegmentsAndLeadingSlash());
  }

  private String describe(String operation, String key) {
    return operation + " of '" + key + "' in bucket '" + bucket + "' at " + endpoint.describe();
  }

  private void pause(Duration d) {
    try {
      options.sleeper().sleep(d);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StorageUnavailableException(null, "Interrupted while waiting to retry", e);
    }
  }

  /** Waits between bounded re-reads; injectable so tests never sleep. */
  @FunctionalInterface
  public interface Sleeper {
    /** Blocks for {@code duration}. */
    void sleep(Duration duration) throws InterruptedException;
  }

  /**
   * How the store is opened and behaves. Immutable and thread-safe; build with {@link #newBuilder()}.
   */
  public static final class Options {
    /** Default multipart threshold: 16 MiB. */
    public static final long DEFAULT_MULTIPART_THRESHOLD = 16L * 1024 * 1024;
    /** Default part size: 8 MiB. */
    public static final long DEFAULT_PART_SIZE = 8L * 1024 * 1024;
    /** S3's minimum size of every part but the last: 5 MiB. */
    public static final long MIN_PART_SIZE = 5L * 1024 * 1024;

    private static final SecureRandom SECURE_RANDOM = new SecureRandom();

    private final boolean createBucket;
    private final boolean enableVersioning;
    private final Clock clock;
    private final long multipartThreshold;
    private final long partSize;
    private final boolean allowDotSegmentsAndLeadingSlash;
    private final int staleReadAttempts;
    private final Duration staleReadBackoff;
    private final int conditionalConflictAttempts;
    private final Path spoolDirectory;
    private final Supplier<RandomGenerator> random;
    private final Sleeper sleeper;

    private Options(Builder b) {
      this.createBucket = b.createBucket;
      this.enableVersioning = b.enableVersioning;
      this.clock = b.clock;
      this.multipartThreshold = b.multipartThreshold;
      this.partSize = b.partSize;
      this.allowDotSegmentsAndLeadingSlash = b.allowDotSegmentsAndLeadingSlash;
      this.staleReadAttempts = b.staleReadAttempts;
      this.staleReadBackoff = b.staleReadBackoff;
      this.conditionalConflictAttempts = b.conditionalConflictAttempts;
      this.spoolDirectory = b.spoolDirectory;
      this.random = b.random;
      this.sleeper = b.sleeper;
    }

    /** The defaults: see each builder method. */
    public static Options defaults() {
      return newBuilder().build();
    }

    /** A builder holding the defaults. */
    public static Builder newBuilder() {
      return new Builder();
    }

    /** Create the bucket at open when it does not exist; default false. */
    public boolean createBucket() {
      return createBucket;
    }

    /** Turn bucket versioning on at open when it is not Enabled; default false (refuse instead). */
    public boolean enableVersioning() {
      return enableVersioning;
    }

    /** Wall clock for generations and delete-marker timestamps; default UTC system clock. */
    public Clock clock() {
      return clock;
    }

    /** Content longer than this many bytes goes as a multipart upload; default 16 MiB. */
    public long multipartThreshold() {
      return multipartThreshold;
    }

    /** Multipart part size in bytes; default 8 MiB. */
    public long partSize() {
      return partSize;
    }

    /** Whether keys with {@code ..} segments or a leading {@code /} are accepted; default false. */
    public boolean allowDotSegmentsAndLeadingSlash() {
      return allowDotSegmentsAndLeadingSlash;
    }

    /** Reads of the latest version made before a stale read is reported; default 3. */
    public int staleReadAttempts() {
      return staleReadAttempts;
    }

    /** Pause between stale re-reads and conditional-conflict retries; default 50 ms. */
    public Duration staleReadBackoff() {
      return staleReadBackoff;
    }

    /** Attempts of a conditional write answered 409 ConditionalRequestConflict; default 3. */
    public int conditionalConflictAttempts() {
      return conditionalConflictAttempts;
    }

    /** Where streamed content larger than 1 MiB is spooled; default {@code java.io.tmpdir}. */
    public Path spoolDirectory() {
      return spoolDirectory;
    }

    /** Source of randomness for put tokens; default a shared {@link SecureRandom}. */
    public Supplier<RandomGenerator> random() {
      return random;
    }

    /** How the store waits between bounded re-reads and conflict retries; default {@link Thread#sleep(long)}. */
    public Sleeper sleeper() {
      return sleeper;
    }

    /** A builder starting from these options. */
    public Builder toBuilder() {
      Builder b = new Builder();
      b.createBucket = createBucket;
      b.enableVersioning = enableVersioning;
      b.clock = clock;
      b.multipartThreshold = multipartThreshold;
      b.partSize = partSize;
      b.allowDotSegmentsAndLeadingSlash = allowDotSegmentsAndLeadingSlash;
      b.staleReadAttempts = staleReadAttempts;
      b.staleReadBackoff = staleReadBackoff;
      b.conditionalConflictAttempts = conditionalConflictAttempts;
      b.spoolDirectory = spoolDirectory;
      b.random = random;
      b.sleeper = sleeper;
      return b;
    }

    /** Builder for {@link Options}; not thread-safe. */
    public static final class Builder {
      private boolean createBucket;
      private boolean enableVersioning;
      private Clock clock = Clock.systemUTC();
      private long multipartThreshold = DEFAULT_MULTIPART_THRESHOLD;
      private long partSize = DEFAULT_PART_SIZE;
      private boolean allowDotSegmentsAndLeadingSlash;
      private int staleReadAttempts = 3;
      private Duration staleReadBackoff = Duration.ofMillis(50);
      private int conditionalConflictAttempts = 3;
      private Path spoolDirectory = Path.of(System.getProperty("java.io.tmpdir"));
      private Supplier<RandomGenerator> random = () -> SECURE_RANDOM;
      private Sleeper sleeper = d -> Thread.sleep(d.toMillis());

      private Builder() {}

      /** See {@link Options#createBucket()}. */
      public Builder createBucket(boolean createBucket) {
        this.createBucket = createBucket;
        return this;
      }

      /** See {@link Options#enableVersioning()}. */
      public Builder enableVersioning(boolean enableVersioning) {
        this.enableVersioning = enableVersioning;
        return this;
      }

      /** See {@link Options#clock()}. */
      public Builder clock(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
        return this;
      }

      /** See {@link Options#multipartThreshold()}. */
      public Builder multipartThreshold(long bytes) {
        this.multipartThreshold = bytes;
        return this;
      }

      /** See {@link Options#partSize()}. */
      public Builder partSize(long bytes) {
        this.partSize = bytes;
        return this;
      }

      /** See {@link Options#allowDotSegmentsAndLeadingSlash()}. */
      public Builder allowDotSegmentsAndLeadingSlash(boolean allow) {
        this.allowDotSegmentsAndLeadingSlash = allow;
        return this;
      }

      /** See {@link Options#staleReadAttempts()}. */
      public Builder staleReadAttempts(int attempts) {
        this.staleReadAttempts = attempts;
        return this;
      }

      /** See {@link Options#staleReadBackoff()}. */
      public Builder staleReadBackoff(Duration backoff) {
        this.staleReadBackoff = Objects.requireNonNull(backoff, "backoff");
        return this;
      }

      /** See {@link Options#conditionalConflictAttempts()}. */
      public Builder conditionalConflictAttempts(int attempts) {
        this.conditionalConflictAttempts = attempts;
        return this;
      }

      /** See {@link Options#spoolDirectory()}. */
      public Builder spoolDirectory(Path directory) {
        this.spoolDirectory = Objects.requireNonNull(directory, "directory");
        return this;
      }

      /** See {@link Options#random()}. */
      public Builder random(Supplier<RandomGenerator> random) {
        this.random = Objects.requireNonNull(random, "random");
        return this;
      }

      /** See {@link Options#sleeper()}. */
      public Builder sleeper(Sleeper sleeper) {
        this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
        return this;
      }

      /**
       * @throws IllegalArgumentException if the part size is below 5 MiB, the threshold is below the
       *     part size, an attempt count is below 1 or the backoff is negative
       */
      public Options build() {
        if (partSize < MIN_PART_SIZE) {
          throw new IllegalArgumentException("partSize must be >= " + MIN_PART_SIZE + " (S3's minimum part size)"
              + " but was " + partSize);
        }
        if (multipartThreshold < partSize) {
          throw new IllegalArgumentException("multipartThreshold must be >= partSize (" + partSize + ") but was "
              + multipartThreshold);
        }
        if (staleReadAttempts < 1) {
          throw new IllegalArgumentException("staleReadAttempts must be >= 1 but was " + staleReadAttempts);
        }
        if (conditionalConflictAttempts < 1) {
          throw new IllegalArgumentException("conditionalConflictAttempts must be >= 1 but was "
              + conditionalConflictAttempts);
        }
        if (staleReadBackoff.isNegative()) {
          throw new IllegalArgumentException("staleReadBackoff must be >= 0 but was " + staleReadBackoff);
        }
        return new Options(this);
      }
    }
  }

  /** One lock per key while it is held or awaited; an entry is removed when its last user leaves. */
  private static final class KeyLocks {
    private final ConcurrentHashMap<String, Entry> locks = new ConcurrentHashMap<>();

    private static final class Entry {
      final ReentrantLock lock = new ReentrantLock();
      int users;
    }

    /** What {@link #lock} returns; closing it releases the key. */
    interface Held extends AutoCloseable {
      @Override
      void close();
    }

    Held lock(String key) {
      Entry entry = locks.compute(key, (k, e) -> {
        Entry x = e == null ? new Entry() : e;
        x.users++;
        return x;
      });
      try {
        entry.lock.lockInterruptibly();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        leave(key);
        throw new StorageUnavailableException(key, "Interrupted while waiting for another put of '" + key
            + "' from this store to finish", e);
      }
      return () -> {
        entry.lock.unlock();
        leave(key);
      };
    }

    private void leave(String key) {
      locks.compute(key, (k, e) -> --e.users == 0 ? null : e);
    }
  }
}
