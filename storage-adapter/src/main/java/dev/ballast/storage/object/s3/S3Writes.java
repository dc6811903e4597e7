package dev.ballast.storage.object.s3;

import dev.ballast.storage.AccessDeniedException;
import dev.ballast.storage.AlreadyExistsException;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.PreconditionFailedException;
import dev.ballast.storage.StorageException;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.UnsupportedCapabilityException;
import dev.ballast.storage.internal.Payload;
import dev.ballast.storage.internal.Sha256;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.PutOptions;
import dev.ballast.storage.object.ServerSideEncryption;
import dev.ballast.storage.object.StoreCapabilities;
import dev.ballast.storage.object.VersionEntry;
import java.io.UncheckedIOException;
import java.util.HexFormat;
import java.util.Map;
import java.util.Objects;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;

/**
 * The write room of {@link S3ObjectStore}: puts with their generation, put token and condition, and
 * the recognition of a put whose answer was lost (see the class comment of {@link S3ObjectStore}).
 * Thread-safe.
 */
final class S3Writes extends S3Room {
    /** Versions read to find a put whose answer was lost, when the key changed since. */
    private static final int MAX_TOKEN_SEARCH = 8;

    private final StoreCapabilities capabilities;
    private final Uploads uploads;
    private final S3Listings listings;
    private final S3Reads reads;
    private final S3BlockTables blockTables;

    S3Writes(
            S3Room shared,
            StoreCapabilities capabilities,
            Uploads uploads,
            S3Listings listings,
            S3Reads reads,
            S3BlockTables blockTables) {
        super(shared);
        this.blockTables = blockTables;
        this.capabilities = capabilities;
        this.uploads = uploads;
        this.listings = listings;
        this.reads = reads;
    }

    ObjectVersion write(String key, ObjectContent content, WriteCondition condition) {
        return write(key, content, condition, PutOptions.defaults());
    }

    /**
     * A put with {@code options}: refused before anything is read when the store lacks a feature they
     * need; the encryption the answer reports is checked, and a version written without the encryption
     * asked for is removed and the put refused.
     */
    ObjectVersion write(String key, ObjectContent content, WriteCondition condition, PutOptions options) {
        validate(key);
        Objects.requireNonNull(content, "content");
        Objects.requireNonNull(options, "options");
        options.requireSupportedBy(capabilities, endpoint.describe() + " bucket '" + bucket + "'");
        ServerSideEncryption customerKey =
                options.encryption().kind() == ServerSideEncryption.Kind.CUSTOMER_KEY ? options.encryption() : null;
        PUT_CUSTOMER_KEY.set(customerKey);
        try {
            ObjectVersion v = write0(key, content, condition, options);
            String mismatch = S3Attributes.mismatch(options.encryption(), v.encryption());
            if (mismatch != null) {
                boolean removed;
                try {
                    s3.deleteObject(d -> d.bucket(bucket).key(key).versionId(v.versionId()));
                    removed = true;
                } catch (SdkException e) {
                    removed = false;
                } finally {
                    generations.forget(key);
                }
                throw S3Attributes.notApplied(
                        key, options.encryption(), mismatch, endpoint.describe() + " bucket '" + bucket + "'", removed);
            }
            return v;
        } finally {
            PUT_CUSTOMER_KEY.remove();
        }
    }

    @SuppressWarnings("try") // the key lock is held for the try block's duration, not referenced in it
    private ObjectVersion write0(String key, ObjectContent content, WriteCondition condition, PutOptions options) {
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
            String blockTable = writeBlockTable(payload, options);
            WriteCondition sent = instead(key, payload, condition);
            boolean implicit = sent != null && sent != condition;
            long generation;
            if (sent == null) {
                HeadObjectResponse head = listings.listedAbsent(key) ? null : headBeforeWrite(key);
                generation = nextGeneration(key, head);
                sent = condition;
            } else {
                generation = generations.next(key, 0, config.clock());
            }
            for (int conflicts = 1; ; conflicts++) {
                try {
                    Map<String, String> ours = metadata(payload, generation, token, blockTable);
                    Uploads.Written written = uploads.upload(
                            key, payload, S3Attributes.userMetadata(ours, options.metadata()), options, sent);
                    generations.remember(key, generation, written.eTag());
                    return requireVersion(new ObjectVersion(
                            key,
                            versionIdOrNull(written.versionId()),
                            written.eTag(),
                            payload.length(),
                            payload.sha256Hex(),
                            generation,
                            written.lastModified(),
                            options.metadata(),
                            written.encryption()));
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
                        throw reads.notFound(key, null, e);
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

    private static Map<String, String> metadata(
            Payload payload, long generation, String token, @Nullable String blockTable) {
        return blockTable == null
                ? Map.of(
                        S3ObjectStore.META_SHA256, payload.sha256Hex(),
                        S3ObjectStore.META_GENERATION, Long.toString(generation),
                        S3ObjectStore.META_PUT_TOKEN, token)
                : Map.of(
                        S3ObjectStore.META_SHA256,
                        payload.sha256Hex(),
                        S3ObjectStore.META_GENERATION,
                        Long.toString(generation),
                        S3ObjectStore.META_PUT_TOKEN,
                        token,
                        S3ObjectStore.META_BLOCKS,
                        blockTable);
    }

    /**
     * Writes the block digest table of a content of more than one block to its sidecar object,
     * {@code .ballast/blocks/<SHA-256 of the content>} (one per content, whatever keys hold it), with
     * the put's encryption, before the object that names it; returns the SHA-256 of the table (hex),
     * recorded in the object's {@value S3ObjectStore#META_BLOCKS}, or null when there is none. A
     * failure to write it fails the put before its object is sent.
     */
    private @Nullable String writeBlockTable(Payload payload, PutOptions options) {
        byte[] table = payload.blockTable();
        if (table == null) {
            return null;
        }
        String tableSha = Sha256.hex(Sha256.of(table));
        String sidecar = S3BlockTables.key(payload.sha256Hex());
        if (blockTables.known(payload.sha256Hex(), tableSha)) {
            return tableSha;
        }
        try (Payload body = Payload.prepare(
                ObjectContent.ofBytes(table), config.spoolDirectory(), uploads.digestsFor(table.length))) {
            uploads.upload(
                    sidecar,
                    body,
                    Map.of(S3ObjectStore.META_SHA256, tableSha),
                    PutOptions.defaults().withEncryption(options.encryption()),
                    WriteCondition.NONE);
        } catch (SdkException e) {
            StorageException failure = S3Errors.translate(sidecar, describe("PUT", sidecar), e);
            if (failure instanceof StorageUnavailableException u) {
                throw new StorageUnavailableException(
                        sidecar,
                        u.getMessage() + "; the object's own PUT was not sent",
                        u.getCause(),
                        u.outcomeUnknown());
            }
            throw failure;
        }
        blockTables.remember(payload.sha256Hex(), table, tableSha);
        return tableSha;
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
            for (VersionEntry v : listings.versions(key)) {
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
                var req = software.amazon.awssdk.services.s3.model.HeadObjectRequest.builder()
                        .bucket(bucket)
                        .key(key)
                        .versionId(versionId);
                S3Attributes.apply(req, PUT_CUSTOMER_KEY.get());
                HeadObjectResponse head = s3.headObject(req.build());
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
        return head != null && token.equals(head.metadata().get(S3ObjectStore.META_PUT_TOKEN));
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

    private String newToken() {
        RandomGenerator random = config.random().get();
        HexFormat hex = HexFormat.of();
        return hex.toHexDigits(random.nextLong()) + hex.toHexDigits(random.nextLong()); // once per put: no Formatter
    }
}
