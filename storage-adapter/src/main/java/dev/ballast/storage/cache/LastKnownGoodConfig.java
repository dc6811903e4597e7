package dev.ballast.storage.cache;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * Settings of the last-known-good cache (RFC 5861 {@code stale-if-error}, applied per object).
 * Immutable and thread-safe; build with {@link #builder()}.
 *
 * <p>An entry is the verified bytes of the latest version of one key, kept from a successful live
 * read. It may be served, marked degraded, while the store is unavailable, for at most
 * {@link #maxStaleness()} after it was fetched. So that entries fetched together do not all lapse
 * together, each expires at a point drawn uniformly from
 * {@code [maxStaleness * (1 - expiryJitter), maxStaleness]} after its fetch.
 */
public final class LastKnownGoodConfig {

    /** Default {@link #maxEntries()}: 1000 objects. */
    public static final int DEFAULT_MAX_ENTRIES = 1000;
    /** Default {@link #maxObjectBytes()}: 1 MiB. */
    public static final long DEFAULT_MAX_OBJECT_BYTES = 1024 * 1024;
    /** Default {@link #maxTotalBytes()}: 64 MiB. */
    public static final long DEFAULT_MAX_TOTAL_BYTES = 64L * 1024 * 1024;
    /** Default {@link #maxStaleness()}: 24 hours. */
    public static final Duration DEFAULT_MAX_STALENESS = Duration.ofHours(24);
    /** Default {@link #expiryJitter()}: 0.1, entries expire between 90% and 100% of maxStaleness. */
    public static final double DEFAULT_EXPIRY_JITTER = 0.1;

    /**
     * Default {@link #readDeadline()}: 3 seconds, a wait a person at a screen tolerates, far below the
     * 30 s an unanswered S3 request costs before the HTTP client's timeouts give up.
     */
    public static final Duration DEFAULT_READ_DEADLINE = Duration.ofSeconds(3);
    /** Default {@link #maxWaitingReads()}: 64 live reads of one store waiting for an answer at once. */
    public static final int DEFAULT_MAX_WAITING_READS = 64;

    private static final LastKnownGoodConfig DEFAULTS = builder().build();
    private static final LastKnownGoodConfig DISABLED = builder().enabled(false).build();

    private final boolean enabled;
    private final int maxEntries;
    private final long maxObjectBytes;
    private final long maxTotalBytes;
    private final Duration maxStaleness;
    private final double expiryJitter;
    private final Supplier<? extends RandomGenerator> random;
    private final Duration readDeadline;
    private final int maxWaitingReads;
    private final @Nullable Executor readExecutor;

    private LastKnownGoodConfig(Builder b) {
        this.enabled = b.enabled;
        this.maxEntries = b.maxEntries;
        this.maxObjectBytes = b.maxObjectBytes;
        this.maxTotalBytes = b.maxTotalBytes;
        this.maxStaleness = b.maxStaleness;
        this.expiryJitter = b.expiryJitter;
        this.random = b.random;
        this.readDeadline = b.readDeadline;
        this.maxWaitingReads = b.maxWaitingReads;
        this.readExecutor = b.readExecutor;
    }

    /**
     * The defaults: enabled, 1000 entries, 1 MiB per object, 64 MiB in all, 24 h, jitter 0.1, read
     * deadline 3 s.
     */
    public static LastKnownGoodConfig ofDefaults() {
        return DEFAULTS;
    }

    /** No cache: reads while the store is unavailable throw {@code StorageUnavailableException}. */
    public static LastKnownGoodConfig disabled() {
        return DISABLED;
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from these settings. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.enabled = enabled;
        b.maxEntries = maxEntries;
        b.maxObjectBytes = maxObjectBytes;
        b.maxTotalBytes = maxTotalBytes;
        b.maxStaleness = maxStaleness;
        b.expiryJitter = expiryJitter;
        b.random = random;
        b.readDeadline = readDeadline;
        b.maxWaitingReads = maxWaitingReads;
        b.readExecutor = readExecutor;
        return b;
    }

    /** Whether reads are cached and served when the store is unavailable. Default true. */
    public boolean enabled() {
        return enabled;
    }

    /** Most objects kept; the least recently used is evicted first. Default 1000. */
    public int maxEntries() {
        return maxEntries;
    }

    /** Largest object kept, in bytes; larger objects are never cached. Default 1 MiB. */
    public long maxObjectBytes() {
        return maxObjectBytes;
    }

    /** Most bytes kept over all entries; least recently used entries are evicted. Default 64 MiB. */
    public long maxTotalBytes() {
        return maxTotalBytes;
    }

    /** Oldest data ever served, measured from the fetch. Default 24 hours. */
    public Duration maxStaleness() {
        return maxStaleness;
    }

    /** Fraction of {@link #maxStaleness()} by which an entry's expiry is drawn earlier. Default 0.1. */
    public double expiryJitter() {
        return expiryJitter;
    }

    /** The source of randomness for expiry jitter. Default {@code ThreadLocalRandom::current}. */
    public Supplier<? extends RandomGenerator> random() {
        return random;
    }

    /**
     * How long a read that may fall back ({@link #enabled()} and {@code ReadOptions.allowCache()}) waits
     * for the store's answer (the status and headers of a GET: {@code ObjectStore.get} returning) before
     * the last-known-good copy is served, marked degraded with a reason naming this deadline, or, with
     * none cached, {@code StorageUnavailableException} is thrown. The live read is then abandoned: it
     * goes on, on its thread, until the store answers or its own timeouts end it, and its answer is
     * closed unread. {@link Duration#ZERO} waits for the store as long as its own timeouts allow (the
     * behaviour before this setting). The bytes of an answer that came in time are read at the caller's
     * pace and bounded by the store's timeouts, not by this deadline. Default 3 seconds (rule: every
     * region a dependency serves needs a bounded timeout, seed 000).
     */
    public Duration readDeadline() {
        return readDeadline;
    }

    /**
     * Most live reads of one store that wait for an answer at once while {@link #readDeadline()} applies;
     * a read beyond them is not sent and falls back at once (the store is not answering the ones before
     * it), so a hung endpoint holds at most this many threads. Default 64.
     */
    public int maxWaitingReads() {
        return maxWaitingReads;
    }

    /**
     * Runs the live reads that have a {@link #readDeadline()}, one task per read; null (the default) for
     * the store's own pool of up to {@link #maxWaitingReads()} daemon threads, started on demand and
     * stopped after 60 s idle. A given executor must run each task on a thread other than the caller's;
     * one that rejects a task makes that read fall back at once.
     */
    public @Nullable Executor readExecutor() {
        return readExecutor;
    }

    @Override
    public String toString() {
        return enabled
                ? "LastKnownGoodConfig[maxEntries=" + maxEntries + ", maxObjectBytes=" + maxObjectBytes
                        + ", maxTotalBytes=" + maxTotalBytes + ", maxStaleness=" + maxStaleness + ", expiryJitter="
                        + expiryJitter + ", readDeadline=" + readDeadline + "]"
                : "LastKnownGoodConfig[disabled]";
    }

    /** Builder for {@link LastKnownGoodConfig}; not thread-safe, validated in {@link #build()}. */
    public static final class Builder {
        private boolean enabled = true;
        private int maxEntries = DEFAULT_MAX_ENTRIES;
        private long maxObjectBytes = DEFAULT_MAX_OBJECT_BYTES;
        private long maxTotalBytes = DEFAULT_MAX_TOTAL_BYTES;
        private Duration maxStaleness = DEFAULT_MAX_STALENESS;
        private double expiryJitter = DEFAULT_EXPIRY_JITTER;
        private Supplier<? extends RandomGenerator> random = ThreadLocalRandom::current;
        private Duration readDeadline = DEFAULT_READ_DEADLINE;
        private int maxWaitingReads = DEFAULT_MAX_WAITING_READS;
        private @Nullable Executor readExecutor;

        private Builder() {}

        /** See {@link LastKnownGoodConfig#readDeadline()}; must not be negative ({@code ZERO}: no deadline). */
        public Builder readDeadline(Duration readDeadline) {
            this.readDeadline = Objects.requireNonNull(readDeadline, "readDeadline");
            return this;
        }

        /** See {@link LastKnownGoodConfig#maxWaitingReads()}; must be >= 1. */
        public Builder maxWaitingReads(int maxWaitingReads) {
            this.maxWaitingReads = maxWaitingReads;
            return this;
        }

        /** See {@link LastKnownGoodConfig#readExecutor()}; null for the store's own pool. */
        public Builder readExecutor(@Nullable Executor readExecutor) {
            this.readExecutor = readExecutor;
            return this;
        }

        /** See {@link LastKnownGoodConfig#enabled()}. */
        public Builder enabled(boolean enabled) {
            this.enabled = enabled;
            return this;
        }

        /** See {@link LastKnownGoodConfig#maxEntries()}; must be >= 1. */
        public Builder maxEntries(int maxEntries) {
            this.maxEntries = maxEntries;
            return this;
        }

        /** See {@link LastKnownGoodConfig#maxObjectBytes()}; must be >= 0. */
        public Builder maxObjectBytes(long maxObjectBytes) {
            this.maxObjectBytes = maxObjectBytes;
            return this;
        }

        /** See {@link LastKnownGoodConfig#maxTotalBytes()}; must be >= maxObjectBytes. */
        public Builder maxTotalBytes(long maxTotalBytes) {
            this.maxTotalBytes = maxTotalBytes;
            return this;
        }

        /** See {@link LastKnownGoodConfig#maxStaleness()}; must be positive. */
        public Builder maxStaleness(Duration maxStaleness) {
            this.maxStaleness = Objects.requireNonNull(maxStaleness, "maxStaleness");
            return this;
        }

        /** See {@link LastKnownGoodConfig#expiryJitter()}; must be in {@code [0, 1)}. */
        public Builder expiryJitter(double expiryJitter) {
            this.expiryJitter = expiryJitter;
            return this;
        }

        /** See {@link LastKnownGoodConfig#random()}. */
        public Builder random(Supplier<? extends RandomGenerator> random) {
            this.random = Objects.requireNonNull(random, "random");
            return this;
        }

        /**
         * @throws IllegalArgumentException naming the first setting out of range
         */
        public LastKnownGoodConfig build() {
            if (maxEntries < 1) {
                throw new IllegalArgumentException("maxEntries must be >= 1 but was " + maxEntries);
            }
            if (maxObjectBytes < 0) {
                throw new IllegalArgumentException("maxObjectBytes must be >= 0 but was " + maxObjectBytes);
            }
            if (maxTotalBytes < maxObjectBytes) {
                throw new IllegalArgumentException(
                        "maxTotalBytes must be >= maxObjectBytes (" + maxObjectBytes + ") but was " + maxTotalBytes);
            }
            if (maxStaleness.isNegative() || maxStaleness.isZero()) {
                throw new IllegalArgumentException("maxStaleness must be positive but was " + maxStaleness);
            }
            if (!(expiryJitter >= 0.0 && expiryJitter < 1.0)) {
                throw new IllegalArgumentException("expiryJitter must be in [0, 1) but was " + expiryJitter);
            }
            if (readDeadline.isNegative()) {
                throw new IllegalArgumentException(
                        "readDeadline must be >= 0 (ZERO for no deadline) but was " + readDeadline);
            }
            if (maxWaitingReads < 1) {
                throw new IllegalArgumentException("maxWaitingReads must be >= 1 but was " + maxWaitingReads);
            }
            return new LastKnownGoodConfig(this);
        }
    }
}
