package dev.ballast.cli.tools;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarInputStream;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * A build step of the CLI (run by Maven in the {@code package} phase on {@code cli/target/lib}, after
 * the copy of the runtime jars): removes the signature of a signed jar (its {@code META-INF/*.SF},
 * {@code *.RSA}, {@code *.DSA}, {@code *.EC} files, and the per-entry digests of its manifest, keeping
 * the manifest's main attributes). BouncyCastle's provider jar is signed, for the JCE; Ballast calls
 * its Argon2 generator directly and registers no provider, so the signature buys nothing, while every
 * command paid for it: the JVM checks the signature of each class it loads from a signed jar (about
 * 60 ms of CPU per command, measured with JFR and {@code /usr/bin/time} on an unchanged backup), and
 * the class-data-sharing archive {@code ./ballast} makes leaves such classes out.
 *
 * <p>A jar without signature files is left untouched (so a second run changes nothing).
 */
public final class JarSignatures {
    private JarSignatures() {}

    /** Unsigns the signed jars in each directory given; prints one line per jar rewritten. */
    public static void main(String[] args) throws IOException {
        if (args.length == 0) {
            System.err.println("usage: JarSignatures DIRECTORY... (the directories holding the runtime jars)");
            System.exit(2);
        }
        for (String arg : args) {
            for (Path jar : unsignJarsIn(Path.of(arg))) {
                System.out.println("Removed the signature of " + jar);
            }
        }
    }

    /**
     * Removes the signature of every signed jar in {@code dir}.
     *
     * @return the jars rewritten
     */
    public static List<Path> unsignJarsIn(Path dir) throws IOException {
        List<Path> jars = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.jar")) {
            files.forEach(jars::add);
        }
        List<Path> rewritten = new ArrayList<>();
        for (Path jar : jars) {
            if (isSigned(jar)) {
                unsign(jar);
                rewritten.add(jar);
            }
        }
        return rewritten;
    }

    /** Whether {@code name} is a signature file: {@code META-INF/*.SF}, {@code .RSA}, {@code .DSA}, {@code .EC}. */
    static boolean isSignatureFile(String name) {
        if (!name.startsWith("META-INF/") || name.indexOf('/', "META-INF/".length()) >= 0) {
            return false;
        }
        String upper = name.toUpperCase(java.util.Locale.ROOT);
        return upper.endsWith(".SF") || upper.endsWith(".RSA") || upper.endsWith(".DSA") || upper.endsWith(".EC");
    }

    static boolean isSigned(Path jar) throws IOException {
        try (ZipInputStream in = new ZipInputStream(Files.newInputStream(jar))) {
            ZipEntry e;
            while ((e = in.getNextEntry()) != null) {
                if (isSignatureFile(e.getName())) {
                    return true;
                }
            }
        }
        return false;
    }

    private static void unsign(Path jar) throws IOException {
        Path tmp = jar.resolveSibling(jar.getFileName() + ".unsigning");
        try (JarInputStream in = new JarInputStream(Files.newInputStream(jar), false);
                OutputStream file = Files.newOutputStream(tmp)) {
            Manifest signed = in.getManifest();
            Manifest manifest = new Manifest();
            if (signed != null) {
                manifest.getMainAttributes().putAll(signed.getMainAttributes());
            }
            try (JarOutputStream out = new JarOutputStream(file, manifest)) {
                JarEntry e;
                while ((e = in.getNextJarEntry()) != null) {
                    if (isSignatureFile(e.getName()) || e.getName().equalsIgnoreCase(JarFile.MANIFEST_NAME)) {
                        continue;
                    }
                    byte[] bytes = in.readAllBytes();
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
}
