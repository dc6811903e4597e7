package dev.ballast.test;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One fault a {@link FaultInjectingHttpClient} injects into an exchange, made by the factories below.
 * Each fails the way {@code java.net.http} reports the real failure, so {@code ResilientHttpClient}
 * classifies it as it does the real one (its {@code ClassificationTable}):
 *
 * <ul>
 *   <li>{@link #reset()}: {@code SocketException: Connection reset} before the server saw the
 *       request; the client cannot know that, so it is {@code AMBIGUOUS} (retried only when
 *       idempotent or keyed); {@link #resetAfterProcessing()} lets the server process it first;
 *   <li>{@link #connectionRefused()}: {@code ConnectException}, nothing sent ({@code TRANSIENT});
 *   <li>{@link #refusedStream()}: the JDK's {@code IOException "request not processed by peer"}
 *       (HTTP/2 REFUSED_STREAM, RFC 9113 section 8.7), nothing processed ({@code TRANSIENT});
 *   <li>{@link #status(int)} and {@link #status(int, Duration)}: an answer with that status (and a
 *       {@code Retry-After} in whole seconds) instead of the server's; the server is not called;
 *   <li>{@link #stall()}: no answer until the test calls {@link FaultInjectingHttpClient#releaseStalls()}
 *       or the caller's timeout interrupts or cancels the exchange; then the server is called;
 *   <li>{@link #slowBody(int, Duration)}: the server's answer, its body handed over in chunks with
 *       time passing between them.
 * </ul>
 *
 * Immutable and thread-safe.
 */
public sealed interface HttpFault {

    /** A broken connection; {@code afterProcessing}: the server processed the request first. */
    record Reset(boolean afterProcessing) implements HttpFault {}

    /** The connection was refused: nothing was sent. */
    record ConnectionRefused() implements HttpFault {}

    /** An HTTP/2 stream the server refused without processing it. */
    record RefusedStream() implements HttpFault {}

    /**
     * An answer made up in place of the server's: {@code status}, an optional {@code Retry-After}
     * (whole seconds) and a short text body naming the fault.
     */
    record Status(int status, @Nullable Duration retryAfter) implements HttpFault {
        public Status {
            if (status < 100 || status > 599) {
                throw new IllegalArgumentException("status must be 100 to 599 but was " + status);
            }
            if (retryAfter != null && retryAfter.isNegative()) {
                throw new IllegalArgumentException("retryAfter must be >= 0 but was " + retryAfter);
            }
        }
    }

    /** No answer until released (or the caller gives up). */
    record Stall() implements HttpFault {}

    /** The server's answer with its body in {@code chunks} pieces, {@code between} passing before each. */
    record SlowBody(int chunks, Duration between) implements HttpFault {
        public SlowBody {
            Objects.requireNonNull(between, "between");
            if (chunks < 1) {
                throw new IllegalArgumentException("chunks must be >= 1 but was " + chunks);
            }
            if (between.isNegative()) {
                throw new IllegalArgumentException("between must be >= 0 but was " + between);
            }
        }
    }

    /** @see Reset */
    static HttpFault reset() {
        return new Reset(false);
    }

    /** @see Reset */
    static HttpFault resetAfterProcessing() {
        return new Reset(true);
    }

    /** @see ConnectionRefused */
    static HttpFault connectionRefused() {
        return new ConnectionRefused();
    }

    /** @see RefusedStream */
    static HttpFault refusedStream() {
        return new RefusedStream();
    }

    /** An answer of {@code status} without {@code Retry-After}. */
    static HttpFault status(int status) {
        return new Status(status, null);
    }

    /** An answer of {@code status} with {@code Retry-After: <seconds>}. */
    static HttpFault status(int status, Duration retryAfter) {
        return new Status(status, Objects.requireNonNull(retryAfter, "retryAfter"));
    }

    /** @see Stall */
    static HttpFault stall() {
        return new Stall();
    }

    /** @see SlowBody */
    static HttpFault slowBody(int chunks, Duration between) {
        return new SlowBody(chunks, between);
    }
}
