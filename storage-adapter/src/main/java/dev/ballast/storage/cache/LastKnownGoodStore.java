package dev.ballast.storage.cache;

import dev.ballast.storage.EncryptionKeyException;
import dev.ballast.storage.IntegrityException;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.ObservedObjectStore;
import dev.ballast.storage.StaleReadException;
import dev.ballast.storage.StorageException;
import dev.ballast.storage.StorageListener;
import dev.ballast.storage.StorageUnavailableException;
import dev.ballast.storage.cache.Entries.Entry;
import dev.ballast.storage.internal.ReservedMetadata;
import dev.ballast.storage.internal.Sha256;
import dev.ballast.storage.object.Freshness;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.PutOptions;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.Source;
import dev.ballast.storage.object.StoreCapabilities;
import dev.ballast.storage.object.VersionEntry;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@link ObjectStore} decorator that keeps the last-known-good copy of small objects and serves
 * it, visibly marked, when the store is unavailable: RFC 5861 {@code stale-if-error} applied per
 * object.
 *
 * <h2>What is kept</h2>
 * A live read of the latest version of a key (no version ID requested) whose size is at most
 * {@link LastKnownGoodConfig#maxObjectBytes()} is copied into memory as the caller reads it, and
 * committed to the cache only when the caller has read it to the end without an
 * {@link IntegrityException} and, when the version records a SHA-256, the copy matches it. Corrupt,
 * truncated, partly read or stale ({@link Freshness#STALE}) reads are never kept. A write or delete
 * through this decorator drops the key's entry once it succeeds or fails with an unknown outcome (it
 * may have landed: {@link StorageUnavailableException#outcomeUnknown()}, or a failure that is not a
 * {@code StorageException}). One that provably changed nothing keeps it: refused before any byte was
 * sent (circuit breaker open, bulkhead full, connection refused), answered that it did nothing (408,
 * 429, 503), or refused by the store (a failed precondition, a missing key or bucket, access denied,
 * a body the store rejected, an unsupported condition), or an invalid key. A read that started
 * before a write never commits, so the cache never serves anything older than what this decorator
 * last wrote. A read that finds the key deleted or missing drops it too.
 *
 * <h2>What is served</h2>
 * When the store throws {@link StorageUnavailableException} (unreachable, circuit breaker open,
 * retries exhausted), or has not answered within {@link LastKnownGoodConfig#readDeadline()} (3 s by
 * default; the live read is then abandoned and its late answer closed unread, so a hung endpoint costs
 * a caller at most the deadline per read), and {@link ReadOptions#allowCache()} is true, {@code get}
 * returns the cached
 * copy as an {@link ObjectRead} with {@link Source#CACHE}, {@code degraded()} true, {@code age()}
 * the time since it was fetched (wall time from the injected {@link Clock}), its version, and the
 * store's failure as {@code degradedReason()}, and {@link Freshness#UNKNOWN} for a read of the latest
 * version (the store could not say whether it holds a newer one). A read of a specific version is served only if the
 * cached copy is that version. With nothing cached, or an entry past its jittered expiry (never later
 * than {@link LastKnownGoodConfig#maxStaleness()}), {@code get} throws
 * {@code StorageUnavailableException} naming the key, with the store's exception as its cause and
 * its {@link StorageUnavailableException#outcomeUnknown()}; never an empty value. Each degraded read is counted ({@link #counters()}) and logged at
 * {@code WARN} (SLF4J logger {@code dev.ballast.storage.cache.LastKnownGoodStore}) with the
 * dependency, key, version, data age and reason.
 *
 * <p>Other failures (not found, precondition failed, integrity, stale read) pass through unchanged:
 * the store answered, so there is nothing to degrade. Thread-safe.
 */
public final class LastKnownGoodStore implements ObjectStore {

    private static final Logger LOG = LoggerFactory.getLogger(LastKnownGoodStore.class);

    private final ObjectStore delegate;
    private final LastKnownGoodConfig config;
    private final Clock clock;
    private final String dependency;
    private final Entries entries;
    private final @Nullable LiveReads liveReads;
    /** Bumped before and after every write or delete; a read commits only if it saw no change. */
    private final AtomicLong writeEpoch = new AtomicLong();

    private final LongAdder degradedReads = new LongAdder();
    private final LongAdder unavailableReads = new LongAdder();
    private final LongAdder staleReadsDetected = new LongAdder();
    private final LongAdder integrityFailures = new LongAdder();

    /** Degraded, unavailable, stale and integrity-failed reads, told to the listener of {@link #wrap(ObjectStore, LastKnownGoodConfig, Clock, StorageListener)}. */
    private final CacheEvents events;

    private LastKnownGoodStore(
            ObjectStore delegate,
            LastKnownGoodConfig config,
            Clock clock,
            String dependency,
            StorageListener listener) {
        this.delegate = delegate;
        this.events = new CacheEvents(listener, ObservedObjectStore.storeKind(delegate));
        this.config = config;
        this.clock = clock;
        this.dependency = dependency;
        this.entries = new Entries(config.maxEntries(), config.maxTotalBytes());
        this.liveReads = LiveReads.of(config, dependency, listener);
    }

    /**
     * Wraps {@code delegate}. The dependency named in logs and messages is taken from the
     * delegate's {@link StoreCapabilities} (endpoint and bucket).
     *
     * @param delegate the store to read through
     * @param config cache settings; {@link LastKnownGoodConfig#disabled()} keeps nothing
     * @param clock wall time for {@code fetchedAt}, ages and expiry
     */
    public static LastKnownGoodStore wrap(ObjectStore delegate, LastKnownGoodConfig config, Clock clock) {
        Objects.requireNonNull(delegate, "delegate");
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(clock, "clock");
        return wrap(delegate, config, clock, StorageListener.NONE);
    }

    /**
     * As {@link #wrap(ObjectStore, LastKnownGoodConfig, Clock)}, telling {@code listener} of every
     * read served degraded ({@link StorageListener#onDegradedRead}, with the reason and the data's
     * age), every read that found no acceptable copy ({@link StorageListener#onUnavailableRead}),
     * every stale read detected and every integrity failure, as the {@link #counters()} count them.
     * The events carry the store kind of {@code delegate} ({@link ObservedObjectStore#storeKind}). A
     * listener's exception is logged and ignored.
     *
     * @param listener told of the reads above; {@link StorageListener#NONE} for none
     */
    public static LastKnownGoodStore wrap(
            ObjectStore delegate, LastKnownGoodConfig config, Clock clock, StorageListener listener) {
        Objects.requireNonNull(delegate, "delegate");
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(listener, "listener");
        return new LastKnownGoodStore(delegate, config, clock, describe(delegate.capabilities()), listener);
    }

    private void integrityFailed(IntegrityException e, @Nullable String versionId) {
        integrityFailures.increment();
        events.integrityFailed(e, versionId);
    }

    private void unavailable(String key, StorageUnavailableException failure, boolean expiredCopy) {
        unavailableReads.increment();
        events.unavailable(key, failure, expiredCopy);
    }

    private static String describe(StoreCapabilities capabilities) {
        if (capabilities == null) {
            return "object store";
        }
        String endpoint = capabilities.endpoint() == null
                ? "default AWS endpoint"
                : capabilities.endpoint().toString();
        boolean bucketless =
                capabilities.bucket() == null || capabilities.bucket().isEmpty();
        return "object store " + endpoint + (bucketless ? "" : " bucket '" + capabilities.bucket() + "'");
    }

    /**
     * A snapshot of the counters since this decorator was created.
     *
     * @param degradedReads reads served from the cache because the store was unavailable
     * @param unavailableReads reads that threw {@code StorageUnavailableException} (nothing acceptable cached)
     * @param staleReadsDetected reads the store reported stale ({@code StaleReadException} or {@code Freshness.STALE})
     * @param integrityFailures reads that raised {@code IntegrityException}
     * @param cachedObjects entries held now
     * @param cachedBytes bytes held now
     */
    public record Counters(
            long degradedReads,
            long unavailableReads,
            long staleReadsDetected,
            long integrityFailures,
            long cachedObjects,
            long cachedBytes) {}

    /** The counters now. */
    public Counters counters() {
        return new Counters(
                degradedReads.sum(),
                unavailableReads.sum(),
                staleReadsDetected.sum(),
                integrityFailures.sum(),
                entries.size(),
                entries.bytes());
    }

    /** The store this decorator reads through. */
    public ObjectStore delegate() {
        return delegate;
    }

    /** The settings. */
    public LastKnownGoodConfig config() {
        return config;
    }

    /** Drops the cached copy of {@code key}, if any. */
    public void invalidate(String key) {
        entries.remove(Objects.requireNonNull(key, "key"));
    }

    @Override
    public StoreCapabilities capabilities() {
        return delegate.capabilities();
    }

    @Override
    public ObjectVersion put(String key, ObjectContent content) {
        Objects.requireNonNull(key, "key");
        return writing(key, () -> delegate.put(key, content));
    }

    /**
     * As {@link #put}: the key's entry is dropped once the write is acknowledged or fails with an
     * unknown outcome, and kept when it provably changed nothing.
     */
    @Override
    public CompletableFuture<ObjectVersion> putAsync(String key, ObjectContent content) {
        return putAsync(key, content, PutOptions.defaults());
    }

    @Override
    public CompletableFuture<ObjectVersion> putAsync(String key, ObjectContent content, PutOptions options) {
        Objects.requireNonNull(key, "key");
        writeEpoch.incrementAndGet();
        CompletableFuture<ObjectVersion> write;
        try {
            write = options.isDefault() ? delegate.putAsync(key, content) : delegate.putAsync(key, content, options);
        } catch (RuntimeException e) {
            written(key, e);
            throw e;
        }
        return write.whenComplete((v, e) -> written(key, e));
    }

    @Override
    public boolean confirmsWrites() {
        return delegate.confirmsWrites();
    }

    @Override
    public void prepareWrites(String prefix) {
        delegate.prepareWrites(prefix);
    }

    @Override
    public ObjectVersion putIfAbsent(String key, ObjectContent content) {
        Objects.requireNonNull(key, "key");
        return writing(key, () -> delegate.putIfAbsent(key, content));
    }

    @Override
    public ObjectVersion putIfMatch(String key, String eTag, ObjectContent content) {
        Objects.requireNonNull(key, "key");
        return writing(key, () -> delegate.putIfMatch(key, eTag, content));
    }

    @Override
    public ObjectVersion put(String key, ObjectContent content, dev.ballast.storage.object.PutOptions options) {
        Objects.requireNonNull(key, "key");
        return writing(key, () -> delegate.put(key, content, options));
    }

    @Override
    public ObjectVersion putIfAbsent(String key, ObjectContent content, dev.ballast.storage.object.PutOptions options) {
        Objects.requireNonNull(key, "key");
        return writing(key, () -> delegate.putIfAbsent(key, content, options));
    }

    @Override
    public ObjectVersion putIfMatch(
            String key, String eTag, ObjectContent content, dev.ballast.storage.object.PutOptions options) {
        Objects.requireNonNull(key, "key");
        return writing(key, () -> delegate.putIfMatch(key, eTag, content, options));
    }

    @Override
    public VersionEntry delete(String key) {
        Objects.requireNonNull(key, "key");
        return writing(key, () -> delegate.delete(key));
    }

    private <T> T writing(String key, java.util.function.Supplier<T> write) {
        writeEpoch.incrementAndGet();
        T result;
        try {
            result = write.get();
        } catch (RuntimeException | Error e) {
            written(key, e);
            throw e;
        }
        written(key, null);
        return result;
    }

    /**
     * After a write or delete of {@code key} that ended with {@code failure} (null: it succeeded):
     * reads that started before it never commit, and the key's entry is dropped unless the write
     * provably changed nothing.
     */
    private void written(String key, @Nullable Throwable failure) {
        writeEpoch.incrementAndGet();
        if (failure == null || mayHaveTakenEffect(failure)) {
            entries.remove(key);
        }
    }

    /**
     * Whether a write that failed with {@code failure} may have changed the store: when its outcome is
     * unknown, or the failure is not one of ours. A store's refusal (a failed precondition, a missing
     * key or bucket, access denied, a rejected body, an unsupported condition) changed nothing, and
     * neither did an invalid argument, refused before anything was sent.
     */
    private static boolean mayHaveTakenEffect(Throwable failure) {
        Throwable f = failure;
        while (f instanceof java.util.concurrent.CompletionException && f.getCause() != null) {
            f = f.getCause();
        }
        if (f instanceof StorageUnavailableException unavailable) {
            return unavailable.outcomeUnknown();
        }
        return !(f instanceof StorageException
                || f instanceof IllegalArgumentException
                || f instanceof NullPointerException);
    }

    @Override
    public ObjectRead get(String key) {
        return get(key, ReadOptions.latest());
    }

    /**
     * Reads the object, from the store or, when it is unavailable, from the last-known-good copy (marked).
     *
     * <p>A version written through client-side encryption ({@link
     * dev.ballast.storage.crypto.EncryptedObjectStore}, marked so in its metadata) is refused unless
     * {@link ReadOptions#rawCiphertext()} is set: its bytes are ciphertext, never the content. The
     * encrypting decorator sets it on its own reads.
     *
     * @throws EncryptionKeyException if the version was encrypted client-side and {@code rawCiphertext}
     *     is false; its message names the key ID to build the facade's {@code clientSideEncryption(...)}
     *     with
     */
    @Override
    public ObjectRead get(String key, ReadOptions options) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(options, "options");
        ObjectRead read = read(key, options);
        if (!options.rawCiphertext()) {
            String mark = read.version().metadata().user().get(ReservedMetadata.CLIENT_SIDE_ENCRYPTION);
            if (mark != null) {
                read.close();
                throw encrypted(read.version(), mark);
            }
        }
        return read;
    }

    /** The refusal of a plain read of a client-side encrypted version, naming its key. */
    private static EncryptionKeyException encrypted(ObjectVersion version, String mark) {
        String[] parts = mark.split("/", 3);
        String keyId = parts.length == 3 ? URLDecoder.decode(parts[2], StandardCharsets.UTF_8) : mark;
        return new EncryptionKeyException(
                version.key(),
                keyId,
                "Object '" + version.key() + "' version " + version.versionId()
                        + " was written with client-side encryption under key '" + keyId
                        + "' and reads here as ciphertext only: build the facade with clientSideEncryption(...)"
                        + " holding key '" + keyId + "' (or read with ReadOptions.withRawCiphertext(true) for"
                        + " the stored ciphertext)",
                null);
    }

    private ObjectRead read(String key, ReadOptions options) {
        long epoch = writeEpoch.get();
        ObjectRead live;
        try {
            live = liveReads != null && options.allowCache()
                    ? liveReads.get(key, () -> delegate.get(key, options))
                    : delegate.get(key, options);
        } catch (StorageUnavailableException unavailable) {
            return fallback(key, options, unavailable);
        } catch (StaleReadException stale) {
            staleReadsDetected.increment();
            events.stale(key, true);
            throw stale;
        } catch (ObjectNotFoundException notFound) {
            if (options.versionId() == null) {
                entries.remove(key);
            }
            throw notFound;
        } catch (IntegrityException corrupt) {
            integrityFailed(corrupt, options.versionId());
            throw corrupt;
        }
        if (live.freshness() == Freshness.STALE) {
            staleReadsDetected.increment();
            events.stale(key, false);
        }
        boolean cacheable = config.enabled()
                && live.source() == Source.LIVE
                && options.versionId() == null
                && options.range() == null // a range is no whole copy to keep
                && live.freshness() != Freshness.STALE
                && live.version().size() <= config.maxObjectBytes();
        InputStream stream = cacheable
                ? new CachingStream(live.stream(), live.version(), live.freshness(), epoch)
                : new CountingStream(live.stream());
        return live.withStream(stream);
    }

    private ObjectRead fallback(String key, ReadOptions options, StorageUnavailableException unavailable) {
        if (!config.enabled() || !options.allowCache()) {
            unavailable(key, unavailable, false);
            throw unavailable;
        }
        Instant now = clock.instant();
        Entry entry = entries.get(key);
        String wanted = options.versionId();
        if (entry == null || (wanted != null && !wanted.equals(entry.version().versionId()))) {
            unavailable(key, unavailable, false);
            String what = wanted == null ? "" : " version '" + wanted + "'";
            throw new StorageUnavailableException(
                    key,
                    "Object '" + key + "'" + what + " is unavailable: " + dependency + " failed ("
                            + unavailable.getMessage() + ") and no last-known-good copy is cached",
                    unavailable,
                    unavailable.outcomeUnknown());
        }
        Duration age = Duration.between(entry.fetchedAt(), now);
        if (age.isNegative()) {
            age = Duration.ZERO; // the wall clock was set back; the data is at least this fresh
        }
        if (!now.isBefore(entry.expiresAt())) {
            entries.remove(key, entry);
            unavailable(key, unavailable, true);
            throw new StorageUnavailableException(
                    key,
                    "Object '" + key + "' is unavailable: " + dependency + " failed ("
                            + unavailable.getMessage() + ") and its last-known-good copy, fetched " + age
                            + " ago, has expired (maximum staleness "
                            + config.maxStaleness() + ", expiry jitter " + config.expiryJitter() + ")",
                    unavailable,
                    unavailable.outcomeUnknown());
        }
        degradedReads.increment();
        String reason =
                unavailable.getMessage() == null ? unavailable.getClass().getSimpleName() : unavailable.getMessage();
        events.degraded(key, entry.version().versionId(), unavailable, age, reason);
        LOG.warn(
                "Degraded read: serving the last-known-good copy of '{}' (version {}, data age {}) because {} is"
                        + " unavailable: {}",
                key,
                entry.version().versionId(),
                entry.ageText(now),
                dependency,
                reason);
        // A copy served because the store could not be asked cannot be judged against what the store holds
        // now: a latest read from the cache is UNKNOWN, never FRESH beside degraded() (a version asked for
        // by ID is that version, so it keeps the verdict it had).
        Freshness freshness = wanted == null ? Freshness.UNKNOWN : entry.freshness();
        // A range is served from the cached whole copy, checked against its SHA-256 when it was cached.
        dev.ballast.storage.object.ByteRange range =
                options.range() == null ? null : options.range().resolve(key, entry.bytes().length);
        InputStream cached = range == null
                ? new ByteArrayInputStream(entry.bytes())
                : new ByteArrayInputStream(entry.bytes(), (int) range.offset(), (int) range.length());
        return new ObjectRead(entry.version(), cached, Source.CACHE, freshness, age, reason, range, true);
    }

    @Override
    public List<VersionEntry> versions(String key) {
        return delegate.versions(key);
    }

    @Override
    public List<String> list(String prefix) {
        return delegate.list(prefix);
    }

    /** The delegate's listing, never the cache's. */
    @Override
    public java.util.stream.Stream<dev.ballast.storage.object.ListEntry> listing(
            dev.ballast.storage.object.ListRequest request) {
        return delegate.listing(request);
    }

    /** The delegate's URL: it reads and writes the store, never the cache. */
    @Override
    public dev.ballast.storage.object.PresignedRequest presign(dev.ballast.storage.object.PresignRequest request) {
        return delegate.presign(request);
    }

    @Override
    public List<VersionEntry> listVersions(String prefix) {
        return delegate.listVersions(prefix);
    }

    /** The delegate's answer, never the cache's. */
    @Override
    public dev.ballast.storage.object.ObjectVersion head(String key, String versionId) {
        return delegate.head(key, versionId);
    }

    /** The delegate's answer: presence is the store's, never the cache's. */
    @Override
    public java.util.Map<VersionEntry, String> missingContent(java.util.Collection<VersionEntry> listed) {
        return delegate.missingContent(listed);
    }

    /** Removes the version in the store; the key's cached copy is dropped (it may have been that version). */
    @Override
    public boolean deleteVersion(String key, String versionId) {
        Objects.requireNonNull(key, "key");
        return writing(key, () -> delegate.deleteVersion(key, versionId));
    }

    @Override
    public String toString() {
        return "LastKnownGoodStore[" + dependency + ", " + config + "]";
    }

    private void commit(ObjectVersion version, Freshness freshness, byte[] bytes, long epochAtStart) {
        if (writeEpoch.get() != epochAtStart) {
            return; // a write through this decorator may have made these bytes old
        }
        Instant fetchedAt = clock.instant();
        double jitter =
                config.expiryJitter() == 0.0 ? 0.0 : config.random().get().nextDouble() * config.expiryJitter();
        long lifetimeNanos = (long) (config.maxStaleness().toNanos() * (1.0 - jitter));
        Entry entry = new Entry(version, freshness, bytes, fetchedAt, fetchedAt.plusNanos(lifetimeNanos));
        entries.putIfNotOlder(version.key(), entry);
        if (writeEpoch.get() != epochAtStart) {
            entries.remove(version.key(), entry);
        }
    }

    private static boolean matchesRecordedSha256(ObjectVersion version, byte[] bytes) {
        String recorded = version.sha256();
        if (recorded.length() != 64) {
            return true; // no SHA-256 recorded; the store verified the length
        }
        return Sha256.hex(Sha256.of(bytes)).equalsIgnoreCase(recorded);
    }

    /** Passes reads through, counting integrity failures. */
    private class CountingStream extends InputStream {
        final InputStream in;

        CountingStream(InputStream in) {
            this.in = in;
        }

        @Override
        public int read() throws IOException {
            try {
                return in.read();
            } catch (IntegrityException e) {
                integrityFailed(e, null);
                throw e;
            }
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            try {
                return in.read(b, off, len);
            } catch (IntegrityException e) {
                integrityFailed(e, null);
                throw e;
            }
        }

        @Override
        public int available() throws IOException {
            return in.available();
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }

    /**
     * Tees what the caller reads into a buffer and commits it at end of stream. Anything that leaves
     * the copy incomplete or unverified (skip, an exception, a length or digest mismatch) poisons it.
     */
    private final class CachingStream extends CountingStream {
        private final ObjectVersion version;
        private final Freshness freshness;
        private final long epochAtStart;
        private final ByteArrayOutputStream copy;
        private boolean poisoned;
        private boolean finished;

        CachingStream(InputStream in, ObjectVersion version, Freshness freshness, long epochAtStart) {
            super(in);
            this.version = version;
            this.freshness = freshness;
            this.epochAtStart = epochAtStart;
            this.copy = new ByteArrayOutputStream((int) Math.min(version.size(), 64 * 1024));
        }

        @Override
        public int read() throws IOException {
            int b;
            try {
                b = super.read();
            } catch (IOException | RuntimeException e) {
                poisoned = true;
                throw e;
            }
            if (b < 0) {
                finish();
            } else if (keep(1)) {
                copy.write(b);
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n;
            try {
                n = super.read(b, off, len);
            } catch (IOException | RuntimeException e) {
                poisoned = true;
                throw e;
            }
            if (n < 0) {
                finish();
            } else if (keep(n)) {
                copy.write(b, off, n);
            }
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            poisoned = true; // skipped bytes are not in the copy
            return in.skip(n);
        }

        private boolean keep(int n) {
            if (!poisoned && copy.size() + (long) n > version.size()) {
                poisoned = true; // more bytes than the version's size: not what was recorded
            }
            return !poisoned;
        }

        private void finish() {
            if (finished) {
                return;
            }
            finished = true;
            if (poisoned || copy.size() != version.size()) {
                return;
            }
            byte[] bytes = copy.toByteArray();
            if (!matchesRecordedSha256(version, bytes)) {
                IntegrityException mismatch = new IntegrityException(
                        version.key(),
                        "Object '" + version.key() + "' version " + version.versionId()
                                + " does not match its recorded SHA-256 " + version.sha256());
                integrityFailed(mismatch, version.versionId());
                throw mismatch;
            }
            commit(version, freshness, bytes, epochAtStart);
        }
    }
}
