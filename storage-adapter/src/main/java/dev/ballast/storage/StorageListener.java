package dev.ballast.storage;

import dev.ballast.storage.object.StoreCapabilities;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a storage stack did, as events: operations on the object store (started and ended, with
 * outcome, duration and bytes), reads served degraded from the last-known-good cache and reads that
 * found nothing acceptable there, stale reads detected, integrity failures, conditional writes the
 * store refused, and the capabilities the store was found (or declared) to have. Register one with
 * {@link StorageFacade.Builder#listener(StorageListener)}; {@code ballast-micrometer}'s
 * {@code StorageMetrics} turns the events into meters, and a tracing adapter can turn each
 * {@link #onOperationStarted} / {@link #onOperationEnded} pair into a span.
 *
 * <p>Emitters: {@link dev.ballast.storage.block.BlockVolume} (store {@value #STORE_BLOCK}: write,
 * read, truncate, force) when opened through a facade with a listener; {@link ObservedObjectStore}, a decorator any {@link dev.ballast.storage.object.ObjectStore}
 * can be wrapped in, emits the operation events and the conditional-write refusals;
 * {@link dev.ballast.storage.cache.LastKnownGoodStore} emits the degraded, unavailable, stale and
 * integrity events; {@link StorageFacade.Builder#build()} emits {@link #onCapabilities} once. Another
 * decorator may emit any of them too: the events are plain records with public constructors.
 *
 * <p>Every method has an empty default, so a listener overrides what it needs. Methods are called
 * on the thread of the operation (for {@code putAsync}'s end, the thread that completes its future;
 * for a {@code get}, the thread that reads its stream to the end or closes it), must be quick, and
 * must not call the store. An exception a listener throws is logged at {@code WARN} and otherwise
 * ignored: it never changes the operation's outcome. Implementations must be thread-safe.
 *
 * <p>Bounded values: {@code store}, {@link Operation}, {@link Outcome}, {@link DegradeReason} and
 * {@link Refusal} take a handful of values each, fit for metric tags; keys, version IDs and
 * messages are not, and are there for logs and spans.
 */
public interface StorageListener {

    /** The {@code store} of an S3 (or S3-compatible) object store. */
    String STORE_S3 = "s3";
    /** The {@code store} of a {@link dev.ballast.storage.object.local.LocalObjectStore}. */
    String STORE_LOCAL = "local";
    /** The {@code store} of a fake (in-memory, test) object store: one whose class name starts with {@code Fake}. */
    String STORE_FAKE = "fake";
    /** The {@code store} of block volumes. */
    String STORE_BLOCK = "block";
    /** The {@code store} of any other object store given to {@link StorageFacade.Builder#objectStore}. */
    String STORE_CUSTOM = "custom";

    /** A listener that does nothing. */
    StorageListener NONE = new StorageListener() {};

    /**
     * Several listeners as one, for {@link StorageFacade.Builder#listener(StorageListener)} (for
     * example {@code StorageMetrics} and {@code StorageTracing}): each is told every event, in the
     * order given, with the context its own {@link #onOperationStarted} returned; their scopes are
     * opened in that order and closed in reverse; {@link #propagateContext} wraps the task in each
     * one's, the first outermost. An exception one of them throws is logged at {@code WARN} and the
     * others are still told. Thread-safe when the listeners are.
     *
     * @param listeners the listeners, at least one
     * @return {@code listeners[0]} when there is one, else a listener telling them all
     * @throws NullPointerException if {@code listeners} or one of them is null
     * @throws IllegalArgumentException if {@code listeners} is empty
     */
    static StorageListener of(StorageListener... listeners) {
        List<StorageListener> list = List.of(listeners);
        if (list.isEmpty()) {
            throw new IllegalArgumentException("StorageListener.of needs at least one listener");
        }
        return list.size() == 1 ? list.get(0) : new CompositeStorageListener(list);
    }

    /**
     * An operation is about to be sent to the store. The returned value, which may be anything (a
     * span, a start time) or null, is handed back to this listener's {@link #onOperationEnded} for
     * the same operation, which is called exactly once, whatever the outcome (unless the caller of
     * a {@code get} never reads its stream to the end nor closes it).
     *
     * @param event the operation
     * @return this listener's context for the operation, or null
     */
    default @Nullable Object onOperationStarted(OperationStarted event) {
        return null;
    }

    /**
     * Called right after {@link #onOperationStarted}, on the same thread, with what it returned; the
     * scope returned is closed on that thread when the operation's method returns or throws, so it
     * spans the synchronous part of the operation: the requests to the store (and the HTTP client's
     * own events) happen inside it. A tracing adapter returns its span's {@code makeCurrent()} here so
     * that the HTTP attempts nest under the storage span. For a {@code get} the scope is closed when
     * {@code get} returns, before its stream is read and before {@link #onOperationEnded}; for the
     * other operations it is closed before {@link #onOperationEnded} too. The default returns null (no scope).
     *
     * @param event the operation, as {@link #onOperationStarted} was told
     * @param context what {@link #onOperationStarted} returned for it
     * @return a scope to close when the method returns, or null
     */
    default @Nullable AutoCloseable openScope(OperationStarted event, @Nullable Object context) {
        return null;
    }

    /**
     * An operation ended: for a {@code get}, when its stream was read to the end, failed, or was
     * closed; for every other operation, when the method returned or threw (for {@code putAsync},
     * when its future completed).
     *
     * @param event the operation and how it ended
     * @param context what {@link #onOperationStarted} returned for it
     */
    default void onOperationEnded(OperationEnded event, @Nullable Object context) {}

    /**
     * Called on the caller's thread when part of an operation is about to run on another thread (the
     * last-known-good cache's live read with a deadline, {@link dev.ballast.storage.cache.LastKnownGoodConfig#readDeadline()}):
     * returns the task to run there instead, carrying what this listener needs of the caller's
     * context (a tracing adapter's current span, so that the operation's span stays in the caller's
     * trace). The caller's SLF4J MDC is carried by Ballast itself, whatever this returns. The default
     * returns {@code task} unchanged. An exception thrown here is logged at {@code WARN} and the task
     * runs unwrapped.
     *
     * @param task the work to run on the other thread
     * @return the task to run there: {@code task} or a wrapper that runs it
     */
    default Runnable propagateContext(Runnable task) {
        return task;
    }

    /** A read was served from the last-known-good cache because the store was unavailable. */
    default void onDegradedRead(DegradedRead event) {}

    /** A read failed with {@link StorageUnavailableException}: the store was unavailable and no acceptable copy was cached. */
    default void onUnavailableRead(UnavailableRead event) {}

    /** A read returned, or refused with {@link StaleReadException}, a version older than one already seen. */
    default void onStaleRead(StaleRead event) {}

    /** A read's bytes did not match the recorded SHA-256 or length ({@link IntegrityException}). */
    default void onIntegrityFailure(IntegrityFailure event) {}

    /** A conditional write ({@code putIfAbsent}, {@code putIfMatch}) was refused by the store. */
    default void onConditionalWriteRefused(ConditionalWriteRefused event) {}

    /** The capabilities the object store was probed (or declared) to have, once, when the facade is built. */
    default void onCapabilities(CapabilitiesKnown event) {}

    /** The operations of an object store and of a block volume, with the names used in tags ({@link #tag()}). */
    enum Operation {
        PUT,
        PUT_ASYNC,
        PUT_IF_ABSENT,
        PUT_IF_MATCH,
        GET,
        HEAD,
        VERSIONS,
        LIST,
        LIST_VERSIONS,
        DELETE,
        DELETE_VERSION,
        MISSING_CONTENT,
        /** A block volume's {@code write(offset, bytes)}. */
        WRITE,
        /** A block volume's {@code read(offset, length)}. */
        READ,
        /** A block volume's {@code truncate(size)}. */
        TRUNCATE,
        /** A block volume's {@code force()} (fsync). */
        FORCE;

        /** The name in lower case, for example {@code put_if_absent}. */
        public String tag() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** How an operation ended, from the exception it ended with. */
    enum Outcome {
        /** It returned normally (a {@code get}: its stream was read to the end or closed without error). */
        SUCCESS,
        /** {@link ObjectNotFoundException}. */
        NOT_FOUND,
        /** {@link PreconditionFailedException}, {@link AlreadyExistsException} included. */
        PRECONDITION_FAILED,
        /** {@link StorageUnavailableException}. */
        UNAVAILABLE,
        /** {@link IntegrityException}. */
        INTEGRITY_FAILURE,
        /** {@link StaleReadException}. */
        STALE,
        /** {@link AccessDeniedException}, {@link BucketNotFoundException} or {@link RequestRefusedException}. */
        REFUSED,
        /** {@link UnsupportedCapabilityException}. */
        UNSUPPORTED,
        /** An {@link IllegalArgumentException} or {@link NullPointerException}: refused before the store was asked. */
        INVALID,
        /** Any other exception or error. */
        ERROR;

        /** The name in lower case, for example {@code not_found}. */
        public String tag() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The outcome of an operation that ended with {@code failure}; {@link #SUCCESS} for null. */
        public static Outcome of(@Nullable Throwable failure) {
            Throwable f = failure;
            while (f instanceof java.util.concurrent.CompletionException && f.getCause() != null) {
                f = f.getCause();
            }
            if (f == null) {
                return SUCCESS;
            }
            if (f instanceof ObjectNotFoundException) {
                return NOT_FOUND;
            } else if (f instanceof PreconditionFailedException) {
                return PRECONDITION_FAILED;
            } else if (f instanceof StorageUnavailableException) {
                return UNAVAILABLE;
            } else if (f instanceof IntegrityException) {
                return INTEGRITY_FAILURE;
            } else if (f instanceof StaleReadException) {
                return STALE;
            } else if (f instanceof AccessDeniedException
                    || f instanceof BucketNotFoundException
                    || f instanceof RequestRefusedException) {
                return REFUSED;
            } else if (f instanceof UnsupportedCapabilityException) {
                return UNSUPPORTED;
            } else if (f instanceof IllegalArgumentException || f instanceof NullPointerException) {
                return INVALID;
            }
            return ERROR;
        }
    }

    /** Why the store was unavailable to a read, from the failure's causes; the names used in tags ({@link #tag()}). */
    enum DegradeReason {
        /** The circuit breaker of the endpoint was open: no request was sent. */
        CIRCUIT_OPEN,
        /** The bulkhead or the concurrency limit refused the request: no request was sent. */
        REJECTED,
        /** An attempt, the call, or the read's deadline timed out. */
        TIMEOUT,
        /** The endpoint could not be connected to (refused, unresolvable, reset before an answer). */
        UNREACHABLE,
        /** Any other unavailability: 5xx answers, throttling, retries exhausted otherwise. */
        UNAVAILABLE;

        /** The name in lower case, for example {@code circuit_open}. */
        public String tag() {
            return name().toLowerCase(Locale.ROOT);
        }

        /**
         * The reason {@code failure} (a {@link StorageUnavailableException}, usually) stands for: the
         * first of its causes, outermost first, that names one.
         */
        public static DegradeReason of(Throwable failure) {
            Objects.requireNonNull(failure, "failure");
            int depth = 0;
            for (Throwable f = failure; f != null && depth < 16; f = f.getCause(), depth++) {
                if (f instanceof dev.ballast.http.CircuitOpenException) {
                    return CIRCUIT_OPEN;
                } else if (f instanceof dev.ballast.http.BulkheadFullException
                        || f instanceof dev.ballast.http.ConcurrencyLimitExceededException) {
                    return REJECTED;
                } else if (f instanceof java.net.http.HttpTimeoutException
                        || f instanceof java.net.SocketTimeoutException
                        || f instanceof java.util.concurrent.TimeoutException) {
                    return TIMEOUT;
                } else if (f instanceof java.net.ConnectException
                        || f instanceof java.net.UnknownHostException
                        || f instanceof java.net.NoRouteToHostException) {
                    return UNREACHABLE;
                }
            }
            return UNAVAILABLE;
        }
    }

    /** Why a conditional write was refused; the names used in tags ({@link #tag()}). */
    enum Refusal {
        /** {@code putIfAbsent}: the key has a current version ({@link AlreadyExistsException}). */
        EXISTS,
        /** {@code putIfMatch}: the current ETag differs ({@link PreconditionFailedException}). */
        ETAG_MISMATCH,
        /** {@code putIfMatch}: the key has no current version ({@link ObjectNotFoundException}). */
        NOT_FOUND,
        /** The store does not honour conditional writes ({@link UnsupportedCapabilityException}). */
        UNSUPPORTED;

        /** The name in lower case, for example {@code etag_mismatch}. */
        public String tag() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * An operation about to be sent.
     *
     * @param store the store kind, one of the {@code STORE_} constants
     * @param operation the operation
     * @param key the key, the prefix of a listing, or null for an operation on no single key
     * @param startNanos the emitter's ticker when it started, in nanoseconds from an arbitrary origin
     */
    record OperationStarted(
            String store, Operation operation, @Nullable String key, long startNanos) {
        public OperationStarted {
            Objects.requireNonNull(store, "store");
            Objects.requireNonNull(operation, "operation");
        }
    }

    /**
     * An operation that ended.
     *
     * @param store the store kind, one of the {@code STORE_} constants
     * @param operation the operation
     * @param key the key, the prefix of a listing, or null
     * @param outcome how it ended
     * @param durationNanos from its start to its end, in nanoseconds (for a {@code get}, until its
     *     stream was read to the end or closed)
     * @param bytes bytes of object content moved: read from a {@code get}'s stream, written by a
     *     successful put (the version's size), written or read by a block volume's write or read; 0
     *     for other operations and failures
     * @param failure the exception it ended with, or null
     */
    record OperationEnded(
            String store,
            Operation operation,
            @Nullable String key,
            Outcome outcome,
            long durationNanos,
            long bytes,
            @Nullable Throwable failure) {
        public OperationEnded {
            Objects.requireNonNull(store, "store");
            Objects.requireNonNull(operation, "operation");
            Objects.requireNonNull(outcome, "outcome");
        }
    }

    /**
     * A read served from the last-known-good cache.
     *
     * @param store the store kind of the store that was unavailable
     * @param key the key read
     * @param versionId the version served
     * @param reason why the store was unavailable
     * @param age how old the data served is: since it was fetched from the store (never negative)
     * @param detail the store's failure, as the read's {@code degradedReason()} says it
     */
    record DegradedRead(String store, String key, String versionId, DegradeReason reason, Duration age, String detail) {
        public DegradedRead {
            Objects.requireNonNull(store, "store");
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(age, "age");
        }
    }

    /**
     * A read that threw {@link StorageUnavailableException}.
     *
     * @param store the store kind
     * @param key the key read
     * @param reason why the store was unavailable
     * @param expiredCopy true when a copy was cached but past its maximum staleness; false when none
     *     (or not that version, or the cache was off or not allowed for the read) was
     */
    record UnavailableRead(String store, String key, DegradeReason reason, boolean expiredCopy) {
        public UnavailableRead {
            Objects.requireNonNull(store, "store");
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(reason, "reason");
        }
    }

    /**
     * A stale read detected.
     *
     * @param store the store kind
     * @param key the key read
     * @param refused true when the read threw {@link StaleReadException}; false when it returned the
     *     older version marked {@link dev.ballast.storage.object.Freshness#STALE} (the options accepted it)
     */
    record StaleRead(String store, String key, boolean refused) {
        public StaleRead {
            Objects.requireNonNull(store, "store");
            Objects.requireNonNull(key, "key");
        }
    }

    /**
     * An integrity failure: bytes that did not match.
     *
     * @param store the store kind
     * @param key the key read
     * @param versionId the version read, or null when not known
     * @param detail the exception's message
     */
    record IntegrityFailure(
            String store, String key, @Nullable String versionId, String detail) {
        public IntegrityFailure {
            Objects.requireNonNull(store, "store");
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(detail, "detail");
        }
    }

    /**
     * A conditional write the store refused; nothing was written.
     *
     * @param store the store kind
     * @param operation {@link Operation#PUT_IF_ABSENT} or {@link Operation#PUT_IF_MATCH}
     * @param key the key
     * @param refusal why
     */
    record ConditionalWriteRefused(String store, Operation operation, String key, Refusal refusal) {
        public ConditionalWriteRefused {
            Objects.requireNonNull(store, "store");
            Objects.requireNonNull(operation, "operation");
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(refusal, "refusal");
        }
    }

    /**
     * The object store's capabilities.
     *
     * @param store the store kind
     * @param capabilities what the store was found (or declared) to guarantee
     */
    record CapabilitiesKnown(String store, StoreCapabilities capabilities) {
        public CapabilitiesKnown {
            Objects.requireNonNull(store, "store");
            Objects.requireNonNull(capabilities, "capabilities");
        }
    }
}
