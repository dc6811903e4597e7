package dev.ballast.cli;

import dev.ballast.storage.object.ObjectContent;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.VersionEntry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The marker a backup keeps in the store while it runs, so that {@code prune} leaves its backup
 * name alone: the object {@code .ballast-runs/NAME/RUN-ID}, written before the backup reads the
 * previous manifest or stores a byte, written again every {@link #REFRESH} while the run lasts, and
 * removed (every version of it) when the run ends, however it ends. A marker whose newest version is
 * older than {@link #STALE} belongs to a run that died without removing it (kill -9, power cut):
 * prune ignores and removes it. This is restic's protocol for its non-exclusive backup locks (a lock
 * is refreshed every 5 minutes and stale after 30), with the store's own version timestamps as the
 * clock.
 *
 * <p>Backup names cannot start with {@code .ballast}, so no backup's objects live under
 * {@link #PREFIX}. Thread-safe.
 */
final class RunMarker implements AutoCloseable {
    /** Where markers live. */
    static final String PREFIX = ".ballast-runs/";
    /** How often a running backup writes its marker again. */
    static final Duration REFRESH = Duration.ofMinutes(5);
    /** A marker not written for this long belongs to a run that died. */
    static final Duration STALE = Duration.ofMinutes(30);

    private final ObjectStore store;
    private final String key;
    private final byte[] body;
    private final ScheduledExecutorService refresher;
    private volatile boolean abandoned;

    private RunMarker(ObjectStore store, String key, byte[] body) {
        this.store = store;
        this.key = key;
        this.body = body;
        this.refresher = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "ballast-run-marker");
            t.setDaemon(true);
            return t;
        });
    }

    /** The marker key prefix of backup {@code name}. */
    static String prefix(String name) {
        return PREFIX + name + "/";
    }

    /**
     * Writes the marker of a run of backup {@code name} and starts refreshing it.
     *
     * @throws dev.ballast.storage.StorageException if it cannot be written (the backup cannot run either)
     */
    static RunMarker start(ObjectStore store, String name, Clock clock) {
        String runId = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
        String json = "{\"name\":\"" + name.replace("\\", "\\\\").replace("\"", "\\\"") + "\",\"startedAt\":\""
                + clock.instant() + "\",\"host\":\"" + host() + "\",\"pid\":"
                + ProcessHandle.current().pid() + "}";
        RunMarker marker = new RunMarker(store, prefix(name) + runId, json.getBytes(StandardCharsets.UTF_8));
        store.put(marker.key, ObjectContent.ofBytes(marker.body));
        long every = REFRESH.toMillis();
        marker.refresher.scheduleWithFixedDelay(marker::refresh, every, every, TimeUnit.MILLISECONDS);
        return marker;
    }

    private void refresh() {
        try {
            store.put(key, ObjectContent.ofBytes(body));
        } catch (RuntimeException e) {
            // the next refresh tries again; the backup itself reports a store that went away
        }
    }

    private static String host() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName().replaceAll("[^A-Za-z0-9._-]", "_");
        } catch (java.io.IOException e) {
            return "unknown";
        }
    }

    /**
     * Leaves the marker in place when the run ends: the store went away, so removing it would only
     * wait out another timeout; it goes stale after {@link #STALE}.
     */
    void abandon() {
        abandoned = true;
    }

    /** Stops refreshing and removes every version of the marker (unless abandoned); a failure leaves it to go stale. */
    @Override
    public void close() {
        refresher.shutdownNow();
        if (abandoned) {
            return;
        }
        try {
            for (VersionEntry v : store.versions(key)) {
                store.deleteVersion(key, v.versionId());
            }
        } catch (RuntimeException e) {
            // it goes stale after STALE and prune removes it
        }
    }

    /** The live and stale markers of one backup name, as prune found them. */
    record Found(List<VersionEntry> live, List<VersionEntry> stale) {}

    /**
     * Sorts {@code markerVersions} (every version under {@link #prefix(String)}) by whether the newest
     * version of each marker is younger than {@link #STALE} at {@code now}.
     */
    static Found classify(List<VersionEntry> markerVersions, Instant now) {
        java.util.Map<String, Instant> newest = new java.util.HashMap<>();
        for (VersionEntry v : markerVersions) {
            newest.merge(v.key(), v.lastModified(), (a, b) -> a.isAfter(b) ? a : b);
        }
        List<VersionEntry> live = new ArrayList<>();
        List<VersionEntry> stale = new ArrayList<>();
        for (VersionEntry v : markerVersions) {
            (newest.get(v.key()).isAfter(now.minus(STALE)) ? live : stale).add(v);
        }
        return new Found(live, stale);
    }
}
