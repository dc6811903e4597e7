package dev.ballast.storage.object.s3;

import dev.ballast.storage.BucketNotFoundException;
import dev.ballast.storage.StorageException;
import dev.ballast.storage.UnsupportedCapabilityException;
import dev.ballast.storage.internal.Md5;
import dev.ballast.storage.internal.ObjectKeys;
import dev.ballast.storage.internal.Sha256;
import dev.ballast.storage.object.StoreCapabilities;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketVersioningStatus;
import software.amazon.awssdk.services.s3.model.ChecksumAlgorithm;
import software.amazon.awssdk.services.s3.model.DeleteMarkerEntry;
import software.amazon.awssdk.services.s3.model.ListObjectVersionsResponse;
import software.amazon.awssdk.services.s3.model.ObjectVersion;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;

/**
 * The start-up capability probe of {@link S3ObjectStore#open}: bucket, versioning, each conditional
 * write on its own (<a href="https://docs.aws.amazon.com/AmazonS3/latest/userguide/conditional-writes.html">S3
 * conditional writes</a>, RFC 9110 §13.1.1-2) and additional checksums
 * (<a href="https://docs.aws.amazon.com/AmazonS3/latest/userguide/checking-object-integrity.html">S3
 * object integrity</a>), whether a wrong {@code Content-MD5} is refused and, over plain HTTP, whether
 * the signed payload hash ({@code x-amz-content-sha256}) is validated. Writes a small object under
 * {@code .ballast/probe/<random>} and deletes every version it made, whatever the outcome. Not
 * thread-safe; used once.
 */
final class CapabilityProbe {
    private static final Logger LOG = LoggerFactory.getLogger(CapabilityProbe.class);
    private static final int PROBE_PUT_ATTEMPTS = 3;
    private static final byte[] BODY = "ballast capability probe\n".getBytes(StandardCharsets.US_ASCII);

    private final S3Client s3;
    private final S3Endpoint endpoint;
    private final String bucket;
    private final S3StoreConfig config;
    private final String probeKey;
    private boolean contentMd5Validated;
    private boolean signedPayloadValidated;
    private boolean createdBucket;

    CapabilityProbe(S3Client s3, S3Endpoint endpoint, String bucket, S3StoreConfig config) {
        this.s3 = s3;
        this.endpoint = endpoint;
        this.bucket = bucket;
        this.config = config;
        var random = config.random().get();
        this.probeKey = ObjectKeys.RESERVED_PREFIX + "probe/"
                + String.format(Locale.ROOT, "%016x%016x", random.nextLong(), random.nextLong());
    }

    StoreCapabilities run() {
        ensureBucket();
        ensureVersioning();
        boolean checksums;
        boolean putIfMatch;
        boolean putIfAbsent;
        try {
            PutResult first = putWithChecksum();
            // If-Match must refuse a wrong ETag and accept the current one: Ceph RGW 16 refuses both in a
            // versioned bucket, which would turn every read-modify-write into a 412 loop.
            putIfMatch = refusedWith412(b -> b.ifMatch("\"0000ballast\""), "If-Match with a wrong ETag")
                    && accepted(b -> b.ifMatch(first.eTag()), "If-Match with the current ETag");
            putIfAbsent = refusedWith412(b -> b.ifNoneMatch("*"), "If-None-Match: * on an existing key");
            // Last: a server may close the connection after refusing a body it did not read.
            checksums = first.checksumAccepted() && wrongChecksumRefused();
            contentMd5Validated = wrongContentMd5Refused();
            signedPayloadValidated = endpoint.plainHttp() && payloadHashValidated();
        } finally {
            cleanUp();
        }
        if (endpoint.checksumMode() == S3Endpoint.ChecksumMode.ALWAYS && !checksums) {
            throw new UnsupportedCapabilityException("Additional SHA-256 checksums (x-amz-checksum-sha256) are not"
                    + " supported by this endpoint: " + endpoint.describe() + " bucket '" + bucket
                    + "' did not validate them;"
                    + " use ChecksumMode.AUTO or NEVER");
        }
        return new StoreCapabilities(
                endpoint.endpoint().orElse(null), bucket, true, putIfAbsent, putIfMatch, checksums);
    }

