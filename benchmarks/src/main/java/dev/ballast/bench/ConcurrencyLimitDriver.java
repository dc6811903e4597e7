package dev.ballast.bench;

import com.sun.net.httpserver.HttpServer;
import dev.ballast.http.CallRejectedException;
import dev.ballast.http.DependencyConfig;
import dev.ballast.http.ResilientHttpClient;
import dev.ballast.http.bulkhead.BulkheadConfig;
import dev.ballast.http.classify.Outcome;
import dev.ballast.http.classify.ResponseClassifier;
import dev.ballast.http.limit.ConcurrencyLimitConfig;
import dev.ballast.http.retry.RetryConfig;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Goodput and p99 latency of a dependency that queues, at rising load, with no concurrency limit, the
 * fixed bulkhead (its old default size, 64) and the adaptive concurrency limit (defaults), side by
 * side in one run; prints the table of docs/http-client.md and checks the acceptance.
 *
 * <p>The dependency is a JDK {@code HttpServer} on loopback with {@value #WORKERS} worker threads,
 * each request taking {@value #SERVICE_MILLIS} ms of one: it serves {@code WORKERS * 1000 /
 * SERVICE_MILLIS} = 480 requests a second with up to 96 in flight, and past that its requests wait
 * in the executor's queue, so latency grows with concurrency. Load is open-loop (calls are started
 * at a fixed rate whatever the answers, as independent users do), for {@value #STEP_SECONDS} s per
 * step: 25, 50 and 75% of capacity, then twice it. The client keeps its default timeouts (10 s an
 * attempt, 30 s a call); retries are off and nothing counts against the breaker, so only the
 * concurrency bound differs between the three rows. Goodput: 200 answers received during the step,
 * per second of it (what the dependency got done for its callers, not what it still owes them). p50/p99: over the calls that were sent (answered or timed
 * out), not over the ones refused at once.
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar dev.ballast.bench.ConcurrencyLimitDriver}
 * (about 90 s, loopback only).
 */
public final class ConcurrencyLimitDriver {

    static final int WORKERS = 96;
    static final int SERVICE_MILLIS = 200;
    static final int STEP_SECONDS = 6;
    static final int WARMUP_SECONDS = 3;
    static final int[] RATES = {120, 240, 360, 960};

    private ConcurrencyLimitDriver() {}

    /** One row's result at one step. */
    record Step(int rate, double goodput, long refused, long failed, double p50Millis, double p99Millis) {}

    enum Mode {
        NO_LIMIT(
                "no limit",
                DependencyConfig.builder()
                        .concurrencyLimit(ConcurrencyLimitConfig.disabled())
                        .build()),
        FIXED_BULKHEAD(
                "fixed bulkhead (64)",
                DependencyConfig.builder()
                        .bulkhead(BulkheadConfig.ofDefaults())
                        .concurrencyLimit(ConcurrencyLimitConfig.disabled())
                        .build()),
        ADAPTIVE("adaptive limit (defaults)", DependencyConfig.ofDefaults());

        final String label;
        final DependencyConfig config;

        Mode(String label, DependencyConfig config) {
            this.label = label;
            this.config = config;
        }
    }

    /** 2xx is a success, anything else permanent: no retries, nothing for the breaker to count. */
    private static final ResponseClassifier NEUTRAL = new ResponseClassifier() {
        @Override
        public Outcome classifyResponse(int statusCode, HttpHeaders headers) {
            return statusCode / 100 == 2 ? Outcome.SUCCESS : Outcome.PERMANENT;
        }

        @Override
        public Outcome classifyFailure(Throwable failure) {
            return Outcome.PERMANENT;
        }
    };

    public static void main(String[] args) throws Exception {
        System.setProperty("sun.net.httpserver.nodelay", "true");
        System.setProperty("org.slf4j.simpleLogger.log.dev.ballast", "error"); // no line per timed-out call
        List<List<Step>> rows = new ArrayList<>();
        for (Mode mode : Mode.values()) {
            rows.add(run(mode));
        }
        print(rows);
    }

