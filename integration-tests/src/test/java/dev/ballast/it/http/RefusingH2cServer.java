package dev.ballast.it.http;

import java.io.BufferedInputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A minimal HTTP/2 server over cleartext (h2c, reached through the HTTP/1.1 {@code Upgrade} the JDK
 * client sends on its first request) that refuses the first {@code refuse} request streams after
 * the upgrade with {@code RST_STREAM(REFUSED_STREAM)} (RFC 9113 §8.7) and answers every other one
 * {@code 200 "ok"}. WireMock cannot refuse a stream, and this is the signal under test.
 *
 * <p>It speaks just enough HTTP/2 for {@code java.net.http}: the server preface, SETTINGS and PING
 * acknowledgements, and a response of one HPACK-indexed {@code :status 200} and one DATA frame. It
 * counts request streams as they end (END_STREAM seen), refused and answered. One connection at a
 * time is enough for the JDK client, which multiplexes. Binds a free loopback port.
 */
final class RefusingH2cServer implements Closeable {

    private static final int DATA = 0x0;
    private static final int HEADERS = 0x1;
    private static final int RST_STREAM = 0x3;
    private static final int SETTINGS = 0x4;
    private static final int PING = 0x6;
    private static final int END_STREAM = 0x1;
    private static final int ACK = 0x1;
    private static final int END_HEADERS = 0x4;
    private static final int REFUSED_STREAM = 0x7;
    /** HPACK static table entry 8, {@code :status: 200}, as an indexed header field (RFC 7541 §6.1). */
    private static final byte STATUS_200 = (byte) 0x88;

    private final ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    private final ExecutorService threads = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "h2c-server");
        thread.setDaemon(true);
        return thread;
    });
    private final Set<Integer> ended = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService delays = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "h2c-server-delay");
        thread.setDaemon(true);
        return thread;
    });
    private final int refuse;
    private final long answerDelayMillis;
    final AtomicInteger refused = new AtomicInteger();
    final AtomicInteger answered = new AtomicInteger();

    /**
     * Starts the server.
     *
     * @param refuse how many request streams after the upgraded first request to refuse
     */
    RefusingH2cServer(int refuse) throws IOException {
        this(refuse, 0);
    }

    /**
     * Starts the server.
     *
     * @param refuse how many request streams after the upgraded first request to refuse
     * @param answerDelayMillis how long after a request stream ends its answer is sent (the upgraded
     *     first request is answered at once), so that many streams are in flight together
     */
    RefusingH2cServer(int refuse, long answerDelayMillis) throws IOException {
        this.refuse = refuse;
        this.answerDelayMillis = answerDelayMillis;
        threads.execute(this::accept);
    }

    String baseUrl() {
        return "http://127.0.0.1:" + socket.getLocalPort();
    }

    private void accept() {
        try {
            while (true) {
                Socket connection = socket.accept();
                threads.execute(() -> serve(connection));
            }
        } catch (IOException closed) {
            // the server was closed
        }
    }

    private void serve(Socket connection) {
        try (connection) {
            InputStream in = new BufferedInputStream(connection.getInputStream());
            OutputStream out = connection.getOutputStream();
            skipHttp11Head(in);
            out.write("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            frame(out, SETTINGS, 0, 0, new byte[0]);
            in.readNBytes(24); // the client's connection preface, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
            respond(out, 1); // the upgraded request is stream 1 (RFC 7540 §3.2): always answered
            while (true) {
                byte[] header = in.readNBytes(9);
                if (header.length < 9) {
                    return;
                }
                int length = (header[0] & 0xff) << 16 | (header[1] & 0xff) << 8 | header[2] & 0xff;
                int type = header[3] & 0xff;
                int flags = header[4] & 0xff;
                int stream = (header[5] & 0x7f) << 24
                        | (header[6] & 0xff) << 16
                        | (header[7] & 0xff) << 8
                        | header[8] & 0xff;
                byte[] payload = in.readNBytes(length);
                if (type == SETTINGS && (flags & ACK) == 0) {
                    frame(out, SETTINGS, ACK, 0, new byte[0]);
                } else if (type == PING && (flags & ACK) == 0) {
                    frame(out, PING, ACK, 0, payload);
                } else if ((type == HEADERS || type == DATA) && (flags & END_STREAM) != 0 && ended.add(stream)) {
                    if (refused.get() < refuse) {
                        refused.incrementAndGet();
                        frame(out, RST_STREAM, 0, stream, new byte[] {0, 0, 0, REFUSED_STREAM});
                    } else if (answerDelayMillis > 0) {
                        int delayed = stream;
                        delays.schedule(
                                () -> {
                                    try {
                                        answered.incrementAndGet();
                                        respond(out, delayed);
                                    } catch (IOException e) {
                                        // the client went away
                                    }
                                },
                                answerDelayMillis,
                                TimeUnit.MILLISECONDS);
                    } else {
                        answered.incrementAndGet();
                        respond(out, stream);
                    }
                }
            }
        } catch (IOException e) {
            // the client went away
        }
    }

    private static void skipHttp11Head(InputStream in) throws IOException {
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("connection closed before the HTTP/1.1 request head ended");
            }
            matched = b == "\r\n\r\n".charAt(matched) ? matched + 1 : b == '\r' ? 1 : 0;
        }
    }

    private static void respond(OutputStream out, int stream) throws IOException {
        frame(out, HEADERS, END_HEADERS, stream, new byte[] {STATUS_200});
        frame(out, DATA, END_STREAM, stream, "ok".getBytes(StandardCharsets.US_ASCII));
    }

    private static void frame(OutputStream out, int type, int flags, int stream, byte[] payload) throws IOException {
        int length = payload.length;
        byte[] header = {
            (byte) (length >>> 16),
            (byte) (length >>> 8),
            (byte) length,
            (byte) type,
            (byte) flags,
            (byte) (stream >>> 24),
            (byte) (stream >>> 16),
            (byte) (stream >>> 8),
            (byte) stream
        };
        synchronized (out) {
            out.write(header);
            out.write(payload);
            out.flush();
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
        threads.shutdownNow();
        delays.shutdownNow();
    }
}
