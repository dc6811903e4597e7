package dev.ballast.storage.object.s3;

import dev.ballast.storage.AccessDeniedException;
import dev.ballast.storage.AlreadyExistsException;
import dev.ballast.storage.BucketNotFoundException;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.PreconditionFailedException;
import dev.ballast.storage.StaleReadException;
import dev.ballast.storage.StorageException;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.UnsupportedCapabilityException;
import dev.ballast.storage.internal.ObjectKeys;
import dev.ballast.storage.object.Freshness;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.PutOptions;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.StoreCapabilities;
import dev.ballast.storage.object.VersionEntry;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.DeleteObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;

/**
 * An {@link ObjectStore} over a versioned S3 bucket (AWS or S3-compatible), opened with
 * {@link #open(S3Endpoint, String, S3StoreConfig)}. Thread-safe.
 *
 * <h2>Start-up capability probe</h2>
 * {@code open} checks that the bucket exists (creating it with {@link S3StoreConfig.Builder#createBucket},
 * otherwise refusing with {@link BucketNotFoundException}), that versioning is {@code Enabled}
 * (enabling it with {@link S3StoreConfig.Builder#enableVersioning}, otherwise refusing with
 * {@link UnsupportedCapabilityException}), whether each conditional write is honoured
 * ({@code If-Match}: a wrong ETag refused with 412 and the current one accepted;
 * {@code If-None-Match: *}: refused with 412 on an existing key), whether
 * {@code x-amz-checksum-sha256} and {@code Content-MD5} are validated and, over plain HTTP, whether
 * the signed payload hash is ({@link S3StoreConfig.Capability#SIGNED_PAYLOAD}): about 12 requests
 * (HEAD bucket, GetBucketVersioning, up to 8 PUTs of at most 25 bytes, ListObjectVersions, a DELETE
 * by version ID per version made). It writes only to one key under {@value ObjectKeys#RESERVED_PREFIX}probe/ and deletes
 * every version it made, so it needs {@code s3:PutObject}, {@code s3:ListBucketVersions} and
 * {@code s3:DeleteObjectVersion} there, and its writes fire the bucket's event notifications and
 * replication like any other. With {@link S3StoreConfig.Builder#declaredCapabilities} the probe is
 * skipped and {@code open} sends nothing. The result is {@link #capabilities()}, logged once at INFO.
 *
 * <h2>Writes</h2>
 * Every put records in user metadata the SHA-256 of the content ({@value #META_SHA256}), a
 * generation ({@value #META_GENERATION}, see {@link KeyGenerations}) and a unique put token
 * ({@value #META_PUT_TOKEN}), and goes up as one PUT or a multipart upload ({@link Uploads}). The
 * generation must exceed that of the version the put replaces; it is read with a HEAD first only
 * where no condition can stand in for it: a {@code putIfAbsent}, a {@code putIfMatch} on the ETag
 * this instance last saw current, and a plain put up to the multipart threshold on a store that
 * honours the condition (sent with {@code If-Match} on the ETag last seen, or {@code If-None-Match: *}
 * for a key seen absent or never seen) go as a single PUT. When that added condition is refused
 * (another writer changed the key), the put HEADs the key and is sent again without it, so a plain
 * put is never refused for a condition the caller did not ask for.
 * The content is read once before the first request: that read computes the SHA-256 recorded,
 * over plain HTTP the SHA-256 the signature covers and, unless the endpoint validates that signed
 * SHA-256 ({@link S3StoreConfig.Capability#SIGNED_PAYLOAD}), the MD5 of every body (each PUT and
 * part then carries its {@code Content-MD5}); parts go up concurrently ({@link S3StoreConfig#partConcurrency()}).
 * The bodies are then streamed from the content (a file's pages, still in the page cache) without
 * hashing them again.
 *
 * <p><b>Conditional writes</b> ({@code putIfAbsent}: {@code If-None-Match: *}; {@code putIfMatch}:
 * {@code If-Match}) are refused up front with {@link UnsupportedCapabilityException} when the probe
 * found the endpoint does not honour that condition: a conditional write is never downgraded to an
 * unconditional one. 412 becomes {@link AlreadyExistsException} or {@link PreconditionFailedException}
 * (unless the key's current version carries this put's token: then an earlier attempt of this very
 * put landed and the 412 answered a repeat), 404 on {@code If-Match} {@link ObjectNotFoundException},
 * and 409 {@code ConditionalRequestConflict} (a concurrent write in flight) is retried up to
 * {@link S3StoreConfig#conditionalConflictAttempts()} times, then raised as
 * {@link PreconditionFailedException}.
 *
 * <p><b>No phantom versions, no lost answers.</b> When a put fails ambiguously (no answer after the
 * body may have been sent, retries exhausted, 500/502/504) the store HEADs the key: if the current
 * version carries this put's token the write landed and that version is returned. Otherwise, for a
 * conditional put whose condition the current version no longer meets, the refusal is certain and is
 * raised as the 412 it is (a server may answer 412 before reading the body and close the connection,
 * so the answer itself is lost); else the failure is raised, and nothing is written again by this
 * layer (the HTTP client is the one layer that retries).
 *
 * <h2>Reads</h2>
 * {@link #get(String, ReadOptions)} returns a stream checked against the recorded length and SHA-256
 * as it is read ({@link IntegrityException} before the final bytes are handed over); an object
 * without Ballast metadata is checked for length only and read with {@link Freshness#UNKNOWN}. A body
 * that breaks off is resumed with ranged GETs pinned to the first response's version ID. A latest
 * read that returns a generation older than one already seen is re-read up to
 * {@link S3StoreConfig#staleReadAttempts()} times with {@link S3StoreConfig#staleReadBackoff()}
 * between, then raised as {@link StaleReadException} or, with {@link ReadOptions#acceptStale()},
 * returned marked {@link Freshness#STALE}. A read by version ID asked for that version: it is never
 * re-read or marked stale, and does not count as the key's newest generation (writers racing between
 * HEAD and PUT can land a lower generation after a higher one, so only latest reads judge). A key or
 * version ID whose latest entry is a delete marker is reported deleted: AWS answers a GET of a delete
 * marker's version ID with {@code 405} and {@code x-amz-delete-marker: true}
 * (<a href="https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetObject.html">GetObject</a>); a
 * store that answers 404 without the header (Ceph RGW 16) is asked for the key's version list. ETags
 * are opaque: never compared with an MD5.
 *
 * <h2>Errors</h2>
 * Translated by {@link S3Errors}: unreachable, 5xx, throttled, circuit open, retries exhausted:
 * {@link StorageUnavailableException} with the cause kept; 401/403: {@link AccessDeniedException}; a
 * key that breaks the rules of {@link ObjectKeys}: {@link IllegalArgumentException}, before any
 * request.
 */
