package dev.ballast.storage;

import dev.ballast.http.Ticker;
import dev.ballast.http.chaos.ChaosPolicy;
import dev.ballast.storage.block.BlockVolume;
import dev.ballast.storage.block.VolumeNames;
import dev.ballast.storage.cache.LastKnownGoodConfig;
import dev.ballast.storage.cache.LastKnownGoodStore;
import dev.ballast.storage.chaos.ChaosObjectStore;
import dev.ballast.storage.crypto.ClientSideEncryption;
import dev.ballast.storage.crypto.EncryptedObjectStore;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.StoreCapabilities;
import dev.ballast.storage.object.local.LocalObjectStore;
import dev.ballast.storage.object.local.LocalStoreConfig;
import dev.ballast.storage.object.s3.S3Endpoint;
import dev.ballast.storage.object.s3.S3ObjectStore;
import dev.ballast.storage.object.s3.S3StoreConfig;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One entry point to two kinds of storage with different semantics; each operation goes to the one
 * whose guarantees it needs (rule: block storage for in-place byte writes, object storage for
 * whole-object versioned replace; neither is emulated on the other).
 *
 * <h2>Block volumes: {@link #block(String)}</h2>
 * A byte-addressable file under {@link Builder#localRoot(Path)}: {@code write(offset, bytes)}
 * changes those bytes in place, {@code force()} makes them durable, and one writer at a time holds
 * the volume. Use it for data edited a few bytes at a time (indexes, journals, disk images).
 *
 * <h2>Objects: {@link #objects()}</h2>
 * Versioned objects on S3 ({@link Builder#s3(S3Endpoint)}) or in a local directory
 * ({@link Builder#localObjects(Path)}, a {@link LocalObjectStore}): every write replaces the whole object and creates a new version (SHA-256 recorded
 * and verified on every read); there is <b>no write at an offset</b>. To change part of an object,
 * read it, edit the bytes and write the whole object back conditionally on the version you read,
 * so a concurrent writer is detected instead of silently overwritten (a lost update):
 *
 * <pre>{@code
 * ObjectStore objects = facade.objects();
 * while (true) {
 *   ObjectRead read = objects.get("state.json");
 *   byte[] edited = edit(read.readAllBytes());
 *   try {
 *     objects.putIfMatch("state.json", read.version().eTag(), ObjectContent.ofBytes(edited)); // If-Match
 *     break;
 *   } catch (PreconditionFailedException someoneElseWroteFirst) {
 *     // 412: another writer replaced the object after our read; read it again and redo the edit
 *   }
 * }
 * }</pre>
 *
 * Reads go through a last-known-good cache (RFC 5861 {@code stale-if-error}, see
 * {@link LastKnownGoodStore}): when the store is unavailable a previously read object comes back
 * marked {@code degraded()}, with its age and the reason, or the read throws
 * {@link StorageUnavailableException}; never an empty value. {@link #stats()} counts degraded
 * reads, stale reads detected and integrity failures.
 *
 * <p>Thread-safe. {@link #close()} closes the volumes opened through this facade and the object
 * store.
 */
public final class StorageFacade implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(StorageFacade.class);

    private final @Nullable Path localRoot;
    private final @Nullable LastKnownGoodStore objects;
    /** What {@link #objects()} returns: {@link #objects}, under client-side encryption when it is set. */
    private final @Nullable ObjectStore exposed;

    private final @Nullable AutoCloseable objectStoreResource;
    private final List<BlockVolume> volumes = new CopyOnWriteArrayList<>();
    private final StorageListener listener;
    private final Ticker ticker;
    private volatile boolean closed;

    private StorageFacade(
            @Nullable Path localRoot,
            @Nullable LastKnownGoodStore objects,
            @Nullable ObjectStore exposed,
            @Nullable AutoCloseable objectStoreResource,
            StorageListener listener,
            Ticker ticker) {
        this.listener = listener;
        this.ticker = ticker;
        this.localRoot = localRoot;
        this.objects = objects;
        this.exposed = exposed;
        this.objectStoreResource = objectStoreResource;
    }

    /** A builder with nothing configured; set at least a local root or an object store. */
    public static Builder newBuilder() {
        return new Builder();
    }

    /**
     * Opens (creating if absent) the block volume {@code name}: a file directly under the local
     * root. The name is validated before the disk is touched (see {@link VolumeNames}).
     *
     * @throws IllegalStateException if no local root was configured, or the facade is closed
     * @throws IllegalArgumentException if the name is invalid (nothing is created)
     * @throws VolumeInUseException if another writer, in this JVM or another process, has it open
     */
    public BlockVolume block(String name) {
        Objects.requireNonNull(name, "name");
        ensureOpen();
        if (localRoot == null) {
            throw new IllegalStateException(
                    "localRoot is required to open block volumes; set StorageFacade.newBuilder().localRoot(dir)");
        }
        BlockVolume volume = listener == StorageListener.NONE
                ? BlockVolume.open(localRoot, name)
                : BlockVolume.open(localRoot, name, listener, ticker);
        volumes.removeIf(v -> !v.isOpen());
        volumes.add(volume);
        return volume;
    }

    /**
     * The versioned object store, with verified reads, stale-read detection and the last-known-good
     * fallback. Whole objects only: see the class documentation for the read-modify-write pattern.
     *
     * @throws IllegalStateException if no object store was configured, or the facade is closed
     */
    public ObjectStore objects() {
        ensureOpen();
        requireObjects();
        return Objects.requireNonNull(exposed);
    }

    /**
     * What the capability probe found the object endpoint to guarantee.
     *
     * @throws IllegalStateException if no object store was configured
     */
    public StoreCapabilities capabilities() {
        return requireObjects().capabilities();
    }

    /**
     * Aborts the multipart uploads initiated before {@code initiatedBefore} in the facade's bucket,
     * the orphans an endpoint that died mid-upload leaves behind; see
     * {@link S3ObjectStore#abortIncompleteUploads(java.time.Instant)} for choosing the cut-off.
     *
     * @return how many uploads were aborted
     * @throws IllegalStateException if the facade was not built with {@code s3(endpoint)}, or is closed
     */
    public int abortIncompleteUploads(java.time.Instant initiatedBefore) {
        ensureOpen();
        if (!(objectStoreResource instanceof S3ObjectStore s3Store)) {
            throw new IllegalStateException("abortIncompleteUploads needs a facade built with s3(endpoint)");
        }
        return s3Store.abortIncompleteUploads(initiatedBefore);
    }

    /** A snapshot of the facade's counters; all zero for a facade without an object store. */
    public Stats stats() {
        int open = (int) volumes.stream().filter(BlockVolume::isOpen).count();
        if (objects == null) {
            return new Stats(0, 0, 0, 0, 0, 0, open);
        }
        LastKnownGoodStore.Counters c = objects.counters();
        return new Stats(
                c.degradedReads(),
                c.unavailableReads(),
                c.staleReadsDetected(),
                c.integrityFailures(),
                c.cachedObjects(),
                c.cachedBytes(),
                open);
    }

    /**
     * Counters since the facade was built.
     *
     * @param degradedReads reads served from the last-known-good cache because the store was unavailable
     * @param unavailableReads reads that threw {@code StorageUnavailableException}
     * @param staleReadsDetected reads that returned, or refused, a version older than one already seen
     * @param integrityFailures reads whose bytes did not match the recorded SHA-256 or length
     * @param cachedObjects objects held in the last-known-good cache now
     * @param cachedBytes bytes held in the last-known-good cache now
     * @param openVolumes block volumes opened through this facade and not yet closed
     */
    public record Stats(
            long degradedReads,
            long unavailableReads,
            long staleReadsDetected,
            long integrityFailures,
            long cachedObjects,
            long cachedBytes,
            int openVolumes) {}

    /** Closes every block volume opened through this facade and the object store. Idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        RuntimeException failure = null;
        for (BlockVolume volume : volumes) {
            try {
                volume.close();
            } catch (RuntimeException e) {
                failure = addTo(failure, e);
            }
        }
        volumes.clear();
        if (objectStoreResource != null) {
            try {
                objectStoreResource.close();
            } catch (Exception e) {
                failure = addTo(
                        failure,
                        e instanceof RuntimeException r
                                ? r
                                : new IllegalStateException("Closing the object store failed", e));
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    private static RuntimeException addTo(@Nullable RuntimeException first, RuntimeException next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }

    private LastKnownGoodStore requireObjects() {
        if (objects == null) {
            throw new IllegalStateException("an object store is required to use objects(); set "
                    + "StorageFacade.newBuilder().s3(endpoint).bucket(name), localObjects(dir), or objectStore(store)");
        }
        return objects;
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("This StorageFacade is closed");
        }
    }

    /**
     * Builder for {@link StorageFacade}; not thread-safe. Set {@link #localRoot(Path)} for block
     * volumes and one object store: {@link #s3(S3Endpoint)} with {@link #bucket(String)},
     * {@link #localObjects(Path)}, or a ready {@link #objectStore(ObjectStore)}; at least a local root
     * or an object store.
     */
    public static final class Builder {
        private @Nullable Path localRoot;
        private @Nullable S3Endpoint s3;
        private @Nullable String bucket;
        private S3StoreConfig s3Config = S3StoreConfig.ofDefaults();
        private @Nullable ObjectStore objectStore;
        private @Nullable Path localObjects;
        private LocalStoreConfig localConfig = LocalStoreConfig.ofDefaults();
        private @Nullable LastKnownGoodConfig lastKnownGood;
        private Clock clock = Clock.systemUTC();
        private boolean clockSet;
        private ChaosPolicy chaos = ChaosPolicy.disabled();
        private StorageListener listener = StorageListener.NONE;
        private Ticker ticker = Ticker.systemTicker();
        private @Nullable ClientSideEncryption encryption;

        private Builder() {}

        /** Directory holding the block volumes; created on first use. Required for {@link #block(String)}. */
        public Builder localRoot(Path localRoot) {
            this.localRoot = Objects.requireNonNull(localRoot, "localRoot");
            return this;
        }

        /**
         * The S3 (or S3-compatible) endpoint for objects: where it is and how to reach it. Needs
         * {@link #bucket(String)}.
         */
        public Builder s3(S3Endpoint s3) {
            this.s3 = Objects.requireNonNull(s3, "s3");
            return this;
        }

        /** The versioned bucket holding the objects; required with {@link #s3(S3Endpoint)}. */
        public Builder bucket(String bucket) {
            this.bucket = Objects.requireNonNull(bucket, "bucket");
            return this;
        }

        /**
         * How the S3 store uses the bucket: whether a missing bucket is created and versioning turned
         * on ({@link S3StoreConfig.Builder#createBucket}, {@link S3StoreConfig.Builder#enableVersioning};
         * both refused with a clear message by default), multipart sizes, key policy, stale-read
         * re-reads. If not set, {@link S3StoreConfig#ofDefaults()}. Its clock is replaced by
         * {@link #clock(Clock)}, the one wall clock of everything the facade builds.
         */
        public Builder s3Config(S3StoreConfig s3Config) {
            this.s3Config = Objects.requireNonNull(s3Config, "s3Config");
            return this;
        }

        /**
         * Keep objects in a {@link LocalObjectStore} in {@code directory} (created when missing), in this
         * process, with no server: versions, delete markers, conditional writes and verified reads as on
         * S3, content stored once per SHA-256, crash-safe. The facade opens it as the directory's one
         * writer (see {@link #localObjects(Path, LocalStoreConfig)} for a reader) and closes it on
         * {@link StorageFacade#close()}. The last-known-good cache is off for it unless
         * {@link #lastKnownGood(LastKnownGoodConfig)} is set: a local directory has no outage to bridge.
         */
        public Builder localObjects(Path directory) {
            return localObjects(directory, LocalStoreConfig.ofDefaults());
        }

        /**
         * As {@link #localObjects(Path)}, with the store's settings (read-only, inline threshold, key
         * rules); {@link #clock(Clock)} set on this builder wins over the config's clock.
         */
        public Builder localObjects(Path directory, LocalStoreConfig config) {
            this.localObjects = Objects.requireNonNull(directory, "directory");
            this.localConfig = Objects.requireNonNull(config, "config");
            return this;
        }

        /**
         * A ready object store to route object operations to instead of {@link #s3(S3Endpoint)} (for
         * example another implementation, or an in-memory one in tests). The facade adds the
         * last-known-good cache on top of it and closes it if it is {@link AutoCloseable}.
         */
        public Builder objectStore(ObjectStore objectStore) {
            this.objectStore = Objects.requireNonNull(objectStore, "objectStore");
            return this;
        }

        /**
         * Last-known-good cache settings; default {@link LastKnownGoodConfig#ofDefaults()} (on), or
         * {@link LastKnownGoodConfig#disabled()} for {@link #localObjects(Path)}.
         */
        public Builder lastKnownGood(LastKnownGoodConfig lastKnownGood) {
            this.lastKnownGood = Objects.requireNonNull(lastKnownGood, "lastKnownGood");
            return this;
        }

        /**
         * Chaos for game days: the object store's calls fail or slow down as the policy says, while its
         * flag is on, under the last-known-good cache (so reads degrade visibly as on a real outage);
         * see {@link ChaosObjectStore}. Default {@link ChaosPolicy#disabled()}: nothing is injected.
         */
        public Builder chaos(ChaosPolicy chaos) {
            this.chaos = Objects.requireNonNull(chaos, "chaos");
            return this;
        }

        /**
         * Told of what the storage does ({@link StorageListener}): every write, read, truncate and
         * force of the block volumes opened through {@link StorageFacade#block(String)} (store
         * {@code block}), every object-store operation, as an
         * {@link ObservedObjectStore} under the last-known-good cache (so it sees the store's own
         * work, not reads the cache served), the cache's degraded, unavailable, stale and
         * integrity-failed reads, conditional-write refusals, and the capabilities once at
         * {@link #build()}. The events' store kind is {@code s3}, {@code local}, or for
         * {@link #objectStore(ObjectStore)} the one {@link ObservedObjectStore#storeKind} gives. Default
         * {@link StorageListener#NONE}: nothing is wrapped. Combine several with {@link StorageListener#of(StorageListener...)}.
         */
        public Builder listener(StorageListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * Monotonic time for the durations the {@link #listener(StorageListener)} is told; default
         * {@link Ticker#systemTicker()}. Tests move a fake one.
         */
        public Builder ticker(Ticker ticker) {
            this.ticker = Objects.requireNonNull(ticker, "ticker");
            return this;
        }

        /**
         * Encrypt every object on the client ({@link EncryptedObjectStore}, envelope encryption with a data
         * key per object wrapped by {@code encryption}'s key), so the store holds ciphertext only;
         * {@link StorageFacade#objects()} then returns that decorator, over the last-known-good cache (which
         * keeps ciphertext). Default: none.
         */
        public Builder clientSideEncryption(ClientSideEncryption encryption) {
            this.encryption = Objects.requireNonNull(encryption, "encryption");
            return this;
        }

        /** Wall time for generations, cache ages and expiry; default {@link Clock#systemUTC()}. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            this.clockSet = true;
            return this;
        }

        /**
         * Builds the facade. With {@link #s3(S3Endpoint)} this opens the store, which runs the
         * capability probe once (about 10 requests writing and deleting a small object under
         * {@code .ballast/probe/}; see {@link S3ObjectStore}) unless the capabilities are declared
         * ({@link S3StoreConfig.Builder#declaredCapabilities}), and logs its result.
         *
         * With {@link #localObjects(Path)} it opens the local store.
         *
         * @throws IllegalStateException if nothing is configured, {@code s3} lacks a bucket (or the
         *     reverse), or more than one of {@code s3}, {@code localObjects} and {@code objectStore} is set
         * @throws BucketNotFoundException if the bucket is missing and may not be created
         * @throws UnsupportedCapabilityException if the bucket is unversioned and may not be fixed
         * @throws StorageUnavailableException if the endpoint cannot be reached, or the local store's
         *     directory cannot be used or has another writer
         * @throws IllegalArgumentException if the local store's directory holds something else
         */
        public StorageFacade build() {
            int stores = (s3 != null ? 1 : 0) + (objectStore != null ? 1 : 0) + (localObjects != null ? 1 : 0);
            if (stores > 1) {
                throw new IllegalStateException(
                        "set one of s3(endpoint), localObjects(directory) and objectStore(store), " + "not several");
            }
            if (s3 != null && bucket == null) {
                throw new IllegalStateException("bucket is required with s3(endpoint); set StorageFacade.newBuilder()"
                        + ".s3(endpoint).bucket(name)");
            }
            if (s3 == null && bucket != null) {
                throw new IllegalStateException("bucket needs s3(endpoint)");
            }
            if (localRoot == null && stores == 0) {
                throw new IllegalStateException(
                        "StorageFacade needs something to route to: set localRoot(dir) for block "
                                + "volumes and/or s3(endpoint).bucket(name) or localObjects(dir) for objects");
            }
            ObjectStore store = objectStore;
            LastKnownGoodConfig cache = lastKnownGood != null ? lastKnownGood : LastKnownGoodConfig.ofDefaults();
            if (localObjects != null) {
                LocalStoreConfig config =
                        clockSet ? localConfig.toBuilder().clock(clock).build() : localConfig;
                store = LocalObjectStore.open(localObjects, config);
                cache = lastKnownGood != null ? lastKnownGood : LastKnownGoodConfig.disabled();
            }
            if (s3 != null) {
                store = S3ObjectStore.open(
                        s3, bucket, s3Config.toBuilder().clock(clock).build());
            }
            LastKnownGoodStore objects = null;
            ObjectStore exposed = null;
            if (store != null) {
                String kind = s3 != null
                        ? StorageListener.STORE_S3
                        : localObjects != null ? StorageListener.STORE_LOCAL : ObservedObjectStore.storeKind(store);
                ObjectStore under = chaos == ChaosPolicy.disabled() ? store : ChaosObjectStore.wrap(store, chaos);
                if (listener != StorageListener.NONE) {
                    under = ObservedObjectStore.wrap(under, kind, listener, ticker);
                    StorageListener.CapabilitiesKnown known =
                            new StorageListener.CapabilitiesKnown(kind, under.capabilities());
                    try {
                        listener.onCapabilities(known);
                    } catch (RuntimeException e) {
                        LOG.warn("StorageListener {} failed in onCapabilities; ignored", listener, e);
                    }
                }
                objects = LastKnownGoodStore.wrap(under, cache, clock, listener);
                exposed = encryption == null ? objects : EncryptedObjectStore.wrap(objects, encryption);
                // "set up", not "ready": with declared capabilities nothing has been asked of the store yet, and
                // "ready" stood just above a first request's failure ("No credentials were found ...").
                LOG.info(
                        "Object store set up: {}; last-known-good {}{}",
                        objects.capabilities(),
                        cache,
                        encryption == null ? "" : "; " + encryption);
            }
            return new StorageFacade(
                    localRoot,
                    objects,
                    exposed,
                    store instanceof AutoCloseable closeable ? closeable : null,
                    listener,
                    ticker);
        }
    }
}
