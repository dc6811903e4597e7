package dev.ballast.http.opentelemetry;

import dev.ballast.http.BulkheadFullException;
import dev.ballast.http.CallObserver;
import dev.ballast.http.CallObserver.AttemptDecision;
import dev.ballast.http.CircuitOpenException;
import dev.ballast.http.ConcurrencyLimitExceededException;
import dev.ballast.http.HttpClientListener.RetryDecisionEvent;
import dev.ballast.http.RetryDecision;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapPropagator;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import org.jspecify.annotations.Nullable;

/**
 * The span of one logical call that is recorded, and the client spans of its attempts in flight.
 * What it sets on the spans is computed once per call (the span names are constants, the status codes
 * boxed once); an event is built only for a decision other than success. Thread-safe: a hedged call's
 * attempts end on two threads at once.
 */
final class CallSpan implements CallObserver.Observation {

    static final AttributeKey<String> HTTP_REQUEST_METHOD = AttributeKey.stringKey("http.request.method");
    static final AttributeKey<String> HTTP_REQUEST_METHOD_ORIGINAL =
            AttributeKey.stringKey("http.request.method_original");
    static final AttributeKey<String> URL_FULL = AttributeKey.stringKey("url.full");
    static final AttributeKey<String> SERVER_ADDRESS = AttributeKey.stringKey("server.address");
    static final AttributeKey<Long> SERVER_PORT = AttributeKey.longKey("server.port");
    static final AttributeKey<Long> HTTP_RESPONSE_STATUS_CODE = AttributeKey.longKey("http.response.status_code");
    static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
    static final AttributeKey<Long> HTTP_REQUEST_RESEND_COUNT = AttributeKey.longKey("http.request.resend_count");

    static final AttributeKey<String> DEPENDENCY = AttributeKey.stringKey("ballast.dependency");
    static final AttributeKey<String> CORRELATION_ID = AttributeKey.stringKey("ballast.correlation_id");
    static final AttributeKey<Long> ATTEMPTS = AttributeKey.longKey("ballast.attempts");
    static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("ballast.attempt");
    static final AttributeKey<String> REASON = AttributeKey.stringKey("ballast.reason");
    static final AttributeKey<Long> DELAY_MS = AttributeKey.longKey("ballast.delay_ms");
    static final AttributeKey<Long> RETRY_AFTER_MS = AttributeKey.longKey("ballast.retry_after_ms");
    static final AttributeKey<String> REJECTION = AttributeKey.stringKey("ballast.rejection");
    static final AttributeKey<Long> WAITED_MS = AttributeKey.longKey("ballast.waited_ms");
    static final AttributeKey<Boolean> CANCELLED = AttributeKey.booleanKey("ballast.cancelled");

    /** {@code http.response.status_code} values 0 to 599, boxed once: setting one allocates nothing. */
    private static final Long[] STATUS_CODES = new Long[600];

    static {
        for (int i = 0; i < STATUS_CODES.length; i++) {
            STATUS_CODES[i] = (long) i;
        }
    }

    private static final Long PORT_80 = 80L;
    private static final Long PORT_443 = 443L;

    private final BallastTracing tracing;
    /** The propagator Ballast injects each attempt's context with, or {@code null}: it makes no attempt spans (the agent does). */
    private final @Nullable TextMapPropagator injector;

    private final boolean attemptSpans;
    private final Span span;
    private final Context context;
    private final String method;
    private final @Nullable String methodOriginal;
    private final String url;
    private final @Nullable String host;
    private final @Nullable Long port;

    // guarded by this: the client spans of the attempts in flight (a hedged call's end on two threads)
    private @Nullable Span firstAttempt;
    /** Attempt n (n >= 2) at index n - 2; made only for a call with more than one attempt. */
    private Span @Nullable [] laterAttempts;
    /** The highest attempt number seen. */
    private int lastAttempt;

    private CallSpan(
            BallastTracing tracing,
            Span span,
            Context context,
            String method,
            @Nullable String methodOriginal,
            String url,
            @Nullable String host,
            @Nullable Long port) {
        this.tracing = tracing;
        this.injector = tracing.injector;
        this.attemptSpans = tracing.attemptSpans() == AttemptSpans.BALLAST;
        this.span = span;
        this.context = context;
        this.method = method;
        this.methodOriginal = methodOriginal;
        this.url = url;
        this.host = host;
        this.port = port;
    }