public final class S3ObjectStore implements ObjectStore, AutoCloseable {

    /** User metadata key (sent as {@code x-amz-meta-ballast-sha256}): lowercase hex SHA-256 of the content. */
    public static final String META_SHA256 = "ballast-sha256";
    /** User metadata key: the per-key generation (decimal). */
    public static final String META_GENERATION = "ballast-generation";
    /** User metadata key: the unique token of the logical put that wrote the version. */
    public static final String META_PUT_TOKEN = "ballast-put-token";
    /**
     * User metadata key: the SHA-256 (hex) of the version's block digest table, kept in the object
     * {@code .ballast/blocks/<content SHA-256>}; only on versions of more than one block (1 MiB).
     */
    public static final String META_BLOCKS = "ballast-blocks";

    private static final Logger LOG = LoggerFactory.getLogger(S3ObjectStore.class);

    private final S3Client s3;
    private final boolean ownsClient;
    private final S3Endpoint endpoint;
    private final String bucket;
    private final S3StoreConfig config;
    private final StoreCapabilities capabilities;
    private final S3Room shared;
    private final S3Listings listings;
    private final S3Reads reads;
    private final S3Writes writes;

    private final Uploads uploads;
    private final boolean contentMd5Validated;
    private final boolean signedPayloadValidated;
    private final ExecutorService partExecutor;
    private final S3Listing listing;
    private final Presigner presigner;

