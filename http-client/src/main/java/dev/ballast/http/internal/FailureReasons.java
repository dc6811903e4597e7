package dev.ballast.http.internal;

import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the exception a caller gets say why: why the call was not retried, and which host a DNS
 * failure could not resolve. The JDK client's own exceptions say neither (an unresolved host is a
 * {@code ConnectException} without a message).
 *
 * <p>An exception is never replaced by one of another type, since callers catch by type: the
 * JDK's own kinds ({@code ConnectException}, {@code HttpTimeoutException}, a plain
 * {@code IOException} …) are re-made with the same type and a longer message, the original as the
 * cause, as the JDK's own {@code send} re-makes the exception of its {@code sendAsync}
 * ({@code HttpClientImpl.send}); any other type keeps its message and carries the reason as a
 * suppressed {@link NotRetried}. Stateless but for the once-per-dependency warning; thread-safe.
 */
final class FailureReasons {

    private static final Logger LOG = LoggerFactory.getLogger("dev.ballast.http.ResilientHttpClient");

    /** Dependencies already warned about a body that cannot be replayed; bounded like the client's state. */
    private static final int MAX_WARNED = 1024;

    private final Set<String> warnedUnreplayable = ConcurrentHashMap.newKeySet();

    /** The reason a suppressed entry carries when an exception cannot be re-made with a longer message. */
    static final class NotRetried extends IOException {
        private static final long serialVersionUID = 1L;

        NotRetried(String message) {
            super(message);
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this; // a note, not a failure: where it was made says nothing
        }
    }

    /**
     * The fix for a request body that cannot be replayed, as the warning and the exception name it.
     */
    static final String REPLAYABLE_BODY_FIX = "wrap the body in dev.ballast.http.ReplayableBodyPublisher"
            + " (ReplayableBodyPublisher.ofSupplier(...)), or with Spring's RestClient or RestTemplate use the"
            + " Spring request factory of ballast-spring-boot-starter, which sends bodies up to"
            + " ballast.http.request-factory.max-buffered-request-size (1 MiB by default) replayably";

    /**
     * Logs one WARN per dependency the first time a client configured to retry ({@code maxAttempts}
     * above 1) sends it a body it cannot replay: such calls are never retried, which is easy to miss.
     */
    void unreplayableBody(String dependency, int maxAttempts) {
        if (maxAttempts <= 1 || warnedUnreplayable.contains(dependency)) {
            return;
        }
        if (warnedUnreplayable.size() >= MAX_WARNED) {
            warnedUnreplayable.clear(); // a crawler's worth of origins: warn again rather than grow
        }
        if (warnedUnreplayable.add(dependency)) {
            LOG.warn(
                    "request body cannot be replayed dependency={} maxAttempts={}: calls with such a body are sent"
                            + " once and never retried; {}. Logged once per dependency",
                    dependency,
                    maxAttempts,
                    REPLAYABLE_BODY_FIX);
        }
    }

    /**
     * The failure to hand the caller for a call that ended with {@code outcome}'s failure and no
     * retry: its reason added where the decision was one the caller could act on.
     */
    static Throwable withDecision(Call call, AttemptOutcome outcome, Throwable failure) {
        StopReason stop = outcome.stop();
        if (stop == null || !(failure instanceof IOException)) {
            return failure;
        }
        String fix = switch (stop) {
            case NOT_RETRYABLE, AMBIGUOUS_NOT_IDEMPOTENT, OTHER_ATTEMPT_IN_FLIGHT -> "";
            case BODY_NOT_REPLAYABLE -> "; " + REPLAYABLE_BODY_FIX;
            default -> null; // rejections, timeouts and give-ups say so in their own type and message
        };
        if (fix == null) {
            return failure;
        }
        // The reason and the attempt it ended on first, then the fix: "... cannot be replayed after attempt 1; wrap
        // ..."
        return withMessage(
                failure,
                "call to dependency '" + call.dependency.name() + "' " + outcome.reason() + " after attempt "
                        + outcome.attempt() + fix);
    }

    /**
     * The failure of one attempt with the host named when it could not be resolved: the JDK reports an
     * unresolved host as a {@code ConnectException} without a message, caused by an
     * {@link UnresolvedAddressException}.
     */
    static Throwable namingUnresolvedHost(Throwable failure, URI uri) {
        if (!(failure instanceof ConnectException) || !causedByUnresolvedAddress(failure)) {
            return failure;
        }
        ConnectException named = new ConnectException("cannot resolve host '" + uri.getHost() + "'");
        named.initCause(failure);
        return named;
    }

    private static boolean causedByUnresolvedAddress(Throwable failure) {
        Throwable t = failure;
        for (int depth = 0; t != null && depth < 8; depth++, t = t.getCause()) {
            if (t instanceof UnresolvedAddressException) {
                return true;
            }
        }
        return false;
    }

    /**
     * {@code failure} with {@code note} appended to its message: a new exception of the same type, the
     * original as its cause, for the JDK's own types; otherwise the original with a suppressed
     * {@link NotRetried} carrying the note.
     */
    static Throwable withMessage(Throwable failure, String note) {
        String message = failure.getMessage() == null ? note : failure.getMessage() + " (" + note + ")";
        IOException copy = sameType(failure, message);
        if (copy == null) {
            failure.addSuppressed(new NotRetried(note));
            return failure;
        }
        copy.initCause(failure);
        copy.setStackTrace(failure.getStackTrace());
        for (Throwable suppressed : failure.getSuppressed()) {
            copy.addSuppressed(suppressed);
        }
        return copy;
    }

    private static @Nullable IOException sameType(Throwable failure, String message) {
        Class<?> type = failure.getClass();
        if (type == IOException.class) {
            return new IOException(message);
        } else if (type == HttpConnectTimeoutException.class) {
            return new HttpConnectTimeoutException(message);
        } else if (type == HttpTimeoutException.class) {
            return new HttpTimeoutException(message);
        } else if (type == ConnectException.class) {
            return new ConnectException(message);
        } else if (type == NoRouteToHostException.class) {
            return new NoRouteToHostException(message);
        } else if (type == UnknownHostException.class) {
            return new UnknownHostException(message);
        } else if (type == SocketException.class) {
            return new SocketException(message);
        } else if (type == SocketTimeoutException.class) {
            return new SocketTimeoutException(message);
        } else if (type == EOFException.class) {
            return new EOFException(message);
        } else if (type == SSLHandshakeException.class) {
            return new SSLHandshakeException(message);
        } else if (type == SSLException.class) {
            return new SSLException(message);
        }
        return null;
    }
}
