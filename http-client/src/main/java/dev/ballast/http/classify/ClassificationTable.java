package dev.ballast.http.classify;

import dev.ballast.http.CallRejectedException;
import dev.ballast.http.InterimResponseException;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpHeaders;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import javax.net.ssl.SSLHandshakeException;

/**
 * The classification table: the one documented mapping from HTTP status codes and exception types
 * to {@link Outcome}s, with the user's overrides. Immutable and thread-safe.
 *
 * <p>What each outcome does is stated on {@link Outcome}: {@link Outcome#TRANSIENT TRANSIENT} and
 * {@link Outcome#THROTTLED THROTTLED} are retried for every method; {@link Outcome#AMBIGUOUS AMBIGUOUS}
 * only when the method is idempotent per RFC 9110 §9.2.2 (GET, HEAD, OPTIONS, TRACE, PUT, DELETE),
 * whose intended effect is the same however often it is sent, or when the request carries an
 * idempotency key; {@link Outcome#PERMANENT PERMANENT} never. {@link Outcome#THROTTLED THROTTLED}
 * waits at least the server's {@code Retry-After} (RFC 9110 §10.2.3).
 *
 * <h2>Status codes</h2>
 * <table class="striped">
 *   <caption>Default outcome of each HTTP status code (RFC 9110 §15)</caption>
 *   <thead><tr><th>Status</th><th>Outcome</th><th>Reason</th></tr></thead>
 *   <tbody>
 *   <tr><td>2xx</td><td>{@link Outcome#SUCCESS SUCCESS}</td>
 *       <td>RFC 9110 §15.3: the request was successfully received, understood and accepted.</td></tr>
 *   <tr><td>3xx</td><td>{@link Outcome#SUCCESS SUCCESS}</td>
 *       <td>RFC 9110 §15.4: a redirection is an answer; following it is the delegate client's
 *       {@code followRedirects} policy, not a retry.</td></tr>
 *   <tr><td>400, 401, 403, 404, 409, 422</td><td>{@link Outcome#PERMANENT PERMANENT}</td>
 *       <td>RFC 9110 §15.5.1 Bad Request, §15.5.2 Unauthorized, §15.5.4 Forbidden, §15.5.5 Not Found,
 *       §15.5.10 Conflict, §15.5.21 Unprocessable Content: the same request gets the same answer, and
 *       the dependency is healthy, so it is no breaker failure either. A 422 to a request carrying an
 *       idempotency key is the key reused with another payload (draft-ietf-httpapi-idempotency-key-header
 *       §2.7): permanent too.</td></tr>
 *   <tr><td>409 to a request carrying an idempotency key</td><td>{@link Outcome#THROTTLED THROTTLED}</td>
 *       <td>draft-ietf-httpapi-idempotency-key-header §2.7: the server is still processing an earlier
 *       request with the same key. The dependency is healthy and working on it; asking again after the
 *       backoff (or its {@code Retry-After}) gets the stored answer. See
 *       {@link #classifyKeyedResponse(int, HttpHeaders)}.</td></tr>
 *   <tr><td>408</td><td>{@link Outcome#TRANSIENT TRANSIENT}</td>
 *       <td>RFC 9110 §15.5.9 Request Timeout: the server did not receive a complete request in time
 *       and says the client may repeat it; it was not processed.</td></tr>
 *   <tr><td>429</td><td>{@link Outcome#THROTTLED THROTTLED}</td>
 *       <td>RFC 6585 §4 Too Many Requests: the server is up and asks us to slow down, usually with a
 *       {@code Retry-After} (RFC 9110 §10.2.3) that the retry layer honours as a floor. A breaker
 *       failure by default, a genuine server-pressure signal (neutral with
 *       {@code BreakerConfig.throttlingIsFailure(false)}): see {@link Outcome#THROTTLED}.</td></tr>
 *   <tr><td>other 4xx</td><td>{@link Outcome#PERMANENT PERMANENT}</td>
 *       <td>RFC 9110 §15.5: client errors; repeating the request cannot fix it.</td></tr>
 *   <tr><td>500, 502</td><td>{@link Outcome#TRANSIENT TRANSIENT}</td>
 *       <td>RFC 9110 §15.6.1 Internal Server Error, §15.6.3 Bad Gateway: a fault on the server side
 *       that commonly passes.</td></tr>
 *   <tr><td>503, with or without {@code Retry-After}</td><td>{@link Outcome#TRANSIENT TRANSIENT}</td>
 *       <td>RFC 9110 §15.6.4 Service Unavailable: temporary overload or maintenance; the service cannot
 *       serve, so it is a breaker failure whatever the header says. A {@code Retry-After} (§10.2.3)
 *       is still honoured as the floor of the backoff, as it is on every retried response.</td></tr>
 *   <tr><td>501, 505</td><td>{@link Outcome#PERMANENT PERMANENT}</td>
 *       <td>RFC 9110 §15.6.2 Not Implemented, §15.6.6 HTTP Version Not Supported: the server lacks
 *       the capability; it will not gain it between two attempts.</td></tr>
 *   <tr><td>504</td><td>{@link Outcome#AMBIGUOUS AMBIGUOUS}</td>
 *       <td>RFC 9110 §15.6.5 Gateway Timeout: the gateway stopped waiting, but the upstream server may
 *       have processed the request; repeat it only if that is harmless (§9.2.2).</td></tr>
 *   <tr><td>other 5xx</td><td>{@link Outcome#TRANSIENT TRANSIENT}</td>
 *       <td>RFC 9110 §15.6: server errors; the server is aware it is at fault.</td></tr>
 *   <tr><td>1xx</td><td>not a response: see {@link InterimResponseException} below</td>
 *       <td>RFC 9110 §15.2: a 1xx is interim and never the answer to a request. {@code ResilientHttpClient}
 *       never classifies one as a response: a 1xx the wrapped client hands over as final fails the
 *       attempt with {@link InterimResponseException}, classified as a failure. Asked directly,
 *       {@link #classifyResponse(int, HttpHeaders)} answers {@link Outcome#PERMANENT PERMANENT}.</td></tr>
 *   <tr><td>600-999</td><td>{@link Outcome#PERMANENT PERMANENT}</td>
 *       <td>Undefined codes: nothing a retry can fix.</td></tr>
 *   </tbody>
 * </table>
 *
 * <h2>Exceptions</h2>
 * <table class="striped">
 *   <caption>Default outcome of each exception type</caption>
 *   <thead><tr><th>Exception</th><th>Outcome</th><th>Reason</th></tr></thead>
 *   <tbody>
 *   <tr><td>{@link ConnectException}, {@link NoRouteToHostException}</td>
 *       <td>{@link Outcome#TRANSIENT TRANSIENT}</td>
 *       <td>The connection was refused or unreachable: nothing was sent, so a retry is safe for every
 *       method.</td></tr>
 *   <tr><td>{@link HttpConnectTimeoutException}</td><td>{@link Outcome#TRANSIENT TRANSIENT}</td>
 *       <td>The connection was not established in time: nothing was sent.</td></tr>
 *   <tr><td>{@link UnknownHostException}, {@link UnresolvedAddressException}</td>
 *       <td>{@link Outcome#TRANSIENT TRANSIENT}</td>
 *       <td>The host name did not resolve: nothing was sent; name resolution often recovers.</td></tr>
 *   <tr><td>{@link HttpTimeoutException} (any other than a connect timeout)</td>
 *       <td>{@link Outcome#AMBIGUOUS AMBIGUOUS}</td>
 *       <td>The request was sent but no response arrived in time: it may have been processed, so it
 *       is repeated only for idempotent methods (RFC 9110 §9.2.2) or with an idempotency key.</td></tr>
 *   <tr><td>{@link SocketException} (for example "Connection reset"), {@link EOFException}</td>
 *       <td>{@link Outcome#AMBIGUOUS AMBIGUOUS}</td>
 *       <td>The connection broke after the request was written: it may have been processed (RFC 9110
 *       §9.2.2 allows automatic retry of idempotent requests only).</td></tr>
 *   <tr><td>{@link SSLHandshakeException} caused (anywhere in its cause chain) by a
 *       {@link CertificateException}, {@link CertPathValidatorException} or
 *       {@link CertPathBuilderException}</td><td>{@link Outcome#PERMANENT PERMANENT}</td>
 *       <td>The server's certificate is not trusted (expired, wrong host, unknown issuer); a retry
 *       meets the same certificate.</td></tr>
 *   <tr><td>any other {@link SSLHandshakeException}</td><td>{@link Outcome#TRANSIENT TRANSIENT}</td>
 *       <td>The handshake was interrupted (closed socket, overloaded terminator): no request data was
 *       sent yet.</td></tr>
 *   <tr><td>{@link CertificateException}, {@link CertPathValidatorException},
 *       {@link CertPathBuilderException}</td><td>{@link Outcome#PERMANENT PERMANENT}</td>
 *       <td>A certificate problem outside a handshake is no more retryable than inside one.</td></tr>
 *   <tr><td>{@link InterimResponseException}</td><td>{@link Outcome#AMBIGUOUS AMBIGUOUS}</td>
 *       <td>The wrapped client returned a 1xx (interim, RFC 9110 §15.2) as the response, as
 *       {@code java.net.http} does with a second interim response after {@code 100 Continue}: the
 *       server may have read the body and acted on it, so the request is repeated only for an
 *       idempotent method (RFC 9110 §9.2.2) or with an idempotency key.</td></tr>
 *   <tr><td>{@link CallRejectedException}</td><td>{@link Outcome#PERMANENT PERMANENT}</td>
 *       <td>An open circuit or a full bulkhead rejected the call before any I/O; retrying it would only
 *       hammer the protection that produced it.</td></tr>
 *   <tr><td>The {@link IOException}s by which {@code java.net.http} reports a request the server did
 *       not process: {@code "Received RST_STREAM: Stream not processed"} (a REFUSED_STREAM on JDK 17
 *       to 17.0.16 and 21 to 21.0.7), {@code "request not processed by peer"} (REFUSED_STREAM, or a
 *       stream above a GOAWAY's last stream id, after the JDK's own single re-send, on later
 *       updates and JDK 24+), {@code "RST_STREAM received Stream not processed"} (a REFUSED_STREAM
 *       while the request body was still being sent, JDK 25) and {@code "too many concurrent streams"}
 *       (the server's {@code SETTINGS_MAX_CONCURRENT_STREAMS} reached before the stream was
 *       opened)</td><td>{@link Outcome#TRANSIENT TRANSIENT}</td>
 *       <td>RFC 9113 §8.7: a refused stream, or one above a GOAWAY's last stream identifier, was not
 *       processed, so it is safe to retry whatever the method (OkHttp, Go and .NET do). The JDK
 *       exposes these only as plain {@code IOException}s, so they are recognised by their exact
 *       message. A plain {@code "GOAWAY received"} (JDK 17 to 17.0.16, 21 to 21.0.7) fails every
 *       open stream, processed ones included, and stays {@link Outcome#AMBIGUOUS AMBIGUOUS}.
 *       {@link Builder#notProcessed(Outcome)} overrides the row.</td></tr>
 *   <tr><td>Any throwable of the chain whose message is {@code "Too many open files"} (EMFILE: this
 *       process has no file descriptor left) or {@code "Too many open files in system"} (ENFILE), as
 *       {@code java.net.http} reports a connection it could not open for want of one (a
 *       {@link SocketException}, wrapped in an {@link InternalError} when the connection is opened for
 *       {@code sendAsync}, or a plain {@code IOException})</td>
 *       <td>{@link Outcome#PERMANENT PERMANENT}</td>
 *       <td>The failure is this process's, not the dependency's: no socket was opened, nothing was sent
 *       (the descriptor is the first thing a connection needs). Counted against the dependency, it
 *       opened the breaker of a healthy endpoint for a caller that ran more transfers than its
 *       {@code ulimit -n} allows, and failed every call after. Retried at once, it meets the same
 *       limit. The messages are the C library's {@code strerror} text (glibc, musl and macOS agree);
 *       under a locale that translates them the row does not apply.</td></tr>
 *   <tr><td>{@link IOException} (any other)</td><td>{@link Outcome#AMBIGUOUS AMBIGUOUS}</td>
 *       <td>An I/O failure whose moment is unknown: the request may have been sent.</td></tr>
 *   <tr><td>{@link Throwable} (any other: {@link RuntimeException}, {@link Error})</td>
 *       <td>{@link Outcome#PERMANENT PERMANENT}</td>
 *       <td>A programming or configuration error (including a failing body handler); a retry repeats
 *       it.</td></tr>
 *   </tbody>
 * </table>
 *
 * <h2>How a failure is looked up</h2>
 * <ol>
 *   <li>{@link CompletionException}, {@link ExecutionException} and {@link UncheckedIOException} that
 *       carry a cause are wrappers and are looked through.</li>
 *   <li>For each remaining throwable of the cause chain, outermost first, the entry of the most
 *       specific type wins: the entry for the throwable's own class, else for its superclass, and so
 *       on. An override for {@code IOException} therefore does not change how a {@code ConnectException}
 *       is classified, while an override for {@code ConnectException} does.</li>
 *   <li>A throwable anywhere in the chain saying that this process ran out of file descriptors (see the
 *       table) makes the failure {@link Outcome#PERMANENT}, before any entry is looked up.</li>
 *   <li>The entries for {@link Throwable}, {@link Exception} and {@link IOException} are catch-alls:
 *       they decide only when no throwable in the chain matches a more specific entry, and then the
 *       outermost throwable's catch-all decides. This is why {@code IOException(ConnectException)},
 *       the shape {@code HttpClient.send} rethrows, is {@link Outcome#TRANSIENT}.</li>
 *   <li>A plain {@code IOException} (not a subclass) carrying one of the JDK's "not processed"
 *       messages (see the table) anywhere in the chain takes the {@link Builder#notProcessed(Outcome)}
 *       outcome, unless a more specific entry matched an outer throwable first.</li>
 *   <li>While {@link SSLHandshakeException} keeps its default entry, a handshake failure whose cause
 *       chain holds a certificate exception takes that certificate exception's outcome. Overriding
 *       {@code SSLHandshakeException} replaces this rule with the given outcome.</li>
 * </ol>
 * Cause chains are followed at most {@value #MAX_CAUSE_DEPTH} levels deep and cycles are detected.
 *
 * <h2>Overrides</h2>
 * {@link Builder#status(int, Outcome)} replaces the outcome of one status code, for keyed requests
 * too (an override of 409 replaces the idempotency-key row); {@link Builder#failure(Class, Outcome)}
 * sets the outcome of one exception type and its subclasses that have no more specific entry;
 * {@link Builder#notProcessed(Outcome)} sets the outcome of the JDK's "not processed" signals.
 */