    /**
     * Starts the call's span, with the attributes the semantic conventions ask to be given at its start
     * (a sampler may read them), and returns the call's observation: a {@link CallSpan} when the span
     * records, else an {@link UnrecordedCall} that only carries the context.
     */
    static CallObserver.Observation start(BallastTracing tracing, CallObserver.CallStart call, Context parent) {
        HttpRequest request = call.request();
        String original = request.method();
        String callSpanName = callSpanName(original);
        String method = callSpanName == null ? "_OTHER" : original;
        URI uri = request.uri();
        String url = urlFull(uri);
        String host = uri.getHost();
        Long port = port(uri);
        SpanBuilder builder = tracing.tracer
                .spanBuilder(callSpanName == null ? "ballast _OTHER" : callSpanName)
                .setSpanKind(SpanKind.INTERNAL)
                .setParent(parent);
        requestAttributes(builder, method, callSpanName == null ? original : null, url, host, port);
        Span span = builder.setAttribute(DEPENDENCY, call.dependency())
                .setAttribute(CORRELATION_ID, call.correlationId())
                .startSpan();
        Context context = parent.with(span);
        if (!span.isRecording()) {
            return new UnrecordedCall(context, tracing.injector);
        }
        return new CallSpan(tracing, span, context, method, callSpanName == null ? original : null, url, host, port);
    }

    private static void requestAttributes(
            SpanBuilder builder,
            String method,
            @Nullable String methodOriginal,
            String url,
            @Nullable String host,
            @Nullable Long port) {
        builder.setAttribute(HTTP_REQUEST_METHOD, method);
        if (methodOriginal != null) {
            builder.setAttribute(HTTP_REQUEST_METHOD_ORIGINAL, methodOriginal);
        }
        builder.setAttribute(URL_FULL, url);
        if (host != null) {
            builder.setAttribute(SERVER_ADDRESS, host);
        }
        if (port != null) {
            builder.setAttribute(SERVER_PORT, port);
        }
    }

    /** The call span's name for a method the semantic conventions name, or {@code null} for any other. */
    private static @Nullable String callSpanName(String method) {
        return switch (method) {
            case "GET" -> "ballast GET";
            case "POST" -> "ballast POST";
            case "PUT" -> "ballast PUT";
            case "DELETE" -> "ballast DELETE";
            case "HEAD" -> "ballast HEAD";
            case "PATCH" -> "ballast PATCH";
            case "OPTIONS" -> "ballast OPTIONS";
            case "CONNECT" -> "ballast CONNECT";
            case "TRACE" -> "ballast TRACE";
            default -> null;
        };
    }

    /**
     * {@code url.full}: the URI without its query, fragment and user info (which may carry credentials).
     * For the usual URI (a host, a path, no user info) a prefix of its string form, which the URI keeps.
     */
    static String urlFull(URI uri) {
        String rawPath = uri.getRawPath();
        String host = uri.getHost();
        String authority = uri.getRawAuthority();
        if (host != null
                && authority != null
                && uri.getRawUserInfo() == null
                && authority.length() == host.length() + portLength(uri.getPort())
                && rawPath != null
                && !rawPath.isEmpty()) {
            String whole = uri.toString(); // scheme "://" host [":" port] path ["?" query] ["#" fragment]
            for (int i = 0; i < whole.length(); i++) {
                char c = whole.charAt(i);
                if (c == '?' || c == '#') {
                    return whole.substring(0, i);
                }
            }
            return whole;
        }
        StringBuilder url = new StringBuilder();
        if (uri.getScheme() != null) {
            url.append(uri.getScheme()).append("://");
        }
        if (uri.getHost() != null) {
            url.append(uri.getHost());
        }
        if (uri.getPort() >= 0) {
            url.append(':').append(uri.getPort());
        }
        url.append(rawPath == null || rawPath.isEmpty() ? "/" : rawPath);
        return url.toString();
    }

