package dev.ballast.storage.object;

import dev.ballast.http.ForwardingHttpClient;
import dev.ballast.testkit.StaticResponse;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * A {@link HttpClient} in front of a real one that records every exchange and injects faults no S3
 * server can stage on demand: an answer lost after the server stored the request, a byte flipped in
 * a response or request body, a response body that breaks off. Each fault fires once, on the first
 * request it matches. It also reports request-body bytes as they stream out, for heap checkpoints.
 * Thread-safe.
 */
public final class FaultInjectingHttpClient extends ForwardingHttpClient {

    /** One request as sent. */
    public record Exchange(String method, URI uri, HttpHeaders headers) {
        /** The raw query, or "" when none. */
        public String query() {
            return uri.getRawQuery() == null ? "" : uri.getRawQuery();
        }
    }

    private enum Kind {
        DROP_RESPONSE,
        FLIP_RESPONSE_BYTE,
        CUT_RESPONSE_BODY,
        FLIP_REQUEST_BYTE,
        S3_ERROR,
        SEND_TWICE,
        HOLD_ANSWER
    }

    private static final class Fault {
        final Kind kind;
        final Predicate<HttpRequest> when;
        final long offset;
        final String code;
        boolean fired;
        /** For {@link Kind#HOLD_ANSWER}: what lets the answer go. */
        CompletableFuture<?> release = CompletableFuture.completedFuture(null);

        Fault(Kind kind, Predicate<HttpRequest> when, long offset) {
            this(kind, when, offset, null);
        }

        Fault(Kind kind, Predicate<HttpRequest> when, long offset, String code) {
            this.kind = kind;
            this.when = when;
            this.offset = offset;
            this.code = code;
        }
    }

    private final HttpClient delegate;
    private final List<Exchange> exchanges = new CopyOnWriteArrayList<>();
    private final List<Fault> faults = new CopyOnWriteArrayList<>();
    private volatile BodyObserver requestBodyObserver;

    /** Told how many request-body bytes of one request were handed over before and after a chunk. */
    @FunctionalInterface
    public interface BodyObserver {
        void sent(long before, long after);
    }

    /**
     * Wraps {@code delegate}, which does the real sending. Requests go as they come: what the faults
     * do not touch reaches the server as the product sent it.
     */
    public FaultInjectingHttpClient(HttpClient delegate) {
        this.delegate = java.util.Objects.requireNonNull(delegate, "delegate");
    }

    @Override
    protected HttpClient delegate() {
        return delegate;
    }

    /** Goes through {@link #sendAsync(HttpRequest, HttpResponse.BodyHandler)}, so the faults apply to it too. */
    @Override
    public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
            throws IOException, InterruptedException {
        try {
            return sendAsync(request, handler).get();
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            if (e.getCause() instanceof RuntimeException unchecked) {
                throw unchecked;
            }
            throw new IOException(e.getCause());
        }
    }

    /** Goes through {@link #sendAsync(HttpRequest, HttpResponse.BodyHandler)}; push promises are not offered. */
    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(
            HttpRequest request,
            HttpResponse.BodyHandler<T> handler,
            HttpResponse.PushPromiseHandler<T> pushPromiseHandler) {
        return sendAsync(request, handler);
    }

    /** Matches requests by method and a predicate on the query (e.g. {@code q -> q.contains("uploadId")}). */
    public static Predicate<HttpRequest> request(String method, Predicate<String> query) {
        return r -> r.method().equals(method)
                && query.test(r.uri().getRawQuery() == null ? "" : r.uri().getRawQuery());
    }

    /** The server receives and stores the request, but the caller gets an IOException instead of the answer. */
    public void dropResponseOnce(Predicate<HttpRequest> when) {
        faults.add(new Fault(Kind.DROP_RESPONSE, when, 0));
    }

    /**
     * Sends the matching request twice, as a retrying layer below the store would after a lost answer,
     * and hands back only the second answer.
     */
    public void sendTwiceOnce(Predicate<HttpRequest> when) {
        faults.add(new Fault(Kind.SEND_TWICE, when, 0));
    }