public final class ClassificationTable implements ResponseClassifier {

    /** The deepest cause chain that {@link #classifyFailure(Throwable)} follows. */
    public static final int MAX_CAUSE_DEPTH = 32;

    private static final Set<Class<?>> CATCH_ALL_TYPES = Set.of(Throwable.class, Exception.class, IOException.class);

    private static final List<Class<? extends Throwable>> CERTIFICATE_TYPES =
            List.of(CertificateException.class, CertPathValidatorException.class, CertPathBuilderException.class);

    /**
     * The exact messages of the plain {@code IOException}s by which {@code java.net.http} (JDK 17 to
     * 25, read in the JDK's {@code Stream}, {@code Http2Connection} and {@code MultiExchange}) reports
     * that the server did not process a request. The JDK's {@code send} rethrows them as a new
     * {@code IOException} with the same message.
     */
    static final Set<String> NOT_PROCESSED_MESSAGES = Set.of(
            "Received RST_STREAM: Stream not processed",
            "request not processed by peer",
            "RST_STREAM received Stream not processed",
            "too many concurrent streams");

    private static final ClassificationTable DEFAULTS = new Builder().build();

    private final Map<Integer, Outcome> statuses;
    private final Map<Class<? extends Throwable>, Outcome> failures;
    private final boolean handshakeCertificateRule;
    private final Outcome notProcessed;