    /** The length of {@code ":" + port} in a URI's authority, 0 for no port. */
    private static int portLength(int port) {
        if (port < 0) {
            return 0;
        }
        int digits = 1;
        for (int p = port; p >= 10; p /= 10) {
            digits++;
        }
        return 1 + digits;
    }

    private static @Nullable Long port(URI uri) {
        int port = uri.getPort();
        if (port >= 0) {
            return port == 80 ? PORT_80 : port == 443 ? PORT_443 : Long.valueOf(port);
        }
        String scheme = uri.getScheme();
        return "https".equalsIgnoreCase(scheme) ? PORT_443 : "http".equalsIgnoreCase(scheme) ? PORT_80 : null;
    }

    private static Long statusCode(int status) {
        return status >= 0 && status < STATUS_CODES.length ? STATUS_CODES[status] : Long.valueOf(status);
    }

    /** Makes {@code context} current; the scope to close, none when it was current already. */
    static CallObserver.Scope makeCurrent(Context context) {
        io.opentelemetry.context.Scope scope = context.makeCurrent();
        return scope == io.opentelemetry.context.Scope.noop() ? CallObserver.Scope.NONE : scope::close;
    }

    @Override
    public CallObserver.Scope makeCurrent() {
        return makeCurrent(context);
    }

    @Override
    public HttpRequest attemptSending(int attempt, HttpRequest request) {
        if (!attemptSpans) {
            synchronized (this) {
                lastAttempt = Math.max(lastAttempt, attempt);
            }
            return request; // the agent's instrumentation of the JDK client makes the span and injects
        }
        SpanBuilder builder =
                tracing.tracer.spanBuilder(method).setSpanKind(SpanKind.CLIENT).setParent(context);
        requestAttributes(builder, method, methodOriginal, url, host, port);
        builder.setAttribute(ATTEMPT, (long) attempt);
        if (attempt > 1) {
            builder.setAttribute(HTTP_REQUEST_RESEND_COUNT, (long) attempt - 1);
        }
        Span client = builder.startSpan();
        Span earlier;
        synchronized (this) {
            lastAttempt = Math.max(lastAttempt, attempt);
            earlier = swapAttempt(attempt, client);
        }
        if (earlier != null) {
            earlier.end(); // not expected: one span per attempt number
        }
        TextMapPropagator propagator = injector;
        return propagator == null ? request : RequestCarrier.inject(propagator, context.with(client), request);
    }

    /** Holds {@code client} (or, when null, takes) as attempt {@code attempt}'s span; returns what was held. Under the lock. */
    private @Nullable Span swapAttempt(int attempt, @Nullable Span client) {
        if (attempt <= 1) {
            Span held = firstAttempt;
            firstAttempt = client;
            return held;
        }
        Span[] later = laterAttempts;
        int index = attempt - 2;
        if (later == null || index >= later.length) {
            if (client == null) {
                return null;
            }
            Span[] grown = new Span[Math.max(index + 1, 4)];
            if (later != null) {
                System.arraycopy(later, 0, grown, 0, later.length);
            }
            laterAttempts = later = grown;
        }
        Span held = later[index];
        later[index] = client;
        return held;
    }

