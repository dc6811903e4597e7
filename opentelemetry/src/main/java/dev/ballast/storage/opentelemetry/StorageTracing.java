package dev.ballast.storage.opentelemetry;

import dev.ballast.storage.StorageListener;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * OpenTelemetry tracing of a {@link dev.ballast.storage.StorageFacade}: set it as the facade's
 * {@linkplain dev.ballast.storage.StorageFacade.Builder#listener(StorageListener) listener}.
 *
 * <pre>{@code
 * StorageFacade storage = StorageFacade.newBuilder()
 *         .s3(endpoint).bucket("backups")
 *         .listener(StorageTracing.create(GlobalOpenTelemetry.get(), "backups"))
 *         .build();
 * }</pre>
 *
 * <p>Each operation on the object store (and on a block volume) is one span of kind {@code INTERNAL},
 * named {@code "ballast.storage " + operation} (e.g. {@code "ballast.storage GET"},
 * {@code "ballast.storage PUT_IF_ABSENT"}), a child of the context current when the operation was
 * called. It is current while the operation's method runs, so the HTTP calls a
 * {@link dev.ballast.http.ResilientHttpClient} traced by {@link dev.ballast.http.opentelemetry.BallastTracing}
 * makes for an S3 store nest under it. Attributes: {@code ballast.storage.store} ({@code s3},
 * {@code local}, {@code block}, {@code fake}, {@code custom}), {@code ballast.storage.operation} (its
 * tag, {@code get}), and for S3 the semantic conventions' {@code aws.s3.bucket} (when given to
 * {@link #create(OpenTelemetry, String)}) and {@code aws.s3.key}, for the other stores
 * {@code ballast.storage.key}; at the end {@code ballast.storage.outcome} (the
 * {@link StorageListener.Outcome} tag), {@code ballast.storage.bytes} (content moved) and, on a
 * failure, {@code error.type} (the exception's class name). The status is {@code ERROR} for every
 * outcome except {@code success}, {@code not_found} and {@code precondition_failed} (an absent key and
 * a refused conditional write are answers, not faults). A {@code get}'s span ends when its stream is
 * read to the end or closed. No exception message is recorded.
 *
 * <p>What the last-known-good cache and the conditional writes report is a span event on the span
 * current when it happens (the caller's span; a conditional-write refusal lands on the write's own
 * span): {@code ballast.storage.degraded_read} ({@code ballast.storage.reason},
 * {@code ballast.storage.age_ms}, {@code ballast.storage.version_id}),
 * {@code ballast.storage.unavailable_read} ({@code ballast.storage.reason},
 * {@code ballast.storage.expired_copy}), {@code ballast.storage.stale_read}
 * ({@code ballast.storage.refused}), {@code ballast.storage.integrity_failure}
 * ({@code ballast.storage.version_id}) and {@code ballast.storage.conditional_write_refused}
 * ({@code ballast.storage.operation}, {@code ballast.storage.refusal}); each also carries the store
 * and the key. When no span is current, the event is recorded on a short span of its own, named
 * {@code "ballast.storage " + event} (e.g. {@code "ballast.storage degraded_read"}), so that it is not
 * lost; its status is {@code ERROR} for an unavailable read and an integrity failure. Capabilities
 * make no span.
 *
 * <p>The last-known-good cache runs a live read with a deadline on a thread of its own: this listener
 * {@linkplain #propagateContext(Runnable) carries} the caller's OpenTelemetry context onto it, so the
 * read's span stays in the caller's trace.
 *
 * <p>With the {@link OpenTelemetry} instance a no-op or unsampled one, nothing is recorded. Immutable
 * and thread-safe; one instance may serve several facades.
 */
public final class StorageTracing implements StorageListener {

    /** The instrumentation scope name of the storage spans' tracer. */
    public static final String INSTRUMENTATION_NAME = "dev.ballast.storage";

    static final AttributeKey<String> STORE = AttributeKey.stringKey("ballast.storage.store");
    static final AttributeKey<String> OPERATION = AttributeKey.stringKey("ballast.storage.operation");
    static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("ballast.storage.outcome");
    static final AttributeKey<Long> BYTES = AttributeKey.longKey("ballast.storage.bytes");
    static final AttributeKey<String> KEY = AttributeKey.stringKey("ballast.storage.key");
    static final AttributeKey<String> S3_BUCKET = AttributeKey.stringKey("aws.s3.bucket");
    static final AttributeKey<String> S3_KEY = AttributeKey.stringKey("aws.s3.key");
    static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
    static final AttributeKey<String> REASON = AttributeKey.stringKey("ballast.storage.reason");
    static final AttributeKey<Long> AGE_MS = AttributeKey.longKey("ballast.storage.age_ms");
    static final AttributeKey<String> VERSION_ID = AttributeKey.stringKey("ballast.storage.version_id");
    static final AttributeKey<Boolean> EXPIRED_COPY = AttributeKey.booleanKey("ballast.storage.expired_copy");
    static final AttributeKey<Boolean> REFUSED = AttributeKey.booleanKey("ballast.storage.refused");
    static final AttributeKey<String> REFUSAL = AttributeKey.stringKey("ballast.storage.refusal");

    private final Tracer tracer;
    private final @Nullable String bucket;

    private StorageTracing(OpenTelemetry openTelemetry, @Nullable String bucket) {
        this.tracer = Objects.requireNonNull(openTelemetry, "openTelemetry").getTracer(INSTRUMENTATION_NAME);
        this.bucket = bucket;
    }

    /**
     * Creates tracing through {@code openTelemetry}, with no {@code aws.s3.bucket} attribute.
     *
     * @param openTelemetry the OpenTelemetry instance ({@code GlobalOpenTelemetry.get()} or the application's SDK)
     * @return the listener
     * @throws NullPointerException if {@code openTelemetry} is null
     */
    public static StorageTracing create(OpenTelemetry openTelemetry) {
        return new StorageTracing(openTelemetry, null);
    }

    /**
     * Creates tracing through {@code openTelemetry} whose S3 spans carry {@code aws.s3.bucket = bucket}
     * (the events do not name the bucket: give the facade's).
     *
     * @param openTelemetry the OpenTelemetry instance
     * @param bucket the facade's bucket
     * @return the listener
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code bucket} is blank
     */
    public static StorageTracing create(OpenTelemetry openTelemetry, String bucket) {
        Objects.requireNonNull(bucket, "bucket");
        if (bucket.isBlank()) {
            throw new IllegalArgumentException("bucket must not be blank; give the facade's bucket name, or use "
                    + "StorageTracing.create(openTelemetry) for none");
        }
        return new StorageTracing(openTelemetry, bucket);
    }

    /** Starts the operation's span, a child of the current context; see the class Javadoc. */
    @Override
    public Object onOperationStarted(OperationStarted event) {
        SpanBuilder builder = tracer.spanBuilder(
                        "ballast.storage " + event.operation().name())
                .setSpanKind(SpanKind.INTERNAL)
                .setParent(Context.current())
                .setAttribute(STORE, event.store())
                .setAttribute(OPERATION, event.operation().tag());
        boolean s3 = STORE_S3.equals(event.store());
        if (s3 && bucket != null) {
            builder.setAttribute(S3_BUCKET, bucket);
        }
        if (event.key() != null) {
            builder.setAttribute(s3 ? S3_KEY : KEY, event.key());
        }
        return builder.startSpan();
    }

    /** Makes the operation's span current, so that the store's HTTP calls nest under it. */
    @Override
    public @Nullable AutoCloseable openScope(OperationStarted event, @Nullable Object context) {
        return context instanceof Span span ? span.makeCurrent() : null;
    }

    /** Ends the operation's span with its outcome, bytes and status. */
    @Override
    public void onOperationEnded(OperationEnded event, @Nullable Object context) {
        if (!(context instanceof Span span)) {
            return;
        }
        span.setAttribute(OUTCOME, event.outcome().tag());
        span.setAttribute(BYTES, event.bytes());
        if (event.failure() != null) {
            span.setAttribute(ERROR_TYPE, event.failure().getClass().getName());
        }
        switch (event.outcome()) {
            case SUCCESS, NOT_FOUND, PRECONDITION_FAILED -> {}
            default -> span.setStatus(StatusCode.ERROR, event.outcome().tag());
        }
        span.end();
    }

    @Override
    public void onDegradedRead(DegradedRead event) {
        AttributesBuilder a = keyed(event.store(), event.key())
                .put(REASON, event.reason().tag())
                .put(AGE_MS, event.age().toMillis())
                .put(VERSION_ID, event.versionId());
        record("degraded_read", a.build(), false);
    }

    @Override
    public void onUnavailableRead(UnavailableRead event) {
        record(
                "unavailable_read",
                keyed(event.store(), event.key())
                        .put(REASON, event.reason().tag())
                        .put(EXPIRED_COPY, event.expiredCopy())
                        .build(),
                true);
    }

    @Override
    public void onStaleRead(StaleRead event) {
        record(
                "stale_read",
                keyed(event.store(), event.key()).put(REFUSED, event.refused()).build(),
                false);
    }

    @Override
    public void onIntegrityFailure(IntegrityFailure event) {
        AttributesBuilder a = keyed(event.store(), event.key());
        if (event.versionId() != null) {
            a.put(VERSION_ID, event.versionId());
        }
        record("integrity_failure", a.build(), true);
    }

    @Override
    public void onConditionalWriteRefused(ConditionalWriteRefused event) {
        record(
                "conditional_write_refused",
                keyed(event.store(), event.key())
                        .put(OPERATION, event.operation().tag())
                        .put(REFUSAL, event.refusal().tag())
                        .build(),
                false);
    }

    /** Wraps {@code task} so that it runs in the OpenTelemetry context current now, on the caller's thread. */
    @Override
    public Runnable propagateContext(Runnable task) {
        return Context.current().wrap(task);
    }

    private AttributesBuilder keyed(String store, String key) {
        AttributesBuilder a = Attributes.builder().put(STORE, store);
        if (STORE_S3.equals(store)) {
            if (bucket != null) {
                a.put(S3_BUCKET, bucket);
            }
            a.put(S3_KEY, key);
        } else {
            a.put(KEY, key);
        }
        return a;
    }

    /** Adds the event to the current span, or to a short span of its own when none is current. */
    private void record(String name, Attributes attributes, boolean error) {
        Span current = Span.current();
        if (current.getSpanContext().isValid()) {
            current.addEvent("ballast.storage." + name, attributes);
            return;
        }
        Span own = tracer.spanBuilder("ballast.storage " + name)
                .setSpanKind(SpanKind.INTERNAL)
                .setAllAttributes(attributes)
                .startSpan();
        own.addEvent("ballast.storage." + name, attributes);
        if (error) {
            own.setStatus(StatusCode.ERROR, name);
        }
        own.end();
    }

    @Override
    public String toString() {
        return "StorageTracing[" + (bucket == null ? "" : "bucket=" + bucket) + "]";
    }
}
