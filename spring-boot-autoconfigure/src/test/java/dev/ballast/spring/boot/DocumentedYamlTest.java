package dev.ballast.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.http.ResilientHttpClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.ByteArrayResource;

/**
 * Every ```yaml block of README.md and docs/spring-boot.md binds to the ballast.* properties and
 * builds a client, and the README's binds as it says (a dependency keyed by its origin).
 */
@Timeout(30)
class DocumentedYamlTest {

    private static final Path ROOT = Path.of("..");

    @Test
    void theReadmesYamlConfiguresTheDependencyItNames() throws IOException {
        List<Binder> blocks = yamlBlocks(ROOT.resolve("README.md"));
        assertThat(blocks).isNotEmpty();
        BallastHttpProperties http = bindHttp(blocks.get(0));

        assertThat(http.attemptTimeout()).hasSeconds(2);
        assertThat(http.retry().maxAttempts()).isEqualTo(4);
        assertThat(http.dependencies()).containsOnlyKeys("https://payments.internal:443");
        assertThat(http.dependencies()
                        .get("https://payments.internal:443")
                        .bulkhead()
                        .maxConcurrentCalls())
                .isEqualTo(16);
        BallastStorageProperties storage = blocks.get(0)
                .bind("ballast.storage", BallastStorageProperties.class)
                .get();
        assertThat(storage.localObjects()).isEqualTo(Path.of("/var/lib/checkout/objects"));
        buildClient(http);
    }

    @Test
    void everyYamlBlockOfTheSpringBootPageBindsAndBuildsAClient() throws IOException {
        List<Binder> blocks = yamlBlocks(ROOT.resolve("docs/spring-boot.md"));
        assertThat(blocks).hasSizeGreaterThanOrEqualTo(2);
        for (Binder block : blocks) {
            buildClient(bindHttp(block));
            block.bind("ballast.health", BallastHealthProperties.class);
        }
    }

    private static BallastHttpProperties bindHttp(Binder binder) {
        return binder.bindOrCreate("ballast.http", BallastHttpProperties.class);
    }

    private static void buildClient(BallastHttpProperties properties) {
        ResilientHttpClient.Builder builder = ResilientHttpClient.newBuilder();
        HttpClientSettings.apply(properties, builder);
        try (ResilientHttpClient client = HttpClientSettings.build(properties, builder)) {
            assertThat(client.isTerminated()).isFalse();
        }
    }

    private static List<Binder> yamlBlocks(Path markdown) throws IOException {
        List<Binder> binders = new ArrayList<>();
        StringBuilder block = null;
        for (String line : Files.readAllLines(markdown, StandardCharsets.UTF_8)) {
            if (block == null && line.strip().equals("```yaml")) {
                block = new StringBuilder();
            } else if (block != null && line.strip().equals("```")) {
                List<PropertySource<?>> sources = new YamlPropertySourceLoader()
                        .load(
                                markdown.toString(),
                                new ByteArrayResource(block.toString().getBytes(StandardCharsets.UTF_8)));
                StandardEnvironment environment = new StandardEnvironment();
                sources.forEach(environment.getPropertySources()::addFirst);
                binders.add(new Binder(ConfigurationPropertySources.get(environment)));
                block = null;
            } else if (block != null) {
                block.append(line).append('\n');
            }
        }
        return binders;
    }
}
