package dev.ballast.storage.object.s3;

import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.internal.ObjectKeys;
import dev.ballast.storage.object.ObjectVersion;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;

/**
 * What every room of {@link S3ObjectStore} shares: the client, the bucket, the settings and the
 * per-key generations, with the small helpers each needs. A store is the composition of its rooms:
 * {@link S3Writes} (puts), {@link S3Reads} (gets), {@link S3Listings} (histories and listings).
 * Thread-safe.
 */
abstract class S3Room {
    static final Logger LOG = LoggerFactory.getLogger(S3ObjectStore.class);

    final S3Client s3;
    final S3Endpoint endpoint;
    final String bucket;
    final S3StoreConfig config;
    final KeyGenerations generations;

    S3Room(S3Client s3, S3Endpoint endpoint, String bucket, S3StoreConfig config, KeyGenerations generations) {
        this.s3 = s3;
        this.endpoint = endpoint;
        this.bucket = bucket;
        this.config = config;
        this.generations = generations;
    }

    S3Room(S3Room shared) {
        this(shared.s3, shared.endpoint, shared.bucket, shared.config, shared.generations);
    }

    /**
     * The SSE-C key of the put this thread is running, for the HEADs of its write path (S3 answers a
     * HEAD of an SSE-C version without its key with 400); null outside such a put.
     */
    static final ThreadLocal<dev.ballast.storage.object.ServerSideEncryption> PUT_CUSTOMER_KEY = new ThreadLocal<>();

    @Nullable
    HeadObjectResponse headOrNull(String key) {
        try {
            var req = software.amazon.awssdk.services.s3.model.HeadObjectRequest.builder()
                    .bucket(bucket)
                    .key(key);
            S3Attributes.apply(req, PUT_CUSTOMER_KEY.get());
            return s3.headObject(req.build());
        } catch (AwsServiceException e) {
            if (e.statusCode() == 404 && !"NoSuchBucket".equals(S3Errors.errorCode(e))) {
                return null;
            }
            throw S3Errors.translate(key, describe("HEAD", key), e);
        } catch (SdkException e) {
            throw S3Errors.translate(key, describe("HEAD", key), e);
        }
    }

    static ObjectVersion toVersion(String key, HeadObjectResponse head) {
        String sha = head.metadata().get(S3ObjectStore.META_SHA256);
        return new ObjectVersion(
                key,
                versionIdOrNull(head.versionId()),
                head.eTag(),
                head.contentLength() == null ? 0 : head.contentLength(),
                sha == null ? "" : sha,
                KeyGenerations.of(head.metadata()),
                head.lastModified(),
                S3Attributes.metadata(
                        head.metadata(),
                        head.contentType(),
                        head.cacheControl(),
                        head.contentEncoding(),
                        head.contentDisposition()),
                S3Attributes.applied(
                        head.serverSideEncryption(),
                        head.ssekmsKeyId(),
                        head.sseCustomerAlgorithm(),
                        head.sseCustomerKeyMD5()));
    }

    /** S3 reports the version of an object written while versioning was off as the string "null". */
    static String versionIdOrNull(@Nullable String versionId) {
        return versionId == null ? "null" : versionId;
    }

    void validate(String key) {
        ObjectKeys.validate(key, config.allowDotSegmentsAndLeadingSlash());
    }

    String describe(String operation, String key) {
        return operation + " of '" + key + "' in bucket '" + bucket + "' at " + endpoint.describe();
    }

    void pause(Duration d) {
        try {
            config.sleeper().sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StorageUnavailableException(null, "Interrupted while waiting to retry", e);
        }
    }
}
