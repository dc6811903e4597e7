package dev.ballast.cli.tools;

import java.io.IOException;
import java.io.OutputStream;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarInputStream;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Opcodes;

/**
 * A build step of the CLI (run by Maven in the {@code package} phase on {@code cli/target/lib}):
 * rewrites class files older than Java 6 (major version below 50) in the runtime jars as version 50
 * with stack map frames computed, leaving their code as it is. The JVM's class-data-sharing archive
 * that {@code ./ballast} makes skips such classes ("Pre JDK 6 class not supported by CDS") and every
 * class linked against them, so each command loaded and verified them anew, with the old verifier:
 * picocli's 173 classes (it is compiled for Java 5), about 0.13 s of every command's start.
 *
 * <p>A jar with no such class is left untouched (so a second run changes nothing); one with some is
 * rewritten to a temporary file and moved over the original. Frames are computed with ASM, loading
 * the classes a frame merges from the jars in the same directories.
 */
public final class OldClassFiles {

    /** Class files of this major version (Java 6) and later carry stack map frames. */
    static final int JAVA_6 = 50;

    private OldClassFiles() {}

    /** Upgrades the jars in each directory given; prints one line per jar rewritten. */
    public static void main(String[] args) throws IOException {
        if (args.length == 0) {
            System.err.println("usage: OldClassFiles DIRECTORY... (the directories holding the runtime jars)");
            System.exit(2);
        }
        for (String arg : args) {
            for (Path jar : upgradeJarsIn(Path.of(arg))) {
                System.out.println("Upgraded class files older than Java 6 in " + jar);
            }
        }
    }

    /**
     * Upgrades every jar in {@code dir} that holds class files older than Java 6.
     *
     * @return the jars rewritten
     */
    public static List<Path> upgradeJarsIn(Path dir) throws IOException {
        List<Path> jars = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.jar")) {
            files.forEach(jars::add);
        }
        List<URL> urls = new ArrayList<>();
        for (Path jar : jars) {
            urls.add(url(jar));
        }
        List<Path> upgraded = new ArrayList<>();
        try (URLClassLoader loader =
                new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
            for (Path jar : jars) {
                if (holdsOldClassFiles(jar)) {
                    rewrite(jar, loader);
                    upgraded.add(jar);
                }
            }
        }
        return upgraded;
    }

    private static URL url(Path jar) {
        try {
            return jar.toUri().toURL();
        } catch (MalformedURLException e) {
            throw new IllegalArgumentException(jar + " has no URL", e);
        }
    }

    /** The major version of a class file's bytes. */
    static int majorVersion(byte[] classFile) {
        return ((classFile[6] & 0xff) << 8) | (classFile[7] & 0xff);
    }

    static boolean holdsOldClassFiles(Path jar) throws IOException {
        try (ZipInputStream in = new ZipInputStream(Files.newInputStream(jar))) {
            ZipEntry e;
            while ((e = in.getNextEntry()) != null) {
                if (isClassFile(e)) {
                    byte[] head = in.readNBytes(8);
                    if (head.length == 8 && majorVersion(head) < JAVA_6) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private static boolean isClassFile(ZipEntry e) {
        return !e.isDirectory() && e.getName().endsWith(".class");
    }

    private static void rewrite(Path jar, ClassLoader loader) throws IOException {
        Path tmp = jar.resolveSibling(jar.getFileName() + ".upgrading");
        try (JarInputStream in = new JarInputStream(Files.newInputStream(jar));
                OutputStream file = Files.newOutputStream(tmp)) {
            Manifest manifest = in.getManifest();
            try (JarOutputStream out =
                    manifest == null ? new JarOutputStream(file) : new JarOutputStream(file, manifest)) {
                JarEntry e;
                while ((e = in.getNextJarEntry()) != null) {
                    byte[] bytes = in.readAllBytes();
                    if (isClassFile(e) && bytes.length >= 8 && majorVersion(bytes) < JAVA_6) {
                        bytes = upgrade(bytes, loader);
                    }
                    JarEntry copy = new JarEntry(e.getName());
                    copy.setTime(e.getTime());
                    out.putNextEntry(copy);
                    out.write(bytes);
                    out.closeEntry();
                }
            }
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
        Files.move(tmp, jar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** One class file as version 50 with frames computed; its code unchanged. */
    static byte[] upgrade(byte[] classFile, ClassLoader loader) {
        ClassReader reader = new ClassReader(classFile);
        ClassWriter writer = new ClassWriter(ClassWriter.COMPUTE_FRAMES) {
            @Override
            protected ClassLoader getClassLoader() {
                return loader;
            }
        };
        reader.accept(
                new ClassVisitor(Opcodes.ASM9, writer) {
                    @Override
                    public void visit(
                            int version,
                            int access,
                            String name,
                            String signature,
                            String superName,
                            String[] interfaces) {
                        super.visit(Opcodes.V1_6, access, name, signature, superName, interfaces);
                    }
                },
                ClassReader.SKIP_FRAMES);
        return writer.toByteArray();
    }
}
