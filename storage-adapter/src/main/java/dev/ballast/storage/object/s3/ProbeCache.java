package dev.ballast.storage.object.s3;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Properties;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The capability probe's findings, remembered per endpoint and bucket in a properties file
 * ({@link S3StoreConfig.Builder#probeCache}): {@code <endpoint> <bucket>=<epoch millis> <CAPABILITY,...>}.
 * A file that cannot be read or written is ignored. Not thread-safe; used once per open.
 */
final class ProbeCache {
    private static final Logger LOG = LoggerFactory.getLogger(ProbeCache.class);

    private final Path file;
    private final Duration maxAge;
    private final Clock clock;

    ProbeCache(Path file, Duration maxAge, Clock clock) {
        this.file = file;
        this.maxAge = maxAge;
        this.clock = clock;
    }

    /** The findings recorded for {@code endpoint} and {@code bucket} less than the maximum age ago, or null. */
    @Nullable
    Set<S3StoreConfig.Capability> read(String endpoint, String bucket) {
        String entry = load().getProperty(endpoint + " " + bucket);
        if (entry == null) {
            return null;
        }
        try {
            String[] parts = entry.split(" ", 2);
            long age = clock.millis() - Long.parseLong(parts[0]);
            if (age < 0 || age >= maxAge.toMillis()) {
                return null;
            }
            Set<S3StoreConfig.Capability> found = EnumSet.noneOf(S3StoreConfig.Capability.class);
            if (parts.length == 2 && !parts[1].isEmpty()) {
                for (String name : parts[1].split(",")) {
                    found.add(S3StoreConfig.Capability.valueOf(name));
                }
            }
            return found;
        } catch (IllegalArgumentException | ArrayIndexOutOfBoundsException e) {
            LOG.debug("Ignoring the unreadable probe findings '{}' in {}", entry, file);
            return null;
        }
    }

    /** Records {@code found} for {@code endpoint} and {@code bucket}, as of now. */
    void write(String endpoint, String bucket, Set<S3StoreConfig.Capability> found) {
        Properties all = load();
        StringBuilder value = new StringBuilder().append(clock.millis()).append(' ');
        for (S3StoreConfig.Capability c : found) {
            value.append(value.charAt(value.length() - 1) == ' ' ? "" : ",").append(c.name());
        }
        all.setProperty(endpoint + " " + bucket, value.toString());
        try {
            Path dir = file.toAbsolutePath().getParent();
            Files.createDirectories(dir);
            Path temporary = Files.createTempFile(dir, file.getFileName().toString(), ".tmp");
            try {
                try (OutputStream out = Files.newOutputStream(temporary)) {
                    all.store(out, "Ballast: what the S3 capability probe found, per endpoint and bucket");
                }
                try {
                    Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING);
                }
            } finally {
                Files.deleteIfExists(temporary);
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("Could not remember the probe's findings in {}", file, e);
        }
    }

    private Properties load() {
        Properties all = new Properties();
        try (InputStream in = Files.newInputStream(file)) {
            all.load(in);
        } catch (NoSuchFileException e) {
            // nothing remembered yet
        } catch (IOException | RuntimeException e) {
            LOG.debug("Ignoring the unreadable probe cache {}", file, e);
        }
        return all;
    }
}
