package dev.ballast.storage.object.local;

import java.security.SecureRandom;
import java.time.Clock;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * How a {@link LocalObjectStore} is opened. Immutable and thread-safe; build with {@link #builder()}
 * or take {@link #ofDefaults()}.
 *
 * @see LocalObjectStore#open(java.nio.file.Path, LocalStoreConfig)
 */
public final class LocalStoreConfig {

    /**
     * Default size up to which an object's bytes are appended to a pack file rather than given a file
     * of their own: 64 KiB. A file per small object costs an inode, a rename and a directory entry
     * each; in a pack a group of small writes costs one write and one sync, as restic packs small
     * blobs.
     */
    public static final int DEFAULT_INLINE_THRESHOLD = 64 * 1024;

    /** Default {@link #packSize()}: 64 MiB. */
    public static final long DEFAULT_PACK_SIZE = 64L * 1024 * 1024;

    /** Smallest accepted {@link Builder#packSize(long)}: 1 KiB. */
    public static final long MIN_PACK_SIZE = 1024;

    /** Largest accepted {@link Builder#packSize(long)}: 1 GiB. */
    public static final long MAX_PACK_SIZE = 1024L * 1024 * 1024;

    /** Largest accepted {@link Builder#inlineThreshold(int)}: 1 MiB. */
    public static final int MAX_INLINE_THRESHOLD = 1024 * 1024;

    private static final LocalStoreConfig DEFAULTS = new Builder().build();

    private final boolean readOnly;
    private final boolean forRemoval;
    private final java.util.function.Predicate<String> ownFiles;
    private final int inlineThreshold;
    private final long packSize;
    private final boolean allowDotSegmentsAndLeadingSlash;
    private final Clock clock;
    private final Supplier<RandomGenerator> random;

    private LocalStoreConfig(Builder b) {
        this.readOnly = b.readOnly;
        this.forRemoval = b.forRemoval;
        this.ownFiles = b.ownFiles;
        this.inlineThreshold = b.inlineThreshold;
        this.packSize = b.packSize;
        this.allowDotSegmentsAndLeadingSlash = b.allowDotSegmentsAndLeadingSlash;
        this.clock = b.clock;
        this.random = b.random;
    }

    /** The defaults: a writer, 64 KiB inline threshold, S3's key rules, the UTC system clock. */
    public static LocalStoreConfig ofDefaults() {
        return DEFAULTS;
    }

    /** A builder holding the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from this configuration. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.readOnly = readOnly;
        b.forRemoval = forRemoval;
        b.ownFiles = ownFiles;
        b.inlineThreshold = inlineThreshold;
        b.packSize = packSize;
        b.allowDotSegmentsAndLeadingSlash = allowDotSegmentsAndLeadingSlash;
        b.clock = clock;
        b.random = random;
        return b;
    }

    /**
     * Whether the store is opened for reading only: without the writer lock, so any number of readers
     * (in this process or others) may run beside the one writer; every write throws
     * {@link IllegalStateException}. Default false.
     */
    public boolean readOnly() {
        return readOnly;
    }

    /**
     * Whether the writer is opened to remove versions ({@link LocalObjectStore#deleteVersion},
     * {@link LocalObjectStore#compact()}: forget and prune): on a disk filled to the last byte it
     * deletes the store's space reserve ({@code ROOT/reserve}, 4 MiB, recreated by a writer when
     * there is room again) when its index runs out of space, so that removing versions, which frees
     * space, can begin. A writer opened without it (a backup) never uses the reserve. Its index
     * checkpoints its write-ahead log every 512 KiB rather than every 16 MiB, and truncates it to
     * that size, so removals never need more than the reserve. Ignored when {@link #readOnly()};
     * default false.
     */
    public boolean forRemoval() {
        return forRemoval;
    }

    /**
     * The keys whose content is kept in a content file of its own whatever its size, never in a pack
     * file: a backup's manifest, say, so that losing one pack (which holds the small contents of many
     * keys) never loses the record that names every file of a backup. Default: none.
     */
    public java.util.function.Predicate<String> ownFiles() {
        return ownFiles;
    }

    /**
     * Objects up to this many bytes are appended to pack files (see {@link #packSize()}); larger ones
     * are stored as files named by their SHA-256. Applies when a store is created; an existing store
     * keeps the threshold it was created with. Default {@value #DEFAULT_INLINE_THRESHOLD}.
     */
    public int inlineThreshold() {
        return inlineThreshold;
    }

    /**
     * The size in bytes at which a pack file is closed and the next small contents go to a new one
     * (as restic's {@code --pack-size}): larger packs mean fewer files, smaller ones let
     * {@link LocalObjectStore#compact()} give space back sooner. A pack ends at the first commit that
     * reaches this size, so it can exceed it by one commit's contents (at most 16 MiB). Default
     * {@value #DEFAULT_PACK_SIZE}.
     */
    public long packSize() {
        return packSize;
    }

    /** Whether keys with {@code ..} segments or a leading {@code /} are accepted; default false. */
    public boolean allowDotSegmentsAndLeadingSlash() {
        return allowDotSegmentsAndLeadingSlash;
    }

    /** Wall clock for generations and last-modified times; default {@link Clock#systemUTC()}. */
    public Clock clock() {
        return clock;
    }

    /**
     * Source of the 64 random bits of each version ID (which also holds the time it was written),
     * asked once when the store opens and then drawn from by one thread at a time; default a
     * {@link SplittableRandom} seeded from {@link SecureRandom} (version IDs must be unique, not
     * secret).
     */
    public Supplier<RandomGenerator> random() {
        return random;
    }

    @Override
    public String toString() {
        return "LocalStoreConfig[readOnly=" + readOnly + ", forRemoval=" + forRemoval + ", inlineThreshold="
                + inlineThreshold + ", packSize=" + packSize + ", allowDotSegmentsAndLeadingSlash="
                + allowDotSegmentsAndLeadingSlash + "]";
    }

    /** Builder for {@link LocalStoreConfig}; not thread-safe. */
    public static final class Builder {
        private boolean readOnly;
        private boolean forRemoval;
        private java.util.function.Predicate<String> ownFiles = key -> false;
        private int inlineThreshold = DEFAULT_INLINE_THRESHOLD;
        private long packSize = DEFAULT_PACK_SIZE;
        private boolean allowDotSegmentsAndLeadingSlash;
        private Clock clock = Clock.systemUTC();
        private Supplier<RandomGenerator> random = () -> new SplittableRandom(new SecureRandom().nextLong());

        private Builder() {}

        /** See {@link LocalStoreConfig#readOnly()}. */
        public Builder readOnly(boolean readOnly) {
            this.readOnly = readOnly;
            return this;
        }

        /** See {@link LocalStoreConfig#ownFiles()}. */
        public Builder ownFiles(java.util.function.Predicate<String> keys) {
            this.ownFiles = Objects.requireNonNull(keys, "keys");
            return this;
        }

        /** See {@link LocalStoreConfig#forRemoval()}. */
        public Builder forRemoval(boolean forRemoval) {
            this.forRemoval = forRemoval;
            return this;
        }

        /** See {@link LocalStoreConfig#inlineThreshold()}; 0 stores every object as a file. */
        public Builder inlineThreshold(int bytes) {
            this.inlineThreshold = bytes;
            return this;
        }

        /** See {@link LocalStoreConfig#packSize()}. */
        public Builder packSize(long bytes) {
            this.packSize = bytes;
            return this;
        }

        /** See {@link LocalStoreConfig#allowDotSegmentsAndLeadingSlash()}. */
        public Builder allowDotSegmentsAndLeadingSlash(boolean allow) {
            this.allowDotSegmentsAndLeadingSlash = allow;
            return this;
        }

        /** See {@link LocalStoreConfig#clock()}. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** See {@link LocalStoreConfig#random()}. */
        public Builder random(Supplier<RandomGenerator> random) {
            this.random = Objects.requireNonNull(random, "random");
            return this;
        }

        /**
         * @throws IllegalArgumentException if the inline threshold is negative or above
         *     {@value LocalStoreConfig#MAX_INLINE_THRESHOLD}, or the pack size is outside
         *     {@value LocalStoreConfig#MIN_PACK_SIZE} to {@value LocalStoreConfig#MAX_PACK_SIZE}
         */
        public LocalStoreConfig build() {
            if (inlineThreshold < 0 || inlineThreshold > MAX_INLINE_THRESHOLD) {
                throw new IllegalArgumentException("inlineThreshold must be between 0 and " + MAX_INLINE_THRESHOLD
                        + " but was " + inlineThreshold);
            }
            if (packSize < MIN_PACK_SIZE || packSize > MAX_PACK_SIZE) {
                throw new IllegalArgumentException("packSize must be between " + MIN_PACK_SIZE + " and " + MAX_PACK_SIZE
                        + " bytes but was " + packSize);
            }
            return new LocalStoreConfig(this);
        }
    }
}
