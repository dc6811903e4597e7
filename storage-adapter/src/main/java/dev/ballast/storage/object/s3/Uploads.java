package dev.ballast.storage.object.s3;

import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.StorageException;
import dev.ballast.storage.internal.Md5;
import dev.ballast.storage.internal.Payload;
import dev.ballast.storage.internal.Sha256;
import dev.ballast.storage.object.PutOptions;
import dev.ballast.storage.object.ServerSideEncryption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ChecksumAlgorithm;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
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
 * and {@link #abortIncomplete} sweeps the ones an endpoint that died mid-upload left behind.
 *
 * <h2>What proves the stored copy</h2>
 * Over plain HTTP on an endpoint that validates the signed payload hash (the probe's
 * {@link S3StoreConfig.Capability#SIGNED_PAYLOAD}), the body's SHA-256 in the signature: S3 answers
 * {@code 400 XAmzContentSHA256Mismatch} to a body that does not match it and stores nothing, so no
 * MD5 is computed or sent. Otherwise every body carries {@code Content-MD5} (RFC 1864), which S3
 * checks before it stores anything and answers {@code 400 BadDigest} to a body that does not match
 * (<a href="https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObject.html">PutObject</a>,
 * <a href="https://docs.aws.amazon.com/AmazonS3/latest/API/API_UploadPart.html">UploadPart</a>).
 * {@code x-amz-checksum-sha256} goes along when the probe found the endpoint validates it (for a
 * part, when its SHA-256 is known anyway, see below). All digests come from the payload's one read
 * ({@link Payload.Digests}).
 *
 * <h2>The SigV4 payload hash</h2>
 * Over plain HTTP nothing but SigV4 protects a body from being changed on the way, so its SHA-256
 * is signed ({@code x-amz-content-sha256}): the one the payload already computed goes in that header
 * and is reused by the signer ({@link PrecomputedPayloadSigner}) instead of hashing the body again.
 * Over HTTPS, TLS protects the body and the SDK signs {@code UNSIGNED-PAYLOAD}, so a part needs no
 * SHA-256 of its own; {@code Content-MD5} then proves what was stored. A multipart upload over plain
 * HTTP therefore hashes each byte twice with SHA-256 (the whole object's digest for the record, the
 * part's for the signature: SHA-256 is not composable); a single PUT, and any upload over HTTPS,
 * once.
 *
 * <h2>Parts in flight</h2>
 * Up to {@link S3StoreConfig#partConcurrency()} parts of one upload are sent at once, on the store's
 * part executor. No part is held in memory: each streams from its region of the file (or spool
 * file), so an upload adds at most {@code partConcurrency} request bodies of the JDK HTTP client's
 * buffers (a few tens of KiB each) whatever its size.
 *
 * <h2>Completing</h2>
 * {@code CompleteMultipartUpload} may take minutes and may fail after {@code 200 OK} was sent (AWS
 * then sends the error in the body, which the SDK raises)
 * (<a href="https://docs.aws.amazon.com/AmazonS3/latest/API/API_CompleteMultipartUpload.html">CompleteMultipartUpload</a>).
 * Its attempt timeout grows with the part count ({@link S3StoreConfig#completeTimeout(int)}, capped
 * by the HTTP client's total timeout), and since completing one upload ID with the same part list
 * again cannot create a second object, this class sends it again after an ambiguous failure (no
 * answer, a 5xx, an error after {@code 200 OK}), up to {@link S3StoreConfig#completeAttempts()}
 * times; it is the one layer that retries it, the HTTP layer never repeating a write into a
 * versioned bucket. Its answer is checked: a
 * multipart ETag ({@code "<md5>-<parts>"}) must be the MD5 of the parts' MD5s (those computed here,
 * or, where no MD5 was computed, the ETags the endpoint answered to the parts whose signed SHA-256 it
 * validated); another ETag form is checked by reading the new version's length and put token. {@code NoSuchUpload} means an earlier
 * attempt may have completed the upload: it is raised as an ambiguous failure, and the object store
 * looks for the version carrying this put's token before it reports anything.
 *
 * <p>SDK exceptions propagate to the caller, which knows what they mean for its write. Thread-safe.
 */
final class Uploads {
    private static final Logger LOG = LoggerFactory.getLogger(Uploads.class);
    private static final String OCTET_STREAM = "application/octet-stream";
    /** The SigV4 header holding the payload's SHA-256 (lowercase hex). */
    static final String CONTENT_SHA256 = "x-amz-content-sha256";

    private static final Pattern PART_ETAG = Pattern.compile("\"?[0-9a-fA-F]{32}\"?");
    private static final Pattern MULTIPART_ETAG = Pattern.compile("\"?[0-9a-fA-F]{32}-[0-9]+\"?");

    /**
     * What a completed upload returned: the version ID, its ETag, when it was stored and the
     * server-side encryption the answer reported. An answer without an ETag (Ceph RGW answers a
     * multipart completion with an empty one) takes the ETag of the HEAD that checks the new version;
     * {@code lastModified} is that HEAD's {@code Last-Modified}, else the {@code Date} of the answer (S3
     * answers a PUT without {@code Last-Modified}), null when neither came.
     */
    record Written(String versionId, String eTag, @Nullable Instant lastModified, ServerSideEncryption encryption) {}

    private final S3Client s3;
    private final String bucket;
    private final S3StoreConfig config;
    private final boolean additionalChecksums;
    private final boolean plainHttp;
    private final boolean contentMd5;
    private final String endpoint;
    private final ExecutorService partExecutor;
    private final AttemptTimeouts attemptTimeouts;

    Uploads(
            S3Client s3,
            String bucket,
            S3StoreConfig config,
            boolean additionalChecksums,
            boolean plainHttp,
            boolean contentMd5,
            String endpoint,
            ExecutorService partExecutor,
            AttemptTimeouts attemptTimeouts) {
        this.s3 = s3;
        this.bucket = bucket;
        this.config = config;
        this.additionalChecksums = additionalChecksums;
        this.plainHttp = plainHttp;
        // Without Content-MD5 only the signed SHA-256 proves a body, so it must be there: plain HTTP.
        this.contentMd5 = contentMd5 || !plainHttp;
        this.endpoint = endpoint;
        this.partExecutor = partExecutor;
        this.attemptTimeouts = attemptTimeouts;
    }

    /** The digests a payload of {@code length} bytes needs for its upload, computed in its one read. */
    Payload.Digests digestsFor(long length) {
        boolean multipart = length > config.multipartThreshold();
        return new Payload.Digests(multipart ? config.partSize() : 0, contentMd5, plainHttp, true);
    }

    /**
     * Uploads {@code payload} to {@code key} with {@code metadata} (user metadata, Ballast's included)
     * and the headers and encryption of {@code options}, under {@code condition}.
     */
    Written upload(
            String key, Payload payload, Map<String, String> metadata, PutOptions options, WriteCondition condition) {
        return payload.length() > config.multipartThreshold()
                ? multipart(key, payload, metadata, options, condition)
                : single(key, payload, metadata, options, condition);
    }

    /** {@link #upload} without headers or encryption. */
    Written upload(String key, Payload payload, Map<String, String> metadata, WriteCondition condition) {
        return upload(key, payload, metadata, PutOptions.defaults(), condition);
    }

    private Written single(
            String key, Payload payload, Map<String, String> metadata, PutOptions options, WriteCondition condition) {
        PutObjectRequest.Builder req = PutObjectRequest.builder()
                .bucket(bucket)
                .key(key)
                .contentLength(payload.length())
                .metadata(metadata);
        S3Attributes.apply(req, options);
        if (contentMd5) {
            req.contentMD5(Md5.base64(payload.md5(0)));
        }
        if (additionalChecksums) {
            req.checksumAlgorithm(ChecksumAlgorithm.SHA256).checksumSHA256(Sha256.base64(payload.sha256()));
        }
        if (plainHttp) {
            String hex = payload.sha256Hex();
            req.overrideConfiguration(o -> o.putHeader(CONTENT_SHA256, hex));
        }
        if (condition.ifAbsent()) {
            req.ifNoneMatch("*");
        } else if (condition.ifMatch() != null) {
            req.ifMatch(condition.ifMatch());
        }
        long length = payload.length();
        PutObjectResponse r = s3.putObject(
                req.build(), RequestBody.fromContentProvider(() -> payload.open(0, length), length, OCTET_STREAM));
        return new Written(
                r.versionId(),
                r.eTag(),
                answered(r),
                S3Attributes.applied(
                        r.serverSideEncryption(), r.ssekmsKeyId(), r.sseCustomerAlgorithm(), r.sseCustomerKeyMD5()));
    }

    /** The {@code Date} of an answer: when the server answered, which is when it had stored the bytes. */
    private static @Nullable Instant answered(software.amazon.awssdk.core.SdkResponse r) {
        return r.sdkHttpResponse() == null
                ? null
                : r.sdkHttpResponse()
                        .firstMatchingHeader("Date")
                        .map(date -> {
                            try {
                                return java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME.parse(date, Instant::from);
                            } catch (java.time.format.DateTimeParseException e) {
                                return null;
                            }
                        })
                        .orElse(null);
    }

    private Written multipart(
            String key, Payload payload, Map<String, String> metadata, PutOptions options, WriteCondition condition) {
        // Parts carry x-amz-checksum-sha256 only when their SHA-256 is known anyway; then every part must.
        boolean partChecksums = additionalChecksums && payload.hasPartSha256();
        CreateMultipartUploadRequest.Builder create =
                CreateMultipartUploadRequest.builder().bucket(bucket).key(key).metadata(metadata);
        S3Attributes.apply(create, options);
        if (partChecksums) {
            create.checksumAlgorithm(ChecksumAlgorithm.SHA256);
        }
        var created = create(key, create.build());
        String uploadId = created.uploadId();
        ServerSideEncryption sse = options.encryption();
        List<CompletedPart> parts;
        try {
            parts = uploadParts(key, uploadId, payload, partChecksums, sse);
        } catch (RuntimeException e) {
            abort(key, uploadId, e);
            throw e;
        }
        CompleteMultipartUploadRequest.Builder complete = CompleteMultipartUploadRequest.builder()
                .bucket(bucket)
                .key(key)
                .uploadId(uploadId)
                .multipartUpload(m -> m.parts(parts));
        if (condition.ifAbsent()) {
            complete.ifNoneMatch("*");
        } else if (condition.ifMatch() != null) {
            complete.ifMatch(condition.ifMatch());
        }
        CompleteMultipartUploadResponse r = complete(key, uploadId, complete.build(), parts.size());
        HeadObjectResponse head = checkCompleted(key, payload, parts, metadata, sse, r);
        ServerSideEncryption applied = S3Attributes.applied(
                r.serverSideEncryption(), r.ssekmsKeyId(), created.sseCustomerAlgorithm(), created.sseCustomerKeyMD5());
        if (head != null && head.eTag() != null && !head.eTag().isBlank()) {
            return new Written(r.versionId(), head.eTag(), head.lastModified(), applied);
        }
        return new Written(r.versionId(), r.eTag() == null ? "" : r.eTag(), answered(r), applied);
    }

    /**
     * Starts the upload, again after an ambiguous failure (no answer, a 5xx, an answer that broke off in its
     * body), at most {@link S3StoreConfig#completeAttempts()} times: the HTTP layer never repeats a POST. A
     * repeat is safe: an upload an earlier attempt started and nobody completes holds parts only until
     * {@code abortIncompleteUploads} (a prune) or a lifecycle rule removes it, and no object is written by it.
     * A cut in the answer to this request failed a whole backup before, which a second attempt got through
     * (a fault tester's, with a proxy that cut one answer after 5 bytes).
     *
     * @throws SdkException the last failure, or the first one that is not ambiguous
     */
    private software.amazon.awssdk.services.s3.model.CreateMultipartUploadResponse create(
            String key, CreateMultipartUploadRequest request) {
        for (int attempt = 1; ; attempt++) {
            SdkException e;
            try {
                return s3.createMultipartUpload(request);
            } catch (SdkException failure) {
                e = failure;
            } catch (java.io.UncheckedIOException failure) {
                e = SdkClientException.builder()
                        .message("The answer to CreateMultipartUpload of '" + key + "' broke off: "
                                + failure.getMessage())
                        .cause(failure)
                        .build();
            }
            if (!S3Errors.ambiguous(e) || attempt >= config.completeAttempts()) {
                throw e;
            }
            retrying("CreateMultipartUpload of '" + key + "'", attempt, e);
        }
    }

    /**
     * Sends the completion, again after an ambiguous failure (no answer, a 5xx, an error after
     * {@code 200 OK}), at most {@link S3StoreConfig#completeAttempts()} times: the one layer that
     * retries it, since the HTTP layer never repeats a write into a versioned bucket.
     *
     * @throws SdkClientException (ambiguous) when the outcome stays unknown, the upload is gone
     *     ({@code NoSuchUpload}) or only a repeat succeeded: the caller looks for the version this put
     *     wrote
     */
    private CompleteMultipartUploadResponse complete(
            String key, String uploadId, CompleteMultipartUploadRequest request, int partCount) {
        Duration timeout = config.completeTimeout(partCount);
        for (int attempt = 1; ; attempt++) {
            boolean last = attempt >= config.completeAttempts();
            try (AttemptTimeouts.Held held = attemptTimeouts.hold(uploadId, timeout)) {
                CompleteMultipartUploadResponse r = s3.completeMultipartUpload(request);
                if (attempt > 1) {
                    // A repeat's answer may describe the earlier completion only in part (Ceph RGW and s3proxy
                    // answer one without the version ID): the version made is read from the key, by its token.
                    throw outcomeUnknown(
                            key, uploadId, "succeeded on attempt " + attempt + " after an ambiguous failure", null);
                }
                return r;
            } catch (AwsServiceException e) {
                if (e.statusCode() == 404 && "NoSuchUpload".equals(S3Errors.errorCode(e))) {
                    // Completed by an earlier attempt whose answer was lost, or aborted: the caller looks for
                    // the version this put wrote before it reports anything.
                    throw outcomeUnknown(
                            key, uploadId, "answered NoSuchUpload: an earlier attempt may have completed it", e);
                }
                boolean failedAfter200 = e.statusCode() / 100 == 2;
                if (!failedAfter200 && !S3Errors.ambiguous(e)) {
                    abort(key, uploadId, e);
                    throw e;
                }
                if (last) {
                    // 200 OK, then an error in the body: the completion failed after it began (AWS asks for a
                    // retry). Whether anything landed is looked up by the caller; the parts stay for the sweep.
                    throw outcomeUnknown(
                            key,
                            uploadId,
                            "failed " + attempt + " times, last "
                                    + (failedAfter200
                                            ? "after 200 OK (" + S3Errors.errorCode(e) + ")"
                                            : "with " + e.statusCode()),
                            e);
                }
                retrying(key, uploadId, attempt, e);
            } catch (SdkException | java.io.UncheckedIOException failure) {
                SdkException e = failure instanceof SdkException sdk ? sdk : brokenOff(key, uploadId, failure);
                if (!S3Errors.ambiguous(e)) {
                    abort(key, uploadId, e);
                    throw e;
                }
                if (last) {
                    // After an ambiguous failure the upload may be complete or still completing: aborting could
                    // undo a write that landed, so the parts are left for the sweep (abortIncompleteUploads).
                    throw e;
                }
                retrying(key, uploadId, attempt, e);
            }
        }
    }

    /**
     * A completion whose answer broke off in its body ({@code 200 OK}, then the connection cut): the SDK's XML
     * parser lets that through as an {@link java.io.UncheckedIOException}, not an {@link SdkException}. The
     * completion may have taken effect, so it is an ambiguous failure ({@link S3Errors#ambiguous}), as an
     * answer lost before it began is.
     */
    private static SdkClientException brokenOff(String key, String uploadId, RuntimeException failure) {
        return SdkClientException.builder()
                .message("The answer to CompleteMultipartUpload of '" + key + "' (upload " + uploadId + ") broke off: "
                        + failure.getMessage())
                .cause(failure)
                .build();
    }

    private void retrying(String key, String uploadId, int attempt, Exception failure) {
        retrying("CompleteMultipartUpload of '" + key + "' (upload " + uploadId + ")", attempt, failure);
    }

    /** Logs that {@code request} failed ambiguously and will be sent again, then pauses {@link S3StoreConfig#staleReadBackoff()}. */
    private void retrying(String request, int attempt, Exception failure) {
        LOG.debug(
                "{} failed ambiguously ({}); sending it again, attempt {} of {}",
                request,
                failure.toString(),
                attempt + 1,
                config.completeAttempts());
        try {
            config.sleeper().sleep(config.staleReadBackoff());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw SdkClientException.builder()
                    .message("Interrupted while sending " + request + " again")
                    .cause(e)
                    .build();
        }
    }

    private static SdkClientException outcomeUnknown(
            String key, String uploadId, String what, @Nullable Exception cause) {
        SdkClientException.Builder b = SdkClientException.builder()
                .message("CompleteMultipartUpload of '" + key + "' (upload " + uploadId + ") " + what);
        return cause == null ? b.build() : b.cause(cause).build();
    }

    /** Sends every part, at most {@link S3StoreConfig#partConcurrency()} at once, in part-number order. */
    private List<CompletedPart> uploadParts(
            String key, String uploadId, Payload payload, boolean partChecksums, ServerSideEncryption sse) {
        long partSize = payload.partSize();
        int count = payload.partCount();
        List<CompletedPart> parts = new ArrayList<>(count);
        Deque<CompletableFuture<CompletedPart>> inFlight = new ArrayDeque<>();
        RuntimeException failure = null;
        for (int index = 0; index < count && failure == null; index++) {
            if (inFlight.size() >= config.partConcurrency()) {
                failure = await(inFlight.removeFirst(), parts);
                if (failure != null) {
                    break;
                }
            }
            int i = index;
            long offset = i * partSize;
            long length = Math.min(partSize, payload.length() - offset);
            inFlight.addLast(CompletableFuture.supplyAsync(
                    () -> uploadPart(key, uploadId, i, payload, offset, length, partChecksums, sse), partExecutor));
        }
        // Every part started is waited for, so none is still sending when the upload is aborted.
        while (!inFlight.isEmpty()) {
            RuntimeException e = await(inFlight.removeFirst(), parts);
            if (failure == null) {
                failure = e;
            } else if (e != null && e != failure) {
                failure.addSuppressed(e);
            }
        }
        if (failure != null) {
            throw failure;
        }
        return parts;
    }

    private static @Nullable RuntimeException await(CompletableFuture<CompletedPart> part, List<CompletedPart> parts) {
        try {
            parts.add(part.join());
            return null;
        } catch (CompletionException e) {
            return e.getCause() instanceof RuntimeException r ? r : e;
        }
    }

    private CompletedPart uploadPart(
            String key,
            String uploadId,
            int index,
            Payload payload,
            long offset,
            long count,
            boolean partChecksum,
            ServerSideEncryption sse) {
        int partNumber = index + 1;
        UploadPartRequest.Builder req = UploadPartRequest.builder()
                .bucket(bucket)
                .key(key)
                .uploadId(uploadId)
                .partNumber(partNumber)
                .contentLength(count);
        S3Attributes.apply(req, sse);
        if (contentMd5) {
            req.contentMD5(Md5.base64(payload.md5(index)));
        }
        String checksum = null;
        if (payload.hasPartSha256()) {
            byte[] sha = payload.sha256(index);
            if (partChecksum) {
                checksum = Sha256.base64(sha);
                req.checksumAlgorithm(ChecksumAlgorithm.SHA256).checksumSHA256(checksum);
            }
            if (plainHttp) {
                String hex = Sha256.hex(sha);
                req.overrideConfiguration(o -> o.putHeader(CONTENT_SHA256, hex));
            }
        }
        // Each (re)send of the part opens its region afresh, so a retry never reads a consumed stream.
        UploadPartResponse r = s3.uploadPart(
                req.build(), RequestBody.fromContentProvider(() -> payload.open(offset, count), count, OCTET_STREAM));
        return CompletedPart.builder()
                .partNumber(partNumber)
                .eTag(r.eTag())
                .checksumSHA256(checksum)
                .build();
    }

    /**
     * Checks the answer of a completed upload: a multipart ETag must be the MD5 of the parts' MD5s;
     * an answer without one is checked by reading the new version's length and put token.
     *
     * @return the HEAD of the new version when one was needed, else null
     * @throws IntegrityException if the store holds something other than what was sent
     */
    private @Nullable HeadObjectResponse checkCompleted(
            String key,
            Payload payload,
            List<CompletedPart> parts,
            Map<String, String> metadata,
            ServerSideEncryption sse,
            CompleteMultipartUploadResponse r) {
        String eTag = r.eTag();
        // With SSE-KMS or SSE-C an ETag is no MD5 of the bytes: the new version is read instead.
        boolean md5ETags = sse.kind() == ServerSideEncryption.Kind.NONE || sse.kind() == ServerSideEncryption.Kind.S3;
        byte[][] md5s =
                md5ETags && eTag != null && MULTIPART_ETAG.matcher(eTag).matches() ? partMd5s(payload, parts) : null;
        if (md5s != null) {
            String expected = Md5.multipartETag(md5s);
            if (!unquoted(expected).equalsIgnoreCase(unquoted(eTag))) {
                throw new IntegrityException(
                        key,
                        "CompleteMultipartUpload of '" + key + "' in bucket '" + bucket + "' at " + endpoint
                                + " answered ETag " + eTag + " but the parts sent make " + expected);
            }
            return null;
        }
        HeadObjectResponse head;
        try {
            var req = software.amazon.awssdk.services.s3.model.HeadObjectRequest.builder()
                    .bucket(bucket)
                    .key(key)
                    .versionId(r.versionId());
            S3Attributes.apply(req, sse);
            head = s3.headObject(req.build());
        } catch (SdkException e) {
            throw S3Errors.translate(
                    key,
                    "HEAD of '" + key + "' in bucket '" + bucket + "' at " + endpoint
                            + " after CompleteMultipartUpload",
                    e);
        }
        String token = metadata.get(S3ObjectStore.META_PUT_TOKEN);
        long length = head.contentLength() == null ? -1 : head.contentLength();
        if (length != payload.length() || !token.equals(head.metadata().get(S3ObjectStore.META_PUT_TOKEN))) {
            throw new IntegrityException(
                    key,
                    "CompleteMultipartUpload of '" + key + "' in bucket '" + bucket + "' at "
                            + endpoint + " made version " + r.versionId() + " of " + length + " bytes and put token "
                            + head.metadata().get(S3ObjectStore.META_PUT_TOKEN) + ", but " + payload.length()
                            + " bytes with token "
                            + token + " were sent");
        }
        return head;
    }

    /**
     * The parts' MD5s: those computed in the payload's read or, where none were (the endpoint validates
     * each part's signed SHA-256 instead), the part ETags it answered when each is a plain MD5; else null.
     */
    private byte @Nullable [][] partMd5s(Payload payload, List<CompletedPart> parts) {
        byte[][] md5s = new byte[payload.partCount()][];
        for (int i = 0; i < md5s.length; i++) {
            if (contentMd5) {
                md5s[i] = payload.md5(i);
            } else {
                String partETag = parts.get(i).eTag();
                if (partETag == null || !PART_ETAG.matcher(partETag).matches()) {
                    return null;
                }
                md5s[i] = HexFormat.of().parseHex(unquoted(partETag));
            }
        }
        return md5s;
    }

    private static String unquoted(String eTag) {
        String s = eTag.trim();
        return (s.length() >= 2 && s.startsWith("\"") && s.endsWith("\"") ? s.substring(1, s.length() - 1) : s)
                .toLowerCase(Locale.ROOT);
    }

    private void abort(String key, String uploadId, RuntimeException cause) {
        try {
            s3.abortMultipartUpload(a -> a.bucket(bucket).key(key).uploadId(uploadId));
            LOG.debug("Aborted multipart upload {} of '{}' after a failure", uploadId, key);
        } catch (software.amazon.awssdk.services.s3.model.NoSuchUploadException gone) {
            // aborted or completed already (a prune's abortIncompleteUploads, say): nothing is left to remove
            cause.addSuppressed(gone);
            LOG.debug("Multipart upload {} of '{}' was gone already when aborted: {}", uploadId, key, gone.toString());
        } catch (SdkException abortFailure) {
            cause.addSuppressed(abortFailure);
            LOG.warn(
                    "Could not abort multipart upload {} of '{}' in bucket '{}'; its parts stay until a lifecycle rule"
                            + " or abortIncompleteUploads removes them: {}",
                    uploadId,
                    key,
                    bucket,
                    abortFailure.toString());
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
                page = s3.listMultipartUploads(
                        l -> l.bucket(bucket).keyMarker(km).uploadIdMarker(um));
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
            LOG.info(
                    "Aborted {} multipart upload(s) initiated before {} in bucket '{}'",
                    aborted,
                    initiatedBefore,
                    bucket);
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
