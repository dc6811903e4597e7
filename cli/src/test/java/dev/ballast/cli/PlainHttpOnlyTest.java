package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class PlainHttpOnlyTest {
    private HttpServer server;
    private final AtomicInteger served = new AtomicInteger();

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            served.incrementAndGet();
            byte[] body = "plain".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private HttpClient client() {
        return HttpClient.newBuilder()
                .sslContext(PlainHttpOnly.context())
                .sslParameters(PlainHttpOnly.parameters())
                .build();
    }

    private URI at(String scheme) {
        return URI.create(scheme + "://127.0.0.1:" + server.getAddress().getPort() + "/x");
    }

    @Test
    void aClientWithTheContextTalksPlainHttp() throws Exception {
        HttpResponse<String> r =
                client().send(HttpRequest.newBuilder(at("http")).build(), HttpResponse.BodyHandlers.ofString());

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("plain");
    }

    @Test
    void everyTlsConnectionFailsBeforeAnythingIsSent() {
        assertThatThrownBy(() -> client().send(
                                HttpRequest.newBuilder(at("https")).build(), HttpResponse.BodyHandlers.ofString()))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("makes no TLS connection");
        assertThat(served).hasValue(0);
    }

    @Test
    void onlyTheHttpSchemeIsPlain() {
        assertThat(PlainHttpOnly.isPlainHttp("http")).isTrue();
        assertThat(PlainHttpOnly.isPlainHttp("HTTP")).isTrue();
        assertThat(PlainHttpOnly.isPlainHttp("https")).isFalse();
        assertThat(PlainHttpOnly.isPlainHttp(null)).isFalse();
    }
}
