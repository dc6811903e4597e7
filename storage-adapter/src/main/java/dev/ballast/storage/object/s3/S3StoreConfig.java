package dev.ballast.storage.object.s3;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * How an {@link S3ObjectStore} uses its bucket: what it may fix at open (a missing bucket, versioning
 * off), multipart sizes, the key policy, bounded re-reads and retries, and the injected clock,
 * randomness and sleeper. Where and how to reach the endpoint (URI, region, credentials, HTTP client)
 * is {@link S3Endpoint}'s. Every default is a named constant below, repeated in its setter.
 *
 * <p>Immutable and thread-safe; builders are not thread-safe and {@link Builder#build()} shares no
 * state with the builder.
 *
 * @see S3ObjectStore#open(S3Endpoint, String, S3StoreConfig)
 */
public final class S3StoreConfig {
    /** Default {@link #multipartThreshold()}: 16 MiB. */
    public static final long DEFAULT_MULTIPART_THRESHOLD = 16L * 1024 * 1024;
    /** Default {@link #partSize()}: 8 MiB. */
    public static final long DEFAULT_PART_SIZE = 8L * 1024 * 1024;
    /** S3's minimum size of every part but the last: 5 MiB (UploadPart API). */
    public static final long MIN_PART_SIZE = 5L * 1024 * 1024;
    /** Default {@link #staleReadAttempts()}: 3. */
    public static final int DEFAULT_STALE_READ_ATTEMPTS = 3;
    /** Default {@link #staleReadBackoff()}: 50 ms. */
    public static final Duration DEFAULT_STALE_READ_BACKOFF = Duration.ofMillis(50);
    /** Default {@link #partConcurrency()}: 4 parts of one upload in flight. */
    public static final int DEFAULT_PART_CONCURRENCY = 4;
    /** Default base of {@link #completeTimeout(int)}: 30 seconds. */
    public static final Duration DEFAULT_COMPLETE_TIMEOUT_BASE = Duration.ofSeconds(30);
    /** Default per-part term of {@link #completeTimeout(int)}: 100 milliseconds. */
    public static final Duration DEFAULT_COMPLETE_TIMEOUT_PER_PART = Duration.ofMillis(100);
    /** Default {@link #completeAttempts()}: 3. */
    public static final int DEFAULT_COMPLETE_ATTEMPTS = 3;
    /** Default {@link #conditionalConflictAttempts()}: 3. */
    public static final int DEFAULT_CONDITIONAL_CONFLICT_ATTEMPTS = 3;

    private static final SecureRandom SECURE_RANDOM = new SecureRandom();
    private static final S3StoreConfig DEFAULTS = builder().build();

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
    private final @Nullable Set<Capability> declaredCapabilities;
    private final @Nullable Path probeCache;
    private final Duration probeCacheMaxAge;
    private final int partConcurrency;
    private final Duration completeTimeoutBase;
    private final Duration completeTimeoutPerPart;
    private final int completeAttempts;
    private final Set<Capability> serverSideEncryption;
    private final Runnable onReadResumed;
    private final java.util.function.Consumer<String> onVersioningEnabled;

    private S3StoreConfig(Builder b) {
        this.onReadResumed = b.onReadResumed;
        this.onVersioningEnabled = b.onVersioningEnabled;
        this.serverSideEncryption = b.serverSideEncryption;
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
        this.declaredCapabilities = b.declaredCapabilities == null
                ? null
                : b.declaredCapabilities.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(b.declaredCapabilities));
        this.probeCache = b.probeCache;
        this.probeCacheMaxAge = b.probeCacheMaxAge;
        this.partConcurrency = b.partConcurrency;
        this.completeTimeoutBase = b.completeTimeoutBase;
        this.completeTimeoutPerPart = b.completeTimeoutPerPart;
        this.completeAttempts = b.completeAttempts;
    }

    /** The defaults: see each builder method. */
    public static S3StoreConfig ofDefaults() {
        return DEFAULTS;
    }

    /** A builder holding the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from these settings. */
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
        b.declaredCapabilities = declaredCapabilities;
        b.serverSideEncryption = serverSideEncryption;
        b.probeCache = probeCache;
        b.probeCacheMaxAge = probeCacheMaxAge;
        b.partConcurrency = partConcurrency;
        b.completeTimeoutBase = completeTimeoutBase;
        b.completeTimeoutPerPart = completeTimeoutPerPart;
        b.completeAttempts = completeAttempts;
        b.onReadResumed = onReadResumed;
        b.onVersioningEnabled = onVersioningEnabled;
        return b;
    }

    /** Called each time a read resumes after its body stalled or was cut; see {@link Builder#onReadResumed}. */
    public Runnable onReadResumed() {
        return onReadResumed;
    }

    /** Called once when opening the store turned the bucket's versioning on; see {@link Builder#onVersioningEnabled}. */
    public java.util.function.Consumer<String> onVersioningEnabled() {
        return onVersioningEnabled;
    }

    /** Whether a missing bucket is created at open; see {@link Builder#createBucket}. */
    public boolean createBucket() {
        return createBucket;
    }

    /** Whether bucket versioning is turned on at open; see {@link Builder#enableVersioning}. */
    public boolean enableVersioning() {
        return enableVersioning;
    }

    /** Wall clock for generations and delete-marker timestamps; see {@link Builder#clock}. */
    public Clock clock() {
        return clock;
    }

    /** Content longer than this many bytes goes as a multipart upload; see {@link Builder#multipartThreshold}. */
    public long multipartThreshold() {
        return multipartThreshold;
    }

    /** Multipart part size in bytes; see {@link Builder#partSize}. */
    public long partSize() {
        return partSize;
    }

    /** Parts of one multipart upload in flight at once; see {@link Builder#partConcurrency}. */
    public int partConcurrency() {
        return partConcurrency;
    }

    /**
     * The attempt timeout of a {@code CompleteMultipartUpload} of {@code parts} parts:
     * {@code base + parts * perPart} (default {@code 30 s + parts * 100 ms}: 62 s for the 320 parts of
     * 2.5 GiB, 2 min 38 s for the 1 280 of 10 GiB, 17 min for S3's maximum of 10 000). S3 may take
     * "several minutes" to complete an upload and its work grows with the parts it assembles
     * (<a href="https://docs.aws.amazon.com/AmazonS3/latest/API/API_CompleteMultipartUpload.html">CompleteMultipartUpload</a>);
     * a fixed attempt timeout would abandon large completions that were going to succeed. Sent as the
     * request's own timeout, which {@code ResilientHttpClient} takes as its attempt timeout, within
     * its total timeout (so raise that, the CLI's {@code --timeout}, for very large objects); a
     * caller-built {@code S3Client} ({@code S3Endpoint.of}) keeps its own timeouts.
     *
     * @param parts the part count, at least 1
     */
    public Duration completeTimeout(int parts) {
        return completeTimeoutBase.plus(completeTimeoutPerPart.multipliedBy(Math.max(1, parts)));
    }

    /**
     * How many times a {@code CompleteMultipartUpload} (and a {@code CreateMultipartUpload}) is sent, the first
     * included, when it fails ambiguously; see {@link Builder#completeAttempts}.
     */
    public int completeAttempts() {
        return completeAttempts;
    }

    /** Whether keys with {@code ..} segments or a leading {@code /} are accepted; see the builder. */
    public boolean allowDotSegmentsAndLeadingSlash() {
        return allowDotSegmentsAndLeadingSlash;
    }

    /** Reads of the latest version made before a stale read is reported; see the builder. */
    public int staleReadAttempts() {
        return staleReadAttempts;
    }

    /** Pause between stale re-reads, conditional-conflict retries and completion retries; see the builder. */
    public Duration staleReadBackoff() {
        return staleReadBackoff;
    }

    /** Attempts of a conditional write answered 409 ConditionalRequestConflict; see the builder. */
    public int conditionalConflictAttempts() {
        return conditionalConflictAttempts;
    }

    /** Where streamed content larger than 1 MiB is spooled; see {@link Builder#spoolDirectory}. */
    public Path spoolDirectory() {
        return spoolDirectory;
    }

    /** Source of randomness for put tokens and probe keys; see {@link Builder#random}. */
    public Supplier<RandomGenerator> random() {
        return random;
    }

    /** How the store waits between bounded re-reads and conflict retries; see {@link Builder#sleeper}. */
    public Sleeper sleeper() {
        return sleeper;
    }

    /**
     * The guarantees declared in place of the capability probe, empty when the probe runs at open (the
     * default); see {@link Builder#declaredCapabilities}.
     */
    public Optional<Set<Capability>> declaredCapabilities() {
        return Optional.ofNullable(declaredCapabilities);
    }

    /** The file remembering the probe's findings, if set; see {@link Builder#probeCache}. */
    public Optional<Path> probeCache() {
        return Optional.ofNullable(probeCache);
    }

    /** How long the probe's remembered findings are trusted; see {@link Builder#probeCache}. */
    public Duration probeCacheMaxAge() {
        return probeCacheMaxAge;
    }

    @Override
    public String toString() {
        return "S3StoreConfig[createBucket=" + createBucket + ", enableVersioning=" + enableVersioning
                + ", multipartThreshold=" + multipartThreshold + ", partSize=" + partSize
                + ", allowDotSegmentsAndLeadingSlash=" + allowDotSegmentsAndLeadingSlash + ", staleReadAttempts="
                + staleReadAttempts + ", staleReadBackoff=" + staleReadBackoff + ", conditionalConflictAttempts="
                + conditionalConflictAttempts + ", spoolDirectory=" + spoolDirectory + ", partConcurrency="
                + partConcurrency
                + ", completeTimeout=" + completeTimeoutBase + " + parts * " + completeTimeoutPerPart
                + ", completeAttempts="
                + completeAttempts
                + (declaredCapabilities == null ? "" : ", declaredCapabilities=" + declaredCapabilities)
                + (probeCache == null ? "" : ", probeCache=" + probeCache + " for " + probeCacheMaxAge) + "]";
    }

    /**
     * A guarantee of the endpoint that {@link Builder#declaredCapabilities} may declare instead of
     * having the capability probe find it (see {@link S3ObjectStore}).
     */
    public enum Capability {
        /**
         * {@code If-None-Match: *} on PutObject is honoured: refused with 412 when the key has a current
         * version ({@link dev.ballast.storage.object.ObjectStore#putIfAbsent}; AWS S3 since August 2024).
         */
        PUT_IF_ABSENT,
        /**
         * {@code If-Match} on PutObject is honoured: refused with 412 for an ETag other than the current
         * one, accepted for the current one ({@link dev.ballast.storage.object.ObjectStore#putIfMatch};
         * AWS S3 since November 2024).
         */
        PUT_IF_MATCH,
        /** {@code x-amz-checksum-sha256} is accepted and validated: a wrong one is refused with 400. */
        ADDITIONAL_CHECKSUMS,
        /**
         * {@code Content-MD5} on PutObject and UploadPart is validated: a wrong one is refused with 400
         * {@code BadDigest} (PutObject API), so a write proves what was stored
         * ({@link dev.ballast.storage.object.ObjectStore#confirmsWrites}).
         */
        CONTENT_MD5,
        /**
         * Over plain HTTP, the SigV4 payload hash is validated: a PUT whose signed
         * {@code x-amz-content-sha256} is its body's SHA-256 is stored without {@code Content-MD5}, and
         * one whose signed hash is not is refused with 400 ({@code XAmzContentSHA256Mismatch})
         * (<a href="https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html">Signature
         * Calculations for the Authorization Header</a>). Every body then goes with the SHA-256 computed
         * in the content's one read, which proves what was stored, so no MD5 is computed or sent.
         * Meaningless over HTTPS, where bodies are signed {@code UNSIGNED-PAYLOAD}.
         */
        SIGNED_PAYLOAD,
        /**
         * SSE-S3 ({@code x-amz-server-side-encryption: AES256}) is applied on request and reported in the
         * answer. Declared only (here or with {@link Builder#serverSideEncryption}): the probe does not
         * try encryption.
         */
        SSE_S3,
        /** SSE-KMS ({@code aws:kms} with a key ID) is applied on request and reported. Declared only. */
        SSE_KMS,
        /**
         * SSE-C (a customer-provided key) is applied on request and reported. Declared only; AWS takes
         * SSE-C over HTTPS only.
         */
        SSE_C
    }

    /** The capabilities the probe looks for (every one but server-side encryption, which is declared only). */
    static final Set<Capability> PROBED = Set.copyOf(EnumSet.of(
            Capability.PUT_IF_ABSENT,
            Capability.PUT_IF_MATCH,
            Capability.ADDITIONAL_CHECKSUMS,
            Capability.CONTENT_MD5,
            Capability.SIGNED_PAYLOAD));

    /** The encryption capabilities among {@code declared}. */
    static Set<Capability> encryption(Set<Capability> declared) {
        EnumSet<Capability> sse = EnumSet.noneOf(Capability.class);
        for (Capability c : declared) {
            if (c == Capability.SSE_S3 || c == Capability.SSE_KMS || c == Capability.SSE_C) {
                sse.add(c);
            }
        }
        return sse;
    }

    /**
     * The server-side encryption the endpoint is declared to apply on request ({@link Capability#SSE_S3},
     * {@link Capability#SSE_KMS}, {@link Capability#SSE_C}): with the probe, those given to
     * {@link Builder#serverSideEncryption}; with {@link Builder#declaredCapabilities}, also those
     * declared there. Empty by default: a put asking for encryption is then refused.
     */
    public Set<Capability> serverSideEncryption() {
        Set<Capability> all = EnumSet.noneOf(Capability.class);
        all.addAll(serverSideEncryption);
        if (declaredCapabilities != null) {
            all.addAll(encryption(declaredCapabilities));
        }
        return Set.copyOf(all);
    }

    /** Waits between bounded re-reads; injectable so tests never sleep. */
    @FunctionalInterface
    public interface Sleeper {
        /** Blocks for {@code duration}. */
        void sleep(Duration duration) throws InterruptedException;
    }

    /** Builder of {@link S3StoreConfig}; not thread-safe. */
    public static final class Builder {
        private boolean createBucket;
        private boolean enableVersioning;
        private Clock clock = Clock.systemUTC();
        private Runnable onReadResumed = () -> {};
        private java.util.function.Consumer<String> onVersioningEnabled = was -> {};
        private long multipartThreshold = DEFAULT_MULTIPART_THRESHOLD;
        private long partSize = DEFAULT_PART_SIZE;
        private boolean allowDotSegmentsAndLeadingSlash;
        private int staleReadAttempts = DEFAULT_STALE_READ_ATTEMPTS;
        private Duration staleReadBackoff = DEFAULT_STALE_READ_BACKOFF;
        private int conditionalConflictAttempts = DEFAULT_CONDITIONAL_CONFLICT_ATTEMPTS;
        private Path spoolDirectory = Path.of(System.getProperty("java.io.tmpdir"));
        private Supplier<RandomGenerator> random = () -> SECURE_RANDOM;
        private Sleeper sleeper = d -> Thread.sleep(d.toMillis());
        private @Nullable Set<Capability> declaredCapabilities;
        private Set<Capability> serverSideEncryption = Set.of();
        private @Nullable Path probeCache;
        private Duration probeCacheMaxAge = Duration.ZERO;
        private int partConcurrency = DEFAULT_PART_CONCURRENCY;
        private Duration completeTimeoutBase = DEFAULT_COMPLETE_TIMEOUT_BASE;
        private Duration completeTimeoutPerPart = DEFAULT_COMPLETE_TIMEOUT_PER_PART;
        private int completeAttempts = DEFAULT_COMPLETE_ATTEMPTS;

        private Builder() {}

        /**
         * How many times a {@code CompleteMultipartUpload} is sent, the first included, when it gets no
         * answer, a 5xx, or an error after {@code 200 OK}. Completing one upload ID with the same parts
         * again cannot create a second version (a repeat gets the object or {@code NoSuchUpload}), and
         * AWS asks clients to retry it
         * (<a href="https://docs.aws.amazon.com/AmazonS3/latest/API/API_CompleteMultipartUpload.html">CompleteMultipartUpload</a>).
         * The pause between is {@link #staleReadBackoff}. The same count bounds the {@code CreateMultipartUpload}
         * that starts the upload, sent again after such a failure too (an upload a lost answer started holds no
         * object, and {@code abortIncompleteUploads} or a lifecycle rule removes it). If not set,
         * {@value S3StoreConfig#DEFAULT_COMPLETE_ATTEMPTS}; at least 1.
         */
        public Builder completeAttempts(int attempts) {
            this.completeAttempts = attempts;
            return this;
        }

        /**
         * How many parts of one multipart upload are sent at once. No part is held in memory (each
         * streams from its region of the file or spool file), so this bounds connections, not memory. If
         * not set, {@value S3StoreConfig#DEFAULT_PART_CONCURRENCY}; at least 1.
         */
        public Builder partConcurrency(int parts) {
            this.partConcurrency = parts;
            return this;
        }

        /**
         * The attempt timeout of {@code CompleteMultipartUpload}, {@code base + parts * perPart}; see
         * {@link S3StoreConfig#completeTimeout(int)}. If not set, 30 s and 100 ms.
         *
         * @throws NullPointerException if either is null
         */
        public Builder completeTimeout(Duration base, Duration perPart) {
            this.completeTimeoutBase = Objects.requireNonNull(base, "base");
            this.completeTimeoutPerPart = Objects.requireNonNull(perPart, "perPart");
            return this;
        }

        /**
         * Create the bucket at open when it does not exist (CreateBucket, with the endpoint's region as
         * location constraint outside {@code us-east-1}). If not set, false: a missing bucket is refused.
         */
        public Builder createBucket(boolean createBucket) {
            this.createBucket = createBucket;
            return this;
        }

        /**
         * Turn bucket versioning on at open when it was never enabled (PutBucketVersioning). A bucket
         * whose versioning is {@code Suspended} is refused all the same: someone turned it off, and
         * turning it back on behind their back could undo a decision (a cost cap, a migration) the store
         * cannot see. If not set, false: an unversioned bucket is refused, since Ballast keeps every
         * version.
         */
        public Builder enableVersioning(boolean enableVersioning) {
            this.enableVersioning = enableVersioning;
            return this;
        }

        /**
         * Wall clock for generations (their floor is its millisecond reading) and delete-marker
         * timestamps. If not set, {@link Clock#systemUTC()}.
         *
         * @throws NullPointerException if {@code clock} is null
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Called, on the reading thread, each time a GET's body that stalled or was cut is resumed with a
         * ranged GET of the rest, pinned to the same version (at most a few times per read): a retry the
         * HTTP client does not see as one, since the first response had come. For counting (the CLI's
         * "attempts retried"); it must be quick and must not throw. Default: nothing.
         */
        public Builder onReadResumed(Runnable listener) {
            this.onReadResumed = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * Called, on the opening thread, when opening the store turned the versioning of a bucket that
         * was already there on ({@link #enableVersioning}; PutBucketVersioning, Amazon S3 API Reference;
         * not for a bucket it created, {@link #createBucket}), with what it was
         * before ({@code "never enabled"}): a change to the whole bucket, its other objects' overwrites
         * and deletes included, that S3 lets one suspend but never undo, which a program may want to tell
         * its user about. It must be quick and must not throw. Default: nothing (the store logs it at INFO).
         */
        public Builder onVersioningEnabled(java.util.function.Consumer<String> listener) {
            this.onVersioningEnabled = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * Content longer than this many bytes goes as a multipart upload. If not set,
         * {@value S3StoreConfig#DEFAULT_MULTIPART_THRESHOLD} bytes (16 MiB); must be at least the part size.
         */
        public Builder multipartThreshold(long bytes) {
            this.multipartThreshold = bytes;
            return this;
        }

        /**
         * Size in bytes of each multipart part but the last. If not set,
         * {@value S3StoreConfig#DEFAULT_PART_SIZE} bytes (8 MiB); at least
         * {@value S3StoreConfig#MIN_PART_SIZE} (5 MiB, S3's minimum).
         */
        public Builder partSize(long bytes) {
            this.partSize = bytes;
            return this;
        }

        /**
         * Accept keys with {@code ..} segments or a leading {@code /} (they turn into path traversal when
         * keys are mapped to files). If not set, false: such keys are refused.
         */
        public Builder allowDotSegmentsAndLeadingSlash(boolean allow) {
            this.allowDotSegmentsAndLeadingSlash = allow;
            return this;
        }

        /**
         * Reads of the latest version made before a stale read is reported. If not set,
         * {@value S3StoreConfig#DEFAULT_STALE_READ_ATTEMPTS}; at least 1.
         */
        public Builder staleReadAttempts(int attempts) {
            this.staleReadAttempts = attempts;
            return this;
        }

        /**
         * Pause between stale re-reads and between conditional-conflict retries. If not set, 50 ms;
         * not negative.
         *
         * @throws NullPointerException if {@code backoff} is null
         */
        public Builder staleReadBackoff(Duration backoff) {
            this.staleReadBackoff = Objects.requireNonNull(backoff, "backoff");
            return this;
        }

        /**
         * Attempts of a conditional write answered {@code 409 ConditionalRequestConflict} (a concurrent
         * write in flight) before it is raised as a failed precondition. If not set,
         * {@value S3StoreConfig#DEFAULT_CONDITIONAL_CONFLICT_ATTEMPTS}; at least 1.
         */
        public Builder conditionalConflictAttempts(int attempts) {
            this.conditionalConflictAttempts = attempts;
            return this;
        }

        /**
         * Where streamed content larger than 1 MiB is spooled, so its parts can be re-sent. If not set,
         * {@code java.io.tmpdir}.
         *
         * @throws NullPointerException if {@code directory} is null
         */
        public Builder spoolDirectory(Path directory) {
            this.spoolDirectory = Objects.requireNonNull(directory, "directory");
            return this;
        }

        /**
         * Source of randomness for put tokens and probe keys (AWS passes {@code ThreadLocalRandom::current}).
         * If not set, a shared {@link SecureRandom}.
         *
         * @throws NullPointerException if {@code random} is null
         */
        public Builder random(Supplier<RandomGenerator> random) {
            this.random = Objects.requireNonNull(random, "random");
            return this;
        }

        /**
         * How the store waits between bounded re-reads and conflict retries. If not set,
         * {@link Thread#sleep(long)}.
         *
         * @throws NullPointerException if {@code sleeper} is null
         */
        public Builder sleeper(Sleeper sleeper) {
            this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
            return this;
        }

        /**
         * Skip the capability probe and take these guarantees as the endpoint's: opening the store then
         * sends no request at all, writes nothing under {@code .ballast/probe/} and needs no rights beyond
         * those of the operations used. The bucket is taken to exist with versioning {@code Enabled}
         * (a missing bucket surfaces on the first operation as
         * {@link dev.ballast.storage.BucketNotFoundException}); a guarantee not listed is treated as
         * absent, so the operations that need it are refused with
         * {@link dev.ballast.storage.UnsupportedCapabilityException}, as after a probe. Declare only what
         * the endpoint really does (for example the result the probe logged): a conditional write declared
         * but ignored by the server would silently replace a concurrent update. If not set (null), the
         * probe runs at open.
         *
         * <pre>{@code
         * S3StoreConfig.builder()
         *     .declaredCapabilities(EnumSet.of(Capability.PUT_IF_ABSENT, Capability.PUT_IF_MATCH,
         *         Capability.ADDITIONAL_CHECKSUMS)) // AWS S3
         *     .build();
         * }</pre>
         *
         * @param honoured the guarantees the endpoint gives (may be empty), or null to probe
         */
        public Builder declaredCapabilities(@Nullable Set<Capability> honoured) {
            this.declaredCapabilities = honoured == null ? null : Set.copyOf(honoured);
            return this;
        }

        /**
         * The server-side encryption the endpoint applies on request, declared beside the probe (which
         * does not try encryption: a KMS key may cost per request, and SSE-C needs HTTPS on AWS). A put
         * asking for encryption not declared is refused before anything is sent; one declared is sent and
         * its answer checked. Default: none.
         *
         * @param offered some of {@link Capability#SSE_S3}, {@link Capability#SSE_KMS}, {@link Capability#SSE_C}
         * @throws IllegalArgumentException if {@code offered} holds another capability
         */
        public Builder serverSideEncryption(Set<Capability> offered) {
            Set<Capability> sse = encryption(offered);
            if (sse.size() != offered.size()) {
                throw new IllegalArgumentException("serverSideEncryption takes SSE_S3, SSE_KMS and SSE_C only, but was "
                        + offered + "; declare the others with declaredCapabilities or let the probe find them");
            }
            this.serverSideEncryption = Set.copyOf(sse);
            return this;
        }

        /**
         * Remember what the capability probe finds about the server's behaviour (conditional writes,
         * additional checksums, {@code Content-MD5}) in {@code file}, per endpoint and bucket, and trust
         * it for {@code maxAge}: a store opened within that time of the last probe only checks the bucket
         * and its versioning (HEAD bucket and GetBucketVersioning, as the probe does first) instead of
         * sending the probe's dozen requests, and writes nothing under {@code .ballast/probe/}. Versioning
         * is always read, since it is the bucket's setting, not the server's. The file is a Java
         * properties file, replaced atomically; one that cannot be read or written is ignored (the probe
         * runs). Findings recorded by a probe that did not look for every {@link Capability} this build
         * knows (an older build's) are probed again, and entries older than {@code maxAge} are dropped
         * whenever the file is written. Findings are not used for a bucket the open had to create (it
         * may be on another server than the one remembered for the URL), nor read from a file that is
         * not a regular file or is larger than 1 MiB. Ignored when {@link #declaredCapabilities} are
         * set. If not set, every open probes.
         *
         * @param file where the findings are kept, such as {@code ~/.cache/ballast/s3-probe.properties}
         * @param maxAge how long findings are trusted; positive
         * @throws IllegalArgumentException if {@code maxAge} is not positive
         */
        public Builder probeCache(Path file, Duration maxAge) {
            Objects.requireNonNull(file, "file");
            Objects.requireNonNull(maxAge, "maxAge");
            if (maxAge.isNegative() || maxAge.isZero()) {
                throw new IllegalArgumentException("maxAge must be positive but was " + maxAge);
            }
            this.probeCache = file;
            this.probeCacheMaxAge = maxAge;
            return this;
        }

        /**
         * A new, immutable config with these settings.
         *
         * @throws IllegalArgumentException if the part size is below 5 MiB, the threshold is below the
         *     part size, an attempt count or the part concurrency is below 1, the backoff is negative,
         *     the completion timeout's base is not positive or its per-part term negative, or declared
         *     capabilities are combined with {@code createBucket(true)} or {@code enableVersioning(true)}
         *     (which only the probe does)
         */
        public S3StoreConfig build() {
            if (declaredCapabilities != null && (createBucket || enableVersioning)) {
                throw new IllegalArgumentException(
                        "declaredCapabilities skips the capability probe, which is what creates"
                                + " a missing bucket and enables versioning: create the bucket with versioning Enabled beforehand and"
                                + " drop createBucket(true)/enableVersioning(true), or drop declaredCapabilities to probe");
            }
            if (partSize < MIN_PART_SIZE) {
                throw new IllegalArgumentException(
                        "partSize must be >= " + MIN_PART_SIZE + " (S3's minimum part size)" + " but was " + partSize);
            }
            if (multipartThreshold < partSize) {
                throw new IllegalArgumentException(
                        "multipartThreshold must be >= partSize (" + partSize + ") but was " + multipartThreshold);
            }
            if (staleReadAttempts < 1) {
                throw new IllegalArgumentException("staleReadAttempts must be >= 1 but was " + staleReadAttempts);
            }
            if (conditionalConflictAttempts < 1) {
                throw new IllegalArgumentException(
                        "conditionalConflictAttempts must be >= 1 but was " + conditionalConflictAttempts);
            }
            if (completeAttempts < 1) {
                throw new IllegalArgumentException("completeAttempts must be >= 1 but was " + completeAttempts);
            }
            if (partConcurrency < 1) {
                throw new IllegalArgumentException("partConcurrency must be >= 1 but was " + partConcurrency);
            }
            if (completeTimeoutBase.isZero()
                    || completeTimeoutBase.isNegative()
                    || completeTimeoutPerPart.isNegative()) {
                throw new IllegalArgumentException(
                        "completeTimeout must have a positive base and a per-part term >= 0 but" + " was "
                                + completeTimeoutBase + " + parts * " + completeTimeoutPerPart);
            }
            if (staleReadBackoff.isNegative()) {
                throw new IllegalArgumentException("staleReadBackoff must be >= 0 but was " + staleReadBackoff);
            }
            return new S3StoreConfig(this);
        }
    }
}
