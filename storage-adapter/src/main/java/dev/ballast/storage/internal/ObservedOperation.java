package dev.ballast.storage.internal;

import dev.ballast.http.Ticker;
import dev.ballast.storage.StorageListener;
import dev.ballast.storage.StorageListener.Operation;
import dev.ballast.storage.StorageListener.OperationEnded;
import dev.ballast.storage.StorageListener.OperationStarted;
import dev.ballast.storage.StorageListener.Outcome;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One operation a {@link StorageListener} is told of: {@link #start} tells it the operation started
 * and keeps what it returned; {@link #end} tells it, once, how the operation ended, with that
 * context. A listener's exception is logged at {@code WARN} and ignored. Thread-safe.
 */
public final class ObservedOperation {

    private static final Logger LOG = LoggerFactory.getLogger(ObservedOperation.class);

    private final StorageListener listener;
    private final Ticker ticker;
    private final String store;
    private final Operation operation;
    private final @Nullable String key;
    private final long startNanos;
    private final @Nullable Object context;
    private final @Nullable AutoCloseable scope;
    private final AtomicBoolean exited = new AtomicBoolean();
    private final AtomicBoolean ended = new AtomicBoolean();

    private ObservedOperation(
            StorageListener listener,
            Ticker ticker,
            String store,
            Operation operation,
            @Nullable String key,
            long startNanos,
            @Nullable Object context,
            @Nullable AutoCloseable scope) {
        this.listener = listener;
        this.ticker = ticker;
        this.store = store;
        this.operation = operation;
        this.key = key;
        this.startNanos = startNanos;
        this.context = context;
        this.scope = scope;
    }

    /** Tells {@code listener} that {@code operation} on {@code key} of {@code store} starts now. */
    public static ObservedOperation start(
            StorageListener listener, Ticker ticker, String store, Operation operation, @Nullable String key) {
        long now = ticker.read();
        OperationStarted event = new OperationStarted(store, operation, key, now);
        Object context = null;
        AutoCloseable scope = null;
        try {
            context = listener.onOperationStarted(event);
            scope = listener.openScope(event, context);
        } catch (RuntimeException e) {
            LOG.warn("StorageListener {} failed in onOperationStarted or openScope; ignored", listener, e);
        }
        return new ObservedOperation(listener, ticker, store, operation, key, now, context, scope);
    }

    /**
     * Closes the scope {@link StorageListener#openScope} returned, if any, once: call it on the
     * operation's thread when its method returns or throws. {@link #end} calls it first if it was not.
     */
    public void exit() {
        if (scope == null || !exited.compareAndSet(false, true)) {
            return;
        }
        try {
            scope.close();
        } catch (Exception e) {
            LOG.warn("StorageListener {}: closing its scope failed; ignored", listener, e);
        }
    }

    /** Tells the listener the operation ended with {@code failure} (null: it succeeded), having moved {@code bytes}; only the first call counts. */
    public void end(@Nullable Throwable failure, long bytes) {
        exit();
        if (!ended.compareAndSet(false, true)) {
            return;
        }
        long duration = Math.max(0, ticker.read() - startNanos);
        try {
            listener.onOperationEnded(
                    new OperationEnded(store, operation, key, Outcome.of(failure), duration, bytes, failure), context);
        } catch (RuntimeException e) {
            LOG.warn("StorageListener {} failed in onOperationEnded; ignored", listener, e);
        }
    }
}
