package dev.ballast.it.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.backup.Backups;
import dev.ballast.cli.Ballast;
import dev.ballast.http.ResilientHttpClient;
import dev.ballast.http.micrometer.HttpClientMetrics;
import dev.ballast.http.opentelemetry.BallastTracing;
import dev.ballast.storage.StorageFacade;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.spi.ToolProvider;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Nothing outside http-client depends on {@code dev.ballast.http.internal}: jdeps over the built
 * classes of every other module finds no reference into it. (For code on the module path the
 * module system refuses such a reference at compile time; see http-client's ModuleBoundaryTest.)
 */
@Timeout(120)
class ModuleBoundaryIT {

    @TempDir
    Path scratch;

    @ParameterizedTest
    @ValueSource(strings = {"storage-adapter", "backup", "cli", "micrometer", "opentelemetry"})
    void noOtherModuleReferencesTheInternalPackage(String module) throws Exception {
        Path classes = location(
                switch (module) {
                    case "backup" -> Backups.class;
                    case "cli" -> Ballast.class;
                    case "micrometer" -> HttpClientMetrics.class;
                    case "opentelemetry" -> BallastTracing.class;
                    default -> StorageFacade.class;
                });

        String found = internalDependencies(classes);

        assertThat(found)
                .as("references from %s (%s) into dev.ballast.http.internal", module, classes)
                .isEmpty();
    }

    @Test
    void theCheckFindsReferencesWhereThereAreSome() throws Exception {
        // http-client's own classes use its internal package: the same check must see them
        assertThat(internalDependencies(location(ResilientHttpClient.class))).contains("dev.ballast.http.internal");
    }

    /**
     * The lines of jdeps' class-level report that point into the internal package. The classes are
     * analysed as plain classes (a module descriptor is left out), so jdeps needs none of the module's
     * own dependencies to resolve it; a reference it cannot resolve is still reported.
     */
    private String internalDependencies(Path classes) throws IOException {
        Path plain = plainClasses(classes);
        ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
        int exit = jdeps.run(
                print,
                print,
                "--multi-release",
                String.valueOf(Runtime.version().feature()),
                "-verbose:class",
                "-filter:none",
                "-e",
                "dev\\.ballast\\.http\\.internal\\..*",
                plain.toString());
        String report = out.toString(StandardCharsets.UTF_8);
        assertThat(exit).as("jdeps exit code; report:%n%s", report).isZero();
        return report.lines()
                .filter(line -> line.contains("-> dev.ballast.http.internal"))
                .reduce("", (a, b) -> a + b + "\n");
    }

    /** A copy of the class files of {@code classes} (a jar or a directory) without any module-info.class. */
    private Path plainClasses(Path classes) throws IOException {
        Path target = Files.createTempDirectory(scratch, "classes");
        if (Files.isDirectory(classes)) {
            try (Stream<Path> files = Files.walk(classes)) {
                for (Path file : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".class"))::iterator) {
                    copyUnlessDescriptor(classes.relativize(file).toString(), Files.readAllBytes(file), target);
                }
            }
        } else {
            try (JarFile jar = new JarFile(classes.toFile())) {
                for (JarEntry entry : Collections.list(jar.entries())) {
                    if (entry.getName().endsWith(".class")) {
                        try (InputStream in = jar.getInputStream(entry)) {
                            copyUnlessDescriptor(entry.getName(), in.readAllBytes(), target);
                        }
                    }
                }
            }
        }
        return target;
    }

    private static void copyUnlessDescriptor(String name, byte[] bytes, Path target) throws IOException {
        if (name.endsWith("module-info.class") || name.startsWith("META-INF")) {
            return;
        }
        Path out = target.resolve(name);
        Files.createDirectories(out.getParent());
        Files.write(out, bytes);
    }

    private static Path location(Class<?> type) throws URISyntaxException {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }
}
