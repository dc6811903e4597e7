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
import dev.ballast.storage.internal.Payload;
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
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.DeleteMarkerEntry;
import software.amazon.awssdk.services.s3.model.DeleteObjectResponse;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectVersionsResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.S3Object;

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

    private static final Logger LOG = LoggerFactory.getLogger(S3ObjectStore.class);
    private static final int MAX_READ_RESUMES = 3;
    /** Versions read to find a put whose answer was lost, when the key changed since. */
    private static final int MAX_TOKEN_SEARCH = 8;

    private final S3Client s3;
    private final boolean ownsClient;
    private final S3Endpoint endpoint;
    private final String bucket;
    private final S3StoreConfig config;
    private final StoreCapabilities capabilities;
    private final KeyGenerations generations = new KeyGenerations();
    /** Prefixes given to {@link #prepareWrites}, each listed at the first put under it that needs a HEAD. */
    private final Map<String, PrefixListing> listings = new ConcurrentHashMap<>();

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
    }

    private static final AtomicInteger PART_THREADS = new AtomicInteger();

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
            return new S3ObjectStore(s3, owns, endpoint, bucket, config, caps, contentMd5, signedPayload);
        } catch (RuntimeException e) {
            if (owns) {
                s3.close();
            }
            throw e;
        }
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
        return write(key, content, WriteCondition.NONE);
    }

    @Override
    public ObjectVersion putIfAbsent(String key, ObjectContent content) {
        return write(key, content, WriteCondition.IF_ABSENT);
    }

    @Override
    public ObjectVersion putIfMatch(String key, String eTag, ObjectContent content) {
        Objects.requireNonNull(eTag, "eTag");
        return write(key, content, WriteCondition.ifMatch(eTag));
    }

    @SuppressWarnings("try") // the key lock is held for the try block's duration, not referenced in it
    private ObjectVersion write(String key, ObjectContent content, WriteCondition condition) {
        validate(key);
        Objects.requireNonNull(content, "content");
        refuseUnsupported(condition);
        Payload payload;
        try {
            payload = Payload.prepare(content, config.spoolDirectory(), uploads.digestsFor(content.length()));
        } catch (UncheckedIOException e) {
            throw S3Errors.translate(key, "Preparing the upload of '" + key + "'", e, false);
        }
        // Puts to one key from this instance go one at a time, from reading the current generation to the
        // answer: so each one's generation is strictly above the one before, the newest landed version
        // carries the highest generation, and a later read is never mistaken for stale.
        try (payload;
                KeyGenerations.Held held = generations.lock(key)) {
            String token = newToken();
            WriteCondition sent = instead(key, payload, condition);
            boolean implicit = sent != null && sent != condition;
            long generation;
            if (sent == null) {
                HeadObjectResponse head = listedAbsent(key) ? null : headBeforeWrite(key);
                generation = nextGeneration(key, head);
                sent = condition;
            } else {
                generation = generations.next(key, 0, config.clock());
            }
            for (int conflicts = 1; ; conflicts++) {
                try {
                    Uploads.Written written = uploads.upload(key, payload, metadata(payload, generation, token), sent);
                    generations.remember(key, generation, written.eTag());
                    return requireVersion(new ObjectVersion(
                            key,
                            versionIdOrNull(written.versionId()),
                            written.eTag(),
                            payload.length(),
                            payload.sha256Hex(),
                            generation,
                            written.lastModified()));
                } catch (AwsServiceException e) {
                    int status = e.statusCode();
                    String code = S3Errors.errorCode(e);
                    if (implicit
                            && (status == 412
                                    || status == 409 && "ConditionalRequestConflict".equals(code)
                                    || status == 404 && !"NoSuchBucket".equals(code))) {
                        // The condition sent in place of a HEAD did not hold: another writer changed the key.
                        HeadObjectResponse head = headAfterFailure(key, e);
                        if (carriesToken(head, token)) {
                            return landed(key, generation, head, e);
                        }
                        generation = nextGeneration(key, head);
                        sent = condition;
                        implicit = false;
                        continue;
                    }
                    if (status == 412 && sent.any()) {
                        return landedOrRefused(key, token, generation, condition, e);
                    }
                    if (status == 404 && condition.ifMatch() != null && !"NoSuchBucket".equals(code)) {
                        throw notFound(key, null, e);
                    }
                    if (status == 409 && "ConditionalRequestConflict".equals(code)) {
                        if (conflicts < config.conditionalConflictAttempts()) {
                            LOG.debug(
                                    "Conditional write of '{}' conflicted with a concurrent write (409); attempt {} of {}",
                                    key,
                                    conflicts + 1,
                                    config.conditionalConflictAttempts());
                            pause(config.staleReadBackoff());
                            continue;
                        }
                        throw new PreconditionFailedException(
                                key,
                                "Conditional write of '" + key + "' conflicted with a"
                                        + " concurrent write (409 ConditionalRequestConflict) " + conflicts
                                        + " times; read the current"
                                        + " version and try again",
                                e);
                    }
                    return landedOrThrow(key, token, generation, condition, e);
                } catch (SdkException e) {
                    if (implicit && S3Errors.ambiguous(e)) {
                        HeadObjectResponse head = headAfterFailure(key, e);
                        if (carriesToken(head, token)) {
                            return landed(key, generation, head, e);
                        }
                        if (sent.holdsFor(head == null ? null : head.eTag())) {
                            throw S3Errors.translate(key, describe("PUT", key), e);
                        }
                        // The answer was lost and the condition no longer holds: this put was refused, or it landed
                        // and another writer replaced it since. Only the key's history tells; a request still in
                        // flight can no longer land, since its condition fails from now on.
                        HeadObjectResponse mine = landedSince(key, token, sent, e);
                        if (mine != null) {
                            return landed(key, generation, mine, e);
                        }
                        generation = nextGeneration(key, head);
                        sent = condition;
                        implicit = false;
                        continue;
                    }
                    return landedOrThrow(key, token, generation, condition, e);
                } catch (UncheckedIOException e) {
                    throw S3Errors.translate(key, describe("PUT", key), e);
                }
            }
        }
    }

    /**
     * The condition to send in place of the HEAD that reads the key's current generation before a put,
     * or null when that HEAD is needed. With a condition that holds, the version the put replaces is
     * one whose generation this instance already knows, or there is none:
     * <ul>
     *   <li>{@code putIfAbsent} (its {@code If-None-Match: *} is honoured, or it was refused): a put
     *       that lands replaced no current version, so the HEAD could only have found none;</li>
     *   <li>{@code putIfMatch} with the ETag of the version this instance last saw current;</li>
     *   <li>a plain put up to the multipart threshold: {@code If-Match} with the ETag this instance last
     *       saw current, or {@code If-None-Match: *} for a key it saw none of, where the probe found that
     *       condition honoured. A refusal (412) only says another writer changed the key: the put then
     *       HEADs and is sent again unconditionally, so it is never refused to the caller.</li>
     * </ul>
     * The HEAD stays for {@code putIfMatch} with an ETag this instance did not see current, for
     * multipart uploads (a refused completion would waste every part; one HEAD is small beside them),
     * and on stores that do not honour the condition.
     */
    private @Nullable WriteCondition instead(String key, Payload payload, WriteCondition condition) {
        if (condition.ifAbsent()) {
            return condition;
        }
        String current = generations.currentETag(key);
        if (condition.ifMatch() != null) {
            return condition.holdsFor(current) ? condition : null;
        }
        if (payload.length() > config.multipartThreshold()) {
            return null;
        }
        if (current != null) {
            return capabilities.putIfMatch() ? WriteCondition.ifMatch(current) : null;
        }
        return capabilities.putIfAbsent() ? WriteCondition.IF_ABSENT : null;
    }

    /** The generation for a put of {@code key} whose current version is {@code head} (null if none). */
    private long nextGeneration(String key, @Nullable HeadObjectResponse head) {
        return generations.next(key, head == null ? 0 : KeyGenerations.of(head.metadata()), config.clock());
    }

    private static Map<String, String> metadata(Payload payload, long generation, String token) {
        return Map.of(
                META_SHA256, payload.sha256Hex(),
                META_GENERATION, Long.toString(generation),
                META_PUT_TOKEN, token);
    }

    /**
     * The key's current version before a put (null if none); a failure to read it means the put was
     * never sent, which the exception says ({@link StorageUnavailableException#outcomeUnknown()} false).
     */
    private @Nullable HeadObjectResponse headBeforeWrite(String key) {
        try {
            return headOrNull(key);
        } catch (StorageUnavailableException e) {
            throw new StorageUnavailableException(
                    key, e.getMessage() + "; the PUT was not sent, nothing was written", e.getCause(), false);
        }
    }

    /** The key's current version after a failed put (null if none); if it cannot be read, the put's failure. */
    private @Nullable HeadObjectResponse headAfterFailure(String key, SdkException failure) {
        try {
            return headOrNull(key);
        } catch (StorageException headFailure) {
            failure.addSuppressed(headFailure);
            throw S3Errors.translate(key, describe("PUT", key), failure);
        }
    }

    /**
     * The version of {@code key} that carries {@code token} among those written after the version the
     * condition {@code sent} was on (for {@code If-None-Match: *}, the newest few), or null when none
     * does: read from the version history, newest first, at most {@value #MAX_TOKEN_SEARCH} of them.
     *
     * @throws StorageException the put's failure, when the history cannot be read or is too long to tell
     */
    private @Nullable HeadObjectResponse landedSince(
            String key, String token, WriteCondition sent, SdkException failure) {
        try {
            int read = 0;
            for (VersionEntry v : versions(key)) {
                if (v.deleteMarker()) {
                    continue;
                }
                if (sent.ifMatch() != null && sent.holdsFor(v.eTag())) {
                    return null; // the version the condition was on: this put's would be newer
                }
                if (++read > MAX_TOKEN_SEARCH) {
                    throw S3Errors.translate(key, describe("PUT", key), failure); // too many writers since to tell
                }
                String versionId = v.versionId();
                HeadObjectResponse head =
                        s3.headObject(h -> h.bucket(bucket).key(key).versionId(versionId));
                if (carriesToken(head, token)) {
                    return head;
                }
            }
            return null; // the whole history read: no version carries this put's token
        } catch (SdkException historyFailure) {
            failure.addSuppressed(historyFailure);
            throw S3Errors.translate(key, describe("PUT", key), failure);
        } catch (StorageUnavailableException | AccessDeniedException historyFailure) {
            if (historyFailure.getCause() != failure) {
                failure.addSuppressed(historyFailure);
            }
            throw S3Errors.translate(key, describe("PUT", key), failure);
        }
    }

    private static boolean carriesToken(@Nullable HeadObjectResponse head, String token) {
        return head != null && token.equals(head.metadata().get(META_PUT_TOKEN));
    }

    private void refuseUnsupported(WriteCondition condition) {
        boolean honoured =
                !condition.any() || (condition.ifAbsent() ? capabilities.putIfAbsent() : capabilities.putIfMatch());
        if (!honoured) {
            throw new UnsupportedCapabilityException(
                    "Conditional writes (" + condition.header() + ") are not supported by"
                            + " this endpoint: " + endpoint.describe() + " bucket '" + bucket
                            + "' did not honour them in the capability"
                            + " probe, so Ballast refuses rather than write unconditionally; plain puts still keep every version");
        }
    }

    /**
     * After a 412: the version this put wrote when the key's current version carries its token (an
     * earlier attempt landed and the 412 answered a repeat), else the refusal.
     */
    private ObjectVersion landedOrRefused(
            String key, String token, long generation, WriteCondition condition, AwsServiceException refusal) {
        HeadObjectResponse head = null;
        try {
            head = headOrNull(key);
        } catch (StorageException headFailure) {
            refusal.addSuppressed(headFailure);
        }
        if (carriesToken(head, token)) {
            return landed(key, generation, head, refusal);
        }
        throw refused(key, condition, head, refusal, "");
    }

    /**
     * After a put failure: if it was ambiguous, the version that landed when the current version
     * carries this put's token (its answer was lost); for a conditional put whose condition the current
     * version no longer meets, the refusal; otherwise the translated failure.
     */
    private ObjectVersion landedOrThrow(
            String key, String token, long generation, WriteCondition condition, SdkException failure) {
        if (!S3Errors.ambiguous(failure)) {
            throw S3Errors.translate(key, describe("PUT", key), failure);
        }
        HeadObjectResponse head = headAfterFailure(key, failure);
        if (carriesToken(head, token)) {
            return landed(key, generation, head, failure);
        }
        if (condition.any() && !condition.holdsFor(head == null ? null : head.eTag())) {
            throw refused(
                    key,
                    condition,
                    head,
                    failure,
                    "; the store's answer was lost (" + S3Errors.describeNoAnswer(failure)
                            + "), and the key's current version shows the condition does not hold");
        }
        throw S3Errors.translate(key, describe("PUT", key), failure);
    }

    private ObjectVersion landed(String key, long generation, @Nullable HeadObjectResponse head, Exception failure) {
        LOG.info(
                "PUT of '{}' in bucket '{}' failed ({}) but the current version {} carries its put token: the write"
                        + " landed, not writing again",
                key,
                bucket,
                failure.toString(),
                head.versionId());
        generations.remember(key, generation, head.eTag());
        return requireVersion(toVersion(key, head));
    }

    /**
     * {@code written}, unless the store answered the put without a version ID (S3 says "null"): then
     * the bucket's versioning was suspended after the store was opened, and the object written replaces
     * whatever unversioned object the key held and is itself replaced by the next put of the key
     * (<a href="https://docs.aws.amazon.com/AmazonS3/latest/userguide/troubleshooting-versioning.html">S3
     * versioning</a>): no version a caller could rely on was made.
     *
     * @throws UnsupportedCapabilityException if the put made no version
     */
    private ObjectVersion requireVersion(ObjectVersion written) {
        if (!"null".equals(written.versionId())) {
            return written;
        }
        throw new UnsupportedCapabilityException("The put of '" + written.key() + "' at " + endpoint.describe()
                + " bucket '" + bucket
                + "' was answered without a version ID: the bucket's versioning is no longer Enabled"
                + " (suspended since this store was opened), so the object written is not kept as a version and the next"
                + " put of the key replaces it; enable versioning again (PutBucketVersioning Status=Enabled)");
    }

    /** The exception for a conditional put the store refused, given the key's current version (or null). */
    private StorageException refused(
            String key, WriteCondition condition, @Nullable HeadObjectResponse current, Exception cause, String note) {
        if (condition.ifAbsent()) {
            AlreadyExistsException e = new AlreadyExistsException(key, cause);
            if (!note.isEmpty()) {
                LOG.debug("putIfAbsent of '{}' refused{}", key, note);
            }
            return e;
        }
        if (current == null) {
            return new ObjectNotFoundException(key, null, false, cause);
        }
        return new PreconditionFailedException(
                key,
                "Object '" + key + "' no longer has ETag " + condition.ifMatch()
                        + "; a conditional write (If-Match) was refused" + note
                        + ": read the current version and retry the edit",
                cause);
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
            String sha = r.metadata().get(META_SHA256);
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
    private ObjectNotFoundException notFound(String key, @Nullable String versionId, AwsServiceException e) {
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
                history = versions(key);
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

    @Override
    public List<VersionEntry> versions(String key) {
        validate(key);
        List<VersionEntry> entries = new ArrayList<>();
        // Keys sharing the prefix sort after the exact key, so a page that reached one ends our history.
        boolean[] passedKey = {false};
        forEachVersion(
                key,
                key,
                entry -> {
                    if (key.equals(entry.key())) {
                        entries.add(entry);
                    } else {
                        passedKey[0] = true;
                    }
                },
                () -> !passedKey[0]);
        sortHistory(entries);
        return List.copyOf(entries);
    }

    /** The SDK splits versions and delete markers into two lists; a history is newest first. */
    private static void sortHistory(List<VersionEntry> entries) {
        entries.sort(Comparator.comparing(VersionEntry::latest)
                .reversed()
                .thenComparing(VersionEntry::lastModified, Comparator.nullsLast(Comparator.reverseOrder())));
    }

    /**
     * Pages through ListObjectVersions with {@code prefix}, handing every version and delete marker to
     * {@code each}, while pages remain and {@code more} says to go on after a page.
     */
    private void forEachVersion(
            String prefix,
            @Nullable String forErrors,
            java.util.function.Consumer<VersionEntry> each,
            java.util.function.BooleanSupplier more) {
        String keyMarker = null;
        String versionMarker = null;
        while (true) {
            ListObjectVersionsResponse page;
            String km = keyMarker;
            String vm = versionMarker;
            try {
                page = s3.listObjectVersions(
                        r -> r.bucket(bucket).prefix(prefix).keyMarker(km).versionIdMarker(vm));
            } catch (SdkException e) {
                throw S3Errors.translate(forErrors, describe("ListObjectVersions", prefix), e);
            }
            for (software.amazon.awssdk.services.s3.model.ObjectVersion v : page.versions()) {
                each.accept(new VersionEntry(
                        v.key(),
                        v.versionId(),
                        v.eTag(),
                        v.size() == null ? 0 : v.size(),
                        v.lastModified(),
                        Boolean.TRUE.equals(v.isLatest()),
                        false));
            }
            for (DeleteMarkerEntry d : page.deleteMarkers()) {
                each.accept(new VersionEntry(
                        d.key(), d.versionId(), null, 0, d.lastModified(), Boolean.TRUE.equals(d.isLatest()), true));
            }
            if (!more.getAsBoolean() || !Boolean.TRUE.equals(page.isTruncated())) {
                return;
            }
            keyMarker = page.nextKeyMarker();
            versionMarker = page.nextVersionIdMarker();
        }
    }

    @Override
    public VersionEntry delete(String key) {
        validate(key);
        DeleteObjectResponse r;
        try {
            r = s3.deleteObject(d -> d.bucket(bucket).key(key));
        } catch (SdkException e) {
            generations.forgetCurrent(key);
            throw S3Errors.translate(key, describe("DELETE", key), e);
        }
        generations.forgetCurrent(key);
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
        Objects.requireNonNull(prefix, "prefix");
        List<String> keys = new ArrayList<>();
        listKeys(prefix, Integer.MAX_VALUE, keys);
        keys.sort((a, b) ->
                Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8)));
        return List.copyOf(keys);
    }

    /**
     * Adds the current keys under {@code prefix} (outside the reserved prefix) to {@code keys},
     * paginated, and stops after {@code limit} of them.
     *
     * @return false if there were more than {@code limit}
     */
    private boolean listKeys(String prefix, int limit, Collection<String> keys) {
        String token = null;
        int listed = 0;
        do {
            ListObjectsV2Request.Builder req =
                    ListObjectsV2Request.builder().bucket(bucket).prefix(prefix);
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
                if (++listed > limit) {
                    return false;
                }
                if (!o.key().startsWith(ObjectKeys.RESERVED_PREFIX)) {
                    keys.add(o.key());
                }
            }
            token = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
        } while (token != null);
        return true;
    }

    /** Listed at most this many keys per prepared prefix; beyond it, puts read each key's version as before. */
    static final int MAX_PREPARED_LISTING = 100_000;

    @Override
    public void prepareWrites(String prefix) {
        Objects.requireNonNull(prefix, "prefix");
        listings.putIfAbsent(prefix, new PrefixListing(prefix));
    }

    /**
     * Whether a listing of a prepared prefix showed {@code key} has no current version and this is its
     * first put since: then the HEAD before the put would answer 404, and is skipped.
     */
    private boolean listedAbsent(String key) {
        if (listings.isEmpty() || generations.known(key) != 0) {
            return false;
        }
        for (PrefixListing listing : listings.values()) {
            if (key.startsWith(listing.prefix)) {
                return listing.firstPutOfAbsentKey(key);
            }
        }
        return false;
    }

    /** The keys under one prepared prefix, listed once, at the first put that asks. */
    private final class PrefixListing {
        final String prefix;
        private @Nullable Set<String> seen;
        private boolean unusable;

        PrefixListing(String prefix) {
            this.prefix = prefix;
        }

        synchronized boolean firstPutOfAbsentKey(String key) {
            if (seen == null && !unusable) {
                Set<String> keys = new HashSet<>();
                try {
                    unusable = !listKeys(prefix, MAX_PREPARED_LISTING, keys);
                } catch (StorageException e) {
                    LOG.debug(
                            "Listing '{}' before its puts failed; each put reads its key's version instead", prefix, e);
                    unusable = true;
                }
                seen = keys;
            }
            return !unusable && seen.add(key); // a key's later puts read its version as before
        }
    }

    /**
     * One paginated ListObjectVersions with {@code prefix}; versions and delete markers of a key are
     * put back in one history, newest first, and keys under the reserved prefix are left out.
     */
    @Override
    public List<VersionEntry> listVersions(String prefix) {
        Objects.requireNonNull(prefix, "prefix");
        Map<String, List<VersionEntry>> byKey = new java.util.TreeMap<>((a, b) ->
                Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8)));
        forEachVersion(
                prefix,
                null,
                v -> byKey.computeIfAbsent(v.key(), k -> new ArrayList<>()).add(v),
                () -> true);
        List<VersionEntry> all = new ArrayList<>();
        byKey.forEach((key, history) -> {
            if (!key.startsWith(ObjectKeys.RESERVED_PREFIX)) {
                sortHistory(history);
                all.addAll(history);
            }
        });
        return List.copyOf(all);
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
            generations.forget(key);
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

    /** One HeadObject of the version: its recorded SHA-256 and generation, no body. */
    @Override
    public ObjectVersion head(String key, String versionId) {
        validate(key);
        Objects.requireNonNull(versionId, "versionId");
        try {
            return toVersion(key, s3.headObject(h -> h.bucket(bucket).key(key).versionId(versionId)));
        } catch (SdkException e) {
            throw S3Errors.translate(key, describe("HEAD", key), e);
        }
    }

    private @Nullable HeadObjectResponse headOrNull(String key) {
        try {
            return s3.headObject(h -> h.bucket(bucket).key(key));
        } catch (AwsServiceException e) {
            if (e.statusCode() == 404 && !"NoSuchBucket".equals(S3Errors.errorCode(e))) {
                return null;
            }
            throw S3Errors.translate(key, describe("HEAD", key), e);
        } catch (SdkException e) {
            throw S3Errors.translate(key, describe("HEAD", key), e);
        }
    }

    private static ObjectVersion toVersion(String key, HeadObjectResponse head) {
        String sha = head.metadata().get(META_SHA256);
        return new ObjectVersion(
                key,
                versionIdOrNull(head.versionId()),
                head.eTag(),
                head.contentLength() == null ? 0 : head.contentLength(),
                sha == null ? "" : sha,
                KeyGenerations.of(head.metadata()),
                head.lastModified());
    }

    private String newToken() {
        RandomGenerator random = config.random().get();
        HexFormat hex = HexFormat.of();
        return hex.toHexDigits(random.nextLong()) + hex.toHexDigits(random.nextLong()); // once per put: no Formatter
    }

    /** S3 reports the version of an object written while versioning was off as the string "null". */
    private static String versionIdOrNull(@Nullable String versionId) {
        return versionId == null ? "null" : versionId;
    }

    private void validate(String key) {
        ObjectKeys.validate(key, config.allowDotSegmentsAndLeadingSlash());
    }

    private String describe(String operation, String key) {
        return operation + " of '" + key + "' in bucket '" + bucket + "' at " + endpoint.describe();
    }

    private void pause(Duration d) {
        try {
            config.sleeper().sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StorageUnavailableException(null, "Interrupted while waiting to retry", e);
        }
    }
}
