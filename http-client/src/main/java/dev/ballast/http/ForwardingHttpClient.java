package dev.ballast.http;

import dev.ballast.http.internal.JdkLifecycle;
import java.io.IOException;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.ProxySelector;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.PushPromiseHandler;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import org.jspecify.annotations.Nullable;

/**
 * An {@link HttpClient} that forwards every method to another one, {@link #delegate()}: the base of
 * a decorator that changes how some requests are sent and leaves the rest alone (OkHttp's
 * {@code ForwardingSource}, Guava's {@code ForwardingObject}). A subclass overrides what it changes;
 * every configuration accessor, {@code send}, {@code sendAsync}, {@link #newWebSocketBuilder()} and
 * the JDK 21 lifecycle ({@link #shutdown()}, {@link #shutdownNow()},
 * {@link #awaitTermination(Duration)}, {@link #isTerminated()}, {@link #close()}) answer as the
 * delegate does. The lifecycle methods have the JDK 21 signatures, so they override
 * {@code HttpClient}'s on JDK 21+ and still exist on 17, where a delegate without a lifecycle counts
 * as terminated.
 *
 * <p>Thread-safe if the delegate is and {@link #delegate()} always returns the same client.
 *
 * @see ResilientHttpClient
 */
public abstract class ForwardingHttpClient extends HttpClient implements AutoCloseable {

    /** Creates the forwarding client; {@link #delegate()} supplies the client forwarded to. */
    protected ForwardingHttpClient() {}

    /**
     * Returns the client every method forwards to.
     *
     * @return the delegate; always the same
     */
    protected abstract HttpClient delegate();

    @Override
    public Optional<CookieHandler> cookieHandler() {
        return delegate().cookieHandler();
    }

    @Override
    public Optional<Duration> connectTimeout() {
        return delegate().connectTimeout();
    }

    @Override
    public Redirect followRedirects() {
        return delegate().followRedirects();
    }

    @Override
    public Optional<ProxySelector> proxy() {
        return delegate().proxy();
    }

    @Override
    public SSLContext sslContext() {
        return delegate().sslContext();
    }

    @Override
    public SSLParameters sslParameters() {
        return delegate().sslParameters();
    }

    @Override
    public Optional<Authenticator> authenticator() {
        return delegate().authenticator();
    }

    @Override
    public Version version() {
        return delegate().version();
    }

    @Override
    public Optional<Executor> executor() {
        return delegate().executor();
    }

    @Override
    public <T> HttpResponse<T> send(HttpRequest request, BodyHandler<T> responseBodyHandler)
            throws IOException, InterruptedException {
        return delegate().send(request, responseBodyHandler);
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, BodyHandler<T> responseBodyHandler) {
        return delegate().sendAsync(request, responseBodyHandler);
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(
            HttpRequest request,
            BodyHandler<T> responseBodyHandler,
            @Nullable PushPromiseHandler<T> pushPromiseHandler) {
        return delegate().sendAsync(request, responseBodyHandler, pushPromiseHandler);
    }

    /**
     * Returns the delegate's WebSocket builder.
     *
     * @return the delegate's {@link WebSocket.Builder}
     */
    @Override
    public WebSocket.Builder newWebSocketBuilder() {
        return delegate().newWebSocketBuilder();
    }

    /** Forwards {@code shutdown()} to the delegate on JDK 21+; does nothing on 17-20. */
    public void shutdown() {
        JdkLifecycle.shutdown(delegate());
    }

    /** Forwards {@code shutdownNow()} to the delegate on JDK 21+; does nothing on 17-20. */
    public void shutdownNow() {
        JdkLifecycle.shutdownNow(delegate());
    }

    /**
     * Forwards {@code awaitTermination(Duration)} to the delegate on JDK 21+.
     *
     * @param duration the maximum time to wait
     * @return whether the delegate terminated; {@code true} on 17-20
     * @throws InterruptedException if interrupted while waiting
     */
    public boolean awaitTermination(Duration duration) throws InterruptedException {
        return JdkLifecycle.awaitTermination(delegate(), duration);
    }

    /**
     * Forwards {@code isTerminated()} to the delegate on JDK 21+.
     *
     * @return whether the delegate terminated; {@code true} on 17-20
     */
    public boolean isTerminated() {
        return JdkLifecycle.isTerminated(delegate());
    }

    /**
     * Closes the delegate if it can be closed (every {@code HttpClient} on JDK 21+); does nothing
     * otherwise.
     */
    @Override
    public void close() {
        if (delegate() instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("closing " + delegate() + " failed", e);
            }
        }
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + delegate() + "]";
    }
}
