package dev.ballast.storage.object.s3.transport;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.http.AbortableInputStream;
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
 * {@link HttpClient}: typically a {@code dev.ballast.http.ResilientHttpClient}, so that S3 traffic runs
 * under Ballast's retry, circuit breaker and bulkhead and the SDK's own retries can be switched off
 * (exactly one layer retries).
 *
 * <h2>Requests</h2>
 * Headers are copied except those {@code java.net.http} sets itself, with the signed {@code Host}
 * checked against the one the JDK sends ({@link RestrictedHeaders}); content is streamed, never
 * buffered, with exactly the signed {@code Content-Length}, re-read from its first byte on every
 * transmission so a retrying layer below re-sends whole bodies, and never with
 * {@code Expect: 100-continue}, which the JDK client mishandles ({@link RequestBodies}). HTTP/1.1 is requested by default
 * ({@link #DEFAULT_VERSION}). A request for which the {@linkplain Builder#nonIdempotentEffect
 * non-idempotent effect rule} holds carries a body marked non-idempotent, which
 * {@code ResilientHttpClient} never repeats after an ambiguous failure, whatever its method.
 *
 * <h2>Responses and failures</h2>
 * Every HTTP response, 4xx and 5xx included, is returned as a response; the SDK decides what is an
 * error. Status and headers are copied unchanged (all values of multi-valued headers); the reason
 * phrase is the registered one ({@link ReasonPhrases}). Response content is the JDK's stream, read as
 * the SDK consumes it; a {@code HEAD} response has none (RFC 9110 section 9.3.2); an error answer's
 * body is read ahead so one the server cut short still reaches the SDK as its status
 * ({@link ErrorBodies}). Transport failures are thrown from {@link ExecutableHttpRequest#call()} as
 * {@link IOException}s of the JDK's kind, re-created on the calling thread with the JDK's exception as
 * the cause ({@link TransportFailures}); unchecked exceptions of the underlying client propagate
 * unchanged.
 *
 * <h2>Abort and close</h2>
 * {@link ExecutableHttpRequest#abort()} cancels the in-flight exchange (the JDK closes the
 * connection) and closes a response stream already handed out; a {@code call()} blocked waiting for
 * the response then fails with an {@link IOException}. {@link #close()} does nothing: the
 * {@link HttpClient} belongs to the caller.
 *
 * <p>Immutable and thread-safe; builders are not thread-safe.
 *
 * @see Builder
 */
public final class JdkSdkHttpClient implements SdkHttpClient {

    /** The value of {@link #clientName()}, reported by the SDK in its user agent and metrics. */
    public static final String CLIENT_NAME = "JdkHttp";

    /**
     * The default protocol version of each request: {@link HttpClient.Version#HTTP_1_1}, as S3 speaks
     * HTTP/1.1 and it keeps the JDK from attempting an {@code h2c} upgrade on plain-HTTP endpoints.
     */
    public static final HttpClient.Version DEFAULT_VERSION = HttpClient.Version.HTTP_1_1;

    private final HttpClient httpClient;
    private final @Nullable Duration responseTimeout;
    private final HttpClient.Version version;
    private final Predicate<SdkHttpRequest> nonIdempotentEffect;
    private final Function<SdkHttpRequest, @Nullable Duration> requestTimeout;

    private JdkSdkHttpClient(Builder builder) {
        this.httpClient = builder.httpClient;
        this.responseTimeout = builder.responseTimeout;
        this.version = builder.version;
        this.nonIdempotentEffect = builder.nonIdempotentEffect;
        this.requestTimeout = builder.requestTimeout;
    }

    /**
     * An SDK HTTP client over {@code httpClient} with the defaults: no response timeout of its own,
     * {@link #DEFAULT_VERSION}, no request marked non-idempotent.
     *
     * @param httpClient the client that sends every request; not closed by {@link #close()}
     * @throws NullPointerException if {@code httpClient} is null
     */
    public static JdkSdkHttpClient create(HttpClient httpClient) {
        return builder(httpClient).build();
    }

    /**
     * A builder of SDK HTTP clients over {@code httpClient}.
     *
     * @param httpClient the client that sends every request; not closed by {@link #close()}
     * @throws NullPointerException if {@code httpClient} is null
     */
    public static Builder builder(HttpClient httpClient) {
        return new Builder(Objects.requireNonNull(httpClient, "httpClient"));
    }

    /** The response timeout set on each request, if any (see {@link Builder#responseTimeout}). */
    public Optional<Duration> responseTimeout() {
        return Optional.ofNullable(responseTimeout);
    }

    @Override
    public String clientName() {
        return CLIENT_NAME;
    }

    /**
     * Prepares {@code request}; nothing is sent until {@link ExecutableHttpRequest#call()}.
     *
     * @throws NullPointerException if {@code request} is null
     * @throws IllegalArgumentException if the request cannot be expressed with {@code java.net.http}
     *     (an invalid header, a {@code Content-Length} that is not a number or exceeds absent content)
     *     or its {@code Host} header differs from the one the JDK derives from its URI
     */
    @Override
    public ExecutableHttpRequest prepareRequest(HttpExecuteRequest request) {
        Objects.requireNonNull(request, "request");
        return new JdkExecutableRequest(
                toJdkRequest(request), request.httpRequest().method());
    }

    /** Does nothing: the {@link HttpClient} was supplied by the caller, who owns its lifecycle. */
    @Override
    public void close() {
        // The HttpClient is the caller's: closing it here would break every other user of it.
    }

    /** The {@code java.net.http} request that {@link #prepareRequest} sends for {@code executeRequest}. */
    HttpRequest toJdkRequest(HttpExecuteRequest executeRequest) {
        SdkHttpRequest sdkRequest = executeRequest.httpRequest();
        HttpRequest.Builder builder =
                HttpRequest.newBuilder(sdkRequest.getUri()).version(version);
        Duration own = requestTimeout.apply(sdkRequest);
        if (own != null) {
            builder.timeout(own);
        } else if (responseTimeout != null) {
            builder.timeout(responseTimeout);
        }
        RestrictedHeaders.copy(sdkRequest, builder);
        RequestBodies.apply(
                sdkRequest, executeRequest.contentStreamProvider(), nonIdempotentEffect.test(sdkRequest), builder);
        return builder.build();
    }

    @Override
    public String toString() {
        return "JdkSdkHttpClient[" + httpClient + ", responseTimeout=" + responseTimeout + ", version=" + version + "]";
    }

    /** One prepared exchange: {@link #call()} at most once, {@link #abort()} from any thread. */
    private final class JdkExecutableRequest implements ExecutableHttpRequest {
        private final HttpRequest request;
        private final SdkHttpMethod method;
        private final AtomicReference<CompletableFuture<HttpResponse<InputStream>>> inFlight = new AtomicReference<>();
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
                ErrorBodies.closeQuietly(body);
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
                throw TransportFailures.onCallingThread(describe(), e.getCause());
            }
        }

        private HttpExecuteResponse toSdkResponse(HttpResponse<InputStream> response, InputStream body)
                throws IOException {
            SdkHttpFullResponse.Builder sdkResponse = SdkHttpResponse.builder().statusCode(response.statusCode());
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
                InputStream errorBody = ErrorBodies.readAhead(body);
                result.responseBody(AbortableInputStream.create(errorBody, () -> ErrorBodies.closeQuietly(errorBody)));
            } else {
                result.responseBody(AbortableInputStream.create(body, () -> ErrorBodies.closeQuietly(body)));
            }
            return result.build();
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

    /**
     * Builder of {@link JdkSdkHttpClient}; not thread-safe. {@link #build()} may be called repeatedly
     * and each result is independent of later changes to the builder.
     */
    public static final class Builder {
        private final HttpClient httpClient;
        private @Nullable Duration responseTimeout;
        private HttpClient.Version version = DEFAULT_VERSION;
        private Predicate<SdkHttpRequest> nonIdempotentEffect = request -> false;
        private Function<SdkHttpRequest, @Nullable Duration> requestTimeout = request -> null;

        private Builder(HttpClient httpClient) {
            this.httpClient = httpClient;
        }

        /**
         * The timeout of each request, passed to {@link HttpRequest.Builder#timeout(Duration)}: the time
         * from sending until the response headers arrive, after which {@code call()} fails with an
         * {@link HttpTimeoutException}. If not set, there is none of its own, so the underlying client's
         * attempt timeout (if any) applies.
         *
         * @param timeout a positive duration, or null for none
         * @return this builder
         * @throws IllegalArgumentException if {@code timeout} is zero or negative
         */
        public Builder responseTimeout(@Nullable Duration timeout) {
            if (timeout != null && (timeout.isZero() || timeout.isNegative())) {
                throw new IllegalArgumentException("responseTimeout must be positive but was " + timeout);
            }
            this.responseTimeout = timeout;
            return this;
        }

        /**
         * The protocol version requested for each request. If not set, {@link #DEFAULT_VERSION}.
         *
         * @throws NullPointerException if {@code version} is null
         */
        public Builder version(HttpClient.Version version) {
            this.version = Objects.requireNonNull(version, "version");
            return this;
        }

        /**
         * Which requests have an effect that repeating would apply twice although their method is
         * idempotent (RFC 9110 section 9.2.2), for example a PUT that creates a new version each time it
         * lands. Their bodies are marked non-idempotent, so {@code ResilientHttpClient} never repeats them
         * after an ambiguous failure (no answer after the request may have been sent). This transport is
         * generic HTTP and knows no such rule itself; if not set, no request is marked.
         *
         * @param rule tested once per prepared request; must be thread-safe and fast
         * @throws NullPointerException if {@code rule} is null
         */
        public Builder nonIdempotentEffect(Predicate<SdkHttpRequest> rule) {
            this.nonIdempotentEffect = Objects.requireNonNull(rule, "rule");
            return this;
        }

        /**
         * Which requests get a timeout of their own, for requests a server may take much longer to
         * answer than others (S3's {@code CompleteMultipartUpload}, which may take minutes). The rule's
         * answer is set as the request's {@link HttpRequest#timeout()}, which {@code ResilientHttpClient}
         * takes as that request's attempt timeout; null leaves the request to
         * {@link #responseTimeout(Duration)} or the underlying client. If not set, no request has one.
         *
         * @param rule tested once per prepared request; must be thread-safe and fast, and return null or
         *     a positive duration
         * @throws NullPointerException if {@code rule} is null
         */
        public Builder requestTimeout(Function<SdkHttpRequest, @Nullable Duration> rule) {
            this.requestTimeout = Objects.requireNonNull(rule, "rule");
            return this;
        }

        /** A new, immutable client with these settings. */
        public JdkSdkHttpClient build() {
            return new JdkSdkHttpClient(this);
        }
    }
}
