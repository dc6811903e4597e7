package dev.ballast.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The module's wall, proven by the compiler: a module that requires {@code dev.ballast.http}
 * compiles against its exported packages, and fails to compile against
 * {@code dev.ballast.http.internal}.
 */
@Timeout(60)
class ModuleBoundaryTest {

    @TempDir
    Path work;

    @Test
    void aModuleUsingTheExportedApiCompiles() throws Exception {
        String result = compileConsumer(
                "import dev.ballast.http.ResilientHttpClient;\n"
                        + "import dev.ballast.http.breaker.BreakerConfig;\n"
                        + "class Consumer { Object o = ResilientHttpClient.newBuilder(); Object c = BreakerConfig.ofDefaults(); }\n");

        assertThat(result).isEqualTo("exit 0\n");
    }

    @Test
    void aModuleImportingTheInternalPackageDoesNotCompile() throws Exception {
        String result = compileConsumer("import dev.ballast.http.internal.Durations;\n"
                + "class Consumer { long n = Durations.saturatedAdd(1, 2); }\n");

        assertThat(result).startsWith("exit 1").contains("package dev.ballast.http.internal is not visible");
    }

    /** Compiles module {@code consumer}, which requires {@code dev.ballast.http}, holding one class. */
    private String compileConsumer(String source) throws IOException, URISyntaxException {
        Path src = work.resolve("src/consumer");
        Files.createDirectories(src.resolve("consumer"));
        Files.writeString(src.resolve("module-info.java"), "module consumer { requires dev.ballast.http; }\n");
        Files.writeString(src.resolve("consumer/Consumer.java"), "package consumer;\n" + source);
        String modulePath =
                location(ResilientHttpClient.class) + java.io.File.pathSeparator + location(org.slf4j.Logger.class);
        ToolProvider javac = ToolProvider.findFirst("javac").orElseThrow();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
        int exit = javac.run(
                print,
                print,
                "--module-path",
                modulePath,
                "-d",
                work.resolve("out").toString(),
                src.resolve("module-info.java").toString(),
                src.resolve("consumer/Consumer.java").toString());
        return "exit " + exit + "\n" + out.toString(StandardCharsets.UTF_8);
    }

    private static String location(Class<?> type) throws URISyntaxException {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI())
                .toString();
    }
}
