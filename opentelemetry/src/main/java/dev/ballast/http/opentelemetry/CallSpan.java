package dev.ballast.http.opentelemetry;

import dev.ballast.http.BulkheadFullException;
import dev.ballast.http.CallObserver;
import dev.ballast.http.CallObserver.AttemptDecision;
import dev.ballast.http.CircuitOpenException;
import dev.ballast.http.ConcurrencyLimitExceededException;
import dev.ballast.http.HttpClientListener.RetryDecisionEvent;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The span of one logical call, and the client spans of its attempts in flight. Thread-safe: a hedged
 * call's attempts end on two threads at once.
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

    /** The methods the semantic conventions name; any other is {@code _OTHER}. */
    private static final Set<String> KNOWN_METHODS =
            Set.of("CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "TRACE");

    private final BallastTracing tracing;
    private final boolean attemptSpans;
    private final Span span;
    private final Context context;
    private final Attributes requestAttributes;
    private final String method;
    private final Map<Integer, Span> attempts = new ConcurrentHashMap<>();
    private final AtomicInteger lastAttempt = new AtomicInteger();

    CallSpan(BallastTracing tracing, CallObserver.CallStart call, boolean attemptSpans) {
        this.tracing = tracing;
        this.attemptSpans = attemptSpans;
        HttpRequest request = call.request();
        String original = request.method();
        this.method = KNOWN_METHODS.contains(original) ? original : "_OTHER";
        AttributesBuilder attributes = Attributes.builder().put(HTTP_REQUEST_METHOD, method);
        if (!method.equals(original)) {
            attributes.put(HTTP_REQUEST_METHOD_ORIGINAL, original);
        }
        URI uri = request.uri();
        attributes.put(URL_FULL, withoutQuery(uri));
        if (uri.getHost() != null) {
            attributes.put(SERVER_ADDRESS, uri.getHost());
        }
        int port = port(uri);
        if (port > 0) {
            attributes.put(SERVER_PORT, (long) port);
        }
        this.requestAttributes = attributes.build();
        Context parent = Context.current();
        this.span = tracing.tracer
                .spanBuilder("ballast " + method)
                .setSpanKind(SpanKind.INTERNAL)
                .setParent(parent)
                .setAllAttributes(requestAttributes)
                .setAttribute(DEPENDENCY, call.dependency())
                .setAttribute(CORRELATION_ID, call.correlationId())
                .startSpan();
        this.context = parent.with(span);
    }

    private static String withoutQuery(URI uri) {
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
        url.append(uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath());
        return url.toString();
    }

    private static int port(URI uri) {
        if (uri.getPort() >= 0) {
            return uri.getPort();
        }
        return "https".equalsIgnoreCase(uri.getScheme()) ? 443 : "http".equalsIgnoreCase(uri.getScheme()) ? 80 : -1;
    }

    @Override
    public CallObserver.Scope makeCurrent() {
        io.opentelemetry.context.Scope scope = context.makeCurrent();
        return scope::close;
    }

    @Override
    public HttpRequest attemptSending(int attempt, HttpRequest request) {
        lastAttempt.accumulateAndGet(attempt, Math::max);
        if (!attemptSpans) {
            return request; // the agent's instrumentation of the JDK client makes the span and injects
        }
        SpanBuilder builder = tracing.tracer
                .spanBuilder(method)
                .setSpanKind(SpanKind.CLIENT)
                .setParent(context)
                .setAllAttributes(requestAttributes)
                .setAttribute(ATTEMPT, (long) attempt);
        if (attempt > 1) {
            builder.setAttribute(HTTP_REQUEST_RESEND_COUNT, (long) attempt - 1);
        }
        Span client = builder.startSpan();
        Span earlier = attempts.put(attempt, client);
        if (earlier != null) {
            earlier.end(); // not expected: one span per attempt number
        }
        HttpRequest.Builder copy = HttpRequest.newBuilder(request, (name, value) -> true);
        tracing.propagator.inject(context.with(client), copy, HttpRequest.Builder::setHeader);
        return copy.build();
    }

    @Override
    public void attemptDecided(AttemptDecision decision) {
        RetryDecisionEvent e = decision.event();
        int attempt = e.attempt();
        lastAttempt.accumulateAndGet(attempt, Math::max);
        Span client = attempts.remove(attempt);
        if (client != null) {
            if (e.statusCode() >= 0) {
                client.setAttribute(HTTP_RESPONSE_STATUS_CODE, (long) e.statusCode());
            }
            String errorType = errorType(e);
            if (errorType != null) {
                client.setAttribute(ERROR_TYPE, errorType);
                client.setStatus(StatusCode.ERROR);
            }
            client.end();
        }
        AttributesBuilder attributes = Attributes.builder().put(ATTEMPT, (long) attempt);
        switch (e.decision()) {
            case SUCCEEDED -> {
                return;
            }
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
            attributes.put(HTTP_RESPONSE_STATUS_CODE, (long) e.statusCode());
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
        endCancelled(attempts.remove(attempt));
    }

    private static void endCancelled(@Nullable Span client) {
        if (client != null) {
            client.setAttribute(CANCELLED, true);
            client.end();
        }
    }

    @Override
    public void callEnded(@Nullable HttpResponse<?> response, @Nullable Throwable failure) {
        for (Integer attempt : attempts.keySet()) {
            endCancelled(attempts.remove(attempt)); // in flight as the call ended: being cancelled
        }
        span.setAttribute(ATTEMPTS, (long) lastAttempt.get());
        if (response != null) {
            int status = response.statusCode();
            span.setAttribute(HTTP_RESPONSE_STATUS_CODE, (long) status);
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