    private S3ObjectStore(
            S3Client s3,
            boolean ownsClient,
            S3Endpoint endpoint,
            String bucket,
            S3StoreConfig config,
            StoreCapabilities capabilities,
            boolean contentMd5Validated,
            boolean signedPayloadValidated) {
        this.s3 = s3;
        this.ownsClient = ownsClient;
        this.endpoint = endpoint;
        this.bucket = bucket;
        this.config = config;
        this.capabilities = capabilities.withPresignedUrls(true);
        this.listing = new S3Listing(s3, bucket, endpoint.describe());
        this.presigner = new Presigner(endpoint, bucket);
        this.contentMd5Validated = contentMd5Validated;
        this.signedPayloadValidated = signedPayloadValidated;
        this.partExecutor = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "ballast-s3-part-" + PART_THREADS.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.uploads = new Uploads(
                s3,
                bucket,
                config,
                capabilities.additionalChecksums(),
                endpoint.plainHttp(),
                !signedPayloadValidated,
                endpoint.describe(),
                partExecutor,
                endpoint.attemptTimeouts());
        this.shared = new S3Room(s3, endpoint, bucket, config, new KeyGenerations()) {};
        this.listings = new S3Listings(shared);
        S3BlockTables blockTables = new S3BlockTables(shared);
        this.reads = new S3Reads(shared, listings, blockTables);
        this.writes = new S3Writes(shared, capabilities, uploads, listings, reads, blockTables);
    }

    private static final AtomicInteger PART_THREADS = new AtomicInteger();

    /**
     * Does now, on the calling thread, the one-time work of the first {@link #open} that does not depend
     * on the endpoint: the JDK's default TLS context and its parameters (the JDK HTTP client asks for them
     * when it is built,
     * even for an http:// endpoint: security providers and the trust store) and the AWS SDK's metadata of
     * its services (every service's endpoints, initialized when a client resolves its signing region).
     * Together 150-250 ms of a command's start; a command-line program does it on a second thread while
     * it parses its arguments. Idempotent and thread-safe; a failure is left for {@code open} to meet.
     * The same as {@code preload(true)}.
     */
    public static void preload() {
        preload(true);
    }

    /**
     * As {@link #preload()}, and without the JDK's default TLS context when {@code tls} is false: for a
     * caller that builds its HTTP client with a TLS context of its own (one that makes no TLS connection,
     * for an {@code http://} endpoint), so that the default one (about 0.15 s of CPU) is not set up for
     * nothing. Idempotent and thread-safe; never throws.
     */
    public static void preload(boolean tls) {
        if (tls) {
            try {
                javax.net.ssl.SSLContext.getDefault().getDefaultSSLParameters();
            } catch (java.security.NoSuchAlgorithmException | RuntimeException ignored) {
                // building the HTTP client reports it
            }
        }
        try {
            software.amazon.awssdk.regions.ServiceMetadata.of("s3");
        } catch (RuntimeException | LinkageError ignored) {
            // building the S3 client reports it
        }
    }

