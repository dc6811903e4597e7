package dev.ballast.http.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs {@link AgentApp} in a forked JVM under the real OpenTelemetry Java agent (the jar Maven fetched
 * from Maven Central into {@code target/agent/}), the agent printing every span as OTLP JSON
 * ({@code otel.traces.exporter=logging-otlp}), and checks the trace: each of Ballast's call spans has
 * the agent's client spans of the JDK client under it, exactly one per attempt (none doubled, none of
 * Ballast's own), and the trace context the server received is the agent's, in the call's trace.
 */
@Timeout(300)
class AgentNestingIT {

    private static final int INTERNAL = 1;
    private static final int CLIENT = 3;

    /** One span as the agent exported it. */
    record ExportedSpan(
            String scope,
            String name,
            int kind,
            String traceId,
            String spanId,
            String parentSpanId,
            String correlationId) {}

    private static final List<ExportedSpan> spans = new ArrayList<>();
    private static final List<String> appLines = new ArrayList<>();

    @BeforeAll
    static void runTheAppUnderTheAgent(@TempDir Path dir) throws Exception {
        String agent = System.getProperty("ballast.javaagent");
        assertThat(agent)
                .as("system property ballast.javaagent (set by the POM)")
                .isNotNull();
        assertThat(new File(agent)).as("the Java agent jar").isFile();
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Path out = dir.resolve("out.txt");
        Process process = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-javaagent:" + agent,
                        "-Dotel.traces.exporter=logging-otlp",
                        "-Dotel.metrics.exporter=none",
                        "-Dotel.logs.exporter=none",
                        "-Dotel.service.name=ballast-agent-it",
                        "-Dotel.bsp.schedule.delay=50",
                        "-cp",
                        classPath,
                        AgentApp.class.getName())
                .redirectErrorStream(true)
                .redirectOutput(out.toFile())
                .start();
        boolean ended = process.waitFor(240, TimeUnit.SECONDS);
        String output = Files.readString(out, StandardCharsets.UTF_8);
        if (!ended) {
            process.destroyForcibly();
        }
        assertThat(ended).as("the app ended; its output:\n%s", output).isTrue();
        assertThat(process.exitValue())
                .as("the app's exit code; its output:\n%s", output)
                .isZero();
        ObjectMapper json = new ObjectMapper();
        for (String line : output.lines().toList()) {
            if (line.startsWith("ballast-it ")) {
                appLines.add(line.substring("ballast-it ".length()));
            }
            // One JSON object per line: a ResourceSpans ({"resource":…,"scopeSpans":[…]}), as 2.x prints
            // it, or an export request wrapping them ({"resourceSpans":[…]})
            int start = line.indexOf("OtlpJsonLoggingSpanExporter - {");
            if (start < 0) {
                continue;
            }
            JsonNode root = json.readTree(line.substring(line.indexOf('{', start)));
            List<JsonNode> resources = new ArrayList<>();
            if (root.has("resourceSpans")) {
                root.path("resourceSpans").forEach(resources::add);
            } else {
                resources.add(root);
            }
            for (JsonNode resource : resources) {
                for (JsonNode scope : resource.path("scopeSpans")) {
                    String scopeName = scope.path("scope").path("name").asText();
                    for (JsonNode span : scope.path("spans")) {
                        String correlationId = null;
                        for (JsonNode attribute : span.path("attributes")) {
                            if (attribute.path("key").asText().equals("ballast.correlation_id")) {
                                correlationId = attribute
                                        .path("value")
                                        .path("stringValue")
                                        .asText();
                            }
                        }
                        spans.add(new ExportedSpan(
                                scopeName,
                                span.path("name").asText(),
                                span.path("kind").asInt(),
                                span.path("traceId").asText(),
                                span.path("spanId").asText(),
                                span.path("parentSpanId").asText(""),
                                correlationId));
                    }
                }
            }
        }
        assertThat(spans).as("spans exported; the app's output:\n%s", output).isNotEmpty();
    }

    private static String appValue(String key) {
        return appLines.stream()
                .filter(l -> l.startsWith(key + " "))
                .map(l -> l.substring(key.length() + 1))
                .findFirst()
                .orElseThrow(() -> new AssertionError("the app printed no '" + key + "' line: " + appLines));
    }

    private static ExportedSpan callSpan(String correlationId) {
        return spans.stream()
                .filter(s -> correlationId.equals(s.correlationId()))
                .findFirst()
                .orElseThrow(
                        () -> new AssertionError("no call span with correlation id " + correlationId + " in " + spans));
    }

    private static List<ExportedSpan> clientSpansUnder(ExportedSpan call) {
        return spans.stream()
                .filter(s -> s.kind() == CLIENT && s.parentSpanId().equals(call.spanId()))
                .toList();
    }

    @Test
    void ballastLeavesTheAttemptSpansToTheAgent() {
        assertThat(appValue("attemptSpans")).isEqualTo("AGENT");
    }

    @Test
    void theSyncCallsTwoAttemptsAreTheAgentsTwoClientSpansUnderBallastsCallSpan() {
        ExportedSpan call = callSpan(appValue("sync").split(" ")[0]);
        assertThat(call.scope()).isEqualTo(BallastTracing.INSTRUMENTATION_NAME);
        assertThat(call.kind()).isEqualTo(INTERNAL);
        assertThat(call.name()).isEqualTo("ballast GET");
        List<ExportedSpan> attempts = clientSpansUnder(call);
        assertThat(attempts).hasSize(2);
        assertThat(attempts).allSatisfy(a -> {
            assertThat(a.scope()).isEqualTo("io.opentelemetry.java-http-client");
            assertThat(a.traceId()).isEqualTo(call.traceId());
        });
    }

    @Test
    void theAsyncCallsAttemptIsOneClientSpanOfTheAgentUnderBallastsCallSpan() {
        ExportedSpan call = callSpan(appValue("async").split(" ")[0]);
        List<ExportedSpan> attempts = clientSpansUnder(call);
        assertThat(attempts).hasSize(1);
        assertThat(attempts.get(0).scope()).isEqualTo("io.opentelemetry.java-http-client");
    }

    @Test
    void noClientSpanIsDoubledAndNoneIsBallasts() {
        List<ExportedSpan> clients =
                spans.stream().filter(s -> s.kind() == CLIENT).toList();
        assertThat(clients).hasSize(3).noneMatch(s -> s.scope().equals(BallastTracing.INSTRUMENTATION_NAME));
        assertThat(clients.stream().map(ExportedSpan::parentSpanId).distinct()).hasSize(2);
    }

    @Test
    void theServerGotTheAgentsTraceContextOfEachAttemptInItsCallsTrace() {
        List<String> traceparents = appLines.stream()
                .filter(l -> l.startsWith("traceparent "))
                .map(l -> l.substring("traceparent ".length()))
                .toList();
        List<String> expected = spans.stream()
                .filter(s -> s.kind() == CLIENT)
                .map(s -> "00-" + s.traceId() + "-" + s.spanId())
                .toList();
        assertThat(traceparents).hasSize(3);
        assertThat(traceparents.stream().map(t -> t.substring(0, t.lastIndexOf('-'))))
                .containsExactlyInAnyOrderElementsOf(expected);
    }
}
