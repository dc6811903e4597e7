package dev.ballast.storage.object.s3;

import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.StaleReadException;
import dev.ballast.storage.StorageException;
import dev.ballast.storage.internal.VerifyingInputStream;
import dev.ballast.storage.object.Freshness;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.Source;
import dev.ballast.storage.object.VersionEntry;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * The read room of {@link S3ObjectStore}: GETs verified as they are read, resumed when a body breaks
 * off, re-read when stale, and the answer to a read of a key that is not there. Thread-safe.
 */
final class S3Reads extends S3Room {
    private static final int MAX_READ_RESUMES = 3;
    private final S3Listings listings;

    S3Reads(S3Room shared, S3Listings listings) {
        super(shared);
        this.listings = listings;
    }

    ObjectRead get(String key, ReadOptions readOptions) {
        validate(key);
        Objects.requireNonNull(readOptions, "options");
        String versionId = readOptions.versionId();
        for (int attempt = 1; ; attempt++) {
            ResponseInputStream<GetObjectResponse> in = open(key, versionId, null, null, -1);
            GetObjectResponse r = in.response();
            long generation = KeyGenerations.of(r.metadata());
            long known = generations.known(key);
            // A version asked for by ID is the caller's choice of history: it is never stale, and it says
            // nothing about which version is current, so it does not raise the generation seen for the key.
            boolean stale = versionId == null && generation > 0 && generation < known;
            if (stale && versionId == null) {
                if (attempt < config.staleReadAttempts()) {
                    in.abort();
                    LOG.debug(
                            "Stale read of '{}': generation {} < known {}; re-reading (attempt {} of {})",
                            key,
                            generation,
                            known,
                            attempt + 1,
                            config.staleReadAttempts());
                    pause(config.staleReadBackoff());
                    continue;
                }
                if (!readOptions.acceptStale()) {
                    in.abort();
                    LOG.warn(
                            "Stale read of '{}' in bucket '{}': the store returned generation {} but {} was already seen,"
                                    + " {} times",
                            key,
                            bucket,
                            generation,
                            known,
                            attempt);
                    throw new StaleReadException(key, known, generation);
                }
                LOG.warn(
                        "Returning a stale read of '{}' marked STALE: generation {} < known {}",
                        key,
                        generation,
                        known);
            }
            if (!stale && versionId == null) {
                generations.remember(key, generation, r.eTag());
            }
            Freshness freshness = generation == 0 ? Freshness.UNKNOWN : stale ? Freshness.STALE : Freshness.FRESH;
            long length = r.contentLength() == null ? 0 : r.contentLength();
            String sha = r.metadata().get(S3ObjectStore.META_SHA256);
            String pinVersion = versionIdOrNull(r.versionId());
            String pinETag = r.eTag();
            boolean unversioned = "null".equals(pinVersion);
            PinnedObjectInputStream raw = new PinnedObjectInputStream(
                    key,
                    in,
                    length,
                    offset -> open(key, unversioned ? null : pinVersion, unversioned ? pinETag : null, offset, length),
                    MAX_READ_RESUMES);
            ObjectVersion version = new ObjectVersion(
                    key,
                    pinVersion,
                    r.eTag() == null ? "" : r.eTag(),
                    length,
                    sha == null ? "" : sha,
                    generation,
                    r.lastModified());
            return new ObjectRead(
                    version,
                    new VerifyingInputStream(key, raw, length, sha),
                    Source.LIVE,
                    freshness,
                    Duration.ZERO,
                    null);
        }
    }

    private ResponseInputStream<GetObjectResponse> open(
            String key, @Nullable String versionId, @Nullable String ifMatch, @Nullable Long from, long length) {
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
     * The answer to a read of a key or version that is not there: deleted when the key's latest entry
     * (or the version asked for) is a delete marker. AWS says so with {@code x-amz-delete-marker: true}
     * (and 405 for a version ID that is a delete marker); a store that does not is asked for the key's
     * version list.
     */
    ObjectNotFoundException notFound(String key, @Nullable String versionId, AwsServiceException e) {
        boolean deleted = e.statusCode() == 405
                || e.awsErrorDetails() != null
                        && e.awsErrorDetails().sdkHttpResponse() != null
                        && e.awsErrorDetails()
                                .sdkHttpResponse()
                                .firstMatchingHeader("x-amz-delete-marker")
                                .map("true"::equalsIgnoreCase)
                                .orElse(false);
        if (!deleted) {
            List<VersionEntry> history;
            try {
                history = listings.versions(key);
            } catch (StorageException listFailure) {
                e.addSuppressed(listFailure);
                history = List.of();
            }
            deleted = versionId == null
                    ? !history.isEmpty() && history.get(0).deleteMarker()
                    : history.stream()
                            .anyMatch(v -> v.deleteMarker() && v.versionId().equals(versionId));
        }
        if (versionId == null) {
            generations.forgetCurrent(key);
        }
        return new ObjectNotFoundException(key, versionId, deleted, e);
    }
}
