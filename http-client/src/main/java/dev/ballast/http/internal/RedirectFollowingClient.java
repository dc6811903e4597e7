package dev.ballast.http.internal;

import dev.ballast.http.ForwardingHttpClient;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.BodySubscribers;
import java.net.http.HttpResponse.PushPromiseHandler;
import java.net.http.HttpResponse.ResponseInfo;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiPredicate;
import javax.net.ssl.SSLSession;
import org.jspecify.annotations.Nullable;

/**
 * Follows redirects in place of the JDK client, which is built with {@code Redirect.NEVER}: the JDK's
 * own hop forwards {@code Authorization}, {@code Cookie} and every other header to any origin on JDK
 * 17 (JDK 21+ drop some of them), and on every JDK it forwards the idempotency key. Here a hop to
 * another origin (scheme, host or port differs) drops {@code Authorization},
 * {@code Proxy-Authorization}, {@code Cookie}, {@code Origin}, {@code Referer} and the idempotency
 * key header, as the Fetch standard (§4.4 HTTP-redirect fetch), curl ({@code --location} without
 * {@code --location-trusted}) and OkHttp ({@code RetryAndFollowUpInterceptor}) do, and the JDK 21+
 * does for its own list.
 *
 * <p>Every other rule is the JDK's ({@code jdk.internal.net.http.RedirectFilter}), so switching from
 * the JDK's redirects to these changes nothing else: 301, 302, 303, 307 and 308 are followed (not
 * 300, 304, 305, 306); 301 and 302 turn a POST into a GET, 303 turns any method into a GET, 307 and
 * 308 keep the method and the body (a body is sent again only when the method is kept, and never
 * after a 303); a relative {@code Location} is resolved against the request's URI; {@code NORMAL}
 * follows a redirect to the same scheme or to https, never https to http, {@code ALWAYS} any;
 * at most {@code jdk.httpclient.redirects.retrylimit} (default 5) responses in a chain are redirects,
 * the last one being returned as it is. Two leniencies the JDK lacks: a {@code Location} with a space
 * or a non-ASCII character is percent-encoded as browsers do rather than failing the exchange, and a
 * redirect without a usable {@code Location} (missing, not http or https) is returned as it is (as
 * curl and OkHttp do) instead of failing with "Invalid redirection".
 *
 * <p>The response handed back is the last hop's, its {@link HttpResponse#request()} the request of
 * that hop and {@link HttpResponse#previousResponse()} the redirects before it (bodies {@code null}),
 * as the JDK's. The caller's body handler runs for the last response only; a redirect's body is
 * discarded. Cancelling the future of {@code sendAsync} cancels the hop in flight. Thread-safe.
 */
public final class RedirectFollowingClient extends ForwardingHttpClient {

    /** The JDK's property for the redirect limit, honoured the same way. */
    static final String MAX_REDIRECTS_PROPERTY = "jdk.httpclient.redirects.retrylimit";

    static final int DEFAULT_MAX_REDIRECTS = 5;

    private static final Set<String> CROSS_ORIGIN_DROPPED =
            caseInsensitive("Authorization", "Proxy-Authorization", "Cookie", "Cookie2", "Origin", "Referer");

    private final HttpClient raw;
    private final Redirect policy;
    private final Set<String> droppedAcrossOrigins;
    private final int maxRedirects;

    /**
     * @param raw the client every hop is sent with; it must not follow redirects itself
     * @param policy the caller's redirect policy, {@code NORMAL} or {@code ALWAYS}
     * @param idempotencyKeyHeader the idempotency key header, dropped on a cross-origin hop too
     */
    public RedirectFollowingClient(HttpClient raw, Redirect policy, String idempotencyKeyHeader) {
        this.raw = Objects.requireNonNull(raw, "raw");
        this.policy = Objects.requireNonNull(policy, "policy");
        Set<String> dropped = caseInsensitive(idempotencyKeyHeader);
        dropped.addAll(CROSS_ORIGIN_DROPPED);
        this.droppedAcrossOrigins = dropped;
        this.maxRedirects = maxRedirects();
    }

    private static Set<String> caseInsensitive(String... names) {
        Set<String> set = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
        set.addAll(Set.of(names));
        return set;
    }

    private static int maxRedirects() {
        try {
            return Integer.getInteger(MAX_REDIRECTS_PROPERTY, DEFAULT_MAX_REDIRECTS);
        } catch (SecurityException e) {
            return DEFAULT_MAX_REDIRECTS;
        }
    }

    @Override
    protected HttpClient delegate() {
        return raw;
    }

    /** The client the hops are sent with. */
    HttpClient raw() {
        return raw;
    }

    /** The caller's policy: this client follows redirects, though the one it sends with does not. */
    @Override
    public Redirect followRedirects() {
        return policy;
    }

