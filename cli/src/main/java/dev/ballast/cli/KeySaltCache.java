package dev.ballast.cli;

import dev.ballast.backup.keys.KeyDerivationAhead;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Properties;
import org.jspecify.annotations.Nullable;

/**
 * The KDF parameters and salt of the key file that last opened each repository this user opened, in
 * {@code key-salts.properties} under the CLI's cache directory ({@link CliContext#cacheDir}): one line
 * per store, {@code <store>=<memory KiB> <iterations> <lanes> <base64 salt>}, where the store is the local
 * store's directory or {@code <endpoint> <bucket>}. With it, the next command starts deriving the
 * password's key while it opens the store ({@link KeyDerivationAhead}). It holds nothing secret: every
 * key file holds its salt in clear. A file that cannot be read or written, is no regular file or is larger
 * than {@value #MAX_BYTES} bytes is ignored (the key is then derived after the key file is read, as without
 * it). Not thread-safe; used once or twice per command.
 */
final class KeySaltCache {
    /** The largest file read: some 100 bytes a store, far more than anyone's stores. */
    static final int MAX_BYTES = 256 * 1024;

    static final String FILE = "key-salts.properties";

    private final Path file;

    KeySaltCache(Path cacheDir) {
        this.file = cacheDir.resolve(FILE);
    }

    /** What was remembered for {@code store}, or null. */
    KeyDerivationAhead.@Nullable Salt read(String store) {
        return KeyDerivationAhead.Salt.parse(load().getProperty(store));
    }

    /** Remembers {@code salt} for {@code store}, unless it is what the file says already. Never throws. */
    void remember(String store, KeyDerivationAhead.Salt salt) {
        Properties p = load();
        String encoded = salt.encode();
        if (encoded.equals(p.getProperty(store))) {
            return;
        }
        p.setProperty(store, encoded);
        Path tmp = null;
        try {
            Files.createDirectories(file.getParent());
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            p.store(out, "KDF parameters and salt of the key file that last opened each repository (no secret)");
            if (out.size() > MAX_BYTES) {
                return;
            }
            tmp = Files.createTempFile(file.getParent(), ".key-salts", ".tmp");
            try {
                Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
            } catch (UnsupportedOperationException e) {
                // not a POSIX file system: its default permissions
            }
            Files.write(tmp, out.toByteArray());
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
            tmp = null;
        } catch (IOException | RuntimeException e) {
            // a cache: the next command derives after reading the key file, as without it
        } finally {
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException e) {
                    // left behind in the cache directory; harmless
                }
            }
        }
    }

    private Properties load() {
        Properties p = new Properties();
        try {
            if (Files.isRegularFile(file) && Files.size(file) <= MAX_BYTES) {
                p.load(new java.io.InputStreamReader(
                        new ByteArrayInputStream(Files.readAllBytes(file)), StandardCharsets.ISO_8859_1));
            }
        } catch (IOException | RuntimeException e) {
            p.clear();
        }
        return p;
    }
}
