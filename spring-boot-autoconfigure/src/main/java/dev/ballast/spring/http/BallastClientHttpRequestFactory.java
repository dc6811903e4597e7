package dev.ballast.spring.http;

import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpMethod;
import org.springframework.http.client.ClientHttpRequest;
import org.springframework.http.client.ClientHttpRequestFactory;

/**
 * A {@link ClientHttpRequestFactory} that sends Spring's requests through a {@link HttpClient},
 * normally a {@link dev.ballast.http.ResilientHttpClient}, so that its retries work for Spring's
 * request bodies and cover reading the response body. Spring's own
 * {@code JdkClientHttpRequestFactory} streams every body through a publisher the client cannot replay
 * (so a POST, PUT or PATCH gets one attempt) and reads responses with {@code ofInputStream} (so a
 * stalled or reset response body fails after {@code send} returned, where nothing retries it).
 *
 * <pre>{@code
 * RestClient rest = RestClient.builder()
 *     .requestFactory(BallastClientHttpRequestFactory.newBuilder(resilientClient).build())
 *     .build();
 * }</pre>
 *
 * <h2>Request bodies</h2>
 * Spring writes the body into a buffer of at most {@link Builder#maxBufferedRequestBytes(long)}
 * (default {@value #DEFAULT_MAX_BUFFERED_REQUEST_BYTES} bytes, 1 MiB); a body that fits is sent
 * with {@code BodyPublishers.ofByteArray}, which the client replays on every attempt, so the
 * request is retried as any other (for an ambiguous failure, only when its method is idempotent or
 * it carries an idempotency key). A larger body is streamed as Spring writes it, at most one
 * buffer's worth held in memory, and gets exactly one attempt: the client cannot send it again.
 *
 * <h2>Response bodies</h2>
 * By default ({@link ResponseBody#BUFFERED}) the whole body is read inside the call, within the
 * attempt timeout, into memory of at most {@link Builder#maxBufferedResponseBytes(long)} (default
 * {@value #DEFAULT_MAX_BUFFERED_RESPONSE_BYTES} bytes, 16 MiB): a body that stalls or whose
 * connection is reset fails that attempt, which is retried like a failure before the headers
 * (idempotent or keyed requests). A larger body fails the call with an {@link java.io.IOException}
 * saying so, which is never retried (it is the caller's limit, not the dependency's failure).
 * With {@link ResponseBody#STREAMED} the body is handed to Spring as a stream after the headers, as
 * Spring's own factory does: no size limit, still bounded by the attempt timeout, but a body that
 * fails mid-read is not retried.
 *
 * <p>Restricted headers the JDK client refuses to be given ({@code Connection},
 * {@code Content-Length}, {@code Expect}, {@code Host}, {@code Upgrade}, unless allowed by
 * {@code jdk.httpclient.allowRestrictedHeaders}) are left out, as Spring's own factory does; the
 * client sets them. A read timeout set here becomes each request's {@link java.net.http.HttpRequest#timeout()},
 * which {@code ResilientHttpClient} takes as that request's attempt timeout.
 *
 * <p>Immutable and thread-safe; builders are not thread-safe.
 */
public final class BallastClientHttpRequestFactory implements ClientHttpRequestFactory {

    /** Default of {@link Builder#maxBufferedRequestBytes(long)}: {@value} bytes (1 MiB). */
    public static final long DEFAULT_MAX_BUFFERED_REQUEST_BYTES = 1024 * 1024;
    /** Default of {@link Builder#maxBufferedResponseBytes(long)}: {@value} bytes (16 MiB). */
    public static final long DEFAULT_MAX_BUFFERED_RESPONSE_BYTES = 16L * 1024 * 1024;
    /** The largest buffer accepted: {@value} bytes, the longest Java array. */
    public static final long MAX_BUFFER_BYTES = Integer.MAX_VALUE - 8;

    /** How a response body reaches Spring. */
    public enum ResponseBody {
        /** Read whole within the call and its attempt timeout, so its failures are retried; the default. */
        BUFFERED,
        /** Handed to Spring as a stream after the headers: unlimited size, but failures mid-body are not retried. */
        STREAMED
    }

    private final HttpClient client;
    private final int maxBufferedRequestBytes;
    private final int maxBufferedResponseBytes;
    private final ResponseBody responseBody;
    private final @Nullable Duration readTimeout;
    private final Executor streamingExecutor;

    private BallastClientHttpRequestFactory(Builder builder) {
        this.streamingExecutor = builder.streamingExecutor;
        this.client = builder.client;
        this.maxBufferedRequestBytes = (int) builder.maxBufferedRequestBytes;
        this.maxBufferedResponseBytes = (int) builder.maxBufferedResponseBytes;
        this.responseBody = builder.responseBody;
        this.readTimeout = builder.readTimeout;
    }

    /**
     * Returns a builder over {@code client} with every default.
     *
     * @param client the client every request is sent with, normally a {@code ResilientHttpClient}
     * @return a new builder
     * @throws NullPointerException if {@code client} is null
     */
    public static Builder newBuilder(HttpClient client) {
        return new Builder(Objects.requireNonNull(client, "client"));
    }