    /**
     * Connects to {@code bucket} at {@code endpoint}, runs the capability probe and logs its result.
     *
     * @throws IllegalArgumentException if {@code bucket} is blank
     * @throws BucketNotFoundException if the bucket does not exist and may not be created
     * @throws UnsupportedCapabilityException if versioning is not Enabled (and may not be enabled), or
     *     checksum mode ALWAYS is not honoured
     * @throws AccessDeniedException if the credentials are refused
     * @throws StorageUnavailableException if the endpoint cannot be reached
     */
    public static S3ObjectStore open(S3Endpoint endpoint, String bucket, S3StoreConfig config) {
        Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(bucket, "bucket");
        Objects.requireNonNull(config, "config");
        if (bucket.isBlank()) {
            throw new IllegalArgumentException("bucket must not be blank");
        }
        S3Client s3 = endpoint.client();
        boolean owns = !endpoint.callerOwnsClient();
        try {
            var declared = config.declaredCapabilities();
            StoreCapabilities caps;
            boolean contentMd5;
            boolean signedPayload;
            String source = "capabilities declared, not probed";
            if (declared.isPresent()) {
                caps = CapabilityProbe.declared(endpoint, bucket, declared.get());
                contentMd5 = declared.get().contains(S3StoreConfig.Capability.CONTENT_MD5);
                signedPayload = declared.get().contains(S3StoreConfig.Capability.SIGNED_PAYLOAD);
            } else {
                CapabilityProbe probe = new CapabilityProbe(s3, endpoint, bucket, config);
                @Nullable
                ProbeCache cache = config.probeCache()
                        .map(file -> new ProbeCache(file, config.probeCacheMaxAge(), config.clock()))
                        .orElse(null);
                @Nullable
                Set<S3StoreConfig.Capability> remembered =
                        cache == null ? null : cache.read(endpoint.describe(), bucket);
                @Nullable StoreCapabilities fromMemory = remembered == null ? null : probe.checkBucket(remembered);
                if (probe.createdBucket()) {
                    // A bucket that did not exist may be on another server than the one remembered for this URL.
                    remembered = null;
                    fromMemory = null;
                }
                if (fromMemory != null) {
                    caps = fromMemory;
                } else {
                    caps = probe.run();
                    if (cache != null) {
                        cache.write(endpoint.describe(), bucket, probe.found(caps));
                    }
                }
                contentMd5 = probe.contentMd5Validated();
                signedPayload = probe.signedPayloadValidated();
                source = remembered != null
                        ? "probe findings remembered in " + config.probeCache().orElseThrow()
                        : "probed";
            }
            LOG.info(
                    "S3 object store {} bucket '{}' ({}): versioning={}, putIfAbsent (If-None-Match: *)={}, putIfMatch"
                            + " (If-Match)={}, additional SHA-256 checksums={}, Content-MD5={}, signed payload SHA-256={}",
                    endpoint.describe(),
                    bucket,
                    source,
                    caps.versioningEnabled() ? "Enabled" : "off",
                    honoured(caps.putIfAbsent()),
                    honoured(caps.putIfMatch()),
                    caps.additionalChecksums() ? "validated" : "not used",
                    contentMd5 ? "validated" : "ignored",
                    !endpoint.plainHttp() ? "not sent (HTTPS)" : signedPayload ? "validated" : "not relied on");
            // Over HTTPS bodies are signed UNSIGNED-PAYLOAD: no payload hash proves anything there.
            signedPayload &= endpoint.plainHttp();
            if (declared.isEmpty() && !contentMd5 && !caps.additionalChecksums() && !signedPayload) {
                LOG.warn(
                        "{} bucket '{}' validates neither Content-MD5 nor x-amz-checksum-sha256: what it stores is not proven"
                                + " by the write itself (confirmsWrites() is false)",
                        endpoint.describe(),
                        bucket);
            }
            caps = caps.withFeatures(features(config));
            return new S3ObjectStore(s3, owns, endpoint, bucket, config, caps, contentMd5, signedPayload);
        } catch (RuntimeException e) {
            if (owns) {
                s3.close();
            }
            throw e;
        }
    }

