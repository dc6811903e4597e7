package dev.ballast.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.http.retry.Backoff;
import dev.ballast.http.retry.Jitter;
import dev.ballast.http.retry.RetryConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Interim (1xx) responses, RFC 9110 §15.2, through the JDK client on a loopback server that writes
 * raw HTTP/1.1: a 1xx is never the answer to a call, whatever the JDK hands over.
 */
@Timeout(60)
class InterimResponseTest {

    private static final byte[] BODY = new byte[200_000];

    private RawServer server;

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    private static ResilientHttpClient client(int maxAttempts) {
        return client(
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build(), maxAttempts);
    }

    private static ResilientHttpClient client(HttpClient delegate, int maxAttempts) {
        return ResilientHttpClient.newBuilder()
                .delegate(delegate)
                .retry(RetryConfig.builder()
                        .maxAttempts(maxAttempts)
                        .backoff(Backoff.exponential(Duration.ofMillis(1), Duration.ofMillis(1), Jitter.NONE))
                        .build())
                .build();
    }

    private HttpRequest put(boolean expectContinue, HttpRequest.BodyPublisher body) {
        return HttpRequest.newBuilder(server.uri("/k"))
                .PUT(body)
                .expectContinue(expectContinue)
                .build();
    }

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void aSecondContinueAfterTheFirstIsNoAnswerAndTheConnectionBehindItIsNotReused(CallMode mode) throws Exception {
        // Werkzeug (moto_server) writes "100 Continue" twice to a request with Expect: 100-continue; the
        // JDK takes the second as the final response, and the real 200 follows it on the connection.
        server = new RawServer((head, in, out) -> {
            if (head.expectContinue()) {
                out.write(interim("100 Continue"));
                out.write(interim("100 Continue"));
                out.flush();
            }
            in.readNBytes(head.contentLength());
            out.write(ok("stored"));
        });
        ResilientHttpClient client = client(2);

        assertThatThrownBy(
                        () -> mode.call(client, put(true, BodyPublishers.ofByteArray(BODY)), BodyHandlers.ofString()))
                .isInstanceOf(RetriesExhaustedException.class)
                .satisfies(e -> assertThat(e.getSuppressed())
                        .hasSize(2)
                        .allSatisfy(attempt ->
                                assertThat(interimIn(attempt).statusCode()).isEqualTo(100)));
        assertThat(server.requests()).containsExactly("PUT /k expect", "PUT /k expect"); // a PUT is idempotent

        HttpResponse<String> next = mode.call(client, get(), BodyHandlers.ofString());
        assertThat(next.statusCode()).isEqualTo(200);
        assertThat(next.body()).isEqualTo("got"); // its own answer, not the PUT's 200 left on the connection
    }

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void anInterimResponseToARequestThatMustNotBeRepeatedEndsTheCallUnretried(CallMode mode) throws Exception {
        server = new RawServer((head, in, out) -> {
            out.write(interim("100 Continue"));
            out.write(interim("103 Early Hints"));
            out.flush();
            in.readNBytes(head.contentLength());
            out.write(ok("stored"));
        });
        ResilientHttpClient client = client(3);
        HttpRequest versionedPut = put(
                true,
                ReplayableBodyPublisher.ofSupplier(() -> BodyPublishers.ofByteArray(BODY), BODY.length)
                        .nonIdempotent());

        assertThatThrownBy(() -> mode.call(client, versionedPut, BodyHandlers.ofString()))
                .isInstanceOf(IOException.class)
                .isNotInstanceOf(RetriesExhaustedException.class)
                .satisfies(e -> assertThat(interimIn(e).statusCode()).isEqualTo(103))
                .hasMessageContaining("103")
                .hasMessageContaining("PUT /k");
        assertThat(server.requests()).containsExactly("PUT /k expect");
    }

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void continueThenTheAnswerIsThatAnswer(CallMode mode) throws Exception {
        server = new RawServer((head, in, out) -> {
            out.write(interim("100 Continue"));
            out.flush();
            in.readNBytes(head.contentLength());
            out.write(ok("stored"));
        });

        assertStoredBySinglePut(mode, true);
    }

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void interimResponsesNobodyAskedForAreSkippedAndTheFinalOneIsTheAnswer(CallMode mode) throws Exception {
        server = new RawServer((head, in, out) -> {
            in.readNBytes(head.contentLength());
            out.write(interim("100 Continue"));
            out.write(interim("103 Early Hints"));
            out.write(ok("stored"));
        });

        assertStoredBySinglePut(mode, false);
    }

