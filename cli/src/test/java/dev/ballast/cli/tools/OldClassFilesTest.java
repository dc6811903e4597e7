package dev.ballast.cli.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The build step that lets class-data sharing archive picocli: on the real picocli jar. */
class OldClassFilesTest {

    @TempDir
    Path dir;

    static List<Integer> majorVersions(Path jar) throws Exception {
        List<Integer> versions = new ArrayList<>();
        try (ZipInputStream in = new ZipInputStream(Files.newInputStream(jar))) {
            ZipEntry e;
            while ((e = in.getNextEntry()) != null) {
                if (e.getName().endsWith(".class") && !e.getName().endsWith("module-info.class")) {
                    versions.add(OldClassFiles.majorVersion(in.readNBytes(8)));
                }
            }
        }
        return versions;
    }

    @Test
    void picocliIsRewrittenAsJava6ClassFilesThatVerifyAndWorkAndASecondRunChangesNothing() throws Exception {
        Path original = Path.of(CommandLine.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        Path jar = Files.copy(original, dir.resolve(original.getFileName()));
        assertThat(majorVersions(jar)).as("picocli is compiled for Java 5").contains(49);

        assertThat(OldClassFiles.upgradeJarsIn(dir)).containsExactly(jar);

        List<Integer> versions = majorVersions(jar);
        assertThat(versions).hasSizeGreaterThan(100).allMatch(v -> v >= OldClassFiles.JAVA_6);
        List<String> names = new ArrayList<>();
        try (ZipInputStream in = new ZipInputStream(Files.newInputStream(jar))) {
            ZipEntry e;
            while ((e = in.getNextEntry()) != null) {
                String n = e.getName();
                if (n.endsWith(".class") && !n.contains("module-info") && !n.startsWith("META-INF/")) {
                    names.add(n.substring(0, n.length() - ".class".length()).replace('/', '.'));
                }
            }
        }
        try (URLClassLoader loader =
                new URLClassLoader(new java.net.URL[] {jar.toUri().toURL()}, ClassLoader.getPlatformClassLoader())) {
            for (String name : names) {
                // Initialising links the class, and linking verifies it with the frames computed.
                assertThat(Class.forName(name, true, loader)).isNotNull();
            }
            // The rewritten picocli parses and prints usage (built through its programmatic API: an
            // annotated class here would carry the other picocli's annotations).
            Class<?> specs = Class.forName("picocli.CommandLine$Model$CommandSpec", true, loader);
            Class<?> options = Class.forName("picocli.CommandLine$Model$OptionSpec", true, loader);
            Object spec = specs.getMethod("create").invoke(null);
            Object builder =
                    options.getMethod("builder", String[].class).invoke(null, (Object) new String[] {"--name"});
            java.lang.reflect.Method build = builder.getClass().getMethod("build");
            build.setAccessible(true); // declared by a non-public superclass
            specs.getMethod("addOption", options).invoke(spec, build.invoke(builder));
            Class<?> cl = Class.forName("picocli.CommandLine", true, loader);
            Object commandLine = cl.getConstructor(Object.class).newInstance(spec);
            cl.getMethod("parseArgs", String[].class).invoke(commandLine, (Object) new String[] {"--name"});
            assertThat(cl.getMethod("getUsageMessage").invoke(commandLine).toString())
                    .contains("--name");
        }

        assertThat(OldClassFiles.upgradeJarsIn(dir))
                .as("nothing is older than Java 6 any more")
                .isEmpty();
    }
}