    @Override
    public <T> HttpResponse<T> send(HttpRequest request, BodyHandler<T> handler)
            throws IOException, InterruptedException {
        HttpRequest hop = request;
        @Nullable HttpResponse<T> previous = null;
        for (int redirects = 0; ; redirects++) {
            Hop<T> h = new Hop<>(hop, handler, redirects);
            HttpResponse<T> response = raw.send(hop, h);
            HttpResponse<T> chained = Chained.of(response, previous);
            HttpRequest next = h.next(response);
            if (next == null) {
                return chained;
            }
            previous = chained;
            hop = next;
        }
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, BodyHandler<T> handler) {
        return sendAsync(request, handler, null);
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(
            HttpRequest request, BodyHandler<T> handler, @Nullable PushPromiseHandler<T> pushPromiseHandler) {
        Chain<T> chain = new Chain<>();
        step(chain, request, handler, pushPromiseHandler, null, 0);
        return chain;
    }

    private <T> void step(
            Chain<T> chain,
            HttpRequest hop,
            BodyHandler<T> handler,
            @Nullable PushPromiseHandler<T> push,
            @Nullable HttpResponse<T> previous,
            int redirects) {
        if (chain.isDone()) {
            return;
        }
        Hop<T> h = new Hop<>(hop, handler, redirects);
        CompletableFuture<HttpResponse<T>> exchange;
        try {
            exchange = push == null ? raw.sendAsync(hop, h) : raw.sendAsync(hop, h, push);
        } catch (RuntimeException e) {
            chain.completeExceptionally(e);
            return;
        }
        chain.current = exchange;
        if (chain.isDone()) {
            exchange.cancel(true); // cancelled while this hop was being sent
            return;
        }
        exchange.whenComplete((response, failure) -> {
            if (failure != null) {
                chain.completeExceptionally(failure);
                return;
            }
            HttpResponse<T> chained = Chained.of(response, previous);
            HttpRequest next;
            try {
                next = h.next(response);
            } catch (RuntimeException e) {
                chain.completeExceptionally(e);
                return;
            }
            if (next == null) {
                chain.complete(chained);
            } else {
                step(chain, next, handler, push, chained, redirects + 1);
            }
        });
    }

    /** The caller's future: cancelling it cancels the hop in flight. */
    private static final class Chain<T> extends CompletableFuture<HttpResponse<T>> {
        volatile @Nullable CompletableFuture<HttpResponse<T>> current;

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            boolean cancelled = super.cancel(mayInterruptIfRunning);
            CompletableFuture<HttpResponse<T>> hop = current;
            if (hop != null) {
                hop.cancel(true); // the JDK aborts the exchange
            }
            return cancelled;
        }
    }

    /**
     * One hop's body handler: decides on the status line and headers whether the response is a
     * redirect to follow (its body is then discarded) or the answer (the caller's handler runs).
     */
    private final class Hop<T> implements BodyHandler<T> {
        private final HttpRequest request;
        private final BodyHandler<T> handler;
        private final int redirects;
        private volatile boolean decided;
        private volatile @Nullable HttpRequest next;

        Hop(HttpRequest request, BodyHandler<T> handler, int redirects) {
            this.request = request;
            this.handler = handler;
            this.redirects = redirects;
        }

        @Override
        public BodySubscriber<T> apply(ResponseInfo info) {
            HttpRequest target = redirectTarget(request, info.statusCode(), info.headers(), redirects);
            next = target;
            decided = true;
            return target != null ? BodySubscribers.replacing(null) : handler.apply(info);
        }

        /** The next hop's request after {@code response}, or {@code null} when it is the answer. */
        @Nullable
        HttpRequest next(HttpResponse<?> response) {
            return decided ? next : redirectTarget(request, response.statusCode(), response.headers(), redirects);
        }
    }

    /**
     * The request a response redirects to, or {@code null} when it is not followed. The JDK's rules
     * ({@code RedirectFilter.handleResponse}), but for the headers dropped across origins.
     */
    @Nullable
    HttpRequest redirectTarget(HttpRequest request, int status, HttpHeaders headers, int redirectsSoFar) {
        if (policy == Redirect.NEVER || !isRedirecting(status)) {
            return null;
        }
        Optional<String> location = headers.firstValue("Location");
        if (location.isEmpty()) {
            return null;
        }
        URI target = resolveLocation(request.uri(), location.get());
        if (target == null || !canRedirect(policy, request.uri(), target) || redirectsSoFar + 1 >= maxRedirects) {
            return null;
        }
        String method = redirectedMethod(status, request.method());
        boolean keepBody = status != 303 && method.equals(request.method());
        BiPredicate<String, String> keep = sameOrigin(request.uri(), target)
                ? (name, value) -> true
                : (name, value) -> !droppedAcrossOrigins.contains(name);
        HttpRequest.BodyPublisher body =
                keepBody ? request.bodyPublisher().orElse(BodyPublishers.noBody()) : BodyPublishers.noBody();
        return HttpRequest.newBuilder(request, keep)
                .uri(target)
                .method(method, body)
                .build();
    }

