package dev.ballast.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The configuration metadata generated at build time (what IDEs complete and document) describes
 * every ballast.* property, and docs/spring-boot.md's tables name exactly those.
 */
@Timeout(30)
class ConfigurationMetadataTest {

    @Test
    void everyGeneratedPropertyHasADescriptionAndIsInThePropertyTablesAndNoOtherIs() throws IOException {
        // given the generated metadata
        Set<String> generated = new TreeSet<>();
        try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("META-INF/spring-configuration-metadata.json").isNotNull();
            for (JsonNode property : JsonMapper.builder().build().readTree(in).get("properties")) {
                String name = property.get("name").asString();
                if (name.startsWith("ballast.")) {
                    assertThat(property.path("description").asString()).as(name).isNotBlank();
                    generated.add(name);
                }
            }
        }

        // when the page's tables are read (a dependency's rows are relative to ballast.http.defaults.)
        String page = Files.readString(Path.of("../docs/spring-boot.md"), StandardCharsets.UTF_8);
        Set<String> documented = new TreeSet<>();
        Matcher row =
                Pattern.compile("(?m)^\\| `([a-z0-9.-]+)`(?:, `([a-z-]+)`)*").matcher(page);
        while (row.find()) {
            String name = row.group(1);
            String full = name.startsWith("ballast.") ? name : "ballast.http.defaults." + name;
            documented.add(full);
            // "`…access-key`, `secret-key`, `session-token`": siblings of the first (which has dots)
            Matcher siblings = Pattern.compile("`([a-z-]+)`").matcher(row.group(0));
            while (siblings.find()) {
                documented.add(full.substring(0, full.lastIndexOf('.') + 1) + siblings.group(1));
            }
        }
        documented.removeIf(name -> !name.startsWith("ballast."));

        // then: the options of the client's builder are all there, the newer ones included
        assertThat(generated)
                .contains(
                        "ballast.http.defaults.breaker.throttling-is-failure",
                        "ballast.http.defaults.concurrency-limit.enabled",
                        "ballast.http.defaults.concurrency-limit.initial-limit",
                        "ballast.http.defaults.concurrency-limit.min-limit",
                        "ballast.http.defaults.concurrency-limit.max-limit",
                        "ballast.http.defaults.concurrency-limit.latency-tolerance",
                        "ballast.http.defaults.concurrency-limit.window",
                        "ballast.http.defaults.concurrency-limit.min-window-samples",
                        "ballast.http.defaults.concurrency-limit.max-wait-duration",
                        "ballast.http.defaults.concurrency-limit.max-waiting-calls",
                        "ballast.http.defaults.bulkhead.enabled");
        Set<String> expected = new TreeSet<>(generated);
        expected.remove("ballast.http.dependencies"); // the map itself: its rows are the defaults' rows
        assertThat(documented).containsExactlyInAnyOrderElementsOf(expected);
    }
}
