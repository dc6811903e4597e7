package dev.ballast.http.internal;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.http.HttpClient;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Calls the lifecycle methods {@code HttpClient} gained in JDK 21 ({@code shutdown},
 * {@code shutdownNow}, {@code awaitTermination}, {@code isTerminated}) on a wrapped client when the
 * running JDK has them. The code is compiled for release 17, where they do not exist, so they are
 * looked up reflectively once; on JDK 17-20 every call is a no-op (and the delegate counts as
 * terminated), because such a client has no lifecycle and is released by garbage collection.
 */
public final class JdkLifecycle {

    private static final @Nullable Method SHUTDOWN = find("shutdown");
    private static final @Nullable Method SHUTDOWN_NOW = find("shutdownNow");
    private static final @Nullable Method AWAIT_TERMINATION = find("awaitTermination", Duration.class);
    private static final @Nullable Method IS_TERMINATED = find("isTerminated");

    private JdkLifecycle() {}

    private static @Nullable Method find(String name, Class<?>... parameters) {
        try {
            return HttpClient.class.getMethod(name, parameters);
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    /** Whether the running JDK's {@code HttpClient} has the JDK 21 lifecycle methods. */
    public static boolean supported() {
        return SHUTDOWN != null;
    }

    public static void shutdown(HttpClient client) {
        invoke(SHUTDOWN, client);
    }

    public static void shutdownNow(HttpClient client) {
        invoke(SHUTDOWN_NOW, client);
    }

    public static boolean isTerminated(HttpClient client) {
        Object terminated = invoke(IS_TERMINATED, client);
        return terminated == null || (Boolean) terminated;
    }

    public static boolean awaitTermination(HttpClient client, Duration duration) throws InterruptedException {
        if (AWAIT_TERMINATION == null) {
            return true;
        }
        try {
            return (Boolean) AWAIT_TERMINATION.invoke(client, duration);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof InterruptedException interrupted) {
                throw interrupted;
            }
            if (e.getCause() instanceof UnsupportedOperationException) {
                return true;
            }
            throw rethrow(e.getCause());
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("HttpClient.awaitTermination is not accessible", e);
        }
    }

    private static @Nullable Object invoke(@Nullable Method method, HttpClient client) {
        if (method == null) {
            return null;
        }
        try {
            return method.invoke(client);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof UnsupportedOperationException) {
                // A custom delegate without a lifecycle: nothing to shut down.
                return null;
            }
            throw rethrow(e.getCause());
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("HttpClient." + method.getName() + " is not accessible", e);
        }
    }

    private static RuntimeException rethrow(Throwable cause) {
        if (cause instanceof RuntimeException runtime) {
            return runtime;
        }
        if (cause instanceof Error error) {
            throw error;
        }
        return new IllegalStateException(cause);
    }
}
