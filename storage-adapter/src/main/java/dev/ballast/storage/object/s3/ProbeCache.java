package dev.ballast.storage.object.s3;

import java.io.ByteArrayInputStream;
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
 * ({@link S3StoreConfig.Builder#probeCache}):
 * {@code <endpoint> <bucket>=<epoch millis> <FOUND,...> tested=<CAPABILITY,...>}, where {@code tested}
 * lists every capability the probe that wrote the entry looked for. An entry whose probe did not look
 * for a capability this build knows (written by an older build, or in the format without
 * {@code tested}) is not trusted, so a capability added to the probe is found at the next open rather
 * than after the maximum age. Each write drops the entries that have aged out, so the file holds at
 * most the endpoint-and-bucket pairs opened within the maximum age. A file that cannot be read or
 * written, is not a regular file or is larger than {@value #MAX_BYTES} bytes is ignored. Not
 * thread-safe; used once per open.
 */
final class ProbeCache {
    private static final Logger LOG = LoggerFactory.getLogger(ProbeCache.class);

    private static final String TESTED = "tested=";

    /**
     * The largest file read: far more than the entries of every endpoint and bucket opened within a
     * day (about 130 bytes each), and small enough that a damaged file costs nothing to skip.
     */
    static final int MAX_BYTES = 1024 * 1024;

    private final Path file;
    private final Duration maxAge;
    private final Clock clock;

    ProbeCache(Path file, Duration maxAge, Clock clock) {
        this.file = file;
        this.maxAge = maxAge;
        this.clock = clock;
    }

    /**
     * The findings recorded for {@code endpoint} and {@code bucket} less than the maximum age ago by a
     * probe that looked for every capability this build knows, or null.
     */
    @Nullable
    Set<S3StoreConfig.Capability> read(String endpoint, String bucket) {
        String entry = load().getProperty(endpoint + " " + bucket);
        if (entry == null) {
            return null;
        }
        @Nullable Set<S3StoreConfig.Capability> found = parse(entry);
        if (found == null) {
            LOG.debug(
                    "Probing {} bucket '{}' again: its remembered findings '{}' are aged out, unreadable or from a"
                            + " probe that did not look for every capability",
                    endpoint,
                    bucket,
                    entry);
        }
        return found;
    }

    /** The capabilities found according to {@code entry} if it is current and complete, else null. */
    @Nullable
    private Set<S3StoreConfig.Capability> parse(String entry) {
        String[] parts = entry.split(" ", -1);
        if (parts.length != 3 || !parts[2].startsWith(TESTED)) {
            return null;
        }
        try {
            long age = clock.millis() - Long.parseLong(parts[0]);
            if (age < 0 || age >= maxAge.toMillis()) {
                return null;
            }
            Set<S3StoreConfig.Capability> tested = capabilities(parts[2].substring(TESTED.length()));
            if (!tested.containsAll(S3StoreConfig.PROBED)) {
                return null;
            }
            return capabilities(parts[1]);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static Set<S3StoreConfig.Capability> capabilities(String names) {
        Set<S3StoreConfig.Capability> set = EnumSet.noneOf(S3StoreConfig.Capability.class);
        if (!names.isEmpty()) {
            for (String name : names.split(",")) {
                set.add(S3StoreConfig.Capability.valueOf(name));
            }
        }
        return set;
    }

    /**
     * Records {@code found} for {@code endpoint} and {@code bucket}, as of now, by a probe that looked
     * for every capability; drops the entries that aged out.
     */
    void write(String endpoint, String bucket, Set<S3StoreConfig.Capability> found) {
        Properties all = load();
        all.stringPropertyNames().forEach(key -> {
            if (parse(all.getProperty(key)) == null) {
                all.remove(key);
            }
        });
        all.setProperty(
                endpoint + " " + bucket,
                clock.millis() + " " + names(found) + " " + TESTED + names(S3StoreConfig.PROBED));
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
            LOG.info("Could not remember the probe's findings in {}: {}", file, e.toString());
        }
    }

    private static String names(Set<S3StoreConfig.Capability> capabilities) {
        StringBuilder names = new StringBuilder();
        for (S3StoreConfig.Capability c : capabilities) {
            names.append(names.length() == 0 ? "" : ",").append(c.name());
        }
        return names.toString();
    }

    /**
     * The file's entries; none when it is missing, is not a regular file (a FIFO would block the read,
     * a device never end), is larger than {@value #MAX_BYTES} bytes or cannot be read. The next write
     * replaces such a file.
     */
    private Properties load() {
        Properties all = new Properties();
        try {
            if (Files.notExists(file)) {
                return all;
            }
            if (!Files.isRegularFile(file)) {
                LOG.info("Ignoring the probe cache {}: it is not a regular file", file);
                return all;
            }
            byte[] bytes;
            try (InputStream in = Files.newInputStream(file)) {
                bytes = in.readNBytes(MAX_BYTES + 1);
            }
            if (bytes.length > MAX_BYTES) {
                LOG.info("Ignoring the probe cache {}: it is larger than {} bytes", file, MAX_BYTES);
                return all;
            }
            all.load(new ByteArrayInputStream(bytes));
        } catch (NoSuchFileException e) {
            // removed meanwhile: nothing remembered
        } catch (IOException | RuntimeException e) {
            LOG.info("Ignoring the unreadable probe cache {}: {}", file, e.toString());
        }
        return all;
    }
}