    private ClassificationTable(Builder builder) {
        this.statuses = Map.copyOf(builder.statuses);
        this.failures = Map.copyOf(builder.failures);
        this.handshakeCertificateRule = builder.handshakeCertificateRule;
        this.notProcessed = builder.notProcessed;
    }

    /**
     * Returns the default table documented above.
     *
     * @return the shared default table
     */
    public static ClassificationTable ofDefaults() {
        return DEFAULTS;
    }

    /**
     * Returns a builder that starts from the default table.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Returns a builder that starts from this table, overrides included.
     *
     * @return a new builder
     */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Status codes outside 100-999 are classified {@link Outcome#PERMANENT}.
     *
     * @throws NullPointerException if {@code headers} is {@code null}
     */
    @Override
    public Outcome classifyResponse(int statusCode, HttpHeaders headers) {
        Objects.requireNonNull(headers, "headers");
        if (!statuses.isEmpty()) { // no boxing on the common path of a table without overrides
            Outcome override = statuses.get(statusCode);
            if (override != null) {
                return override;
            }
        }
        return defaultStatusOutcome(statusCode, headers);
    }

    private static Outcome defaultStatusOutcome(int statusCode, HttpHeaders headers) {
        if (statusCode >= 200 && statusCode < 400) {
            return Outcome.SUCCESS;
        }
        switch (statusCode) {
            case 408:
                return Outcome.TRANSIENT;
            case 429:
                return Outcome.THROTTLED;
            case 501:
            case 505:
                return Outcome.PERMANENT;
            case 504:
                return Outcome.AMBIGUOUS;
            default:
                break;
        }
        if (statusCode >= 500 && statusCode < 600) {
            return Outcome.TRANSIENT;
        }
        return Outcome.PERMANENT;
    }

    /**
     * {@inheritDoc}
     *
     * <p>A 409 Conflict is {@link Outcome#THROTTLED} (draft-ietf-httpapi-idempotency-key-header
     * §2.7: an earlier request with the same key is still being processed) unless 409 has a status
     * override; every other status is classified as by {@link #classifyResponse(int, HttpHeaders)}.
     *
     * @throws NullPointerException if {@code headers} is {@code null}
     */
    @Override
    public Outcome classifyKeyedResponse(int statusCode, HttpHeaders headers) {
        if (statusCode == 409 && !statuses.containsKey(409)) {
            Objects.requireNonNull(headers, "headers");
            return Outcome.THROTTLED;
        }
        return classifyResponse(statusCode, headers);
    }

    /**
     * {@inheritDoc}
     *
     * <p>See "How a failure is looked up" in the class description.
     *
     * @throws NullPointerException if {@code failure} is {@code null}
     */
    @Override
    public Outcome classifyFailure(Throwable failure) {
        Objects.requireNonNull(failure, "failure");
        List<Throwable> chain = causeChain(failure, true);
        for (Throwable t : chain) {
            if (isOutOfFileDescriptors(t)) {
                return Outcome.PERMANENT;
            }
        }
        Outcome catchAll = null;
        for (Throwable t : chain) {
            Class<? extends Throwable> type = entryType(t.getClass());
            if (!CATCH_ALL_TYPES.contains(type)) {
                return refine(type, t);
            }
            if (isNotProcessedSignal(t)) {
                return notProcessed;
            }
            if (catchAll == null) {
                catchAll = failures.get(type);
            }
        }
        return catchAll;
    }

    /** The C library's text for EMFILE; ENFILE's begins with it ("Too many open files in system"). */
    static final String OUT_OF_FILE_DESCRIPTORS = "Too many open files";

    /** Whether {@code t} says that this process (or the system) has no file descriptor left. */
    private static boolean isOutOfFileDescriptors(Throwable t) {
        String message = t.getMessage();
        return message != null
                && (message.equals(OUT_OF_FILE_DESCRIPTORS)
                        || message.equals(OUT_OF_FILE_DESCRIPTORS + " in system")
                        || message.endsWith(": " + OUT_OF_FILE_DESCRIPTORS)
                        || message.endsWith(": " + OUT_OF_FILE_DESCRIPTORS + " in system"));
    }

    /** Whether {@code t} is one of the JDK's plain {@code IOException}s saying the request was not processed. */
    private static boolean isNotProcessedSignal(Throwable t) {
        return t.getClass() == IOException.class
                && t.getMessage() != null
                && NOT_PROCESSED_MESSAGES.contains(t.getMessage());
    }

    private Outcome refine(Class<? extends Throwable> matched, Throwable t) {
        if (matched == SSLHandshakeException.class && handshakeCertificateRule) {
            for (Throwable cause : causeChain(t, false)) {
                if (cause != t && CERTIFICATE_TYPES.stream().anyMatch(c -> c.isInstance(cause))) {
                    return failures.get(entryType(cause.getClass()));
                }
            }
        }
        return failures.get(matched);
    }

    /** The most specific type that has an entry; {@code Throwable} always has one. */
    private Class<? extends Throwable> entryType(Class<?> type) {
        Class<?> c = type;
        while (!failures.containsKey(c)) {
            c = c.getSuperclass();
        }
        @SuppressWarnings("unchecked")
        Class<? extends Throwable> found = (Class<? extends Throwable>) c;
        return found;
    }

    private static boolean isWrapper(Throwable t) {
        return t.getCause() != null
                && (t instanceof CompletionException
                        || t instanceof ExecutionException
                        || t instanceof UncheckedIOException);
    }

    private static List<Throwable> causeChain(Throwable failure, boolean skipWrappers) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        List<Throwable> chain = new java.util.ArrayList<>();
        for (Throwable t = failure; t != null && seen.add(t) && seen.size() <= MAX_CAUSE_DEPTH; t = t.getCause()) {
            if (!(skipWrappers && isWrapper(t))) {
                chain.add(t);
            }
        }
        return chain;
    }

