package dev.ballast.spring.boot;

import dev.ballast.spring.boot.sample.CheckoutApplication;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/** The sample service, started as a user starts it (its main class, application.yml, arguments), and a plain HTTP client to it. */
final class BootedApp implements AutoCloseable {

    final ConfigurableApplicationContext context;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final int port;

    private BootedApp(ConfigurableApplicationContext context) {
        this.context = context;
        this.port = ((WebServerApplicationContext) context).getWebServer().getPort();
    }

    static BootedApp start(Path data, String paymentsUrl, List<Class<?>> extraSources, String... args) {
        List<String> all =
                new ArrayList<>(List.of("--server.port=0", "--app.data=" + data, "--payments.url=" + paymentsUrl));
        all.addAll(List.of(args));
        List<Class<?>> sources = new ArrayList<>(List.of(CheckoutApplication.class));
        sources.addAll(extraSources);
        ConfigurableApplicationContext context =
                new SpringApplicationBuilder(sources.toArray(Class<?>[]::new)).run(all.toArray(String[]::new));
        return new BootedApp(context);
    }

    HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .timeout(Duration.ofSeconds(20))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> post(String path, String body) throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .timeout(Duration.ofSeconds(20))
                        .header("Content-Type", "text/plain")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Override
    public void close() {
        context.close();
    }
}