    private void assertStoredBySinglePut(CallMode mode, boolean expectContinue) throws Exception {
        HttpResponse<String> response =
                mode.call(client(3), put(expectContinue, BodyPublishers.ofByteArray(BODY)), BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("stored");
        assertThat(server.requests()).containsExactly(expectContinue ? "PUT /k expect" : "PUT /k");
    }

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void expectationFailedIsAFinalAnswerReturnedAsItIs(CallMode mode) throws Exception {
        // RFC 9110 §15.5.18: the server (or one on the way) cannot meet the expectation. The JDK sent no
        // body and returns the 417; the client returns it, unretried, like any other 4xx.
        server = new RawServer((head, in, out) ->
                out.write("HTTP/1.1 417 Expectation Failed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII)));

        HttpResponse<String> response =
                mode.call(client(3), put(true, BodyPublishers.ofByteArray(BODY)), BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(417);
        assertThat(server.requests()).containsExactly("PUT /k expect");
    }

    @ParameterizedTest
    @EnumSource(CallMode.class)
    void aWrappedClientThatReturnsAnInterimStatusGetsNoAnswerEither(CallMode mode) throws Exception {
        ScriptedHttpClient delegate = new ScriptedHttpClient()
                .then(ScriptedHttpClient.status(102)) // through the handler, as the JDK does
                .then(ScriptedHttpClient.responseWithoutRunningTheHandler(100, null)); // a test double
        ResilientHttpClient client = client(delegate, 2);

        assertThatThrownBy(() -> mode.call(
                        client,
                        HttpRequest.newBuilder(URI.create("http://api.test/x")).build(),
                        BodyHandlers.ofString()))
                .isInstanceOf(RetriesExhaustedException.class)
                .satisfies(e -> assertThat(e.getSuppressed())
                        .extracting(attempt -> interimIn(attempt).statusCode())
                        .containsExactly(102, 100));
    }

    private HttpRequest get() {
        return HttpRequest.newBuilder(server.uri("/k")).build();
    }

    private static InterimResponseException interimIn(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof InterimResponseException interim) {
                return interim;
            }
        }
        throw new AssertionError("no InterimResponseException in the cause chain of " + failure, failure);
    }

    private static byte[] interim(String statusLine) {
        String extra = statusLine.startsWith("103") ? "Link: </style.css>; rel=preload\r\n" : "";
        return ("HTTP/1.1 " + statusLine + "\r\n" + extra + "\r\n").getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] ok(String body) {
        return ("HTTP/1.1 200 OK\r\nContent-Length: " + body.length() + "\r\n\r\n" + body)
                .getBytes(StandardCharsets.US_ASCII);
    }

    /** The head of one request as the raw server read it. */
    record Head(String method, String path, boolean expectContinue, int contentLength) {}

    /** What the raw server writes for a PUT (a GET is always answered 200 "got"). */
    interface Script {
        void answer(Head head, InputStream in, OutputStream out) throws IOException;
    }

    /** An HTTP/1.1 server on loopback that answers each request as its script writes, byte for byte. */
    static final class RawServer implements AutoCloseable {
        private final ServerSocket socket;
        private final Script script;
        private final List<String> requests = new CopyOnWriteArrayList<>();
        private final List<Socket> connections = new CopyOnWriteArrayList<>();
        private final AtomicInteger threads = new AtomicInteger();
        private final Thread acceptor;

        RawServer(Script script) throws IOException {
            this.socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            this.script = script;
            this.acceptor = new Thread(this::accept, "raw-server");
            acceptor.start();
        }

        URI uri(String path) {
            return URI.create("http://127.0.0.1:" + socket.getLocalPort() + path);
        }

        List<String> requests() {
            return requests;
        }

        private void accept() {
            while (!socket.isClosed()) {
                try {
                    Socket connection = socket.accept();
                    connections.add(connection);
                    Thread serving = new Thread(() -> serve(connection), "raw-server-" + threads.incrementAndGet());
                    serving.setDaemon(true);
                    serving.start();
                } catch (IOException closed) {
                    return;
                }
            }
        }

        private void serve(Socket connection) {
            try (connection) {
                InputStream in = connection.getInputStream();
                OutputStream out = connection.getOutputStream();
                while (true) {
                    Head head = readHead(in);
                    if (head == null) {
                        return;
                    }
                    requests.add(head.method() + " " + head.path() + (head.expectContinue() ? " expect" : ""));
                    if (head.method().equals("GET")) {
                        out.write(ok("got"));
                    } else {
                        script.answer(head, in, out);
                    }
                    out.flush();
                }
            } catch (IOException e) {
                // the client closed the connection
            }
        }

        private static Head readHead(InputStream in) throws IOException {
            StringBuilder text = new StringBuilder();
            int c;
            while ((c = in.read()) >= 0) {
                text.append((char) c);
                if (text.length() >= 4 && text.lastIndexOf("\r\n\r\n") == text.length() - 4) {
                    break;
                }
            }
            if (c < 0) {
                return null;
            }
            String[] lines = text.toString().split("\r\n");
            String[] requestLine = lines[0].split(" ");
            boolean expect = false;
            int length = 0;
            for (String line : lines) {
                String lower = line.toLowerCase(Locale.ROOT);
                if (lower.startsWith("expect:")) {
                    expect = lower.substring(7).trim().equals("100-continue");
                } else if (lower.startsWith("content-length:")) {
                    length = Integer.parseInt(lower.substring(15).trim());
                }
            }
            return new Head(requestLine[0], requestLine[1], expect, length);
        }

        @Override
        public void close() throws Exception {
            socket.close();
            for (Socket connection : connections) {
                connection.close();
            }
            acceptor.join();
        }
    }
}