    /**
     * Ranged reads, block digests and metadata always (every S3 server Ballast supports keeps
     * {@code Range}, user metadata and the four headers); server-side encryption as declared.
     */
    private static Set<StoreCapabilities.Feature> features(S3StoreConfig config) {
        Set<StoreCapabilities.Feature> features = java.util.EnumSet.of(
                StoreCapabilities.Feature.RANGED_READS,
                StoreCapabilities.Feature.BLOCK_DIGESTS,
                StoreCapabilities.Feature.METADATA);
        for (S3StoreConfig.Capability c : config.serverSideEncryption()) {
            features.add(StoreCapabilities.Feature.valueOf(c.name()));
        }
        return features;
    }

    private static String honoured(boolean honoured) {
        return honoured ? "honoured" : "not supported";
    }

    @Override
    public StoreCapabilities capabilities() {
        return capabilities;
    }

    /**
     * True when the endpoint validates {@code Content-MD5} (every S3 implementation tested does:
     * AWS, Ceph RGW, MinIO, S3Mock, s3proxy), {@code x-amz-checksum-sha256} or, over plain HTTP, the
     * signed payload hash ({@link S3StoreConfig.Capability#SIGNED_PAYLOAD}), as the capability probe
     * found: every body is sent with its SHA-256 signed (where that is validated) or its MD5 (and,
     * where validated, its additional SHA-256), and a multipart completion is checked, so a put that
     * succeeded stored exactly the bytes hashed.
     */
    @Override
    public boolean confirmsWrites() {
        return contentMd5Validated || capabilities.additionalChecksums() || signedPayloadValidated;
    }

    /** The settings this store was opened with. */
    public S3StoreConfig config() {
        return config;
    }

    @Override
    public ObjectVersion put(String key, ObjectContent content) {
        return writes.write(key, content, WriteCondition.NONE);
    }

    @Override
    public ObjectVersion putIfAbsent(String key, ObjectContent content) {
        return writes.write(key, content, WriteCondition.IF_ABSENT);
    }

    @Override
    public ObjectVersion putIfMatch(String key, String eTag, ObjectContent content) {
        Objects.requireNonNull(eTag, "eTag");
        return writes.write(key, content, WriteCondition.ifMatch(eTag));
    }

    /**
     * A put with metadata and server-side encryption: the headers and user metadata go with the PUT
     * (or CreateMultipartUpload), the encryption as its headers (SSE-C's on every part too), and the
     * answer's encryption headers are checked: a version written without the encryption asked for is
     * removed and the put refused with {@link UnsupportedCapabilityException}. Encryption is refused
     * before anything is sent unless declared ({@link S3StoreConfig.Builder#serverSideEncryption}).
     */
    @Override
    public ObjectVersion put(String key, ObjectContent content, PutOptions options) {
        return writes.write(key, content, WriteCondition.NONE, options);
    }

    @Override
    public ObjectVersion putIfAbsent(String key, ObjectContent content, PutOptions options) {
        return writes.write(key, content, WriteCondition.IF_ABSENT, options);
    }

    @Override
    public ObjectVersion putIfMatch(String key, String eTag, ObjectContent content, PutOptions options) {
        Objects.requireNonNull(eTag, "eTag");
        return writes.write(key, content, WriteCondition.ifMatch(eTag), options);
    }

    @Override
    public ObjectRead get(String key) {
        return get(key, ReadOptions.latest());
    }

    @Override
    public ObjectRead get(String key, ReadOptions readOptions) {
        return reads.get(key, readOptions);
    }

    @Override
    public List<VersionEntry> versions(String key) {
        return listings.versions(key);
    }

    @Override
    public VersionEntry delete(String key) {
        validate(key);
        DeleteObjectResponse r;
        try {
            r = s3.deleteObject(d -> d.bucket(bucket).key(key));
        } catch (SdkException e) {
            shared.generations.forgetCurrent(key);
            throw S3Errors.translate(key, describe("DELETE", key), e);
        }
        shared.generations.forgetCurrent(key);
        return new VersionEntry(
                key,
                versionIdOrNull(r.versionId()),
                null,
                0,
                config.clock().instant(),
                true,
                r.deleteMarker() == null || r.deleteMarker());
    }