    /** Flips all bits of the response body byte at {@code offset}. */
    public void flipResponseByteOnce(Predicate<HttpRequest> when, long offset) {
        faults.add(new Fault(Kind.FLIP_RESPONSE_BYTE, when, offset));
    }

    /** The response body fails with an IOException (connection reset) after {@code afterBytes} bytes. */
    public void cutResponseBodyOnce(Predicate<HttpRequest> when, long afterBytes) {
        faults.add(new Fault(Kind.CUT_RESPONSE_BODY, when, afterBytes));
    }

    /** Flips all bits of the request body byte at {@code offset} on its way to the server. */
    public void flipRequestByteOnce(Predicate<HttpRequest> when, long offset) {
        faults.add(new Fault(Kind.FLIP_REQUEST_BYTE, when, offset));
    }

    /**
     * Answers the matching request itself, without sending it, with an S3 error document of HTTP
     * {@code status} and error code {@code code} (as a server under contention would).
     */
    public void answerS3ErrorOnce(Predicate<HttpRequest> when, int status, String code) {
        faults.add(new Fault(Kind.S3_ERROR, when, status, code));
    }

    /**
     * Holds the answer to the first matching request (sent to the server as usual) until
     * {@code release} completes: what other threads do meanwhile can be seen.
     */
    public void holdAnswerOnce(Predicate<HttpRequest> when, CompletableFuture<?> release) {
        Fault f = new Fault(Kind.HOLD_ANSWER, when, 0);
        f.release = release;
        faults.add(f);
    }

    /** Called as each request-body chunk is handed to the network; null to stop. */
    public void observeRequestBodies(BodyObserver observer) {
        this.requestBodyObserver = observer;
    }

    /** Every request sent so far, in order. */
    public List<Exchange> exchanges() {
        return List.copyOf(exchanges);
    }

    /** Forgets the recorded exchanges. */
    public void clearExchanges() {
        exchanges.clear();
    }