    /**
     * The bucket checked as {@link #run()} checks it first (created, versioning enabled, as the config
     * allows), and the server's behaviour taken from {@code remembered} findings of an earlier probe.
     */
    StoreCapabilities checkBucket(Set<S3StoreConfig.Capability> remembered) {
        // One request where all is well (GetBucketVersioning answers Enabled only for a bucket that exists and
        // is ours): HEAD bucket is a round trip of its own, 60-80 ms on Ceph RGW. Any other answer (no bucket,
        // versioning off, an error) takes the whole way, with its own messages.
        if (!versioningEnabledAlready()) {
            ensureBucket();
            ensureVersioning();
        }
        contentMd5Validated = remembered.contains(S3StoreConfig.Capability.CONTENT_MD5);
        signedPayloadValidated = remembered.contains(S3StoreConfig.Capability.SIGNED_PAYLOAD);
        return declared(endpoint, bucket, remembered);
    }

    /**
     * Whether this probe created the bucket: remembered findings are then not trusted, since a bucket
     * that did not exist may be on another server than the one that answered at this URL before.
     */
    boolean createdBucket() {
        return createdBucket;
    }

    /** What {@link #run()} found, as the capabilities {@link S3StoreConfig.Builder#declaredCapabilities} names. */
    Set<S3StoreConfig.Capability> found(StoreCapabilities caps) {
        Set<S3StoreConfig.Capability> found = EnumSet.noneOf(S3StoreConfig.Capability.class);
        if (caps.putIfAbsent()) {
            found.add(S3StoreConfig.Capability.PUT_IF_ABSENT);
        }
        if (caps.putIfMatch()) {
            found.add(S3StoreConfig.Capability.PUT_IF_MATCH);
        }
        if (caps.additionalChecksums()) {
            found.add(S3StoreConfig.Capability.ADDITIONAL_CHECKSUMS);
        }
        if (contentMd5Validated) {
            found.add(S3StoreConfig.Capability.CONTENT_MD5);
        }
        if (signedPayloadValidated) {
            found.add(S3StoreConfig.Capability.SIGNED_PAYLOAD);
        }
        return found;
    }

    /**
     * The capabilities {@code declared} in place of the probe (see
     * {@link S3StoreConfig.Builder#declaredCapabilities}), checked as a probe result is; sends nothing.
     *
     * @throws UnsupportedCapabilityException if checksum mode ALWAYS is set but additional checksums are
     *     not declared
     */
    static StoreCapabilities declared(S3Endpoint endpoint, String bucket, Set<S3StoreConfig.Capability> declared) {
        boolean checksums = declared.contains(S3StoreConfig.Capability.ADDITIONAL_CHECKSUMS);
        if (endpoint.checksumMode() == S3Endpoint.ChecksumMode.ALWAYS && !checksums) {
            throw new UnsupportedCapabilityException("Additional SHA-256 checksums (x-amz-checksum-sha256) are required"
                    + " by ChecksumMode.ALWAYS but not among the capabilities declared for " + endpoint.describe()
                    + " bucket '"
                    + bucket + "'; declare ADDITIONAL_CHECKSUMS, or use ChecksumMode.AUTO or NEVER");
        }
        return new StoreCapabilities(
                endpoint.endpoint().orElse(null),
                bucket,
                true,
                declared.contains(S3StoreConfig.Capability.PUT_IF_ABSENT),
                declared.contains(S3StoreConfig.Capability.PUT_IF_MATCH),
                checksums);
    }

    /** The answer to the first probe PUT: its ETag, and whether it carried an accepted checksum. */
    private record PutResult(String eTag, boolean checksumAccepted) {}

    private void ensureBucket() {
        AwsServiceException missing;
        try {
            s3.headBucket(h -> h.bucket(bucket));
            return;
        } catch (AwsServiceException e) {
            if (e.statusCode() != 404) {
                throw S3Errors.translate(null, what("HEAD bucket"), e);
            }
            missing = e;
        } catch (SdkException e) {
            throw S3Errors.translate(null, what("HEAD bucket"), e);
        } catch (UncheckedIOException e) {
            throw S3Errors.translate(null, what("HEAD bucket"), e, false); // an answer cut short, as below
        }
        if (!config.createBucket()) {
            throw new BucketNotFoundException(
                    "No such bucket: '" + bucket + "' does not exist at " + endpoint.describe()
                            + " (HEAD bucket answered 404); create it, correct the name, or let Ballast create it:"
                            + " S3StoreConfig.builder().createBucket(true)",
                    missing);
        }
        try {
            // Outside us-east-1, S3 wants the region as the location constraint (CreateBucket API).
            String region = endpoint.region();
            s3.createBucket(c -> {
                c.bucket(bucket);
                if (!"us-east-1".equals(region)) {
                    c.createBucketConfiguration(l -> l.locationConstraint(region));
                }
            });
            createdBucket = true;
            LOG.info("Created bucket '{}' at {}", bucket, endpoint.describe());
        } catch (software.amazon.awssdk.services.s3.model.S3Exception e) {
            // Another client with these credentials created it between our HEAD and our CreateBucket (two first
            // backups at once): S3 answers 409 BucketAlreadyOwnedByYou outside us-east-1 and on MinIO and S3Mock.
            // The bucket is there and ours, which is all this step wants.
            if (e.awsErrorDetails() == null
                    || !"BucketAlreadyOwnedByYou".equals(e.awsErrorDetails().errorCode())) {
                throw S3Errors.translate(null, what("CreateBucket"), e);
            }
            LOG.info("Bucket '{}' at {} was created meanwhile by another client of ours", bucket, endpoint.describe());
        } catch (SdkException e) {
            throw S3Errors.translate(null, what("CreateBucket"), e);
        } catch (UncheckedIOException e) {
            throw S3Errors.translate(null, what("CreateBucket"), e);
        }
    }