    private static List<Step> run(Mode mode) throws Exception {
        ExecutorService workers = Executors.newFixedThreadPool(WORKERS);
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 4096);
        server.setExecutor(workers);
        server.createContext("/work", exchange -> {
            exchange.getRequestBody().readAllBytes();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(SERVICE_MILLIS));
            byte[] body = "ok".getBytes();
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            } catch (IOException gone) {
                // the client gave up on it
            }
        });
        server.start();
        ResilientHttpClient client = ResilientHttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .classifier(NEUTRAL)
                .retry(RetryConfig.builder().maxAttempts(1).build())
                .defaultDependency(mode.config)
                .build();
        HttpRequest request = HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/work"))
                .build();
        try {
            drive(client, request, RATES[0], WARMUP_SECONDS);
            List<Step> steps = new ArrayList<>();
            for (int rate : RATES) {
                steps.add(drive(client, request, rate, STEP_SECONDS));
            }
            return steps;
        } finally {
            client.shutdownNow();
            server.stop(0);
            workers.shutdownNow();
        }
    }

    /** Starts {@code rate} calls a second for {@code seconds}, waits for all of them, and summarises. */
    private static Step drive(ResilientHttpClient client, HttpRequest request, int rate, int seconds) throws Exception {
        int total = rate * seconds;
        long[] latency = new long[total];
        long[] ended = new long[total];
        int[] result = new int[total]; // 0 pending, 1 ok, 2 refused, 3 failed
        List<CompletableFuture<?>> calls = new ArrayList<>(total);
        long start = System.nanoTime();
        for (int i = 0; i < total; i++) {
            long due = start + (long) i * 1_000_000_000L / rate;
            long wait = due - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            int n = i;
            long sent = System.nanoTime();
            calls.add(client.sendAsync(request, BodyHandlers.ofString()).handle((response, failure) -> {
                ended[n] = System.nanoTime();
                latency[n] = ended[n] - sent;
                result[n] = outcome(response, failure);
                return null;
            }));
        }
        CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        long stepEnd = start + seconds * 1_000_000_000L;
        long ok = 0;
        long refused = 0;
        long failed = 0;
        long[] sentLatencies = new long[total];
        int sentCount = 0;
        for (int i = 0; i < total; i++) {
            switch (result[i]) {
                case 1 -> ok += ended[i] - stepEnd <= 0 ? 1 : 0;
                case 2 -> refused++;
                default -> failed++;
            }
            if (result[i] != 2) {
                sentLatencies[sentCount++] = latency[i];
            }
        }
        long[] sorted = Arrays.copyOf(sentLatencies, sentCount);
        Arrays.sort(sorted);
        return new Step(
                rate,
                (double) ok / seconds,
                refused,
                failed,
                percentileMillis(sorted, 50),
                percentileMillis(sorted, 99));
    }

    private static int outcome(HttpResponse<String> response, Throwable failure) {
        if (failure == null) {
            return response.statusCode() == 200 ? 1 : 3;
        }
        Throwable cause =
                failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        return cause instanceof CallRejectedException ? 2 : 3;
    }

    private static double percentileMillis(long[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int index = (int) Math.ceil(p / 100 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))] / 1e6;
    }

    private static void print(List<List<Step>> rows) {
        int capacity = WORKERS * 1000 / SERVICE_MILLIS;
        System.out.printf(
                Locale.ROOT,
                "Dependency: %d workers x %d ms = %d req/s; open-loop steps of %d s%n%n",
                WORKERS,
                SERVICE_MILLIS,
                capacity,
                STEP_SECONDS);
        System.out.println("| offered (req/s) | bound | goodput (req/s) | refused | failed | p50 (ms) | p99 (ms) |");
        System.out.println("|---:|---|---:|---:|---:|---:|---:|");
        Mode[] modes = Mode.values();
        for (int s = 0; s < RATES.length; s++) {
            for (int m = 0; m < modes.length; m++) {
                Step step = rows.get(m).get(s);
                System.out.printf(
                        Locale.ROOT,
                        "| %,d (%d%%) | %s | %,.0f | %,d | %,d | %,.1f | %,.1f |%n",
                        step.rate(),
                        step.rate() * 100 / capacity,
                        modes[m].label,
                        step.goodput(),
                        step.refused(),
                        step.failed(),
                        step.p50Millis(),
                        step.p99Millis());
            }
        }
        int last = RATES.length - 1;
        Step none = rows.get(Mode.NO_LIMIT.ordinal()).get(last);
        Step fixed = rows.get(Mode.FIXED_BULKHEAD.ordinal()).get(last);
        Step adaptive = rows.get(Mode.ADAPTIVE.ordinal()).get(last);
        long healthyRefusals = 0;
        for (int s = 0; s < last; s++) {
            healthyRefusals += rows.get(Mode.ADAPTIVE.ordinal()).get(s).refused();
        }
        System.out.println();
        System.out.printf(
                Locale.ROOT,
                "overload p99: adaptive %.1f ms vs no limit %.1f ms (<= half: %s)%n",
                adaptive.p99Millis(),
                none.p99Millis(),
                adaptive.p99Millis() <= none.p99Millis() / 2 ? "yes" : "NO");
        System.out.printf(
                Locale.ROOT,
                "overload goodput: adaptive %.0f vs fixed bulkhead %.0f req/s (>=: %s)%n",
                adaptive.goodput(),
                fixed.goodput(),
                adaptive.goodput() >= fixed.goodput() ? "yes" : "NO");
        System.out.printf(
                Locale.ROOT,
                "healthy steps: adaptive refused %d (none: %s)%n",
                healthyRefusals,
                healthyRefusals == 0 ? "yes" : "NO");
    }
}
