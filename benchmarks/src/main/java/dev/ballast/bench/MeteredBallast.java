package dev.ballast.bench;

import dev.ballast.http.ResilientHttpClient;
import dev.ballast.http.micrometer.HttpClientMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;

/**
 * Ballast as a service runs it in production: with {@link HttpClientMetrics} listening and bound to
 * a registry that keeps cumulative counts and totals, as a Prometheus registry does
 * ({@link SimpleMeterRegistry}'s default mode). The difference to the plain Ballast row is what the
 * metrics cost a call.
 */
final class MeteredBallast implements AutoCloseable {

    final HttpClientMetrics metrics = HttpClientMetrics.create();
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final ResilientHttpClient client;

    MeteredBallast(ResilientHttpClient.Builder builder) {
        client = builder.listener(metrics).build();
        metrics.bindTo(registry);
    }

    HttpResponse<byte[]> send(HttpRequest request) throws IOException, InterruptedException {
        return client.send(request, BodyHandlers.ofByteArray());
    }

    @Override
    public void close() {
        client.close();
        metrics.close();
    }
}
