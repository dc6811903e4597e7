package dev.ballast.storage;

import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Several listeners as one ({@link StorageListener#of(StorageListener...)}): each is told every event
 * in the order given, with its own context; an exception one throws is logged at {@code WARN} and the
 * others are still told. Scopes are closed in the reverse order of their opening. Thread-safe when
 * the listeners are.
 */
final class CompositeStorageListener implements StorageListener {

    private static final Logger LOG = LoggerFactory.getLogger(CompositeStorageListener.class);

    private final List<StorageListener> listeners;

    CompositeStorageListener(List<StorageListener> listeners) {
        this.listeners = listeners;
    }

    @Override
    public Object onOperationStarted(OperationStarted event) {
        @Nullable Object[] contexts = new Object[listeners.size()];
        for (int i = 0; i < contexts.length; i++) {
            try {
                contexts[i] = listeners.get(i).onOperationStarted(event);
            } catch (RuntimeException e) {
                warn(listeners.get(i), "onOperationStarted", e);
            }
        }
        return contexts;
    }

    @Override
    public @Nullable AutoCloseable openScope(OperationStarted event, @Nullable Object context) {
        @Nullable Object[] contexts = contexts(context);
        @Nullable AutoCloseable[] scopes = new AutoCloseable[listeners.size()];
        for (int i = 0; i < scopes.length; i++) {
            try {
                scopes[i] = listeners.get(i).openScope(event, contexts[i]);
            } catch (RuntimeException e) {
                warn(listeners.get(i), "openScope", e);
            }
        }
        return () -> {
            for (int i = scopes.length - 1; i >= 0; i--) {
                AutoCloseable scope = scopes[i];
                if (scope != null) {
                    try {
                        scope.close();
                    } catch (Exception e) {
                        warn(listeners.get(i), "closing its scope", e);
                    }
                }
            }
        };
    }

    @Override
    public void onOperationEnded(OperationEnded event, @Nullable Object context) {
        @Nullable Object[] contexts = contexts(context);
        for (int i = 0; i < contexts.length; i++) {
            try {
                listeners.get(i).onOperationEnded(event, contexts[i]);
            } catch (RuntimeException e) {
                warn(listeners.get(i), "onOperationEnded", e);
            }
        }
    }

    @Override
    public Runnable propagateContext(Runnable task) {
        Runnable wrapped = task;
        for (int i = listeners.size() - 1; i >= 0; i--) {
            try {
                wrapped = listeners.get(i).propagateContext(wrapped);
            } catch (RuntimeException e) {
                warn(listeners.get(i), "propagateContext", e);
            }
        }
        return wrapped;
    }

    @Override
    public void onDegradedRead(DegradedRead event) {
        for (StorageListener l : listeners) {
            try {
                l.onDegradedRead(event);
            } catch (RuntimeException e) {
                warn(l, "onDegradedRead", e);
            }
        }
    }

    @Override
    public void onUnavailableRead(UnavailableRead event) {
        for (StorageListener l : listeners) {
            try {
                l.onUnavailableRead(event);
            } catch (RuntimeException e) {
                warn(l, "onUnavailableRead", e);
            }
        }
    }

    @Override
    public void onStaleRead(StaleRead event) {
        for (StorageListener l : listeners) {
            try {
                l.onStaleRead(event);
            } catch (RuntimeException e) {
                warn(l, "onStaleRead", e);
            }
        }
    }

    @Override
    public void onIntegrityFailure(IntegrityFailure event) {
        for (StorageListener l : listeners) {
            try {
                l.onIntegrityFailure(event);
            } catch (RuntimeException e) {
                warn(l, "onIntegrityFailure", e);
            }
        }
    }

    @Override
    public void onConditionalWriteRefused(ConditionalWriteRefused event) {
        for (StorageListener l : listeners) {
            try {
                l.onConditionalWriteRefused(event);
            } catch (RuntimeException e) {
                warn(l, "onConditionalWriteRefused", e);
            }
        }
    }

    @Override
    public void onCapabilities(CapabilitiesKnown event) {
        for (StorageListener l : listeners) {
            try {
                l.onCapabilities(event);
            } catch (RuntimeException e) {
                warn(l, "onCapabilities", e);
            }
        }
    }

    private @Nullable Object[] contexts(@Nullable Object context) {
        return context instanceof Object[] array && array.length == listeners.size()
                ? array
                : new Object[listeners.size()];
    }

    private static void warn(StorageListener listener, String step, Exception e) {
        LOG.warn("StorageListener {} failed in {}; ignored", listener, step, e);
    }

    @Override
    public String toString() {
        return "StorageListener.of" + listeners;
    }
}
