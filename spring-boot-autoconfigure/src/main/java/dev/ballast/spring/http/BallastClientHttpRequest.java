package dev.ballast.spring.http;

import dev.ballast.spring.http.BallastClientHttpRequestFactory.ResponseBody;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.io.SequenceInputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodyHandlers;
import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.StreamingHttpOutputMessage;
import org.springframework.http.client.AbstractClientHttpRequest;
import org.springframework.http.client.ClientHttpResponse;

/**
 * One request of a {@link BallastClientHttpRequestFactory}; see there for what it does with bodies.
 * Spring hands the body either as a {@link StreamingHttpOutputMessage.Body} (RestClient, message
 * converters) or by writing to {@link #getBody()} (which Spring buffers anyway); both end in
 * one send. It extends {@code AbstractClientHttpRequest}, public in every
 * Spring Framework 7 (its streaming subclass is public only from 7.0.x releases that Spring Boot 4.1
 * brings).
 */
final class BallastClientHttpRequest extends AbstractClientHttpRequest implements StreamingHttpOutputMessage {

    /** What {@code java.net.http} refuses to be given (jdk.internal.net.http.common.Utils), as Spring's factory. */
    private static final Set<String> DISALLOWED_HEADERS = disallowedHeaders();

    /** The pipe of a body that was buffered whole: never written to or read. */
    private static final BodyPipe NO_PIPE = new BodyPipe();

    private final BallastClientHttpRequestFactory factory;
    private final URI uri;
    private final HttpMethod method;

    BallastClientHttpRequest(BallastClientHttpRequestFactory factory, URI uri, HttpMethod method) {
        this.factory = factory;
        this.uri = uri;
        this.method = method;
    }

    private @Nullable Body body;
    private @Nullable ByteArrayOutputStream written;

    @Override
    public void setBody(Body body) {
        assertNotExecuted();
        if (written != null) {
            throw new IllegalStateException("Invoke either getBody or setBody; not both");
        }
        this.body = body;
    }

    @Override
    protected OutputStream getBodyInternal(HttpHeaders headers) {
        if (body != null) {
            throw new IllegalStateException("Invoke either getBody or setBody; not both");
        }
        if (written == null) {
            written = new ByteArrayOutputStream(1024);
        }
        return written;
    }

    @Override
    protected ClientHttpResponse executeInternal(HttpHeaders headers) throws IOException {
        ByteArrayOutputStream bytes = written;
        return send(headers, body != null ? body : bytes != null ? bytes::writeTo : null);
    }

    @Override
    public HttpMethod getMethod() {
        return method;
    }

    @Override
    public URI getURI() {
        return uri;
    }