    private void ensureVersioning() {
        BucketVersioningStatus status = versioningStatus();
        if (status == BucketVersioningStatus.ENABLED) {
            return;
        }
        String found = status == null ? "never enabled" : status.toString();
        if (status == BucketVersioningStatus.SUSPENDED) {
            throw new UnsupportedCapabilityException("Bucket '" + bucket + "' at " + endpoint.describe()
                    + " has versioning Suspended: someone turned it off, and Ballast, which keeps every version of every"
                    + " object, does not turn it back on by itself; enable it again (PutBucketVersioning Status=Enabled)"
                    + " if that is right for the bucket, or use another bucket");
        }
        if (!config.enableVersioning()) {
            throw new UnsupportedCapabilityException("Bucket '" + bucket + "' at " + endpoint.describe()
                    + " has versioning " + found
                    + ", but Ballast keeps every version of every object and needs versioning"
                    + " Enabled: enable it (PutBucketVersioning Status=Enabled), or let Ballast enable it:"
                    + " S3StoreConfig.builder().enableVersioning(true)");
        }
        try {
            s3.putBucketVersioning(
                    p -> p.bucket(bucket).versioningConfiguration(v -> v.status(BucketVersioningStatus.ENABLED)));
        } catch (SdkException e) {
            throw S3Errors.translate(null, what("PutBucketVersioning"), e);
        } catch (UncheckedIOException e) {
            throw S3Errors.translate(null, what("PutBucketVersioning"), e);
        }
        if (versioningStatus() != BucketVersioningStatus.ENABLED) {
            throw new UnsupportedCapabilityException("Bucket versioning is not supported by this endpoint: "
                    + endpoint.describe() + " accepted PutBucketVersioning Enabled for bucket '" + bucket
                    + "' but still reports it " + found);
        }
        LOG.info("Enabled versioning on bucket '{}' at {} (was {})", bucket, endpoint.describe(), found);
        if (!createdBucket) {
            config.onVersioningEnabled().accept(found); // a bucket this probe made holds nothing else
        }
    }

    /** Whether GetBucketVersioning answers Enabled; false for any other answer, an error included. */
    private boolean versioningEnabledAlready() {
        try {
            return s3.getBucketVersioning(g -> g.bucket(bucket)).status() == BucketVersioningStatus.ENABLED;
        } catch (SdkException | UncheckedIOException e) {
            return false;
        }
    }

    private BucketVersioningStatus versioningStatus() {
        try {
            return s3.getBucketVersioning(g -> g.bucket(bucket)).status();
        } catch (SdkException e) {
            throw S3Errors.translate(null, what("GetBucketVersioning"), e);
        } catch (UncheckedIOException e) {
            // The SDK's XML parser lets an answer cut in its body through as UncheckedIOException,
            // which a backup, init, key add, forget and prune opening the bucket reported as "A local file
            // operation failed", exit 1 (a fault tester's); a read, it changed nothing
            throw S3Errors.translate(null, what("GetBucketVersioning"), e, false);
        }
    }

    /**
     * Writes the probe object with a correct SHA-256 additional checksum (plain when mode NEVER, or
     * when the endpoint refuses the header).
     */
    private PutResult putWithChecksum() {
        if (endpoint.checksumMode() == S3Endpoint.ChecksumMode.NEVER) {
            return new PutResult(putProbe(b -> {}).eTag(), false);
        }
        String right = Sha256.base64(Sha256.of(BODY));
        try {
            return new PutResult(
                    putProbe(b -> b.checksumAlgorithm(ChecksumAlgorithm.SHA256).checksumSHA256(right))
                            .eTag(),
                    true);
        } catch (AwsServiceException e) {
            if (e.statusCode() >= 500 || e.statusCode() == 403) {
                throw S3Errors.translate(probeKey, what("PUT with x-amz-checksum-sha256"), e);
            }
            LOG.debug("Endpoint refused x-amz-checksum-sha256: {}", e.toString());
            return new PutResult(putProbe(b -> {}).eTag(), false);
        }
    }

