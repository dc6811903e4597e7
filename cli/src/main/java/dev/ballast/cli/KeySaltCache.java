package dev.ballast.cli;

import dev.ballast.backup.keys.KeyDerivationAhead;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Properties;
import org.jspecify.annotations.Nullable;

/**
 * The KDF parameters and salt of the key file that last opened each repository this user opened, in
 * {@code key-salts.properties} under the CLI's cache directory ({@link CliContext#cacheDir}): one line
 * per store, {@code <store>=<memory KiB> <iterations> <lanes> <base64 salt> <epoch millis written>}, where
 * the store is the local store's directory or {@code <endpoint> <bucket>}; at most {@value #MAX_ENTRIES}
 * entries, the ones written longest ago dropped first. An entry that does not parse is dropped at the next
 * write (the file holds nothing else). With it, the next command starts deriving the
 * password's key while it opens the store ({@link KeyDerivationAhead}). It holds nothing secret: every
 * key file holds its salt in clear. A file that cannot be read or written, is no regular file or is larger
 * than {@value #MAX_BYTES} bytes is ignored (the key is then derived after the key file is read, as without
 * it); so is a symbolic link (never followed: whatever it points to is never read or copied in). Commands
 * running at once may each write the file whole, the last one's view winning (an entry lost is derived for
 * again as without it). Not thread-safe; used once or twice per command.
 */
final class KeySaltCache {
    /** The largest file read: some 100 bytes a store, far more than {@value #MAX_ENTRIES} entries. */
    static final int MAX_BYTES = 256 * 1024;

    /** Entries kept at most: the stores opened most recently. */
    static final int MAX_ENTRIES = 256;

    static final String FILE = "key-salts.properties";

    private final Path file;
    private final java.time.Clock clock;

    KeySaltCache(Path cacheDir, java.time.Clock clock) {
        this.file = cacheDir.resolve(FILE);
        this.clock = clock;
    }

    /** What was remembered for {@code store}, or null. */
    KeyDerivationAhead.@Nullable Salt read(String store) {
        return salt(load().get(store));
    }

    /** Remembers {@code salt} for {@code store}, unless it is what the file says already. Never throws. */
    void remember(String store, KeyDerivationAhead.Salt salt) {
        java.util.Map<String, String> entries = load();
        if (salt.equals(salt(entries.get(store)))) {
            return;
        }
        entries.put(store, salt.encode() + " " + clock.millis());
        while (entries.size() > MAX_ENTRIES) {
            String oldest = null;
            long oldestAt = Long.MAX_VALUE;
            for (var e : entries.entrySet()) {
                long at = writtenAt(e.getValue());
                if (!e.getKey().equals(store) && at < oldestAt) {
                    oldest = e.getKey();
                    oldestAt = at;
                }
            }
            entries.remove(oldest);
        }
        save(entries);
    }

    /** Forgets {@code store} (a new repository there, or none): the next command derives nothing ahead for it. */
    void forget(String store) {
        java.util.Map<String, String> entries = load();
        if (entries.remove(store) != null) {
            save(entries);
        }
    }

    /** The salt of an entry's value ({@code <m> <t> <p> <salt>}, then the time it was written), or null. */
    private static KeyDerivationAhead.@Nullable Salt salt(@Nullable String value) {
        if (value == null) {
            return null;
        }
        String[] p = value.trim().split(" ");
        return p.length == 5 ? KeyDerivationAhead.Salt.parse(String.join(" ", p[0], p[1], p[2], p[3])) : null;
    }

    private static long writtenAt(String value) {
        String[] p = value.trim().split(" ");
        try {
            return Long.parseLong(p[p.length - 1]);
        } catch (NumberFormatException e) {
            return Long.MIN_VALUE;
        }
    }

    private void save(java.util.Map<String, String> entries) {
        Properties p = new Properties();
        p.putAll(entries);
        Path tmp = null;
        try {
            Files.createDirectories(file.getParent());
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            p.store(out, "KDF parameters and salt of the key file that last opened each repository (no secret)");
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

    /** The entries of the file that parse (others are dropped), or none when it is no regular file (a link is not followed) or too large. */
    private java.util.Map<String, String> load() {
        java.util.Map<String, String> entries = new java.util.HashMap<>();
        try {
            if (Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) && Files.size(file) <= MAX_BYTES) {
                Properties p = new Properties();
                try (var in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
                    p.load(new java.io.InputStreamReader(
                            new ByteArrayInputStream(in.readNBytes(MAX_BYTES + 1)), StandardCharsets.ISO_8859_1));
                }
                for (String store : p.stringPropertyNames()) {
                    String value = p.getProperty(store);
                    if (salt(value) != null) {
                        entries.put(store, value);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            entries.clear();
        }
        return entries;
    }
}