    private synchronized Fault take(HttpRequest request) {
        for (Fault f : faults) {
            if (!f.fired && f.when.test(request)) {
                f.fired = true;
                return f;
            }
        }
        return null;
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
        exchanges.add(new Exchange(request.method(), request.uri(), request.headers()));
        Fault fault = take(request);
        if (fault != null && fault.kind == Kind.S3_ERROR) {
            byte[] xml = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>" + fault.code
                            + "</Code><Message>injected " + fault.code + "</Message></Error>")
                    .getBytes(java.nio.charset.StandardCharsets.UTF_8);
            HttpHeaders headers = HttpHeaders.of(
                    java.util.Map.of(
                            "Content-Type",
                            List.of("application/xml"),
                            "Content-Length",
                            List.of(Integer.toString(xml.length))),
                    (n, v) -> true);
            @SuppressWarnings("unchecked")
            HttpResponse<T> answer = (HttpResponse<T>)
                    StaticResponse.of((int) fault.offset, request, headers, new java.io.ByteArrayInputStream(xml));
            return CompletableFuture.completedFuture(answer);
        }
        HttpRequest toSend = request;
        BodyObserver observer = requestBodyObserver;
        if (request.bodyPublisher().isPresent()
                && (observer != null || (fault != null && fault.kind == Kind.FLIP_REQUEST_BYTE))) {
            long flipAt = fault != null && fault.kind == Kind.FLIP_REQUEST_BYTE ? fault.offset : -1;
            toSend = HttpRequest.newBuilder(request, (n, v) -> true)
                    .method(
                            request.method(),
                            new ObservedPublisher(request.bodyPublisher().get(), observer, flipAt))
                    .build();
        }
        if (fault != null && fault.kind == Kind.SEND_TWICE) {
            HttpRequest again = toSend;
            return delegate.sendAsync(toSend, HttpResponse.BodyHandlers.discarding())
                    .thenCompose(first -> delegate.sendAsync(again, handler));
        }
        CompletableFuture<HttpResponse<T>> sent = delegate.sendAsync(toSend, handler);
        if (fault == null || fault.kind == Kind.FLIP_REQUEST_BYTE) {
            return sent;
        }
        if (fault.kind == Kind.HOLD_ANSWER) {
            return sent.thenCombine(fault.release, (response, released) -> response);
        }
        return sent.thenCompose(response -> {
            if (fault.kind == Kind.DROP_RESPONSE) {
                closeQuietly(response.body());
                return CompletableFuture.failedFuture(
                        new IOException("Connection reset (injected: answer dropped after the " + "server processed "
                                + request.method() + " " + request.uri() + ")"));
            }
            if (!(response.body() instanceof InputStream body)) {
                return CompletableFuture.completedFuture(response);
            }
            InputStream faulty = new DamagingInputStream(body, fault.offset, fault.kind == Kind.CUT_RESPONSE_BODY);
            @SuppressWarnings("unchecked")
            HttpResponse<T> replaced =
                    (HttpResponse<T>) StaticResponse.withBody((HttpResponse<InputStream>) response, faulty);
            return CompletableFuture.completedFuture(replaced);
        });
    }

    private static void closeQuietly(Object body) {
        if (body instanceof InputStream in) {
            try {
                in.close();
            } catch (IOException ignored) {
                // The answer is being dropped on purpose; a failing close changes nothing.
            }
        }
    }

    /** Counts (and optionally corrupts) request-body bytes as the JDK client pulls them. */
    private static final class ObservedPublisher implements HttpRequest.BodyPublisher {
        private final HttpRequest.BodyPublisher source;
        private final BodyObserver observer;
        private final long flipAt;

        ObservedPublisher(HttpRequest.BodyPublisher source, BodyObserver observer, long flipAt) {
            this.source = source;
            this.observer = observer;
            this.flipAt = flipAt;
        }

        @Override
        public long contentLength() {
            return source.contentLength();
        }

        @Override
        public void subscribe(Flow.Subscriber<? super ByteBuffer> subscriber) {
            AtomicLong sent = new AtomicLong();
            source.subscribe(new Flow.Subscriber<>() {
                @Override
                public void onSubscribe(Flow.Subscription subscription) {
                    subscriber.onSubscribe(subscription);
                }

                @Override
                public void onNext(ByteBuffer item) {
                    long start = sent.getAndAdd(item.remaining());
                    ByteBuffer out = item;
                    if (flipAt >= start && flipAt < start + item.remaining()) {
                        out = ByteBuffer.allocate(item.remaining())
                                .put(item.duplicate())
                                .flip();
                        int i = (int) (flipAt - start);
                        out.put(i, (byte) ~out.get(i));
                    }
                    if (observer != null) {
                        observer.sent(start, start + out.remaining());
                    }
                    subscriber.onNext(out);
                }

                @Override
                public void onError(Throwable throwable) {
                    subscriber.onError(throwable);
                }

                @Override
                public void onComplete() {
                    subscriber.onComplete();
                }
            });
        }
    }

    /** Damages one place of a response body: flips all bits of the byte at, or breaks off before, an offset. */
    private static final class DamagingInputStream extends FilterInputStream {
        private final long offset;
        private final boolean cut;
        private long position;

        DamagingInputStream(InputStream in, long offset, boolean cut) {
            super(in);
            this.offset = offset;
            this.cut = cut;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) == -1 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (cut && position >= offset) {
                throw new IOException("Connection reset (injected: body cut after " + offset + " bytes)");
            }
            int n = super.read(b, off, cut ? (int) Math.min(len, offset - position) : len);
            if (!cut && n > 0 && offset >= position && offset < position + n) {
                int i = off + (int) (offset - position);
                b[i] = (byte) ~b[i];
            }
            if (n > 0) {
                position += n;
            }
            return n;
        }
    }
}
