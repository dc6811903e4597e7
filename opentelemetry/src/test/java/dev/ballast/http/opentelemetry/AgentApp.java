package dev.ballast.http.opentelemetry;

import dev.ballast.http.CorrelationIds;
import dev.ballast.http.ResilientHttpClient;
import dev.ballast.http.retry.Backoff;
import dev.ballast.http.retry.Jitter;
import dev.ballast.http.retry.RetryConfig;
import io.opentelemetry.api.GlobalOpenTelemetry;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The small application {@link AgentNestingIT} runs under the OpenTelemetry Java agent: a
 * {@code send} answered 503 then 200 (two attempts), then a {@code sendAsync} answered 200, against a
 * loopback server, traced by {@link BallastTracing} through the agent's {@code GlobalOpenTelemetry}.
 * It prints what the test compares the agent's spans with, one {@code ballast-it} line each.
 */
public final class AgentApp {

    private AgentApp() {}

    public static void main(String[] args) throws Exception {
        BallastTracing tracing = BallastTracing.create(GlobalOpenTelemetry.get());
        System.out.println("ballast-it attemptSpans " + tracing.attemptSpans());
        try (LoopbackServer server = new LoopbackServer();
                ResilientHttpClient client = ResilientHttpClient.newBuilder()
                        .observer(tracing)
                        .retry(RetryConfig.builder()
                                .maxAttempts(3)
                                .backoff(Backoff.exponential(Duration.ofMillis(1), Duration.ofMillis(1), Jitter.NONE))
                                .build())
                        .build()) {
            server.then(503).then(200).then(200);
            HttpRequest request =
                    HttpRequest.newBuilder(server.uri("/agent")).GET().build();
            HttpResponse<String> sync = client.send(request, BodyHandlers.ofString());
            System.out.println("ballast-it sync " + CorrelationIds.of(sync).orElseThrow() + " " + sync.statusCode());
            HttpResponse<String> async =
                    client.sendAsync(request, BodyHandlers.ofString()).get(30, TimeUnit.SECONDS);
            System.out.println("ballast-it async " + CorrelationIds.of(async).orElseThrow() + " " + async.statusCode());
            for (String traceparent : server.traceparents) {
                System.out.println("ballast-it traceparent " + traceparent);
            }
        }
        System.out.flush();
        // Exiting runs the agent's shutdown hook, which exports the spans still batched.
    }
}
