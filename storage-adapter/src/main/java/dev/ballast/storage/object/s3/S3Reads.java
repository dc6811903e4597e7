package dev.ballast.storage.object.s3;

import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.StaleReadException;
import dev.ballast.storage.internal.BlockDigests;
import dev.ballast.storage.internal.RangeInputStream;
import dev.ballast.storage.internal.VerifyingInputStream;
import dev.ballast.storage.object.ByteRange;
import dev.ballast.storage.object.Freshness;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.ServerSideEncryption;
import dev.ballast.storage.object.Source;
import dev.ballast.storage.object.VersionEntry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;

/**
 * The read room of {@link S3ObjectStore}: GETs verified as they are read, resumed when a body breaks
 * off, re-read when stale, and the answer to a read of a key that is not there. Thread-safe.
 */
final class S3Reads extends S3Room {
    private static final int MAX_READ_RESUMES = 3;
    private final S3Listings listings;
    private final S3BlockTables blockTables;

    S3Reads(S3Room shared, S3Listings listings, S3BlockTables blockTables) {
        super(shared);
        this.listings = listings;
        this.blockTables = blockTables;
    }

    ObjectRead get(String key, ReadOptions readOptions) {
        validate(key);
        Objects.requireNonNull(readOptions, "options");
        ServerSideEncryption customerKey = readOptions.customerKey();
        String versionId = readOptions.versionId();
        boolean latest = versionId == null;
        ByteRange asked = readOptions.range();
        if (asked != null && asked.suffix()) {
            // The blocks around the last n bytes start at an offset only the size tells: HEAD first, then
            // read that version, so both requests see the same one.
            HeadObjectResponse head = head(key, versionId, customerKey);
            long size = head.contentLength() == null ? 0 : head.contentLength();
            asked = asked.resolve(key, size);
            String pinned = versionIdOrNull(head.versionId());
            versionId = "null".equals(pinned) ? versionId : pinned;
        }
        // A range the caller authenticates itself is asked for as it is, else widened to whole blocks.
        String rangeHeader = asked == null ? null : readOptions.verifyRange() ? aligned(asked) : exact(asked);
        for (int attempt = 1; ; attempt++) {
            ResponseInputStream<GetObjectResponse> in = open(key, versionId, null, rangeHeader, customerKey);
            GetObjectResponse r = in.response();
            long generation = KeyGenerations.of(r.metadata());
            long known = generations.known(key);
            // A version asked for by ID is the caller's choice of history: it is never stale, and it says
            // nothing about which version is current, so it does not raise the generation seen for the key.
            boolean stale = latest && generation > 0 && generation < known;
            if (stale) {
                if (attempt < config.staleReadAttempts() && readOptions.versionId() == versionId) {
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
            if (!stale && latest) {
                generations.remember(key, generation, r.eTag());
            }
            Freshness freshness = generation == 0 ? Freshness.UNKNOWN : stale ? Freshness.STALE : Freshness.FRESH;
            long fetched = r.contentLength() == null ? 0 : r.contentLength();
            long[] span = contentRange(r.contentRange(), fetched);
            long size = span[2];
            String sha = r.metadata().get(S3ObjectStore.META_SHA256);
            String pinVersion = versionIdOrNull(r.versionId());
            String pinETag = r.eTag();
            boolean unversioned = "null".equals(pinVersion);
            long first = span[0];
            PinnedObjectInputStream raw = new PinnedObjectInputStream(
                    key,
                    in,
                    fetched,
                    offset -> {
                        config.onReadResumed().run();
                        return open(
                                key,
                                unversioned ? null : pinVersion,
                                unversioned ? pinETag : null,
                                "bytes=" + (first + offset) + "-" + (first + fetched - 1),
                                customerKey);
                    },
                    MAX_READ_RESUMES);
            ObjectVersion version = new ObjectVersion(
                    key,
                    pinVersion,
                    r.eTag() == null ? "" : r.eTag(),
                    size,
                    sha == null ? "" : sha,
                    generation,
                    r.lastModified(),
                    S3Attributes.metadata(
                            r.metadata(),
                            r.contentType(),
                            r.cacheControl(),
                            r.contentEncoding(),
                            r.contentDisposition()),
                    S3Attributes.applied(
                            r.serverSideEncryption(),
                            r.ssekmsKeyId(),
                            r.sseCustomerAlgorithm(),
                            r.sseCustomerKeyMD5()));
            if (asked == null) {
                return new ObjectRead(
                        version,
                        new VerifyingInputStream(key, raw, size, sha),
                        Source.LIVE,
                        freshness,
                        Duration.ZERO,
                        null);
            }
            return ranged(
                    key, version, asked, raw, first, r.metadata(), customerKey, freshness, readOptions.verifyRange());
        }
    }

    /**
     * A ranged read from {@code raw}, the stored bytes from {@code first} on (the start of the first
     * block of the range asked for): checked block by block against the version's digests where it
     * has them (its SHA-256 for a version of one block, its table for a larger one), else served
     * marked unverified.
     */
    private ObjectRead ranged(
            String key,
            ObjectVersion version,
            ByteRange asked,
            java.io.InputStream raw,
            long first,
            Map<String, String> metadata,
            @Nullable ServerSideEncryption customerKey,
            Freshness freshness,
            boolean verify) {
        ByteRange range;
        BlockDigests digests;
        try {
            range = asked.resolve(key, version.size());
            String sha = metadata.get(S3ObjectStore.META_SHA256);
            String tableSha = metadata.get(S3ObjectStore.META_BLOCKS);
            if (!verify) {
                digests = null; // the caller authenticates the bytes (ReadOptions#verifyRange)
            } else if (!BlockDigests.needsTable(version.size())) {
                digests = sha == null ? null : BlockDigests.single(version.size(), sha);
            } else {
                digests = sha == null || tableSha == null
                        ? null
                        : blockTables.fetch(key, sha, tableSha, version.size(), customerKey);
            }
            long start = digests == null ? range.offset() : RangeInputStream.alignedStart(range);
            raw.skipNBytes(start - first);
        } catch (java.io.IOException e) {
            closeQuietly(raw);
            throw S3Errors.translate(key, describe("GET", key), new java.io.UncheckedIOException(e));
        } catch (RuntimeException e) {
            closeQuietly(raw);
            throw e;
        }
        return new ObjectRead(
                version,
                RangeInputStream.of(key, version.versionId(), raw, digests, range),
                Source.LIVE,
                freshness,
                Duration.ZERO,
                null,
                range,
                digests != null);
    }

    private static void closeQuietly(java.io.InputStream in) {
        try {
            in.close();
        } catch (java.io.IOException | RuntimeException ignored) {
            // the read already failed
        }
    }

    /**
     * The {@code Range} header for {@code asked} (resolved, or with a known offset), widened to whole
     * blocks so that every block it touches can be checked.
     */
    private static String aligned(ByteRange asked) {
        long start = asked.offset() / BlockDigests.BLOCK_SIZE * BlockDigests.BLOCK_SIZE;
        if (asked.length() == -1) {
            return "bytes=" + start + "-";
        }
        long lastBlock = (asked.offset() + asked.length() - 1) / BlockDigests.BLOCK_SIZE;
        return "bytes=" + start + "-" + ((lastBlock + 1) * BlockDigests.BLOCK_SIZE - 1);
    }

    /** The {@code Range} header for exactly {@code asked} (resolved, or with a known offset; RFC 9110, 14.1.2). */
    private static String exact(ByteRange asked) {
        return asked.length() == -1
                ? "bytes=" + asked.offset() + "-"
                : "bytes=" + asked.offset() + "-" + (asked.offset() + asked.length() - 1);
    }

    /**
     * The first byte, last byte and total size a {@code Content-Range: bytes a-b/total} answer names;
     * for an answer without one (the whole object), 0, length - 1 and length.
     */
    private static long[] contentRange(@Nullable String contentRange, long length) {
        if (contentRange != null && contentRange.startsWith("bytes ")) {
            int dash = contentRange.indexOf('-');
            int slash = contentRange.indexOf('/');
            if (dash > 6 && slash > dash && !contentRange.endsWith("/*")) {
                return new long[] {
                    Long.parseLong(contentRange.substring(6, dash).trim()),
                    Long.parseLong(contentRange.substring(dash + 1, slash).trim()),
                    Long.parseLong(contentRange.substring(slash + 1).trim())
                };
            }
        }
        return new long[] {0, length - 1, length};
    }

    private HeadObjectResponse head(
            String key, @Nullable String versionId, @Nullable ServerSideEncryption customerKey) {
        HeadObjectRequest.Builder req =
                HeadObjectRequest.builder().bucket(bucket).key(key).versionId(versionId);
        S3Attributes.apply(req, customerKey);
        try {
            return s3.headObject(req.build());
        } catch (AwsServiceException e) {
            int status = e.statusCode();
            if ((status == 404 && !"NoSuchBucket".equals(S3Errors.errorCode(e))) || status == 405) {
                throw notFound(key, versionId, e);
            }
            throw S3Errors.translate(key, describe("HEAD", key), e);
        } catch (SdkException e) {
            throw S3Errors.translate(key, describe("HEAD", key), e);
        }
    }

    private ResponseInputStream<GetObjectResponse> open(
            String key,
            @Nullable String versionId,
            @Nullable String ifMatch,
            @Nullable String range,
            @Nullable ServerSideEncryption customerKey) {
        GetObjectRequest.Builder req = GetObjectRequest.builder().bucket(bucket).key(key);
        if (versionId != null) {
            req.versionId(versionId);
        }
        if (ifMatch != null) {
            req.ifMatch(ifMatch);
        }
        if (range != null) {
            req.range(range);
        }
        S3Attributes.apply(req, customerKey);
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
     * (and 405 for a version ID that is a delete marker); a store that does not (Ceph RGW 16) is asked
     * for the key's version list, only when the caller asks the exception whether the key was deleted
     * (or for its message): most callers need to know only that it is absent, and on RGW each such read
     * cost a second request.
     */
    ObjectNotFoundException notFound(String key, @Nullable String versionId, AwsServiceException e) {
        boolean said = e.statusCode() == 405
                || e.awsErrorDetails() != null
                        && e.awsErrorDetails().sdkHttpResponse() != null
                        && e.awsErrorDetails()
                                .sdkHttpResponse()
                                .firstMatchingHeader("x-amz-delete-marker")
                                .map("true"::equalsIgnoreCase)
                                .orElse(false);
        if (versionId == null) {
            generations.forgetCurrent(key);
        }
        if (said) {
            return new ObjectNotFoundException(key, versionId, true, e);
        }
        return new ObjectNotFoundException(key, versionId, () -> deletedPerHistory(key, versionId, e), e);
    }

    /** Whether the key's version list shows its latest entry (or {@code versionId}) a delete marker. */
    private boolean deletedPerHistory(String key, @Nullable String versionId, AwsServiceException e) {
        List<VersionEntry> history;
        try {
            history = listings.versions(key);
        } catch (RuntimeException listFailure) {
            e.addSuppressed(listFailure);
            return false;
        }
        return versionId == null
                ? !history.isEmpty() && history.get(0).deleteMarker()
                : history.stream()
                        .anyMatch(v -> v.deleteMarker() && v.versionId().equals(versionId));
    }
}
