package dev.ballast.storage;

import dev.ballast.http.Ticker;
import dev.ballast.storage.StorageListener.ConditionalWriteRefused;
import dev.ballast.storage.StorageListener.Operation;
import dev.ballast.storage.StorageListener.Outcome;
import dev.ballast.storage.StorageListener.Refusal;
import dev.ballast.storage.internal.Listings;
import dev.ballast.storage.internal.ObservedOperation;
import dev.ballast.storage.object.ListEntry;
import dev.ballast.storage.object.ListRequest;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.ObjectVersion;
import dev.ballast.storage.object.PresignRequest;
import dev.ballast.storage.object.PresignedRequest;
import dev.ballast.storage.object.PutOptions;
import dev.ballast.storage.object.ReadOptions;
import dev.ballast.storage.object.StoreCapabilities;
import dev.ballast.storage.object.VersionEntry;
import dev.ballast.storage.object.local.LocalObjectStore;
import dev.ballast.storage.object.s3.S3ObjectStore;
import java.io.IOException;
import java.io.InputStream;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@link ObjectStore} decorator that tells a {@link StorageListener} about every operation it
 * passes to the store it wraps: {@link StorageListener#onOperationStarted} before, and
 * {@link StorageListener#onOperationEnded} after, with the {@link Outcome} (from the exception, if
 * any), the duration on the given {@link Ticker} and the bytes moved; and
 * {@link StorageListener#onConditionalWriteRefused} when a {@code putIfAbsent} or {@code putIfMatch}
 * is refused (before that write's {@code onOperationEnded}, while its scope is open). It changes nothing else: results and exceptions pass through unchanged.
 *
 * <p>A {@code get} ends when the caller has read its stream to the end, a read of it failed, or it
 * was closed, so its duration covers the transfer and its bytes are those the caller read; a
 * {@code get} whose stream is neither read to the end nor closed never ends. {@link StorageFacade}
 * wraps its store in one, under the last-known-good cache, so that what is measured is the store's
 * own work; any other decorator stack may use it too. A listener's exception is logged at
 * {@code WARN} (SLF4J logger {@code dev.ballast.storage.ObservedObjectStore}) and ignored.
 * Thread-safe.
 */
public final class ObservedObjectStore implements ObjectStore {

    private static final Logger LOG = LoggerFactory.getLogger(ObservedObjectStore.class);

    private final ObjectStore delegate;
    private final String store;
    private final StorageListener listener;
    private final Ticker ticker;

    private ObservedObjectStore(ObjectStore delegate, String store, StorageListener listener, Ticker ticker) {
        this.delegate = delegate;
        this.store = store;
        this.listener = listener;
        this.ticker = ticker;
    }

    /**
     * Wraps {@code delegate}.
     *
     * @param delegate the store whose operations are observed
     * @param store the store kind the events carry, one of the {@code StorageListener.STORE_}
     *     constants (see {@link #storeKind(ObjectStore)})
     * @param listener told of every operation
     * @param ticker measures durations, in nanoseconds; {@link Ticker#systemTicker()} outside tests
     * @return the decorator
     * @throws NullPointerException if an argument is null
     */
    public static ObservedObjectStore wrap(
            ObjectStore delegate, String store, StorageListener listener, Ticker ticker) {
        return new ObservedObjectStore(
                Objects.requireNonNull(delegate, "delegate"),
                Objects.requireNonNull(store, "store"),
                Objects.requireNonNull(listener, "listener"),
                Objects.requireNonNull(ticker, "ticker"));
    }

    /**
     * The store kind of {@code store}: {@code s3} for an {@link S3ObjectStore}, {@code local} for a
     * {@link LocalObjectStore}, {@code fake} for a class whose simple name starts with {@code Fake}
     * (the test kit's {@code FakeObjectStore}), the wrapped store's kind for an
     * {@code ObservedObjectStore}, and {@code custom} otherwise.
     */
    public static String storeKind(ObjectStore store) {
        Objects.requireNonNull(store, "store");
        if (store instanceof ObservedObjectStore observed) {
            return observed.store;
        } else if (store instanceof S3ObjectStore) {
            return StorageListener.STORE_S3;
        } else if (store instanceof LocalObjectStore) {
            return StorageListener.STORE_LOCAL;
        } else if (store.getClass().getSimpleName().startsWith("Fake")) {
            return StorageListener.STORE_FAKE;
        }
        return StorageListener.STORE_CUSTOM;
    }

    /** The store this decorator passes operations to. */
    public ObjectStore delegate() {
        return delegate;
    }

    @Override
    public StoreCapabilities capabilities() {
        return delegate.capabilities();
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
    public ObjectVersion put(String key, ObjectContent content) {
        return write(Operation.PUT, key, () -> delegate.put(key, content));
    }

    @Override
    public CompletableFuture<ObjectVersion> putAsync(String key, ObjectContent content) {
        return putAsync(key, content, PutOptions.defaults());
    }

    @Override
    public CompletableFuture<ObjectVersion> putAsync(String key, ObjectContent content, PutOptions options) {
        ObservedOperation span = start(Operation.PUT_ASYNC, key);
        CompletableFuture<ObjectVersion> write;
        try {
            write = options.isDefault() ? delegate.putAsync(key, content) : delegate.putAsync(key, content, options);
        } catch (RuntimeException | Error e) {
            span.end(e, 0);
            throw e;
        } finally {
            span.exit();
        }
        return write.whenComplete((v, e) -> span.end(e, v == null ? 0 : v.size()));
    }

    @Override
    public ObjectVersion putIfAbsent(String key, ObjectContent content) {
        return write(Operation.PUT_IF_ABSENT, key, () -> delegate.putIfAbsent(key, content));
    }

    @Override
    public ObjectVersion putIfMatch(String key, String eTag, ObjectContent content) {
        return write(Operation.PUT_IF_MATCH, key, () -> delegate.putIfMatch(key, eTag, content));
    }

    @Override
    public ObjectVersion put(String key, ObjectContent content, PutOptions options) {
        return write(Operation.PUT, key, () -> delegate.put(key, content, options));
    }

    @Override
    public ObjectVersion putIfAbsent(String key, ObjectContent content, PutOptions options) {
        return write(Operation.PUT_IF_ABSENT, key, () -> delegate.putIfAbsent(key, content, options));
    }

    @Override
    public ObjectVersion putIfMatch(String key, String eTag, ObjectContent content, PutOptions options) {
        return write(Operation.PUT_IF_MATCH, key, () -> delegate.putIfMatch(key, eTag, content, options));
    }

    @Override
    public ObjectRead get(String key) {
        return get(key, ReadOptions.latest());
    }

    @Override
    public ObjectRead get(String key, ReadOptions options) {
        ObservedOperation span = start(Operation.GET, key);
        ObjectRead read;
        try {
            read = delegate.get(key, options);
        } catch (RuntimeException | Error e) {
            span.end(e, 0);
            throw e;
        } finally {
            span.exit(); // the requests are done; the stream is read outside the scope
        }
        return new ObjectRead(
                read.version(),
                new ObservedStream(read.stream(), span),
                read.source(),
                read.freshness(),
                read.age(),
                read.degradedReason().orElse(null));
    }

    @Override
    public List<VersionEntry> versions(String key) {
        return call(Operation.VERSIONS, key, () -> delegate.versions(key));
    }

    @Override
    public VersionEntry delete(String key) {
        return call(Operation.DELETE, key, () -> delegate.delete(key));
    }

    @Override
    public List<String> list(String prefix) {
        return call(Operation.LIST, prefix, () -> delegate.list(prefix));
    }

    /** Observed as one {@code list} operation around the fetch of the first page. */
    @Override
    public Stream<ListEntry> listing(ListRequest request) {
        return Listings.lazily(() -> call(Operation.LIST, request.prefix(), () -> delegate.listing(request)));
    }

    @Override
    public PresignedRequest presign(PresignRequest request) {
        return delegate.presign(request);
    }

    @Override
    public List<VersionEntry> listVersions(String prefix) {
        return call(Operation.LIST_VERSIONS, prefix, () -> delegate.listVersions(prefix));
    }

    @Override
    public ObjectVersion head(String key, String versionId) {
        return call(Operation.HEAD, key, () -> delegate.head(key, versionId));
    }

    @Override
    public Map<VersionEntry, String> missingContent(Collection<VersionEntry> listed) {
        return call(Operation.MISSING_CONTENT, null, () -> delegate.missingContent(listed));
    }

    @Override
    public boolean deleteVersion(String key, String versionId) {
        return call(Operation.DELETE_VERSION, key, () -> delegate.deleteVersion(key, versionId));
    }

    @Override
    public String toString() {
        return "ObservedObjectStore[" + store + ", " + delegate + "]";
    }

    private ObjectVersion write(Operation operation, String key, Supplier<ObjectVersion> write) {
        ObservedOperation span = start(operation, key);
        ObjectVersion version;
        try {
            version = write.get();
        } catch (RuntimeException | Error e) {
            refused(operation, key, e); // inside the operation's scope: a tracing listener's event lands on its span
            span.end(e, 0);
            throw e;
        }
        span.end(null, version.size());
        return version;
    }

    private <T> T call(Operation operation, @Nullable String key, Supplier<T> call) {
        ObservedOperation span = start(operation, key);
        T result;
        try {
            result = call.get();
        } catch (RuntimeException | Error e) {
            span.end(e, 0);
            throw e;
        }
        span.end(null, 0);
        return result;
    }

    private void refused(Operation operation, String key, Throwable failure) {
        Refusal refusal;
        if (failure instanceof AlreadyExistsException) {
            refusal = Refusal.EXISTS;
        } else if (failure instanceof PreconditionFailedException) {
            refusal = Refusal.ETAG_MISMATCH;
        } else if (failure instanceof ObjectNotFoundException && operation == Operation.PUT_IF_MATCH) {
            refusal = Refusal.NOT_FOUND;
        } else if (failure instanceof UnsupportedCapabilityException
                && (operation == Operation.PUT_IF_ABSENT || operation == Operation.PUT_IF_MATCH)) {
            refusal = Refusal.UNSUPPORTED;
        } else {
            return;
        }
        try {
            listener.onConditionalWriteRefused(new ConditionalWriteRefused(store, operation, key, refusal));
        } catch (RuntimeException e) {
            LOG.warn("StorageListener {} failed in onConditionalWriteRefused; ignored", listener, e);
        }
    }

    private ObservedOperation start(Operation operation, @Nullable String key) {
        return ObservedOperation.start(listener, ticker, store, operation, key);
    }

    /** Counts what the caller reads; ends the get at end of stream, on a failed read, or on close. */
    private static final class ObservedStream extends InputStream {
        private final InputStream in;
        private final ObservedOperation span;
        private long bytes;

        ObservedStream(InputStream in, ObservedOperation span) {
            this.in = in;
            this.span = span;
        }

        @Override
        public int read() throws IOException {
            int b;
            try {
                b = in.read();
            } catch (IOException | RuntimeException | Error e) {
                span.end(e, bytes);
                throw e;
            }
            if (b < 0) {
                span.end(null, bytes);
            } else {
                bytes++;
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n;
            try {
                n = in.read(b, off, len);
            } catch (IOException | RuntimeException | Error e) {
                span.end(e, bytes);
                throw e;
            }
            if (n < 0) {
                span.end(null, bytes);
            } else {
                bytes += n;
            }
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            long skipped = in.skip(n);
            bytes += skipped;
            return skipped;
        }

        @Override
        public int available() throws IOException {
            return in.available();
        }

        @Override
        public void close() throws IOException {
            try {
                in.close();
            } finally {
                span.end(null, bytes);
            }
        }
    }
}
