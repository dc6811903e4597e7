package dev.ballast.cli.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarFile;
import org.bouncycastle.crypto.generators.Argon2BytesGenerator;
import org.bouncycastle.crypto.params.Argon2Parameters;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The build step that removes BouncyCastle's jar signature: on the real, signed jar. */
class JarSignaturesTest {

    @TempDir
    Path dir;

    @Test
    void theSignedBouncyCastleJarLosesItsSignatureKeepsItsClassesAndDerivesTheSameKey() throws Exception {
        Path original = Path.of(Argon2BytesGenerator.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        Path jar = Files.copy(original, dir.resolve(original.getFileName()));
        assertThat(JarSignatures.isSigned(jar))
                .as("BouncyCastle ships its jar signed")
                .isTrue();
        int entries;
        try (JarFile f = new JarFile(jar.toFile())) {
            entries = (int) f.stream()
                    .filter(e -> !JarSignatures.isSignatureFile(e.getName()))
                    .count();
        }

        assertThat(JarSignatures.unsignJarsIn(dir)).containsExactly(jar);

        assertThat(JarSignatures.isSigned(jar)).isFalse();
        try (JarFile f = new JarFile(jar.toFile())) {
            assertThat(f.stream().count()).isEqualTo(entries);
            assertThat(f.getManifest().getEntries()).as("no per-entry digests").isEmpty();
            assertThat(f.isMultiRelease()).isEqualTo(new JarFile(original.toFile()).isMultiRelease());
        }
        byte[] expected = derive(Argon2BytesGenerator.class);
        try (URLClassLoader loader =
                new URLClassLoader(new java.net.URL[] {jar.toUri().toURL()}, ClassLoader.getPlatformClassLoader())) {
            Class<?> generator = Class.forName(Argon2BytesGenerator.class.getName(), true, loader);
            assertThat(generator.getProtectionDomain().getCodeSource().getCodeSigners())
                    .isNull();
            assertThat(derive(generator)).isEqualTo(expected);
        }

        assertThat(JarSignatures.unsignJarsIn(dir))
                .as("a second run changes nothing")
                .isEmpty();
    }

    /** Argon2id of a fixed password and salt, through the given class of the generator (by reflection). */
    private static byte[] derive(Class<?> generatorClass) throws Exception {
        ClassLoader cl = generatorClass.getClassLoader();
        Class<?> builderClass = Class.forName(Argon2Parameters.Builder.class.getName(), true, cl);
        Object builder = builderClass.getConstructor(int.class).newInstance(Argon2Parameters.ARGON2_id);
        builderClass.getMethod("withSalt", byte[].class).invoke(builder, (Object) new byte[16]);
        builderClass.getMethod("withMemoryAsKB", int.class).invoke(builder, 64);
        builderClass.getMethod("withIterations", int.class).invoke(builder, 1);
        Object params = builderClass.getMethod("build").invoke(builder);
        Object generator = generatorClass.getConstructor().newInstance();
        generatorClass.getMethod("init", params.getClass()).invoke(generator, params);
        byte[] out = new byte[32];
        generatorClass
                .getMethod("generateBytes", char[].class, byte[].class)
                .invoke(generator, "password".toCharArray(), out);
        return out;
    }
}
