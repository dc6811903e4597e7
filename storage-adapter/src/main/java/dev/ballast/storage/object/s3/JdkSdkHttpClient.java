package dev.ballast.storage.object.s3;

import dev.ballast.http.ReplayableBodyPublisher;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import software.amazon.awssdk.http.AbortableInputStream;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpFullResponse;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.SdkHttpResponse;

/**
 * An AWS SDK v2 {@link SdkHttpClient} that sends every request through a caller-supplied
 * {@link java.net.http.HttpClient} — typically a {@code dev.ballast.http.ResilientHttpClient}, so that
 * S3 traffic runs under Ballast's retry, circuit breaker and bulkhead, and the SDK's own retries can be
 * switched off (exactly one layer retries).
 *
 * <h2>Restricted headers and SigV4</h2>
 * {@code java.net.http} refuses to let callers set {@code Connection}, {@code Content-Length},
 * {@code Expect}, {@code Host} and {@code Upgrade} (see {@code HttpRequest.Builder#header}). SigV4
 * (the AWS Signature Version 4 documentation, "Create a canonical request") signs {@code host} and,
 * when present, {@code content-length}, so the values the JDK puts on the wire must equal the signed
 * ones. This class ensures that as follows:
 * <ul>
 *   <li>{@code Host}: the JDK derives it from the request URI as {@code host[:port]}, omitting the
 *       port when it is the scheme's default (RFC 9110 section 7.2), which is the rule the SDK's signer
 *       uses too. The SDK's {@code Host} header is compared with that derivation, and a mismatch makes
 *       {@link #prepareRequest} throw {@link IllegalArgumentException} instead of producing a request
 *       the server would reject as {@code SignatureDoesNotMatch}.</li>
 *   <li>{@code Content-Length}: a known length goes through
 *       {@link BodyPublishers#fromPublisher(java.util.concurrent.Flow.Publisher, long)}, so the JDK
 *       sends exactly that length (never chunked), and fails the exchange if the body yields more or
 *       fewer bytes. A zero length sends {@code Content-Length: 0} with no content (a 0-byte PUT is
 *       not sent chunked). Without a length, the JDK uses chunked transfer coding (RFC 9112 section
 *       7.1); the SDK's own {@code Transfer-Encoding} header is dropped so it is not sent twice.</li>
 *   <li>{@code Expect: 100-continue} (RFC 9110 section 10.1.1) becomes
 *       {@link HttpRequest.Builder#expectContinue(boolean)}, and only when the request has content:
 *       a client must not wait for {@code 100 Continue} on a request without content.</li>
 *   <li>{@code Connection} and {@code Upgrade} are hop-by-hop (RFC 9110 section 7.6.1) and are left
 *       to the JDK. None of the dropped headers except {@code Host} and {@code Content-Length} is
 *       signed by SigV4.</li>
 * </ul>
 *
 * <h2>Streaming and replay</h2>
 * Request content is never buffered: the body publisher reads from the SDK's
 * {@link ContentStreamProvider}, and it calls {@link ContentStreamProvider#newStream()} on
 * <em>every</em> subscription. The JDK subscribes once per transmission, so a layer below that
 * re-sends the same {@link HttpRequest} (a retry in {@code ResilientHttpClient}) gets fresh bytes from
 * the start of the content rather than a consumed stream. Response content is exposed as the JDK's
 * {@link BodyHandlers#ofInputStream()} stream, read as the SDK consumes it. A {@code HEAD} response
 * has no content (RFC 9110 section 9.3.2) and is returned without a body.
 *
 * <h2>Responses and failures</h2>
 * Every HTTP response, including 4xx and 5xx, is returned as a response; the SDK decides what is an
 * error. Status code and headers are copied unchanged (all values of multi-valued headers, names
 * looked up case-insensitively by the SDK). {@code java.net.http} does not expose the reason phrase
 * that was on the wire, so {@code statusText} is the registered phrase of RFC 9110 section 15 for
 * the status codes it defines, and absent otherwise (clients ignore reason phrases: RFC 9112
 * section 4). Transport failures are thrown from {@link ExecutableHttpRequest#call()} as
 * {@link IOException}s of the same kind as the JDK's ({@link HttpConnectTimeoutException},
 * {@link HttpTimeoutException}, {@link ConnectException}, else {@link IOException}), with the JDK's
 * exception as the cause; the SDK wraps them in an {@code SdkClientException}. Unchecked exceptions
 * thrown by the underlying client (for example a rejection by an open circuit breaker) propagate
 * unchanged.
 *
 * <h2>Abort and close</h2>
 * {@link ExecutableHttpRequest#abort()} cancels the in-flight exchange (the JDK closes the
 * connection) and closes a response stream already handed out; a {@code call()} blocked waiting for
 * the response then fails with an {@link IOException}. {@link #close()} does nothing: the
 * {@link HttpClient} belongs to the caller.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class JdkSdkHttpClient implements SdkHttpClient {

    /** Error bodies up to this many bytes are read in full before the SDK parses them. */
    static final int MAX_BUFFERED_ERROR_BODY = 64 * 1024;

    /** The value of {@link #clientName()}, reported by the SDK in its user agent and metrics. */
    public static final String CLIENT_NAME = "JdkHttp";

    /**
     * The default protocol version of each request: {@link HttpClient.Version#HTTP_1_1}, as S3 speaks
     * HTTP/1.1 and it keeps the JDK from attempting an {@code h2c} upgrade on plain-HTTP endpoints.
     */
    public static final HttpClient.Version DEFAULT_VERSION = HttpClient.Version.HTTP_1_1;

    /** The names {@code java.net.http} refuses in {@code HttpRequest.Builder#header}, plus framing. */
    private static final Set<String> HEADERS_SET_BY_JDK = caseInsensitive(
            "connection", "content-length", "expect", "host", "upgrade", "transfer-encoding");

    private static final String EXPECT_CONTINUE = "100-continue";

    private final HttpClient httpClient;
    private final Duration responseTimeout;
    private final HttpClient.Version version;

    private JdkSdkHttpClient(Builder builder) {
        this.httpClient = builder.httpClient;
        this.responseTimeout = builder.responseTimeout;
        this.version = builder.version;
    }

    /**
     * Returns an SDK HTTP client over {@code httpClient} with default settings: no response timeout
     * of its own (the underlying client's attempt timeout applies) and {@link #DEFAULT_VERSION}.
     *
     * @param httpClient the client that sends every request; not closed by {@link #close()}
     * @return a new client
     * @throws NullPointerException if {@code httpClient} is null
     */
    public static JdkSdkHttpClient create(HttpClient httpClient) {
        return builder(httpClient).build();
    }

    /**
     * Returns a builder for an SDK HTTP client over {@code httpClient}.
     *
     * @param httpClient the client that sends every request; not closed by {@link #close()}
     * @return a new builder
     * @throws NullPointerException if {@code httpClient} is null
     */
    public static Builder builder(HttpClient httpClient) {
        return new Builder(Objects.requireNonNull(httpClient, "httpClient"));
    }

    /**
     * Returns the response timeout set on each request, if any.
     *
     * @return the timeout passed to {@link HttpRequest.Builder#timeout(Duration)}, or empty
     */
    public Optional<Duration> responseTimeout() {
        return Optional.ofNullable(responseTimeout);
    }

    @Override
    public String clientName() {
        return CLIENT_NAME;
    }

    /**
     * Prepares {@code request} for execution. Nothing is sent until {@link ExecutableHttpRequest#call()}.
     *
     * @throws NullPointerException if {@code request} is null
     * @throws IllegalArgumentException if the request cannot be expressed with {@code java.net.http}
     *     (an invalid header name, a {@code Content-Length} that is not a number or exceeds absent
     *     content) or its {@code Host} header differs from the one the JDK derives from its URI
     */
    @Override
    public ExecutableHttpRequest prepareRequest(HttpExecuteRequest request) {
        Objects.requireNonNull(request, "request");
        return new JdkExecutableRequest(toJdkRequest(request), request.httpRequest().method());
    }

    /** Does nothing: the {@link HttpClient} was supplied by the caller, who owns its lifecycle. */
    @Override
    public void close() {
        // The HttpClient is the caller's: closing it here would break every other user of it.
    }

    HttpRequest toJdkRequest(HttpExecuteRequest executeRequest) {
        SdkHttpRequest sdkRequest = executeRequest.httpRequest();
        URI uri = sdkRequest.getUri();
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri).version(version);
        if (responseTimeout != null) {
            builder.timeout(responseTimeout);
        }
        sdkRequest.forEachHeader((name, values) -> {
            if (!HEADERS_SET_BY_JDK.contains(name)) {
                for (String value : values) {
                    builder.header(name, value);
                }
            }
        });
        sdkRequest.firstMatchingHeader("Host").ifPresent(signedHost -> checkHost(uri, signedHost));

        long contentLength = contentLength(sdkRequest);
        Optional<ContentStreamProvider> content = executeRequest.contentStreamProvider();
        String method = sdkRequest.method().name();
        if (contentLength == 0 || content.isEmpty()) {
            if (contentLength > 0) {
                throw new IllegalArgumentException("Content-Length is " + contentLength
                        + " but the request has no content to send");
            }
            bodiless(builder, sdkRequest.method(), contentLength == 0, nonIdempotentEffect(sdkRequest));
        } else {
            ReplayableBodyPublisher body = replayablePublisher(content.get(), contentLength);
            builder.method(method, nonIdempotentEffect(sdkRequest) ? body.nonIdempotent() : body);
            boolean expectContinue = sdkRequest.firstMatchingHeader("Expect")
                    .map(value -> value.trim().equalsIgnoreCase(EXPECT_CONTINUE))
                    .orElse(false);
            builder.expectContinue(expectContinue);
        }
        return builder.build();
    }

    /**
     * A request without content. With an explicit {@code Content-Length: 0} from the SDK (signed, so
     * it must be on the wire) or a method that defines content (PUT, POST, PATCH: RFC 9110 section
     * 8.6), the JDK is given an empty publisher, for which it sends {@code Content-Length: 0}; GET
     * and DELETE without a length use the JDK's bodiless forms, which send no length on JDK 19 and
     * later. HEAD has no bodiless form in the Java 17 API, so a HEAD may carry an unsigned
     * {@code Content-Length: 0}, which servers accept.
     */
    private static void bodiless(HttpRequest.Builder builder, SdkHttpMethod method, boolean explicitZero,
                                 boolean nonIdempotentEffect) {
        if (nonIdempotentEffect) {
            builder.method(method.name(),
                    ReplayableBodyPublisher.ofSupplier(BodyPublishers::noBody, 0).nonIdempotent());
            return;
        }
        if (!explicitZero) {
            switch (method) {
                case GET:
                    builder.GET();
                    return;
                case DELETE:
                    builder.DELETE();
                    return;
                default:
                    break;
            }
        }
        builder.method(method.name(), BodyPublishers.noBody());
    }

    /**
     * A publisher that opens a fresh stream from {@code provider} on each subscription, so every
     * transmission of the request (including a retry below this class) sends the content from its
     * first byte. {@link BodyPublishers#ofInputStream} already calls its supplier once per
     * subscription and closes the stream at its end; the fixed-length wrapper makes the JDK send
     * exactly {@code contentLength} as {@code Content-Length}. The result is a
     * {@link ReplayableBodyPublisher}, so {@code ResilientHttpClient} retries requests carrying it.
     */
    /**
     * Whether repeating this request could change the store twice. In a versioned bucket every
     * PutObject, CopyObject, CompleteMultipartUpload or DeleteObjects that lands creates a new
     * version or delete marker, so although PUT is an idempotent method (RFC 9110 §9.2.2) its
     * effect here is not: such a request is marked so that {@code ResilientHttpClient} never
     * repeats it after an ambiguous failure (the object store then checks its put token instead).
     * UploadPart and UploadPartCopy ({@code partNumber} and {@code uploadId} in the query) replace
     * the same part and stay retryable.
     */
    static boolean nonIdempotentEffect(SdkHttpRequest request) {
        SdkHttpMethod method = request.method();
        if (method != SdkHttpMethod.PUT && method != SdkHttpMethod.POST) {
            return false;
        }
        Map<String, List<String>> query = request.rawQueryParameters();
        return !(query.containsKey("partNumber") && query.containsKey("uploadId"));
    }

    private static ReplayableBodyPublisher replayablePublisher(ContentStreamProvider provider, long contentLength) {
        // The marker type tells ResilientHttpClient the body may be re-sent; without it a fromPublisher
        // body counts as one-shot and an S3 PUT answered 503 would never be retried.
        return ReplayableBodyPublisher.ofSupplier(() -> {
            BodyPublisher stream = BodyPublishers.ofInputStream(provider::newStream);
            return contentLength < 0 ? stream : BodyPublishers.fromPublisher(stream, contentLength);
        }, contentLength < 0 ? -1 : contentLength);
    }

    private static long contentLength(SdkHttpRequest request) {
        Optional<String> header = request.firstMatchingHeader("Content-Length");
        if (header.isEmpty()) {
            return -1;
        }
        String value = header.get().trim();
        long length;
        try {
            length = Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "Content-Length must be a non-negative decimal number but was '" + value + "'", e);
        }
        if (length < 0) {
            throw new IllegalArgumentException(
                    "Content-Length must be a non-negative decimal number but was '" + value + "'");
        }
        return length;
    }

    /**
     * Fails fast when the Host the JDK will send (derived from the URI) differs from the one the SDK
     * signed: the server would otherwise answer {@code SignatureDoesNotMatch} with no hint why.
     */
    private static void checkHost(URI uri, String signedHost) {
        String sent = jdkHost(uri);
        if (!sent.equalsIgnoreCase(signedHost.trim())) {
            throw new IllegalArgumentException("The request's Host header '" + signedHost
                    + "' differs from '" + sent + "', which java.net.http derives from " + uri
                    + " and sends; the signature would not match");
        }
    }

    /** The JDK's rule for the Host header (and the HTTP/2 :authority): port only when not default. */
    static String jdkHost(URI uri) {
        String host = uri.getHost();
        int port = uri.getPort();
        boolean https = "https".equalsIgnoreCase(uri.getScheme());
        boolean defaultPort = port == -1 || port == (https ? 443 : 80);
        return defaultPort ? host : host + ":" + port;
    }

    private static Set<String> caseInsensitive(String... names) {
        Set<String> set = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
        set.addAll(List.of(names));
        return set;
    }

    /** One prepared exchange: {@link #call()} at most once, {@link #abort()} from any thread. */
    private final class JdkExecutableRequest implements ExecutableHttpRequest {
        private final HttpRequest request;
        private final SdkHttpMethod method;
        private final AtomicReference<CompletableFuture<HttpResponse<InputStream>>> inFlight =
                new AtomicReference<>();
        private final AtomicReference<InputStream> responseBody = new AtomicReference<>();
        private volatile boolean aborted;

        JdkExecutableRequest(HttpRequest request, SdkHttpMethod method) {
            this.request = request;
            this.method = method;
        }

        @Override
        public HttpExecuteResponse call() throws IOException {
            if (aborted) {
                throw new IOException("Request was aborted before it was sent: " + describe());
            }
            CompletableFuture<HttpResponse<InputStream>> future =
                    httpClient.sendAsync(request, BodyHandlers.ofInputStream());
            if (!inFlight.compareAndSet(null, future)) {
                future.cancel(true);
                throw new IllegalStateException("call() may be invoked only once per prepared request");
            }
            if (aborted) {
                future.cancel(true);
            }
            HttpResponse<InputStream> response = await(future);
            InputStream body = response.body();
            responseBody.set(body);
            if (aborted) {
                body.close();
                throw new IOException("Request was aborted: " + describe());
            }
            return toSdkResponse(response, body);
        }

        @Override
        public void abort() {
            aborted = true;
            CompletableFuture<HttpResponse<InputStream>> future = inFlight.get();
            if (future != null) {
                future.cancel(true);
            }
            InputStream body = responseBody.get();
            if (body != null) {
                closeQuietly(body);
            }
        }

        private HttpResponse<InputStream> await(CompletableFuture<HttpResponse<InputStream>> future)
                throws IOException {
            try {
                return future.get();
            } catch (InterruptedException e) {
                future.cancel(true);
                Thread.currentThread().interrupt();
                InterruptedIOException interrupted =
                        new InterruptedIOException("Interrupted while waiting for " + describe());
                interrupted.initCause(e);
                throw interrupted;
            } catch (CancellationException e) {
                throw new IOException("Request was aborted: " + describe(), e);
            } catch (ExecutionException e) {
                throw translate(e.getCause());
            }
        }

        /**
         * Re-creates the JDK's exception on this thread (the original carries the stack of the
         * client's executor) while keeping its type, so the SDK and the layers above can tell a
         * connect failure from a timeout; the original stays the cause.
         */
        private IOException translate(Throwable cause) {
            String message = describe() + ": " + cause;
            if (cause instanceof CancellationException) {
                return new IOException("Request was aborted: " + describe(), cause);
            }
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;
            }
            if (cause instanceof Error) {
                throw (Error) cause;
            }
            IOException translated;
            if (cause instanceof HttpConnectTimeoutException) {
                translated = new HttpConnectTimeoutException(message);
            } else if (cause instanceof HttpTimeoutException) {
                translated = new HttpTimeoutException(message);
            } else if (cause instanceof ConnectException) {
                translated = new ConnectException(message);
            } else {
                return new IOException(message, cause);
            }
            translated.initCause(cause);
            return translated;
        }

        private HttpExecuteResponse toSdkResponse(HttpResponse<InputStream> response, InputStream body)
                throws IOException {
            SdkHttpFullResponse.Builder sdkResponse = SdkHttpResponse.builder()
                    .statusCode(response.statusCode());
            String reason = ReasonPhrases.of(response.statusCode());
            if (reason != null) {
                sdkResponse.statusText(reason);
            }
            copyHeaders(response.headers(), sdkResponse);
            HttpExecuteResponse.Builder result = HttpExecuteResponse.builder().response(sdkResponse.build());
            if (method == SdkHttpMethod.HEAD) {
                // No content follows a HEAD response; closing returns the connection to the pool.
                body.close();
            } else if (response.statusCode() >= 300) {
                InputStream errorBody = bufferErrorBody(body);
                result.responseBody(AbortableInputStream.create(errorBody, () -> closeQuietly(errorBody)));
            } else {
                result.responseBody(AbortableInputStream.create(body, () -> closeQuietly(body)));
            }
            return result.build();
        }

        /**
         * Reads an error answer's body (an S3 error document, a few hundred bytes) before the SDK
         * sees it. Some S3-compatible servers answer a PUT with 412 or 4xx before reading its body
         * and then close the connection, which cuts the error document short; the status code is
         * still the answer, so a body that breaks off is replaced by an empty one (the SDK then
         * reports the status without an error code) instead of surfacing as an I/O failure that
         * would hide the 412. Bodies over {@value #MAX_BUFFERED_ERROR_BODY} bytes are streamed on.
         */
        private InputStream bufferErrorBody(InputStream body) {
            byte[] head;
            try {
                head = body.readNBytes(MAX_BUFFERED_ERROR_BODY);
            } catch (IOException cutShort) {
                closeQuietly(body);
                return InputStream.nullInputStream();
            }
            if (head.length < MAX_BUFFERED_ERROR_BODY) {
                closeQuietly(body);
                return new java.io.ByteArrayInputStream(head);
            }
            return new java.io.SequenceInputStream(new java.io.ByteArrayInputStream(head), body);
        }

        private String describe() {
            return request.method() + " " + request.uri();
        }
    }

    private static void copyHeaders(HttpHeaders headers, SdkHttpFullResponse.Builder target) {
        for (Map.Entry<String, List<String>> header : headers.map().entrySet()) {
            // HTTP/2 pseudo-headers (":status") are framing, not fields.
            if (!header.getKey().startsWith(":")) {
                target.putHeader(header.getKey(), header.getValue());
            }
        }
    }

    private static void closeQuietly(InputStream stream) {
        try {
            stream.close();
        } catch (IOException e) {
            // Closing is how an abort releases the connection; a failure to close leaves nothing to do.
        }
    }

    /**
     * Builder of {@link JdkSdkHttpClient}; not thread-safe. {@link #build()} may be called repeatedly and
     * each result is independent of later changes to the builder.
     */
    public static final class Builder {
        private final HttpClient httpClient;
        private Duration responseTimeout;
        private HttpClient.Version version = DEFAULT_VERSION;

        private Builder(HttpClient httpClient) {
            this.httpClient = httpClient;
        }

        /**
         * Sets the timeout of each request, passed to {@link HttpRequest.Builder#timeout(Duration)}: the
         * time from sending until the response headers arrive, after which {@code call()} fails with an
         * {@link HttpTimeoutException}. Default: none of its own, so the underlying client's attempt
         * timeout (if any) applies.
         *
         * @param timeout a positive duration, or null for none
         * @return this builder
         * @throws IllegalArgumentException if {@code timeout} is zero or negative
         */
        public Builder responseTimeout(Duration timeout) {
            if (timeout != null && (timeout.isZero() || timeout.isNegative())) {
                throw new IllegalArgumentException("responseTimeout must be positive but was " + timeout);
            }
            this.responseTimeout = timeout;
            return this;
        }

        /**
         * Sets the protocol version requested for each request. Default: {@link #DEFAULT_VERSION}.
         *
         * @param version the version
         * @return this builder
         * @throws NullPointerException if {@code version} is null
         */
        public Builder version(HttpClient.Version version) {
            this.version = Objects.requireNonNull(version, "version");
            return this;
        }

        /**
         * Builds the client.
         *
         * @return a new, immutable client
         */
        public JdkSdkHttpClient build() {
            return new JdkSdkHttpClient(this);
        }
    }

    /** Reason phrases registered by RFC 9110 section 15 (and 429 from RFC 6585 section 4). */
    private static final class ReasonPhrases {
        private ReasonPhrases() {
        }

        static String of(int status) {
            switch (status) {
                case 100: return "Continue";
                case 200: return "OK";
                case 201: return "Created";
                case 202: return "Accepted";
                case 204: return "No Content";
                case 206: return "Partial Content";
                case 301: return "Moved Permanently";
                case 302: return "Found";
                case 303: return "See Other";
                case 304: return "Not Modified";
                case 307: return "Temporary Redirect";
                case 308: return "Permanent Redirect";
                case 400: return "Bad Request";
                case 401: return "Unauthorized";
                case 403: return "Forbidden";
                case 404: return "Not Found";
                case 405: return "Method Not Allowed";
                case 408: return "Request Timeout";
                case 409: return "Conflict";
                case 411: return "Length Required";
                case 412: return "Precondition Failed";
                case 413: return "Content Too Large";
                case 416: return "Range Not Satisfiable";
                case 417: return "Expectation Failed";
                case 422: return "Unprocessable Content";
                case 429: return "Too Many Requests";
                case 500: return "Internal Server Error";
                case 501: return "Not Implemented";
                case 502: return "Bad Gateway";
                case 503: return "Service Unavailable";
                case 504: return "Gateway Timeout";
                case 505: return "HTTP Version Not Supported";
                default: return null;
            }
        }
    }

    @Override
    public String toString() {
        return "JdkSdkHttpClient[" + httpClient + ", responseTimeout=" + responseTimeout
                + ", version=" + version + "]";
    }
}
