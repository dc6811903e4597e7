package dev.ballast.http.bench;

import com.sun.net.httpserver.HttpServer;
import dev.ballast.http.ResilientHttpClient;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Measures what {@link ResilientHttpClient} adds to one call compared with a bare
 * {@link HttpClient}: both send the same small GET to an in-process JDK {@code HttpServer} on
 * loopback, one call at a time, so the difference is the pipeline (classification, breaker, bulkhead,
 * retry budget, attempt-timeout scheduling, Failsafe) and not the network.
 *
 * <p>Not a test: run it by hand (see docs/http-client.md, "Overhead"). Arguments: calls per client
 * per round (default 2000), rounds (default 5). The first round is warm-up and is not reported; the
 * two clients alternate rounds so that JIT and GC drift affect both alike. Prints a Markdown table.
 */
public final class PipelineOverheadBenchmark {

    private static final byte[] BODY = "{\"ok\":true}".getBytes(StandardCharsets.UTF_8);

    private PipelineOverheadBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int calls = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        // Without TCP_NODELAY the JDK server's small writes meet delayed ACKs: ~40 ms per call, all noise.
        System.setProperty("sun.net.httpserver.nodelay", "true");
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 128);
        ExecutorService serverThreads = Executors.newFixedThreadPool(4);
        server.setExecutor(serverThreads);
        server.createContext("/item", exchange -> {
            exchange.getRequestBody().readAllBytes();
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, BODY.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(BODY);
            }
        });
        server.start();
        HttpClient bare = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        ResilientHttpClient resilient = ResilientHttpClient.newBuilder()
                .delegate(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build())
                .build();
        URI uri = URI.create("http://" + server.getAddress().getHostString() + ":" + server.getAddress().getPort()
                + "/item?q=1");
        HttpRequest request = HttpRequest.newBuilder(uri).GET().build();
        try {
            long[] bareNanos = new long[calls * (rounds - 1)];
            long[] resilientNanos = new long[calls * (rounds - 1)];
            long bareWall = 0;
            long resilientWall = 0;
            for (int round = 0; round < rounds; round++) {
                boolean measured = round > 0;
                int offset = (round - 1) * calls;
                long t0 = System.nanoTime();
                run(bare, request, calls, measured ? bareNanos : null, offset);
                long t1 = System.nanoTime();
                run(resilient, request, calls, measured ? resilientNanos : null, offset);
                long t2 = System.nanoTime();
                if (measured) {
                    bareWall += t1 - t0;
                    resilientWall += t2 - t1;
                }
            }
            System.out.println(table(calls * (rounds - 1), bareNanos, bareWall, resilientNanos, resilientWall));
        } finally {
            resilient.close();
            server.stop(0);
            serverThreads.shutdownNow();
        }
    }

    private static void run(HttpClient client, HttpRequest request, int calls, long[] into, int offset)
            throws IOException, InterruptedException {
        for (int i = 0; i < calls; i++) {
            long start = System.nanoTime();
            HttpResponse<byte[]> response = client.send(request, BodyHandlers.ofByteArray());
            long elapsed = System.nanoTime() - start;
            if (response.statusCode() != 200 || response.body().length != BODY.length) {
                throw new IllegalStateException("unexpected response " + response.statusCode());
            }
            if (into != null) {
                into[offset + i] = elapsed;
            }
        }
    }

    private static String table(int calls, long[] bare, long bareWall, long[] resilient, long resilientWall) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "Measured calls per client: %d (sequential, after one warm-up round)%n%n",
                calls));
        out.append("| Client | p50 (µs) | p99 (µs) | Throughput (calls/s) |\n");
        out.append("| --- | ---: | ---: | ---: |\n");
        out.append(row("HttpClient (bare)", bare, bareWall));
        out.append(row("ResilientHttpClient", resilient, resilientWall));
        long[] b = sorted(bare);
        long[] r = sorted(resilient);
        out.append(String.format(Locale.ROOT, "| Overhead | %+.1f | %+.1f | |%n",
                (percentile(r, 50) - percentile(b, 50)) / 1e3, (percentile(r, 99) - percentile(b, 99)) / 1e3));
        return out.toString();
    }

    private static String row(String name, long[] nanos, long wallNanos) {
        long[] s = sorted(nanos);
        return String.format(Locale.ROOT, "| %s | %.1f | %.1f | %.0f |%n", name, percentile(s, 50) / 1e3,
                percentile(s, 99) / 1e3, nanos.length / (wallNanos / 1e9));
    }

    private static long[] sorted(long[] values) {
        long[] copy = values.clone();
        Arrays.sort(copy);
        return copy;
    }

    /** Nearest-rank percentile. */
    private static long percentile(long[] sorted, int p) {
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, rank - 1)];
    }
}