    private ClientHttpResponse send(HttpHeaders headers, @Nullable Body body) throws IOException {
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri);
        headers.forEach((name, values) -> {
            if (!DISALLOWED_HEADERS.contains(name)) {
                for (String value : values) {
                    builder.header(name, value != null ? value : "");
                }
            }
        });
        if (factory.readTimeout() != null) {
            builder.timeout(factory.readTimeout());
        }
        if (body == null) {
            switch (method.name()) {
                case "GET" -> builder.GET();
                case "DELETE" -> builder.DELETE();
                default -> builder.method(method.name(), BodyPublishers.noBody());
            }
            return send(builder.build());
        }
        BoundedBuffer buffer = new BoundedBuffer(factory.maxBufferedRequestBytes(), builder, headers);
        try {
            body.writeTo(buffer);
        } catch (IOException | RuntimeException e) {
            if (buffer.streaming == null) {
                throw e;
            }
            // The exchange may have ended on its own (an early answer, a refused connection): its
            // outcome is the one to report, and it is the cause the body could not be written.
            if (!buffer.streaming.isDone()) {
                buffer.pipe.fail(e);
                buffer.streaming.cancel(true);
                throw e;
            }
        }
        if (buffer.streaming != null) {
            buffer.pipe.finish();
            return await(buffer.streaming);
        }
        // Replayable: the client sends the same bytes on every attempt (ResilientHttpClient knows
        // ofByteArray by type; see ReplayableBodyPublisher).
        BodyPublisher replayable =
                buffer.count == 0 ? BodyPublishers.noBody() : BodyPublishers.ofByteArray(buffer.bytes, 0, buffer.count);
        return send(builder.method(method.name(), replayable).build());
    }

    private ClientHttpResponse send(HttpRequest request) throws IOException {
        HttpClient client = factory.client();
        try {
            if (factory.responseBody() == ResponseBody.STREAMED) {
                HttpResponse<InputStream> response = client.send(request, BodyHandlers.ofInputStream());
                return new BallastClientHttpResponse(response, response.body());
            }
            HttpResponse<byte[]> response = client.send(request, bufferedBody());
            return new BallastClientHttpResponse(response, new ByteArrayInputStream(response.body()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            InterruptedIOException interrupted = new InterruptedIOException("request to " + uri + " was interrupted");
            interrupted.initCause(e);
            throw interrupted;
        }
    }

    private BodyHandler<byte[]> bufferedBody() {
        return LimitedBodies.ofByteArray(factory.maxBufferedResponseBytes());
    }

    private ClientHttpResponse await(CompletableFuture<? extends HttpResponse<?>> exchange) throws IOException {
        HttpResponse<?> response;
        try {
            response = exchange.get();
        } catch (InterruptedException e) {
            exchange.cancel(true);
            Thread.currentThread().interrupt();
            InterruptedIOException interrupted = new InterruptedIOException("request to " + uri + " was interrupted");
            interrupted.initCause(e);
            throw interrupted;
        } catch (CancellationException e) {
            throw new IOException("request to " + uri + " was cancelled", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof UncheckedIOException unchecked) {
                throw unchecked.getCause();
            }
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IOException(cause);
        }
        Object payload = response.body();
        InputStream stream = payload instanceof byte[] bytes
                ? new ByteArrayInputStream(bytes)
                : payload instanceof InputStream in ? in : InputStream.nullInputStream();
        return new BallastClientHttpResponse(response, stream);
    }

    /**
     * Collects the body up to the limit; past it, starts the exchange with the bytes so far followed
     * by the rest through a {@link BodyPipe}, written by Spring on this thread as the client reads it.
     */
    private final class BoundedBuffer extends OutputStream {

        private final int limit;
        private final HttpRequest.Builder builder;
        private final HttpHeaders headers;
        byte[] bytes = new byte[0];
        int count;

        @Nullable
        CompletableFuture<? extends HttpResponse<?>> streaming;

        BodyPipe pipe = new BodyPipe();

        BoundedBuffer(int limit, HttpRequest.Builder builder, HttpHeaders headers) {
            this.limit = limit;
            this.builder = builder;
            this.headers = headers;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            if (streaming != null) {
                pipe.write(b, off, len, streaming);
                return;
            }
            if ((long) count + len <= limit) {
                if (count + len > bytes.length) {
                    bytes = Arrays.copyOf(bytes, (int) Math.min(limit, Math.max(2L * bytes.length, count + len)));
                }
                System.arraycopy(b, off, bytes, count, len);
                count += len;
                return;
            }
            startStreaming();
            pipe.write(b, off, len, streaming);
        }

        @Override
        public void close() {
            // Spring's converters may close the stream they were given; the body ends when writeTo returns.
        }

        private void startStreaming() {
            BodyPipe pipe = new BodyPipe();
            this.pipe = pipe;
            byte[] head = Arrays.copyOf(bytes, count);
            bytes = new byte[0];
            long contentLength = headers.getContentLength();
            // Not replayable on purpose: the client gives it one attempt (it cannot send it again).
            BodyPublisher once = BodyPublishers.ofInputStream(
                    () -> new SequenceInputStream(new ByteArrayInputStream(head), pipe.source()));
            BodyPublisher sized = contentLength > 0 ? BodyPublishers.fromPublisher(once, contentLength) : once;
            HttpRequest request = builder.method(method.name(), sized).build();
            // Started from another thread: a client may read the first body bytes inside sendAsync
            // itself (JDK 25 does, over HTTP/1.1), and this thread must be free to write them.
            CompletableFuture<CompletableFuture<? extends HttpResponse<?>>> started = CompletableFuture.supplyAsync(
                    () -> factory.responseBody() == ResponseBody.STREAMED
                            ? factory.client().sendAsync(request, BodyHandlers.ofInputStream())
                            : factory.client().sendAsync(request, bufferedBody()),
                    factory.streamingExecutor());
            streaming = started.thenCompose(exchange -> exchange);
        }
    }

    private static Set<String> disallowedHeaders() {
        TreeSet<String> headers = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
        headers.addAll(Set.of("connection", "content-length", "expect", "host", "upgrade"));
        String allowed = System.getProperty("jdk.httpclient.allowRestrictedHeaders");
        if (allowed != null) {
            for (String name : allowed.split(",")) {
                headers.remove(name.trim().toLowerCase(Locale.ROOT));
            }
        }
        return headers;
    }
}