    /**
     * Describes the overrides of this table, for logs.
     *
     * @return a description such as {@code ClassificationTable[statusOverrides={404=TRANSIENT}, ...]}
     */
    @Override
    public String toString() {
        Map<String, Outcome> failureNames = new TreeMap<>();
        failures.forEach((type, outcome) -> {
            if (DEFAULTS == null || DEFAULTS.failures.get(type) != outcome) {
                failureNames.put(type.getName(), outcome);
            }
        });
        return "ClassificationTable[statusOverrides=" + new TreeMap<>(statuses)
                + ", failureOverrides=" + failureNames
                + (notProcessed == Outcome.TRANSIENT ? "" : ", notProcessed=" + notProcessed) + "]";
    }

    /**
     * Builds a {@link ClassificationTable}, starting from the defaults or from an existing table. Not
     * thread-safe; {@link #build()} copies, so later changes to the builder do not affect built tables.
     */
    public static final class Builder {

        private final Map<Integer, Outcome> statuses = new LinkedHashMap<>();
        private final Map<Class<? extends Throwable>, Outcome> failures = new LinkedHashMap<>();
        private boolean handshakeCertificateRule = true;
        private Outcome notProcessed = Outcome.TRANSIENT;

        private Builder() {
            failures.put(Throwable.class, Outcome.PERMANENT);
            failures.put(IOException.class, Outcome.AMBIGUOUS);
            failures.put(ConnectException.class, Outcome.TRANSIENT);
            failures.put(NoRouteToHostException.class, Outcome.TRANSIENT);
            failures.put(HttpConnectTimeoutException.class, Outcome.TRANSIENT);
            failures.put(UnknownHostException.class, Outcome.TRANSIENT);
            failures.put(UnresolvedAddressException.class, Outcome.TRANSIENT);
            failures.put(HttpTimeoutException.class, Outcome.AMBIGUOUS);
            failures.put(SocketException.class, Outcome.AMBIGUOUS);
            failures.put(EOFException.class, Outcome.AMBIGUOUS);
            failures.put(SSLHandshakeException.class, Outcome.TRANSIENT);
            for (Class<? extends Throwable> certificateType : CERTIFICATE_TYPES) {
                failures.put(certificateType, Outcome.PERMANENT);
            }
            failures.put(CallRejectedException.class, Outcome.PERMANENT);
            failures.put(InterimResponseException.class, Outcome.AMBIGUOUS);
        }

