package dev.ballast.it.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.backup.BackupOptions;
import dev.ballast.backup.Backups;
import dev.ballast.cli.Ballast;
import dev.ballast.cli.CliContext;
import dev.ballast.http.DependencyConfig;
import dev.ballast.http.ResilientHttpClient;
import dev.ballast.http.micrometer.HttpClientMetrics;
import dev.ballast.http.opentelemetry.BallastTracing;
import dev.ballast.storage.StorageFacade;
import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.test.StoreFault;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What a user of each published jar gets, read from the jars this build packaged (the
 * maven-failsafe-plugin runs after {@code package}, so the class path holds the jars, not the
 * class directories): a stable module name, real parameter names, and sources and Javadoc beside it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PublishedJarsIT {

    /**
     * A published module: its module name, a class it holds, and a public method with the parameter
     * names an IDE must show.
     */
    record Published(String moduleName, Class<?> type, Method method, List<String> parameterNames) {
        @Override
        public String toString() {
            return moduleName;
        }
    }

    static Stream<Published> publishedModules() throws NoSuchMethodException {
        return Stream.of(
                new Published(
                        "dev.ballast.http",
                        ResilientHttpClient.class,
                        ResilientHttpClient.Builder.class.getMethod("dependency", String.class, DependencyConfig.class),
                        List.of("dependency", "config")),
                new Published(
                        "dev.ballast.http.micrometer",
                        HttpClientMetrics.class,
                        HttpClientMetrics.class.getMethod("bindTo", MeterRegistry.class),
                        List.of("registry")),
                new Published(
                        "dev.ballast.http.opentelemetry",
                        BallastTracing.class,
                        BallastTracing.class.getMethod("builder", OpenTelemetry.class),
                        List.of("openTelemetry")),
                new Published(
                        "dev.ballast.storage",
                        StorageFacade.class,
                        ObjectStore.class.getMethod("putIfMatch", String.class, String.class, ObjectContent.class),
                        List.of("key", "eTag", "content")),
                new Published(
                        "dev.ballast.test",
                        StoreFault.class,
                        StoreFault.class.getMethod("truncatedBody", long.class),
                        List.of("afterBytes")),
                new Published(
                        "dev.ballast.backup",
                        Backups.class,
                        Backups.class.getMethod("backup", String.class, Path.class, BackupOptions.class),
                        List.of("name", "source", "options")),
                new Published(
                        "dev.ballast.cli",
                        Ballast.class,
                        Ballast.class.getMethod("run", String[].class, CliContext.class),
                        List.of("args", "ctx")));
    }

    static Path jarOf(Class<?> type) throws URISyntaxException {
        Path location =
                Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        assertThat(location.toString())
                .as("%s comes from a packaged jar (run by the maven-failsafe-plugin)", type)
                .endsWith(".jar");
        return location;
    }

    /** The attached artifact beside {@code jar}: {@code x.jar} gives {@code x-<classifier>.jar}. */
    static Path attached(Path jar, String classifier) {
        String name = jar.getFileName().toString();
        return jar.resolveSibling(name.substring(0, name.length() - ".jar".length()) + "-" + classifier + ".jar");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("publishedModules")
    void theJarHasItsStableModuleName(Published module) throws Exception {
        Path jar = jarOf(module.type());
        String moduleName = module.moduleName();
        // given: the name the JDK derives on the module path (module-info.class, else Automatic-Module-Name)
        List<ModuleDescriptor> modules = ModuleFinder.of(jar).findAll().stream()
                .map(ModuleReference::descriptor)
                .toList();
        assertThat(modules).singleElement().extracting(ModuleDescriptor::name).isEqualTo(moduleName);
        try (JarFile file = new JarFile(jar.toFile())) {
            if (file.getEntry("module-info.class") == null) {
                assertThat(file.getManifest().getMainAttributes().getValue("Automatic-Module-Name"))
                        .isEqualTo(moduleName);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("publishedModules")
    void parameterNamesAreInTheClassFiles(Published module) {
        assertThat(module.method().getParameters())
                .allMatch(Parameter::isNamePresent)
                .extracting(Parameter::getName)
                .containsExactlyElementsOf(module.parameterNames());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("publishedModules")
    void sourcesAndJavadocJarsArePackagedBesideTheJar(Published module) throws Exception {
        Path jar = jarOf(module.type());
        String path = module.type().getName().replace('.', '/');
        try (JarFile sources = new JarFile(attached(jar, "sources").toFile())) {
            assertThat(sources.getEntry(path + ".java"))
                    .as("%s in %s", path, sources.getName())
                    .isNotNull();
        }
        try (JarFile javadoc = new JarFile(attached(jar, "javadoc").toFile())) {
            // Javadoc writes a module directory first when the jar has a module name.
            assertThat(javadoc.stream().map(e -> e.getName()))
                    .as("%s.html in %s", path, javadoc.getName())
                    .anyMatch(n -> n.equals(path + ".html") || n.equals(module.moduleName() + "/" + path + ".html"));
        }
    }
}