    /** A store that accepts a wrong checksum validates nothing: it must answer 400. */
    private boolean wrongChecksumRefused() {
        String wrong = Sha256.base64(Sha256.of(new byte[] {0}));
        try {
            putProbe(b -> b.checksumAlgorithm(ChecksumAlgorithm.SHA256).checksumSHA256(wrong));
            return false;
        } catch (AwsServiceException e) {
            if (e.statusCode() >= 500 || e.statusCode() == 403) {
                throw S3Errors.translate(probeKey, what("PUT with a wrong x-amz-checksum-sha256"), e);
            }
            return e.statusCode() == 400;
        }
    }

    /**
     * Whether the endpoint checks {@code Content-MD5} (RFC 1864): a PUT whose header does not match its
     * body must be refused with 400 ({@code BadDigest} on S3, Ceph RGW, S3Mock and s3proxy). Valid
     * after {@link #run()}.
     */
    boolean contentMd5Validated() {
        return contentMd5Validated;
    }

    /**
     * Whether, over plain HTTP, the endpoint validates the signed payload hash
     * ({@link S3StoreConfig.Capability#SIGNED_PAYLOAD}). Valid after {@link #run()} or
     * {@link #checkBucket}.
     */
    boolean signedPayloadValidated() {
        return signedPayloadValidated;
    }

    /**
     * A PUT signed with its body's SHA-256 and no {@code Content-MD5} must be stored (a bucket that
     * demands {@code Content-MD5}, as AWS does under Object Lock, refuses it), and one signed with
     * another body's SHA-256 must be refused with 400 ({@code XAmzContentSHA256Mismatch} on S3 and Ceph
     * RGW). The hash goes in {@value Uploads#CONTENT_SHA256} as the object store sends it, and
     * {@link PrecomputedPayloadSigner} signs it as given.
     */
    private boolean payloadHashValidated() {
        String right = Sha256.hex(Sha256.of(BODY));
        try {
            putProbe(b -> b.overrideConfiguration(o -> o.putHeader(Uploads.CONTENT_SHA256, right)));
        } catch (AwsServiceException e) {
            if (e.statusCode() >= 500 || e.statusCode() == 403) {
                throw S3Errors.translate(probeKey, what("PUT signed with its payload's SHA-256"), e);
            }
            LOG.debug(
                    "Capability probe: a PUT signed with its payload's SHA-256 and no Content-MD5 was refused: {}",
                    e.toString());
            return false;
        }
        String wrong = Sha256.hex(Sha256.of(new byte[] {0}));
        try {
            putProbe(b -> b.overrideConfiguration(o -> o.putHeader(Uploads.CONTENT_SHA256, wrong)));
            LOG.debug("Capability probe: a PUT signed with another payload's SHA-256 was stored");
            return false;
        } catch (AwsServiceException e) {
            if (e.statusCode() >= 500) {
                throw S3Errors.translate(probeKey, what("PUT signed with a wrong payload SHA-256"), e);
            }
            // A 403 (a server that checks the signature against the body it hashed) refuses the body too, but
            // not as the integrity failure a 400 is: not counted, so bodies keep their Content-MD5.
            return e.statusCode() == 400;
        }
    }

    private boolean wrongContentMd5Refused() {
        String wrong = Md5.base64(Md5.newDigest().digest(new byte[] {0}));
        try {
            putProbe(b -> b.contentMD5(wrong));
            LOG.debug("Capability probe: a PUT with a wrong Content-MD5 was stored");
            return false;
        } catch (AwsServiceException e) {
            if (e.statusCode() >= 500 || e.statusCode() == 403) {
                throw S3Errors.translate(probeKey, what("PUT with a wrong Content-MD5"), e);
            }
            return e.statusCode() == 400;
        }
    }

    /** True when a conditional PUT (empty body) on the existing probe key is refused with 412. */
    private boolean refusedWith412(Consumer<PutObjectRequest.Builder> condition, String which) {
        try {
            conditionalPut(condition);
            LOG.debug("Capability probe: {} was not refused", which);
            return false;
        } catch (AwsServiceException e) {
            if (e.statusCode() == 412) {
                return true;
            }
            throwIfNoCapabilityAnswer(e, which);
            LOG.debug("Capability probe: {} answered {} instead of 412", which, e.statusCode());
            return false;
        }
    }