    @Override
    public void attemptDecided(AttemptDecision decision) {
        RetryDecisionEvent e = decision.event();
        int attempt = e.attempt();
        Span client;
        synchronized (this) {
            lastAttempt = Math.max(lastAttempt, attempt);
            client = swapAttempt(attempt, null);
        }
        if (client != null) {
            if (e.statusCode() >= 0) {
                client.setAttribute(HTTP_RESPONSE_STATUS_CODE, statusCode(e.statusCode()));
            }
            String errorType = errorType(e);
            if (errorType != null) {
                client.setAttribute(ERROR_TYPE, errorType);
                client.setStatus(StatusCode.ERROR);
            }
            client.end();
        }
        if (e.decision() == RetryDecision.SUCCEEDED) {
            return; // nothing happened worth an event
        }
        AttributesBuilder attributes = Attributes.builder().put(ATTEMPT, (long) attempt);
        switch (e.decision()) {
            case RETRYING -> {
                outcome(attributes, e);
                span.addEvent(
                        "ballast.retry",
                        attributes
                                .put(REASON, e.reason())
                                .put(DELAY_MS, e.delay().toMillis())
                                .build());
                Duration retryAfter = decision.retryAfter();
                if (retryAfter != null) {
                    span.addEvent(
                            "ballast.retry_after",
                            Attributes.builder()
                                    .put(ATTEMPT, (long) attempt)
                                    .put(RETRY_AFTER_MS, retryAfter.toMillis())
                                    .put(DELAY_MS, e.delay().toMillis())
                                    .build());
                }
            }
            case REJECTED ->
                span.addEvent(
                        "ballast.rejected",
                        attributes
                                .put(REJECTION, rejection(decision.failure()))
                                .put(REASON, e.reason())
                                .build());
            case GAVE_UP -> {
                outcome(attributes, e);
                String name =
                        e.reason().contains("retry budget") ? "ballast.retry_budget_exhausted" : "ballast.gave_up";
                span.addEvent(name, attributes.put(REASON, e.reason()).build());
            }
            default -> {
                outcome(attributes, e);
                span.addEvent(
                        "ballast.not_retried",
                        attributes.put(REASON, e.reason()).build());
            }
        }
    }

    private static void outcome(AttributesBuilder attributes, RetryDecisionEvent e) {
        if (e.statusCode() >= 0) {
            attributes.put(HTTP_RESPONSE_STATUS_CODE, statusCode(e.statusCode()));
        } else if (e.errorClass() != null) {
            attributes.put(ERROR_TYPE, e.errorClass());
        }
    }

    /** The semantic conventions' {@code error.type}: the status code of a 4xx or 5xx, else the exception's class. */
    private static @Nullable String errorType(RetryDecisionEvent e) {
        if (e.statusCode() >= 400) {
            return Integer.toString(e.statusCode());
        }
        return e.statusCode() < 0 ? e.errorClass() : null;
    }

    private static String rejection(@Nullable Throwable failure) {
        if (failure instanceof CircuitOpenException) {
            return "circuit_open";
        }
        if (failure instanceof BulkheadFullException) {
            return "bulkhead_full";
        }
        if (failure instanceof ConcurrencyLimitExceededException) {
            return "concurrency_limit";
        }
        return "other";
    }

    @Override
    public void hedgeStarted(int attempt, Duration waited) {
        span.addEvent(
                "ballast.hedge",
                Attributes.builder()
                        .put(ATTEMPT, (long) attempt)
                        .put(WAITED_MS, waited.toMillis())
                        .build());
    }

    @Override
    public void attemptCancelled(int attempt) {
        span.addEvent("ballast.hedge_cancelled", Attributes.of(ATTEMPT, (long) attempt));
        Span client;
        synchronized (this) {
            client = swapAttempt(attempt, null);
        }
        endCancelled(client);
    }

    private static void endCancelled(@Nullable Span client) {
        if (client != null) {
            client.setAttribute(CANCELLED, true);
            client.end();
        }
    }

    @Override
    public void callEnded(@Nullable HttpResponse<?> response, @Nullable Throwable failure) {
        Span first;
        Span[] later;
        int attempts;
        synchronized (this) {
            first = firstAttempt;
            later = laterAttempts;
            attempts = lastAttempt;
            firstAttempt = null;
            laterAttempts = null;
        }
        endCancelled(first); // in flight as the call ended: being cancelled
        if (later != null) {
            for (Span client : later) {
                endCancelled(client);
            }
        }
        span.setAttribute(ATTEMPTS, (long) attempts);
        if (response != null) {
            int status = response.statusCode();
            span.setAttribute(HTTP_RESPONSE_STATUS_CODE, statusCode(status));
            if (status >= 400) {
                span.setAttribute(ERROR_TYPE, Integer.toString(status));
                span.setStatus(StatusCode.ERROR);
            }
        } else if (failure != null) {
            if (failure instanceof CancellationException) {
                span.addEvent("ballast.cancelled");
            }
            span.setAttribute(ERROR_TYPE, failure.getClass().getName());
            span.setStatus(StatusCode.ERROR, failure.getClass().getSimpleName());
        }
        span.end();
    }
}
