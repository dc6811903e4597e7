package dev.ballast.it.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.cli.Ballast;
import dev.ballast.http.ResilientHttpClient;
import dev.ballast.storage.StorageFacade;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Nothing outside http-client depends on {@code dev.ballast.http.internal}: jdeps over the built
 * classes of every other module finds no reference into it. (For code on the module path the
 * module system refuses such a reference at compile time; see http-client's ModuleBoundaryTest.)
 */
@Timeout(120)
class ModuleBoundaryIT {

    @ParameterizedTest
    @ValueSource(strings = {"storage-adapter", "cli"})
    void noOtherModuleReferencesTheInternalPackage(String module) throws Exception {
        Path classes = location(module.equals("cli") ? Ballast.class : StorageFacade.class);

        String found = internalDependencies(classes, location(org.slf4j.Logger.class));

        assertThat(found).as("references from %s (%s) into dev.ballast.http.internal", module, classes).isEmpty();
    }

    @Test
    void theCheckFindsReferencesWhereThereAreSome() throws Exception {
        // http-client's own classes use its internal package: the same check must see them
        assertThat(internalDependencies(location(ResilientHttpClient.class), location(org.slf4j.Logger.class)))
                .contains("dev.ballast.http.internal");
    }

    /** The lines of jdeps' class-level report that point into the internal package. */
    private static String internalDependencies(Path classes, Path modulePath) {
        ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
        int exit = jdeps.run(print, print, "--multi-release", String.valueOf(Runtime.version().feature()),
                "--module-path", modulePath.toString(), "-verbose:class", "-filter:none",
                "-e", "dev\\.ballast\\.http\\.internal\\..*", classes.toString());
        String report = out.toString(StandardCharsets.UTF_8);
        assertThat(exit).as("jdeps exit code; report:%n%s", report).isZero();
        return report.lines().filter(line -> line.contains("-> dev.ballast.http.internal"))
                .reduce("", (a, b) -> a + b + "\n");
    }

    private static Path location(Class<?> type) throws URISyntaxException {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }
}