    /** RFC 9110 §15.4: the JDK follows 301, 302, 303, 307 and 308. */
    static boolean isRedirecting(int status) {
        return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
    }

    /** The JDK's method change: 301 and 302 turn a POST into a GET, 303 anything into a GET. */
    static String redirectedMethod(int status, String method) {
        return switch (status) {
            case 301, 302 -> method.equals("POST") ? "GET" : method;
            case 303 -> "GET";
            default -> method;
        };
    }

    /** {@code NORMAL}: the same scheme, or to https; never https to http. {@code ALWAYS}: any. */
    static boolean canRedirect(Redirect policy, URI from, URI to) {
        String newScheme = to.getScheme();
        return switch (policy) {
            case ALWAYS -> true;
            case NEVER -> false;
            case NORMAL -> newScheme.equalsIgnoreCase(from.getScheme()) || newScheme.equalsIgnoreCase("https");
        };
    }

    /** RFC 6454 origin: scheme, host and port, the default port filled in. */
    static boolean sameOrigin(URI a, URI b) {
        return a.getScheme().equalsIgnoreCase(b.getScheme())
                && a.getHost() != null
                && a.getHost().equalsIgnoreCase(b.getHost())
                && port(a) == port(b);
    }

    private static int port(URI uri) {
        if (uri.getPort() != -1) {
            return uri.getPort();
        }
        return "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
    }

    /**
     * Resolves a {@code Location} value (RFC 9110 §10.2.2) against the request's URI; a value with
     * characters a URI may not hold (a space, non-ASCII) is percent-encoded first as browsers do
     * (WHATWG URL). The fragment is dropped (it is never sent). {@code null} when it is still no
     * http or https URI with a host.
     */
    static @Nullable URI resolveLocation(URI base, String location) {
        String value = location.strip();
        if (value.isEmpty()) {
            return null;
        }
        URI reference;
        try {
            reference = new URI(value);
        } catch (URISyntaxException e) {
            try {
                reference = new URI(percentEncodeIllegal(value));
            } catch (URISyntaxException stillNot) {
                return null;
            }
        }
        URI resolved;
        try {
            resolved = base.resolve(reference);
        } catch (IllegalArgumentException e) {
            return null;
        }
        String scheme = resolved.getScheme();
        if (scheme == null
                || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))
                || resolved.getHost() == null) {
            return null;
        }
        // Non-ASCII characters java.net.URI lets through are sent percent-encoded in UTF-8, as browsers send them.
        String ascii = resolved.toASCIIString();
        int fragment = ascii.indexOf('#');
        resolved = URI.create(fragment < 0 ? ascii : ascii.substring(0, fragment));
        return resolved;
    }

    private static String percentEncodeIllegal(String value) {
        StringBuilder out = new StringBuilder(value.length() + 16);
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c > 0x20 && c < 0x7f && "\"<>\\^`{|}".indexOf(c) < 0) {
                out.append(c);
            } else {
                int end = Character.isHighSurrogate(c) && i + 1 < value.length() ? i + 2 : i + 1;
                for (byte b : value.substring(i, end).getBytes(StandardCharsets.UTF_8)) {
                    out.append('%').append(String.format("%02X", b & 0xff));
                }
                i = end - 1;
            }
        }
        return out.toString();
    }

    @Override
    public String toString() {
        return "RedirectFollowingClient[" + policy + ", " + raw + "]";
    }

    /**
     * A hop's response with the redirects before it as {@link #previousResponse()}, as the JDK's
     * redirected response has them.
     */
    private record Chained<T>(HttpResponse<T> response, HttpResponse<T> previous) implements HttpResponse<T> {

        static <T> HttpResponse<T> of(HttpResponse<T> response, @Nullable HttpResponse<T> previous) {
            return previous == null ? response : new Chained<>(response, previous);
        }

        @Override
        public int statusCode() {
            return response.statusCode();
        }

        @Override
        public HttpRequest request() {
            return response.request();
        }

        @Override
        public Optional<HttpResponse<T>> previousResponse() {
            return Optional.of(previous);
        }

        @Override
        public HttpHeaders headers() {
            return response.headers();
        }

        @Override
        public T body() {
            return response.body();
        }

        @Override
        public Optional<SSLSession> sslSession() {
            return response.sslSession();
        }

        @Override
        public URI uri() {
            return response.uri();
        }

        @Override
        public HttpClient.Version version() {
            return response.version();
        }

        @Override
        public String toString() {
            return response.toString();
        }
    }
}