    /**
     * Returns a factory over {@code client} with every default.
     *
     * @param client the client every request is sent with, normally a {@code ResilientHttpClient}
     * @return a new factory
     * @throws NullPointerException if {@code client} is null
     */
    public static BallastClientHttpRequestFactory of(HttpClient client) {
        return newBuilder(client).build();
    }

    @Override
    public ClientHttpRequest createRequest(URI uri, HttpMethod httpMethod) {
        return new BallastClientHttpRequest(this, uri, httpMethod);
    }

    HttpClient client() {
        return client;
    }

    int maxBufferedRequestBytes() {
        return maxBufferedRequestBytes;
    }

    int maxBufferedResponseBytes() {
        return maxBufferedResponseBytes;
    }

    ResponseBody responseBody() {
        return responseBody;
    }

    @Nullable
    Duration readTimeout() {
        return readTimeout;
    }

    Executor streamingExecutor() {
        return streamingExecutor;
    }

    /** One short-lived daemon thread per streamed body: such bodies are over the buffer limit, so rare and long. */
    private static void newStreamingThread(Runnable task) {
        Thread thread = new Thread(task, "ballast-request-body");
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public String toString() {
        return "BallastClientHttpRequestFactory[maxBufferedRequestBytes=" + maxBufferedRequestBytes
                + ", maxBufferedResponseBytes=" + maxBufferedResponseBytes + ", responseBody=" + responseBody
                + ", readTimeout=" + readTimeout + ", client=" + client + "]";
    }

    /** Builds a {@link BallastClientHttpRequestFactory}. Not thread-safe. */
    public static final class Builder {

        private final HttpClient client;
        private long maxBufferedRequestBytes = DEFAULT_MAX_BUFFERED_REQUEST_BYTES;
        private long maxBufferedResponseBytes = DEFAULT_MAX_BUFFERED_RESPONSE_BYTES;
        private ResponseBody responseBody = ResponseBody.BUFFERED;
        private @Nullable Duration readTimeout;
        private Executor streamingExecutor = BallastClientHttpRequestFactory::newStreamingThread;

        private Builder(HttpClient client) {
            this.client = client;
        }

        /**
         * Sets the largest request body sent as a replayable (retryable) body; a larger one is streamed
         * and sent once. 0 streams every body. If not set, 1 MiB.
         *
         * @param bytes in {@code [0, MAX_BUFFER_BYTES]}
         * @return this builder
         * @throws IllegalArgumentException if {@code bytes} is outside that range
         */
        public Builder maxBufferedRequestBytes(long bytes) {
            this.maxBufferedRequestBytes = inRange(bytes, "maxBufferedRequestBytes");
            return this;
        }

        /**
         * Sets the largest response body read into memory with {@link ResponseBody#BUFFERED}; a larger
         * one fails the call with an {@code IOException}. If not set, 16 MiB.
         *
         * @param bytes in {@code [0, MAX_BUFFER_BYTES]}
         * @return this builder
         * @throws IllegalArgumentException if {@code bytes} is outside that range
         */
        public Builder maxBufferedResponseBytes(long bytes) {
            this.maxBufferedResponseBytes = inRange(bytes, "maxBufferedResponseBytes");
            return this;
        }

        /**
         * Sets how response bodies reach Spring. If not set, {@link ResponseBody#BUFFERED}.
         *
         * @param responseBody the mode
         * @return this builder
         * @throws NullPointerException if {@code responseBody} is null
         */
        public Builder responseBody(ResponseBody responseBody) {
            this.responseBody = Objects.requireNonNull(responseBody, "responseBody");
            return this;
        }

        /**
         * Sets each request's {@link java.net.http.HttpRequest#timeout()}: with a
         * {@code ResilientHttpClient}, the attempt timeout of requests made through this factory. If not
         * set, requests carry none and the client's own attempt timeout applies.
         *
         * @param readTimeout a positive duration
         * @return this builder
         * @throws NullPointerException if {@code readTimeout} is null
         * @throws IllegalArgumentException if it is zero or negative
         */
        public Builder readTimeout(Duration readTimeout) {
            Objects.requireNonNull(readTimeout, "readTimeout");
            if (readTimeout.isZero() || readTimeout.isNegative()) {
                throw new IllegalArgumentException("readTimeout must be positive but was " + readTimeout);
            }
            this.readTimeout = readTimeout;
            return this;
        }

        /**
         * Sets where the exchange of a body above the buffer limit is started, while the calling thread
         * writes the body into it: the task may block until the body is read. If not set, a new daemon
         * thread per such request ({@code ballast-request-body}); buffered bodies never use it.
         *
         * @param streamingExecutor runs one task per streamed request body
         * @return this builder
         * @throws NullPointerException if {@code streamingExecutor} is null
         */
        public Builder streamingExecutor(Executor streamingExecutor) {
            this.streamingExecutor = Objects.requireNonNull(streamingExecutor, "streamingExecutor");
            return this;
        }

        /**
         * Builds the factory.
         *
         * @return a new factory
         */
        public BallastClientHttpRequestFactory build() {
            return new BallastClientHttpRequestFactory(this);
        }

        private static long inRange(long bytes, String name) {
            if (bytes < 0 || bytes > MAX_BUFFER_BYTES) {
                throw new IllegalArgumentException(
                        name + " must be >= 0 and <= " + MAX_BUFFER_BYTES + " but was " + bytes);
            }
            return bytes;
        }
    }
}