    /** True when a conditional PUT (empty body) on the existing probe key is accepted. */
    private boolean accepted(Consumer<PutObjectRequest.Builder> condition, String which) {
        try {
            conditionalPut(condition);
            return true;
        } catch (AwsServiceException e) {
            throwIfNoCapabilityAnswer(e, which);
            LOG.debug("Capability probe: {} answered {} instead of 200", which, e.statusCode());
            return false;
        }
    }

    /** Credentials refused or the store failing say nothing about conditional writes: raise them. */
    private void throwIfNoCapabilityAnswer(AwsServiceException e, String which) {
        if (e.statusCode() >= 500 && e.statusCode() != 501 || e.statusCode() == 403) {
            throw S3Errors.translate(probeKey, what("PUT with " + which), e);
        }
    }

    private void conditionalPut(Consumer<PutObjectRequest.Builder> condition) {
        PutObjectRequest.Builder b =
                PutObjectRequest.builder().bucket(bucket).key(probeKey).contentLength(0L);
        condition.accept(b);
        send(b.build(), RequestBody::empty);
    }

    private PutObjectResponse putProbe(Consumer<PutObjectRequest.Builder> customizer) {
        PutObjectRequest.Builder b =
                PutObjectRequest.builder().bucket(bucket).key(probeKey).contentLength((long) BODY.length);
        customizer.accept(b);
        return send(b.build(), () -> RequestBody.fromBytes(BODY));
    }

    /**
     * Sends one probe PUT. A server that refuses a request before reading its body and then closes
     * the connection resets it under the client, which sees no answer at all; since probe PUTs only
     * ever touch the probe key, such a PUT is sent again, at most
     * {@value #PROBE_PUT_ATTEMPTS} times, before the endpoint is reported unavailable.
     *
     * @throws AwsServiceException the server's answer, for the caller to classify
     */
    private PutObjectResponse send(PutObjectRequest request, Supplier<RequestBody> body) {
        for (int attempt = 1; ; attempt++) {
            try {
                return s3.putObject(request, body.get());
            } catch (AwsServiceException e) {
                throw e;
            } catch (SdkException e) {
                if (attempt >= PROBE_PUT_ATTEMPTS) {
                    throw S3Errors.translate(probeKey, what("probe PUT"), e);
                }
                LOG.debug("Probe PUT got no answer ({}); sending it again", e.toString());
            } catch (UncheckedIOException e) {
                // The SDK's XML unmarshaller raises this when the answer breaks off while it is parsed
                // (a connection the server reset after refusing the body): no usable answer either.
                if (attempt >= PROBE_PUT_ATTEMPTS) {
                    throw S3Errors.translate(probeKey, what("probe PUT"), e);
                }
                LOG.debug("Probe PUT answer broke off ({}); sending it again", e.toString());
            }
        }
    }

    /**
     * Deletes every version and delete marker of the probe key; failures are logged, not raised.
     * Housekeeping only, and idempotent (deletes by version ID): a first attempt failing without an
     * answer (a connection the server closed after refusing the last probe body) is made once more.
     */
    private void cleanUp() {
        for (int attempt = 1; ; attempt++) {
            try {
                removeProbeVersions();
                return;
            } catch (SdkClientException noAnswer) {
                if (attempt == 1) {
                    LOG.debug("Probe clean-up failed without an answer, trying once more: {}", noAnswer.toString());
                    continue;
                }
                warnNotRemoved(noAnswer);
                return;
            } catch (SdkException | StorageException e) {
                warnNotRemoved(e);
                return;
            }
        }
    }

    private void warnNotRemoved(Exception e) {
        LOG.warn(
                "Could not remove the capability probe object '{}' from bucket '{}': {}",
                probeKey,
                bucket,
                e.toString());
    }

    private void removeProbeVersions() {
        ListObjectVersionsResponse r =
                s3.listObjectVersions(l -> l.bucket(bucket).prefix(probeKey));
        for (ObjectVersion v : r.versions()) {
            deleteVersion(v.key(), v.versionId());
        }
        for (DeleteMarkerEntry d : r.deleteMarkers()) {
            deleteVersion(d.key(), d.versionId());
        }
    }

    private void deleteVersion(String key, String versionId) {
        s3.deleteObject(d -> d.bucket(bucket).key(key).versionId(versionId));
    }

    private String what(String operation) {
        return operation + " on bucket '" + bucket + "' at " + endpoint.describe();
    }
}
