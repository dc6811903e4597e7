package dev.ballast.http.internal;

import dev.ballast.http.ReplayableBodyPublisher;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/** Request inspection and copying for the pipeline. Stateless. */
public final class Requests {

    /**
     * JDK body publishers that re-emit the same bytes on every subscription: byte arrays and strings
     * hold their content, {@code ofFile} re-opens the file, {@code noBody} is empty. Matched by class
     * name because the JDK exposes no "replayable" marker.
     */
    private static final Set<String> REPLAYABLE_JDK_PUBLISHERS = Set.of(
            "jdk.internal.net.http.RequestPublishers$ByteArrayPublisher",
            "jdk.internal.net.http.RequestPublishers$StringPublisher",
            "jdk.internal.net.http.RequestPublishers$EmptyPublisher",
            "jdk.internal.net.http.RequestPublishers$FilePublisher");

    /** The class of the client {@code HttpClient.newBuilder().build()} returns, on JDK 17 through 25. */
    private static final String JDK_CLIENT_CLASS = "jdk.internal.net.http.HttpClientFacade";

    private Requests() {}

    /**
     * Whether {@code client} is the JDK's own implementation, which enforces a request's
     * {@link HttpRequest#timeout()} until the response headers arrive, failing with
     * {@code HttpTimeoutException}.
     */
    static boolean isJdkClient(HttpClient client) {
        if (client instanceof RedirectFollowingClient redirecting) {
            return isJdkClient(redirecting.raw()); // every hop is the JDK's own exchange
        }
        return JDK_CLIENT_CLASS.equals(client.getClass().getName());
    }

    /**
     * The default dependency key: {@code scheme://host:port}, with the scheme's default port filled
     * in so that {@code https://a} and {@code https://a:443} share one breaker.
     *
     * @param request the request
     * @return the dependency key, lower-case scheme and host
     */
    public static String defaultDependency(HttpRequest request) {
        URI uri = request.uri();
        String scheme = uri.getScheme() == null ? "http" : uri.getScheme().toLowerCase(Locale.ROOT);
        String host = uri.getHost() == null
                ? String.valueOf(uri.getAuthority())
                : uri.getHost().toLowerCase(Locale.ROOT);
        int port = uri.getPort() != -1 ? uri.getPort() : "https".equals(scheme) ? 443 : 80;
        return scheme + "://" + host + ":" + port;
    }

    /**
     * Normalises a dependency key given to the client builder the way {@link #defaultDependency}
     * resolves a request's: lower-case scheme and host, the scheme's default port filled in, path
     * dropped. So {@code "http://127.0.0.1:8080/"}, {@code "HTTPS://API.example.com"} and
     * {@code "https://api.example.com:443/v1"} name the dependencies their requests resolve to.
     *
     * @param key the key as given
     * @return the normalised key, {@code scheme://host:port}
     * @throws IllegalArgumentException if {@code key} cannot be the key of any request: not an
     *     absolute {@code http} or {@code https} URI with a host, or with user info, a query or a fragment
     */
    public static String normalizedDependencyKey(String key) {
        URI uri;
        try {
            uri = new URI(key.strip());
        } catch (URISyntaxException e) {
            throw notADependency(key, "it is not a URI (" + e.getReason() + ")");
        }
        String scheme = uri.getScheme() == null ? null : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!"http".equals(scheme) && !"https".equals(scheme)) {
            throw notADependency(key, "its scheme is not http or https");
        }
        if (uri.getHost() == null) {
            throw notADependency(key, "it has no host");
        }
        if (uri.getRawUserInfo() != null || uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw notADependency(key, "it has user info, a query or a fragment");
        }
        int port = uri.getPort() != -1 ? uri.getPort() : "https".equals(scheme) ? 443 : 80;
        return scheme + "://" + uri.getHost().toLowerCase(Locale.ROOT) + ":" + port;
    }

    private static IllegalArgumentException notADependency(String key, String why) {
        return new IllegalArgumentException("dependency key '" + key + "' cannot name a dependency because " + why
                + "; the default dependency resolver names each by its origin, such as 'https://api.example.com:443'");
    }

    /**
     * The default dependency resolver, {@link #defaultDependency(HttpRequest)} with a cache by
     * scheme and authority, so a call to a known origin builds no string. The cache holds at most
     * {@value #MAX_CACHED} origins and starts afresh when full. Thread-safe.
     */
    public static final class DefaultDependencyResolver implements java.util.function.Function<HttpRequest, String> {

        static final int MAX_CACHED = 1024;

        private record Known(String scheme, String dependency) {}

        private final java.util.concurrent.ConcurrentHashMap<String, Known> byAuthority =
                new java.util.concurrent.ConcurrentHashMap<>();

        @Override
        public String apply(HttpRequest request) {
            URI uri = request.uri();
            String authority = uri.getRawAuthority();
            String scheme = uri.getScheme();
            if (authority == null || scheme == null) {
                return defaultDependency(request);
            }
            Known known = byAuthority.get(authority);
            if (known != null && known.scheme().equals(scheme)) {
                return known.dependency();
            }
            String dependency = defaultDependency(request);
            if (byAuthority.size() >= MAX_CACHED) {
                byAuthority.clear();
            }
            byAuthority.put(authority, new Known(scheme, dependency));
            return dependency;
        }
    }

    /**
     * The request path for logs: the raw path only, never the query string or fragment, which may
     * carry credentials such as pre-signed URL signatures.
     */
    static String loggablePath(HttpRequest request) {
        String path = request.uri().getRawPath();
        return path == null || path.isEmpty() ? "/" : path;
    }

    /**
     * Whether the request carries a header {@code name} (case-insensitive, as
     * {@link java.net.http.HttpHeaders} compares names) with at least one value: what
     * {@code headers().firstValue(name).isPresent()} says, without building a stream and an
     * {@code Optional} for every call.
     */
    static boolean hasHeader(HttpRequest request, String name) {
        List<String> values = request.headers().map().get(name);
        return values != null && !values.isEmpty();
    }

    /** Whether the request's body says its effect is not idempotent, whatever its method. */
    static boolean declaredNonIdempotent(HttpRequest request) {
        return request.bodyPublisher()
                .filter(p -> p instanceof ReplayableBodyPublisher r && r.isNonIdempotent())
                .isPresent();
    }

    /** Whether a retry may re-send this request's body; see {@link ReplayableBodyPublisher}. */
    static boolean bodyReplayable(HttpRequest request) {
        Optional<BodyPublisher> body = request.bodyPublisher();
        if (body.isEmpty()) {
            return true;
        }
        BodyPublisher publisher = body.get();
        return publisher instanceof ReplayableBodyPublisher
                || publisher.contentLength() == 0
                || REPLAYABLE_JDK_PUBLISHERS.contains(publisher.getClass().getName());
    }

    /**
     * Returns {@code request} with {@code headerName: key} set, every other property (method, body
     * publisher, headers, timeout, version, expect-continue) copied unchanged.
     */
    static HttpRequest withHeader(HttpRequest request, String headerName, String key) {
        return HttpRequest.newBuilder(request, (name, value) -> true)
                .setHeader(headerName, key)
                .build();
    }
}
