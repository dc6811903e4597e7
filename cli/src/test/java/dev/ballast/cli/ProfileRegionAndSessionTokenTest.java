package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.ballast.backup.Cancellation;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code --profile} and the environment's temporary keys put on the wire: the profile's region in
 * the signature's scope, and a session token sent as {@code X-Amz-Security-Token}. The AWS files are
 * temporary ones that {@code AWS_CONFIG_FILE} and {@code AWS_SHARED_CREDENTIALS_FILE} point at; the
 * endpoint refuses every request (403), which is all a request needs to show how it was signed.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProfileRegionAndSessionTokenTest {
    @TempDir
    Path home;

    final ByteArrayOutputStream err = new ByteArrayOutputStream();
    final List<Map<String, String>> requests = new CopyOnWriteArrayList<>();
    HttpServer server;
    String endpoint;

    @BeforeEach
    void startEndpoint() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            requests.add(Map.of(
                    "authorization",
                    String.valueOf(exchange.getRequestHeaders().getFirst("Authorization")),
                    "token",
                    String.valueOf(exchange.getRequestHeaders().getFirst("X-Amz-Security-Token"))));
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(403, -1);
            exchange.close();
        });
        server.start();
        endpoint = "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @AfterEach
    void stopEndpoint() {
        server.stop(0);
    }

    int run(Map<String, String> env, String... args) {
        err.reset();
        CliContext ctx = new CliContext(
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                InProcessCli.withTestPassword(env),
                home,
                false,
                new Cancellation(),
                Clock.systemUTC(),
                Duration.ofSeconds(5),
                Duration.ofSeconds(1),
                p -> {});
        return Ballast.run(args, ctx);
    }

    @Test
    void profileSignsWithTheProfilesKeysSessionTokenAndRegion() throws IOException {
        Path credentials = Files.writeString(home.resolve("creds"), """
                [prod]
                aws_access_key_id = ASIAPROD
                aws_secret_access_key = secret
                aws_session_token = prod-session-token
                """);
        Path config = Files.writeString(home.resolve("conf"), """
                [profile prod]
                region = eu-west-3
                """);
        Map<String, String> env =
                Map.of("AWS_SHARED_CREDENTIALS_FILE", credentials.toString(), "AWS_CONFIG_FILE", config.toString());

        assertThat(run(env, "list", "--endpoint", endpoint, "--profile", "prod"))
                .isEqualTo(ExitCodes.USAGE);

        assertThat(err.toString(StandardCharsets.UTF_8)).contains("refused the credentials");
        assertThat(requests).isNotEmpty().allSatisfy(r -> {
            assertThat(r.get("authorization")).contains("Credential=ASIAPROD/").contains("/eu-west-3/s3/aws4_request");
            assertThat(r.get("token")).isEqualTo("prod-session-token");
        });

        requests.clear();
        assertThat(run(env, "list", "--endpoint", endpoint, "--profile", "prod", "--region", "ap-south-1"))
                .isEqualTo(ExitCodes.USAGE);
        assertThat(requests)
                .isNotEmpty()
                .allSatisfy(r -> assertThat(r.get("authorization")).contains("/ap-south-1/s3/aws4_request"));
    }

    @Test
    void theEnvironmentsSessionTokenIsPassedOn() {
        Map<String, String> env = Map.of(
                "AWS_ACCESS_KEY_ID", "ASIAENV",
                "AWS_SECRET_ACCESS_KEY", "secret",
                "AWS_SESSION_TOKEN", "env-session-token",
                "AWS_REGION", "eu-central-1");

        assertThat(run(env, "list", "--endpoint", endpoint)).isEqualTo(ExitCodes.USAGE);

        assertThat(requests).isNotEmpty().allSatisfy(r -> {
            assertThat(r.get("authorization"))
                    .contains("Credential=ASIAENV/")
                    .contains("/eu-central-1/s3/aws4_request");
            assertThat(r.get("token")).isEqualTo("env-session-token");
        });
    }
}
