package dev.ballast.backup.retention;

import dev.ballast.backup.Advice;
import dev.ballast.backup.BackupException;
import dev.ballast.backup.run.RunMarker;
import dev.ballast.backup.snapshot.Manifest;
import dev.ballast.backup.snapshot.ManifestEntry;
import dev.ballast.backup.snapshot.Manifests;
import dev.ballast.storage.ObjectNotFoundException;
import dev.ballast.storage.object.ObjectStore;
import dev.ballast.storage.object.VersionEntry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Deletes the object versions of backups that no manifest version references any more, safely
 * beside backups running at the same time, in three steps:
 *
 * <ol>
 *   <li>Note the time {@code t0}, then list the {@link RunMarker run markers}: a backup name with a
 *       live marker has a run in progress, which may upload versions and reuse the versions of the
 *       manifest it started from; that name is left alone this time (reported; exit 1). The markers
 *       of runs that died (not written for {@link RunMarker#STALE}, or written by a process of this
 *       host that is gone) are removed first, before anything else is deleted, and the markers are
 *       then listed again: a name live in either listing is left alone. A run that was only paused
 *       and writes its marker again finds its previous version gone if this prune removed it first
 *       (and then stores its files again), and is otherwise seen live by the second listing.
 *   <li>List every version of every other name and read every manifest version of it; each
 *       manifest's files name the (key, version ID) pairs it references. A manifest that cannot be
 *       read as a manifest (damaged) leaves its whole name alone, as its references are unknown.
 *   <li>Delete each version of a data key that no manifest references and that was written before
 *       {@code t0 - grace}. A backup that started after the markers were listed wrote its marker,
 *       and so every version it uploads, after {@code t0}: the grace period covers the clock
 *       difference between this machine and the store (S3's version timestamps are the server's).
 *       The version a new run reuses is one its previous manifest references, and {@code forget}
 *       never removes the newest manifest version, so it stays referenced.
 * </ol>
 *
 * Only prefixes that hold a manifest or a run marker are backups: other objects in the bucket are
 * never touched. Manifest versions themselves are removed only by {@code forget}. Not thread-safe;
 * one per run.
 */
public final class Pruner {

    /** What one name's pruning found. */
    public record NameResult(
            String name,
            List<VersionEntry> deleted,
            int referenced,
            int tooNew,
            @Nullable String skippedBecause) {}

    /** What a prune did (or, dry, would do). */
    public record Result(List<NameResult> names, List<VersionEntry> staleMarkers, boolean dryRun) {
        public long deletedBytes() {
            return names.stream()
                    .flatMap(n -> n.deleted().stream())
                    .mapToLong(VersionEntry::size)
                    .sum();
        }

        public int deletedVersions() {
            return names.stream().mapToInt(n -> n.deleted().size()).sum();
        }

        public List<NameResult> skipped() {
            return names.stream().filter(n -> n.skippedBecause() != null).toList();
        }
    }

    private final ObjectStore store;
    private final Clock clock;
    private final Duration grace;
    private final boolean dryRun;
    private final Runnable afterMarkersListed;

    /** A pruner of {@code store}, with no hook. */
    public static Pruner of(ObjectStore store, Clock clock, Duration grace, boolean dryRun) {
        return new Pruner(store, clock, grace, dryRun, () -> {});
    }

    /**
     * @param afterMarkersListed runs once the run markers are listed and before the versions are
     *     (a test's hook to start a backup in that window)
     */
    public Pruner(ObjectStore store, Clock clock, Duration grace, boolean dryRun, Runnable afterMarkersListed) {
        this.store = store;
        this.clock = clock;
        this.grace = grace;
        this.dryRun = dryRun;
        this.afterMarkersListed = afterMarkersListed;
    }

    /**
     * Prunes {@code only} (null: every backup name in the store).
     *
     * @throws dev.ballast.storage.StorageException if the store fails (nothing further is deleted)
     */
    public Result run(@Nullable Set<String> only) {
        Instant t0 = clock.instant();
        List<RunMarker.Found> markers = RunMarker.classify(store, store.listVersions(RunMarker.PREFIX), t0);
        Map<String, RunMarker.Found> running = new TreeMap<>();
        // A prefix is a backup's when it holds a manifest or a run marker: anything else in the bucket
        // (another program's objects) is never touched.
        Set<String> ours = new HashSet<>();
        List<VersionEntry> removed = new ArrayList<>();
        for (RunMarker.Found m : markers) {
            ours.add(m.name());
            if (m.live()) {
                running.putIfAbsent(m.name(), m);
            } else {
                removed.addAll(m.versions());
            }
        }
        if (!dryRun && !removed.isEmpty()) {
            // The markers of runs taken for dead go before anything is deleted, and the markers are listed again
            // afterwards: a run that was only paused and writes its marker again meanwhile either finds its
            // previous version gone (and stores its files again before it writes a manifest) or is seen live here.
            for (VersionEntry v : removed) {
                store.deleteVersion(v.key(), v.versionId());
            }
            for (RunMarker.Found m : RunMarker.classify(store, store.listVersions(RunMarker.PREFIX), t0)) {
                ours.add(m.name());
                if (m.live()) {
                    running.putIfAbsent(m.name(), m);
                }
            }
        }
        afterMarkersListed.run();

        Map<String, List<VersionEntry>> byName = new TreeMap<>();
        for (VersionEntry v : store.listVersions("")) {
            String key = v.key();
            if (key.startsWith(".ballast")) {
                continue; // markers and anything reserved: no backup name starts with .ballast
            }
            int slash = key.indexOf('/');
            if (slash > 0) {
                String name = key.substring(0, slash);
                byName.computeIfAbsent(name, k -> new ArrayList<>()).add(v);
                if (key.equals(Manifest.key(name))) {
                    ours.add(name);
                }
            }
        }
        byName.keySet().retainAll(ours);
        if (only != null) {
            byName.keySet().retainAll(only);
        }
        Instant cutoff = t0.minus(grace);
        List<NameResult> results = new ArrayList<>();
        for (Map.Entry<String, List<VersionEntry>> e : byName.entrySet()) {
            results.add(pruneName(e.getKey(), e.getValue(), running.get(e.getKey()), cutoff));
        }
        return new Result(results, removed, dryRun);
    }

    private NameResult pruneName(
            String name, List<VersionEntry> versions, RunMarker.@Nullable Found running, Instant cutoff) {
        if (running != null) {
            return new NameResult(
                    name,
                    List.of(),
                    0,
                    0,
                    "a backup of it may be running (its run marker, " + running.describe()
                            + ", was written less than " + RunMarker.STALE.toMinutes()
                            + " minutes ago; if no backup of '"
                            + name + "' is running, " + Advice.REMOVE_MARKER.text() + ")");
        }
        String manifestKey = Manifest.key(name);
        Set<String> referenced = new HashSet<>();
        for (VersionEntry v : versions) {
            if (!v.key().equals(manifestKey) || v.deleteMarker()) {
                continue;
            }
            Manifest m;
            try {
                m = Manifests.read(store, name, v.versionId());
            } catch (ObjectNotFoundException gone) {
                continue; // forgotten meanwhile: it references nothing any more
            } catch (BackupException | dev.ballast.storage.IntegrityException damaged) {
                dev.ballast.storage.IntegrityException.rethrowIfInStoreIndex(
                        damaged); // the store's index, not what was read
                return new NameResult(
                        name,
                        List.of(),
                        0,
                        0,
                        "its manifest version " + v.versionId() + " is damaged, so what " + "it references is unknown; "
                                + Advice.FORGET_VERSION.text(name, v.versionId()));
            }
            for (ManifestEntry f : m.files()) {
                referenced.add(m.objectKeyOf(f.path()) + "\n" + f.versionId());
            }
        }
        List<VersionEntry> deleted = new ArrayList<>();
        int kept = 0;
        int tooNew = 0;
        for (VersionEntry v : versions) {
            if (v.key().equals(manifestKey)) {
                continue;
            }
            if (referenced.contains(v.key() + "\n" + v.versionId())) {
                kept++;
            } else if (v.lastModified() == null || !v.lastModified().isBefore(cutoff)) {
                tooNew++;
            } else {
                if (!dryRun) {
                    store.deleteVersion(v.key(), v.versionId());
                }
                deleted.add(v);
            }
        }
        return new NameResult(name, deleted, kept, tooNew, null);
    }
}
