package dev.ballast.backup.content;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.function.LongConsumer;

/** SHA-256 helpers: lowercase hex, streamed in 64 KiB chunks so no file is held in memory. */
public final class Sha256 {
    private static final int CHUNK = 64 * 1024;

    private Sha256() {}

    /**
     * A copy of this digest, unused: cloning it skips {@code MessageDigest.getInstance}'s look-up among
     * the providers, about 2.5 µs per call, once per file backed up (2 % of the CPU time of a first
     * backup of 20,000 small files, async-profiler).
     */
    private static final MessageDigest PROTOTYPE = getInstance();

    /** A new SHA-256 digest; each call's is its own (a digest is not thread-safe). */
    public static MessageDigest newDigest() {
        try {
            return (MessageDigest) PROTOTYPE.clone();
        } catch (CloneNotSupportedException e) {
            return getInstance(); // a provider whose digest cannot be cloned
        }
    }

    private static MessageDigest getInstance() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Every JDK has SHA-256", e);
        }
    }

    public static String hex(MessageDigest digest) {
        return HexFormat.of().formatHex(digest.digest());
    }

    /** Hashes {@code file}, reporting each chunk's length to {@code progress}. */
    public static String ofFile(Path file, LongConsumer progress) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return copy(in, OutputStream.nullOutputStream(), progress);
        }
    }

    /** Copies {@code in} to {@code out} and returns the SHA-256 of the bytes copied. */
    public static String copy(InputStream in, OutputStream out, LongConsumer progress) throws IOException {
        MessageDigest digest = newDigest();
        byte[] buffer = new byte[CHUNK];
        int n;
        while ((n = in.read(buffer)) >= 0) {
            digest.update(buffer, 0, n);
            out.write(buffer, 0, n);
            progress.accept(n);
        }
        return hex(digest);
    }
}