    /** Pages with ListObjectsV2 as the stream is consumed ({@link S3Listing}). */
    @Override
    public java.util.stream.Stream<dev.ballast.storage.object.ListEntry> listing(
            dev.ballast.storage.object.ListRequest request) {
        return listing.listing(request);
    }

    /** Signed by the AWS SDK's {@code S3Presigner} ({@link Presigner}); nothing is sent. */
    @Override
    public dev.ballast.storage.object.PresignedRequest presign(dev.ballast.storage.object.PresignRequest request) {
        Objects.requireNonNull(request, "request");
        validate(request.key());
        return presigner.presign(request);
    }

    @Override
    public List<String> list(String prefix) {
        return listings.list(prefix);
    }

    /** Listed at most this many keys per prepared prefix; beyond it, puts read each key's version as before. */
    static final int MAX_PREPARED_LISTING = S3Listings.MAX_PREPARED_LISTING;

    @Override
    public void prepareWrites(String prefix) {
        listings.prepareWrites(prefix);
    }

    /**
     * One paginated ListObjectVersions with {@code prefix}; versions and delete markers of a key are
     * put back in one history, newest first, and keys under the reserved prefix are left out.
     */
    @Override
    public List<VersionEntry> listVersions(String prefix) {
        return listings.listVersions(prefix);
    }

    /**
     * DeleteObject with the version ID: the version is gone for good. S3 answers 204 whether or not
     * the version existed, so this returns true either way. The generation this store saw for the key
     * is forgotten, so the version that becomes current reads as fresh, not stale.
     */
    @Override
    public boolean deleteVersion(String key, String versionId) {
        validate(key);
        Objects.requireNonNull(versionId, "versionId");
        try {
            s3.deleteObject(d -> d.bucket(bucket).key(key).versionId(versionId));
        } catch (SdkException e) {
            throw S3Errors.translate(key, describe("DELETE", key + "?versionId=" + versionId), e);
        } finally {
            // Also on failure: the version may be gone. An older version that becomes current is no stale read.
            shared.generations.forget(key);
        }
        return true;
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
    public int abortIncompleteUploads(Instant initiatedBefore) {
        Objects.requireNonNull(initiatedBefore, "initiatedBefore");
        return uploads.abortIncomplete(initiatedBefore);
    }

    /** Stops the part threads and closes the S3 client if this store built it. */
    @Override
    public void close() {
        partExecutor.shutdown();
        presigner.close();
        if (ownsClient) {
            s3.close();
        }
    }

    /**
     * One HeadObject of the version: its recorded SHA-256 and generation, no body. A version deleted
     * (404, as S3 answers a HEAD of a version ID it no longer holds) or a delete marker (405) is
     * {@link ObjectNotFoundException}, as for {@link #get}.
     */
    @Override
    public ObjectVersion head(String key, String versionId) {
        validate(key);
        Objects.requireNonNull(versionId, "versionId");
        try {
            return toVersion(key, s3.headObject(h -> h.bucket(bucket).key(key).versionId(versionId)));
        } catch (software.amazon.awssdk.awscore.exception.AwsServiceException e) {
            int status = e.statusCode();
            if ((status == 404 && !"NoSuchBucket".equals(S3Errors.errorCode(e))) || status == 405) {
                throw reads.notFound(key, versionId, e);
            }
            throw S3Errors.translate(key, describe("HEAD", key), e);
        } catch (SdkException e) {
            throw S3Errors.translate(key, describe("HEAD", key), e);
        }
    }

    private static String versionIdOrNull(@Nullable String versionId) {
        return S3Room.versionIdOrNull(versionId);
    }

    private static ObjectVersion toVersion(String key, HeadObjectResponse head) {
        return S3Room.toVersion(key, head);
    }

    private void validate(String key) {
        shared.validate(key);
    }

    private String describe(String operation, String key) {
        return shared.describe(operation, key);
    }
}
