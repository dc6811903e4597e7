package dev.ballast.http.opentelemetry;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A real HTTP server on the loopback interface that answers each request with the next scripted
 * answer (200 "ok" once the script is empty), and records the {@code traceparent} header of every
 * request it got. An answer may be held until {@link #release()}, to keep an attempt in flight.
 */
final class LoopbackServer implements AutoCloseable {

    /** One scripted answer. */
    record Answer(int status, String retryAfter, boolean held) {}

    private final HttpServer server;
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final Queue<Answer> script = new ConcurrentLinkedQueue<>();
    private final CountDownLatch release = new CountDownLatch(1);
    final List<String> traceparents = new CopyOnWriteArrayList<>();
    /** Counts requests received; a test waits on it to know an attempt reached the server. */
    final java.util.concurrent.Semaphore received = new java.util.concurrent.Semaphore(0);

    LoopbackServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
    }

    LoopbackServer then(int status) {
        script.add(new Answer(status, null, false));
        return this;
    }

    LoopbackServer thenRetryAfter(int status, String retryAfter) {
        script.add(new Answer(status, retryAfter, false));
        return this;
    }

    /** The next request gets a 200 only once {@link #release()} is called. */
    LoopbackServer thenHeld() {
        script.add(new Answer(200, null, true));
        return this;
    }

    void release() {
        release.countDown();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String traceparent = exchange.getRequestHeaders().getFirst("traceparent");
            traceparents.add(traceparent == null ? "-" : traceparent);
            Answer answer = script.poll();
            if (answer == null) {
                answer = new Answer(200, null, false);
            }
            received.release();
            if (answer.held()) {
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            if (answer.retryAfter() != null) {
                exchange.getResponseHeaders().add("Retry-After", answer.retryAfter());
            }
            byte[] body = "ok".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(answer.status(), body.length);
            exchange.getResponseBody().write(body);
        }
    }

    @Override
    public void close() {
        release();
        server.stop(0);
        executor.shutdownNow();
    }
}
