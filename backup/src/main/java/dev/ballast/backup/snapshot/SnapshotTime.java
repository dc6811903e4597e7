package dev.ballast.backup.snapshot;

import dev.ballast.storage.object.VersionEntry;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The one time a snapshot (manifest version) is shown with, wherever it is named: when its backup
 * run started (the manifest's {@code createdAt}), as restic shows a snapshot's time, in UTC to the
 * second ({@code 2026-12-03 17:49:47 UTC}). {@code list}, {@code ls}, {@code forget},
 * {@code restore} and the notes on damaged and incomplete versions all show this, so the same
 * snapshot has the same time everywhere. Only a version whose manifest cannot be read is shown with
 * the time the store wrote it (its last-modified time, about when its run ended): that is the only
 * time there is.
 */
public final class SnapshotTime {
    private static final DateTimeFormatter FORMAT = DateTimeFormatter.ofPattern(
                    "yyyy-MM-dd HH:mm:ss 'UTC'", Locale.ROOT)
            .withZone(ZoneOffset.UTC);

    private SnapshotTime() {}

    /** {@code startedAt} as every command shows a snapshot's time: {@code 2026-12-03 17:49:47 UTC}. */
    public static String format(Instant startedAt) {
        return FORMAT.format(startedAt);
    }

    /** The time of the snapshot {@code m}, shown: when its run started. */
    public static String of(Manifest m) {
        return format(m.createdAt());
    }

    /**
     * The time of the version {@code v}: when its run started, from its manifest {@code m}, or the
     * version's last-modified time when the manifest could not be read ({@code m} null).
     */
    public static Instant instant(@Nullable Manifest m, VersionEntry v) {
        return m != null ? m.createdAt() : v.lastModified();
    }
}
