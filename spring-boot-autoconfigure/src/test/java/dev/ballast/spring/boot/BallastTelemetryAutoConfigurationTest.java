package dev.ballast.spring.boot;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.ballast.http.ResilientHttpClient;
import dev.ballast.http.opentelemetry.BallastTracing;
import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.micrometer.StorageMetrics;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectRead;
import dev.ballast.storage.opentelemetry.StorageTracing;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * What the auto-configuration adds for telemetry, in an application with an {@link OpenTelemetry} bean
 * and a {@link MeterRegistry} bean and the storage configured: {@link StorageMetrics} bound to the
 * registry and {@link StorageTracing} both told by the facade bean, {@link BallastTracing} the client
 * bean's observer; and none of the tracing without an OpenTelemetry bean.
 */
@Timeout(60)
class BallastTelemetryAutoConfigurationTest {

    static final InMemorySpanExporter SPANS = InMemorySpanExporter.create();

    @TempDir
    Path data;

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
        @Bean
        MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Tracing {
        @Bean(destroyMethod = "close")
        OpenTelemetrySdk openTelemetry() {
            return OpenTelemetrySdk.builder()
                    .setTracerProvider(SdkTracerProvider.builder()
                            .addSpanProcessor(SimpleSpanProcessor.create(SPANS))
                            .build())
                    .build();
        }
    }

    private ConfigurableApplicationContext start(Class<?>... sources) {
        return new SpringApplicationBuilder(sources)
                .web(WebApplicationType.NONE)
                .run("--ballast.storage.local-objects=" + data.resolve("objects"), "--spring.main.banner-mode=off");
    }

    @Test
    void withAnOpenTelemetryAndAMeterRegistryTheFacadeIsTracedAndMeteredAndTheClientTraced() throws Exception {
        SPANS.reset();
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        server.start();
        try (ConfigurableApplicationContext context = start(App.class, Tracing.class)) {
            assertThat(context.getBeansOfType(StorageTracing.class)).hasSize(1);
            assertThat(context.getBeansOfType(StorageMetrics.class)).hasSize(1);
            assertThat(context.getBeansOfType(BallastTracing.class)).hasSize(1);

            StorageFacade facade = context.getBean(StorageFacade.class);
            facade.objects().put("a", ObjectContent.ofBytes("12345".getBytes(UTF_8)));
            try (ObjectRead read = facade.objects().get("a")) {
                assertThat(read.readAllBytes()).hasSize(5);
            }
            ResilientHttpClient client = context.getBean(ResilientHttpClient.class);
            HttpResponse<Void> response = client.send(
                    HttpRequest.newBuilder(URI.create(
                                    "http://127.0.0.1:" + server.getAddress().getPort() + "/ping"))
                            .build(),
                    HttpResponse.BodyHandlers.discarding());
            assertThat(response.statusCode()).isEqualTo(204);

            List<String> names =
                    SPANS.getFinishedSpanItems().stream().map(SpanData::getName).toList();
            assertThat(names).contains("ballast.storage PUT", "ballast.storage GET", "ballast GET");
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.get("ballast.storage.operations")
                            .tags("store", "local", "operation", "put", "outcome", "success")
                            .timer()
                            .count())
                    .isEqualTo(1);
            assertThat(registry.get("ballast.storage.bytes")
                            .tags("operation", "get")
                            .summary()
                            .totalAmount())
                    .isEqualTo(5);
        } finally {
            server.stop(0);
        }
    }

    @Test
    void withoutAnOpenTelemetryBeanThereIsNoTracingButTheStorageMetersStay() {
        try (ConfigurableApplicationContext context = start(App.class)) {
            assertThat(context.getBeansOfType(BallastTracing.class)).isEmpty();
            assertThat(context.getBeansOfType(StorageTracing.class)).isEmpty();
            assertThat(context.getBeansOfType(StorageMetrics.class)).hasSize(1);
            StorageFacade facade = context.getBean(StorageFacade.class);
            facade.objects().put("a", ObjectContent.ofBytes(new byte[3]));
            assertThat(context.getBean(MeterRegistry.class)
                            .get("ballast.storage.operations")
                            .tags("operation", "put")
                            .timer()
                            .count())
                    .isEqualTo(1);
        }
    }
}