        private Builder(ClassificationTable table) {
            statuses.putAll(table.statuses);
            failures.putAll(table.failures);
            handshakeCertificateRule = table.handshakeCertificateRule;
            notProcessed = table.notProcessed;
        }

        /**
         * Overrides the outcome of one status code. The override replaces the whole default row,
         * including the 503 {@code Retry-After} refinement.
         *
         * @param statusCode the status code, 100 to 999
         * @param outcome    its outcome
         * @return this builder
         * @throws IllegalArgumentException if {@code statusCode} is outside 100-999
         * @throws NullPointerException     if {@code outcome} is {@code null}
         */
        public Builder status(int statusCode, Outcome outcome) {
            if (statusCode < 100 || statusCode > 999) {
                throw new IllegalArgumentException("statusCode must be between 100 and 999 but was " + statusCode);
            }
            statuses.put(statusCode, Objects.requireNonNull(outcome, "outcome"));
            return this;
        }

        /**
         * Sets the outcome of an exception type and of its subclasses that have no more specific
         * entry: the most specific type wins. Setting {@code SSLHandshakeException} replaces the
         * certificate-cause rule; setting {@code Throwable}, {@code Exception} or {@code IOException}
         * changes a catch-all (see the class description).
         *
         * @param type    the exception type
         * @param outcome its outcome
         * @return this builder
         * @throws NullPointerException if an argument is {@code null}
         */
        public Builder failure(Class<? extends Throwable> type, Outcome outcome) {
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(outcome, "outcome");
            failures.put(type, outcome);
            if (type == SSLHandshakeException.class) {
                handshakeCertificateRule = false;
            }
            return this;
        }

        /**
         * Sets the outcome of the JDK's signals that the server did not process a request (an HTTP/2
         * REFUSED_STREAM, a stream above a GOAWAY's last stream id, the server's concurrent-stream
         * limit; see the class description). Default {@link Outcome#TRANSIENT}: RFC 9113 §8.7 makes
         * such a request safe to retry whatever its method.
         *
         * @param outcome the outcome
         * @return this builder
         * @throws NullPointerException if {@code outcome} is {@code null}
         */
        public Builder notProcessed(Outcome outcome) {
            this.notProcessed = Objects.requireNonNull(outcome, "outcome");
            return this;
        }

        /**
         * Builds the immutable table.
         *
         * @return the table
         */
        public ClassificationTable build() {
            return new ClassificationTable(this);
        }
    }
}
