package dev.ballast.it.support;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * A loopback HTTP/1.1 proxy between a client and a server that stages faults no server produces on
 * demand. Each request is read in full, forwarded on a fresh upstream connection, and the whole
 * response read before anything is sent back, so a fault can act on it:
 *
 * <ul>
 *   <li>{@link #flipByteOnce}: the next matching response reaches the client with one body byte
 *       flipped (a corrupting middlebox);
 *   <li>{@link #dropResponseOnce}: the next matching request is forwarded and processed by the
 *       server, then the client's connection is closed without an answer (a lost acknowledgement);
 *   <li>{@link #serveOnce}: the next matching request is answered with a response recorded earlier,
 *       without reaching the server (a lagging replica);
 *   <li>{@link #blackhole()}: every request from then on, on new and open connections, is read and
 *       never answered, while connections are still accepted (an endpoint that hangs, or a proxy
 *       that blackholes it); {@link #stop()} ends the wait by closing the connections;
 *   <li>{@link #stop()}: the listening socket and every client connection are closed, so new
 *       connections are refused (the server stopped); {@link #restart()} listens again on the same
 *       port.
 * </ul>
 *
 * Every exchange is recorded ({@link #exchanges()}); {@link #connections()} and {@link #requests()}
 * count what reached the proxy. Thread-safe. Test support only: no TLS, bodies held in memory.
 */
public final class FaultProxy implements AutoCloseable {

    private volatile boolean blackholed;

    /** A request as the client sent it; {@code target} is the request-target (path and query). */
    public record Request(String method, String target, List<String[]> headers, byte[] body) {
        /** The request-target without its query. */
        public String path() {
            int q = target.indexOf('?');
            return q < 0 ? target : target.substring(0, q);
        }

        /** The first value of header {@code name} (case-insensitive). */
        public Optional<String> header(String name) {
            return FaultProxy.header(headers, name);
        }
    }

    /** A response as the server sent it (body de-chunked). */
    public record Response(String statusLine, List<String[]> headers, byte[] body) {
        /** The status code. */
        public int status() {
            return Integer.parseInt(statusLine.split(" ")[1]);
        }

        /** The first value of header {@code name} (case-insensitive). */
        public Optional<String> header(String name) {
            return FaultProxy.header(headers, name);
        }
    }

    /** One request and what the client was sent (or not), with the fault applied, if any. */
    public record Exchange(Request request, Response response, String fault) {}

    /** Matches requests with this method whose path ends with {@code "/" + pathSuffix}. */
    public static Predicate<Request> request(String method, String pathSuffix) {
        return r -> r.method().equals(method) && r.path().endsWith("/" + pathSuffix);
    }

    private static final Set<String> HOP_BY_HOP =
            Set.of("connection", "keep-alive", "transfer-encoding", "expect", "upgrade", "proxy-connection", "te");

    private final URI upstream;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "fault-proxy");
        t.setDaemon(true);
        return t;
    });
    private final Set<Socket> clients = ConcurrentHashMap.newKeySet();
    private final List<Exchange> exchanges = new CopyOnWriteArrayList<>();
    private final ConcurrentLinkedQueue<Fault> faults = new ConcurrentLinkedQueue<>();
    private final AtomicInteger connections = new AtomicInteger();
    private final AtomicInteger requests = new AtomicInteger();
    private volatile ServerSocket listener;
    private volatile int port;

    private FaultProxy(URI upstream) {
        this.upstream = upstream;
    }

    /**
     * Starts a proxy on a free loopback port forwarding to {@code upstream} ({@code http://host:port}).
     */
    public static FaultProxy start(URI upstream) throws IOException {
        FaultProxy proxy = new FaultProxy(Objects.requireNonNull(upstream, "upstream"));
        proxy.listen(0);
        return proxy;
    }

    /** The proxy's base URI, {@code http://127.0.0.1:port}. */
    public URI uri() {
        return URI.create("http://127.0.0.1:" + port);
    }

    /** Connections accepted so far. */
    public int connections() {
        return connections.get();
    }

    /** Requests read from clients so far (forwarded or answered by a fault). */
    public int requests() {
        return requests.get();
    }

    /** Every exchange so far, oldest first. */
    public List<Exchange> exchanges() {
        return List.copyOf(exchanges);
    }

    /** The exchanges whose request matches, oldest first. */
    public List<Exchange> exchanges(Predicate<Request> match) {
        return exchanges.stream().filter(e -> match.test(e.request())).toList();
    }

    /** The next matching response gets its body byte at {@code index} (or the last one) flipped. */
    public void flipByteOnce(Predicate<Request> match, int index) {
        faults.add(new Fault(match, FaultKind.FLIP, index, null));
    }

    /** The next matching request reaches the server, but its client connection is closed unanswered. */
    public void dropResponseOnce(Predicate<Request> match) {
        faults.add(new Fault(match, FaultKind.DROP, 0, null));
    }

    /** The next matching request is answered with {@code recorded} and never reaches the server. */
    public void serveOnce(Predicate<Request> match, Response recorded) {
        faults.add(new Fault(match, FaultKind.SERVE, 0, Objects.requireNonNull(recorded, "recorded")));
    }

    /** Whether any armed fault has not fired yet. */
    public boolean faultsPending() {
        return !faults.isEmpty();
    }

    /** From now on every request is read and never answered; connections are still accepted. */
    public void blackhole() {
        blackholed = true;
    }

    /** Stops listening and closes every client connection: new connections are refused. */
    public synchronized void stop() throws IOException {
        ServerSocket current = listener;
        listener = null;
        if (current != null) {
            current.close();
        }
        for (Socket client : clients) {
            closeQuietly(client);
        }
        clients.clear();
    }

    /** Listens again on the same port after {@link #stop()}. */
    public synchronized void restart() throws IOException {
        if (listener == null) {
            listen(port);
        }
    }

    @Override
    public void close() throws IOException {
        stop();
        threads.shutdownNow();
    }

    private synchronized void listen(int onPort) throws IOException {
        ServerSocket server = new ServerSocket();
        server.setReuseAddress(true);
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), onPort));
        port = server.getLocalPort();
        listener = server;
        threads.execute(() -> acceptLoop(server));
    }

    private void acceptLoop(ServerSocket server) {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                connections.incrementAndGet();
                clients.add(client);
                if (listener != server) {
                    // stop() ran between accept() and add(): it set the listener aside before closing the clients
                    // it knew of, so this one is closed here and never served.
                    clients.remove(client);
                    closeQuietly(client);
                    continue;
                }
                threads.execute(() -> serve(client));
            } catch (IOException closed) {
                return;
            }
        }
    }

    private void serve(Socket client) {
        try (client) {
            InputStream in = new BufferedInputStream(client.getInputStream());
            OutputStream out = client.getOutputStream();
            while (true) {
                Request request = readRequest(in, out);
                if (request == null) {
                    return;
                }
                requests.incrementAndGet();
                if (blackholed) {
                    exchanges.add(new Exchange(
                            request, new Response("HTTP/1.1 000 None", List.of(), new byte[0]), "blackholed"));
                    while (in.read() >= 0) {
                        // never answer; wait for the client (or stop()) to close the connection
                    }
                    return;
                }
                Fault fault = takeFault(request);
                if (fault != null && fault.kind == FaultKind.SERVE) {
                    exchanges.add(new Exchange(request, fault.recorded, "served-recorded"));
                    writeResponse(out, request, fault.recorded);
                    continue;
                }
                Response response = forward(request);
                if (fault != null && fault.kind == FaultKind.DROP) {
                    exchanges.add(new Exchange(request, response, "dropped"));
                    return; // closes the client connection without a byte of the response
                }
                if (fault != null && fault.kind == FaultKind.FLIP && response.body().length > 0) {
                    byte[] body = response.body().clone();
                    int at = Math.min(fault.index, body.length - 1);
                    body[at] ^= 0x01;
                    response = new Response(response.statusLine(), response.headers(), body);
                    exchanges.add(new Exchange(request, response, "flipped byte " + at));
                } else {
                    exchanges.add(new Exchange(request, response, null));
                }
                writeResponse(out, request, response);
                if (request.header("Connection")
                        .map(v -> v.equalsIgnoreCase("close"))
                        .orElse(false)) {
                    return;
                }
            }
        } catch (IOException | RuntimeException e) {
            // The client went away or the proxy was stopped: nothing to answer.
        } finally {
            clients.remove(client);
        }
    }

    private Fault takeFault(Request request) {
        for (Fault fault : faults) {
            if (fault.match.test(request) && faults.remove(fault)) {
                return fault;
            }
        }
        return null;
    }

    private Request readRequest(InputStream in, OutputStream out) throws IOException {
        String requestLine = readLine(in);
        while (requestLine != null && requestLine.isEmpty()) {
            requestLine = readLine(in);
        }
        if (requestLine == null) {
            return null;
        }
        String[] parts = requestLine.split(" ");
        List<String[]> headers = readHeaders(in);
        if (header(headers, "Expect")
                .map(v -> v.equalsIgnoreCase("100-continue"))
                .orElse(false)) {
            out.write("HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
        }
        byte[] body = readBody(in, headers, false);
        return new Request(parts[0], parts[1], headers, body);
    }

    private Response forward(Request request) throws IOException {
        try (Socket server = new Socket(upstream.getHost(), upstream.getPort())) {
            OutputStream out = server.getOutputStream();
            StringBuilder head = new StringBuilder(request.method() + " " + request.target() + " HTTP/1.1\r\n");
            for (String[] h : request.headers()) {
                String name = h[0].toLowerCase(Locale.ROOT);
                if (!HOP_BY_HOP.contains(name) && !name.equals("content-length")) {
                    head.append(h[0]).append(": ").append(h[1]).append("\r\n");
                }
            }
            if (request.body().length > 0 || hasBodyMethod(request.method())) {
                head.append("Content-Length: ").append(request.body().length).append("\r\n");
            }
            head.append("Connection: close\r\n\r\n");
            out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
            out.write(request.body());
            out.flush();
            InputStream in = new BufferedInputStream(server.getInputStream());
            String statusLine;
            List<String[]> headers;
            do {
                statusLine = readLine(in);
                if (statusLine == null) {
                    throw new IOException("upstream closed the connection without a response");
                }
                headers = readHeaders(in);
            } while (statusLine.split(" ")[1].startsWith("1"));
            int status = Integer.parseInt(statusLine.split(" ")[1]);
            boolean noBody = request.method().equals("HEAD") || status == 204 || status == 304;
            byte[] body = noBody ? new byte[0] : readBody(in, headers, true);
            return new Response(statusLine, headers, body);
        }
    }

    private static boolean hasBodyMethod(String method) {
        return method.equals("PUT") || method.equals("POST");
    }

    private static void writeResponse(OutputStream out, Request request, Response response) throws IOException {
        StringBuilder head = new StringBuilder(response.statusLine()).append("\r\n");
        boolean isHead = request.method().equals("HEAD");
        for (String[] h : response.headers()) {
            String name = h[0].toLowerCase(Locale.ROOT);
            if (HOP_BY_HOP.contains(name) || (!isHead && name.equals("content-length"))) {
                continue;
            }
            head.append(h[0]).append(": ").append(h[1]).append("\r\n");
        }
        if (!isHead) {
            head.append("Content-Length: ").append(response.body().length).append("\r\n");
        }
        head.append("\r\n");
        out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
        out.write(response.body());
        out.flush();
    }

    private static byte[] readBody(InputStream in, List<String[]> headers, boolean untilEofIfUnframed)
            throws IOException {
        if (header(headers, "Transfer-Encoding")
                .map(v -> v.toLowerCase(Locale.ROOT).contains("chunked"))
                .orElse(false)) {
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            while (true) {
                String sizeLine = readLine(in);
                if (sizeLine == null) {
                    throw new IOException("chunked body ended early");
                }
                int size = Integer.parseInt(sizeLine.split(";")[0].trim(), 16);
                if (size == 0) {
                    readHeaders(in); // trailers
                    return body.toByteArray();
                }
                body.write(in.readNBytes(size));
                readLine(in);
            }
        }
        Optional<String> length = header(headers, "Content-Length");
        if (length.isPresent()) {
            int n = Integer.parseInt(length.get().trim());
            byte[] body = in.readNBytes(n);
            if (body.length != n) {
                throw new IOException("body ended after " + body.length + " of " + n + " bytes");
            }
            return body;
        }
        return untilEofIfUnframed ? in.readAllBytes() : new byte[0];
    }

    private static List<String[]> readHeaders(InputStream in) throws IOException {
        List<String[]> headers = new ArrayList<>();
        for (String line = readLine(in); line != null && !line.isEmpty(); line = readLine(in)) {
            int colon = line.indexOf(':');
            headers.add(new String[] {
                line.substring(0, colon).trim(), line.substring(colon + 1).trim()
            });
        }
        return headers;
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) >= 0) {
            if (b == '\n') {
                byte[] bytes = line.toByteArray();
                int end = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
                return new String(bytes, 0, end, StandardCharsets.ISO_8859_1);
            }
            line.write(b);
        }
        return line.size() == 0 ? null : line.toString(StandardCharsets.ISO_8859_1);
    }

    static Optional<String> header(List<String[]> headers, String name) {
        return headers.stream()
                .filter(h -> h[0].equalsIgnoreCase(name))
                .map(h -> h[1])
                .findFirst();
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException | RuntimeException ignored) {
            // already closed by its handler
        }
    }

    private enum FaultKind {
        FLIP,
        DROP,
        SERVE
    }

    private record Fault(Predicate<Request> match, FaultKind kind, int index, Response recorded) {}

    @Override
    public String toString() {
        return "FaultProxy[" + uri() + " -> " + upstream + "]";
    }
}
