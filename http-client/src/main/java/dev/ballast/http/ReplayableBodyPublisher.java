package dev.ballast.http;

import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.concurrent.Flow;
import java.util.function.Supplier;

/**
 * A request body that {@link ResilientHttpClient} may send more than once. A retry re-sends the
 * same {@link HttpRequest}, so its body publisher is subscribed once per attempt; a body that cannot
 * emit the same bytes again must not be retried, and the client never retries it.
 *
 * <p>The client treats these bodies as replayable: no body at all; {@code BodyPublishers.noBody()},
 * {@code ofString}, {@code ofByteArray} (both overloads) and {@code ofFile} (re-opened per
 * subscription); any publisher whose {@code contentLength()} is {@code 0}; and this type. Every
 * other publisher ({@code ofInputStream}, {@code ofByteArrays}, {@code fromPublisher},
 * {@code concat}, custom ones) gets exactly one attempt, and the decision log says
 * {@code "not retried: request body cannot be replayed"}. Wrap such a body in this type when you
 * know it can be replayed:
 *
 * <pre>{@code
 * // a fresh publisher per attempt, e.g. over a re-openable content stream
 * BodyPublisher body = ReplayableBodyPublisher.ofSupplier(
 *     () -> BodyPublishers.fromPublisher(newPublisherOverContent(), length), length);
 * // or: the caller vouches that this publisher re-emits the same bytes on every subscription
 * BodyPublisher body = ReplayableBodyPublisher.of(BodyPublishers.ofByteArrays(listOfChunks));
 * }</pre>
 *
 * <p>Replaying a body is one question; whether repeating the request is harmless is another. A
 * method's idempotency (RFC 9110 §9.2.2) is a statement about its intended effect, and some servers
 * give an idempotent method a non-idempotent effect: a PUT into a versioned S3 bucket creates a new
 * version each time it lands. Mark such a body {@link #nonIdempotent()}: the client then retries
 * the request only after failures where the server did not act on it (connection refused, 503,
 * 429 …), never after an ambiguous one (read timeout, reset after send, 504), and adds no
 * idempotency key of its own (a caller-supplied key still counts, since the caller knows the server
 * honours it).
 *
 * <p>The marker is the type, not a request header, so nothing reaches the wire. Immutable and
 * thread-safe if the wrapped supplier or publisher is.
 */
public final class ReplayableBodyPublisher implements BodyPublisher {

    private final Supplier<? extends BodyPublisher> factory;
    private final long contentLength;
    private final boolean nonIdempotent;

    private ReplayableBodyPublisher(
            Supplier<? extends BodyPublisher> factory, long contentLength, boolean nonIdempotent) {
        this.factory = factory;
        this.contentLength = contentLength;
        this.nonIdempotent = nonIdempotent;
    }

    /**
     * Returns a body that asks {@code factory} for a fresh publisher on every subscription, that is
     * once per attempt.
     *
     * @param factory creates a publisher emitting the same bytes each time; called once per attempt
     * @param contentLength the body length in bytes, or {@code -1} if unknown (chunked transfer);
     *     every publisher the factory creates must emit exactly this many bytes
     * @return the replayable body
     * @throws NullPointerException if {@code factory} is null
     * @throws IllegalArgumentException if {@code contentLength < -1}
     */
    public static ReplayableBodyPublisher ofSupplier(Supplier<? extends BodyPublisher> factory, long contentLength) {
        Objects.requireNonNull(factory, "factory");
        if (contentLength < -1) {
            throw new IllegalArgumentException("contentLength must be >= -1 but was " + contentLength);
        }
        return new ReplayableBodyPublisher(factory, contentLength, false);
    }

    /**
     * Marks {@code publisher} as replayable: the caller vouches that every subscription to it emits
     * the same bytes.
     *
     * @param publisher a publisher that can be subscribed to more than once
     * @return the replayable body
     * @throws NullPointerException if {@code publisher} is null
     */
    public static ReplayableBodyPublisher of(BodyPublisher publisher) {
        Objects.requireNonNull(publisher, "publisher");
        if (publisher instanceof ReplayableBodyPublisher replayable) {
            return replayable;
        }
        return new ReplayableBodyPublisher(() -> publisher, publisher.contentLength(), false);
    }

    /**
     * Returns this body marked as carrying a non-idempotent effect, whatever the request's method:
     * ambiguous failures of a request carrying it are never retried, and the client adds no
     * idempotency key to it. See the class documentation.
     *
     * @return a replayable body with the same content, marked non-idempotent
     */
    public ReplayableBodyPublisher nonIdempotent() {
        return nonIdempotent ? this : new ReplayableBodyPublisher(factory, contentLength, true);
    }

    /** Whether this body was marked with {@link #nonIdempotent()}. */
    public boolean isNonIdempotent() {
        return nonIdempotent;
    }

    @Override
    public long contentLength() {
        return contentLength;
    }

    @Override
    public void subscribe(Flow.Subscriber<? super ByteBuffer> subscriber) {
        Objects.requireNonNull(subscriber, "subscriber");
        BodyPublisher publisher = Objects.requireNonNull(factory.get(), "factory returned null");
        publisher.subscribe(subscriber);
    }
}
